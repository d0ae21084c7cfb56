package workflows

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
)

// Error types of operator actions refused: nothing is stuck, another action is under way, or a
// resolution by hand while the provider may still give the money back (Saga.InFlight).
const (
	ErrTypeNotStuck       = "NotStuck"
	ErrTypeOperatorBusy   = "OperatorBusy"
	ErrTypeRefundInFlight = "RefundInFlight"
)

// OperatorAction is an operator's decision on a stuck refund: retry it, or mark it resolved by
// hand. Actor and Reason are required; the API writes them to the audit log.
type OperatorAction struct {
	Actor  string
	Reason string
	// Key, when the operator's request carried an idempotency key, is claimed in the booking's
	// key space (db.OperatorCommand) before the action is taken: the same action again is
	// answered with the booking's state and taken no more; a key another command holds is
	// refused (activities.ErrTypeIdempotencyMismatch).
	Key string `json:",omitempty"`
}

// versionOperatorKeys marks the workflows that claim an operator action's key. A new change: the
// lean histories that took earlier changes without their markers (b.takes) did not take it.
const versionOperatorKeys = "operator-keys"

// ErrTypeActionTaken is the answer to an operator's action sent again under the key of the same
// action taken before: nothing is done again (the API answers it as the first).
const ErrTypeActionTaken = "ActionTaken"

// claimOperatorKey claims action a's key (update name) for this update: an error when the same
// action was taken before under it (ErrTypeActionTaken) or another command holds it. The claim is
// tried a few times, then the update fails and frees the operators' lock: a database that refuses
// it for good never blocks the booking's operators.
func (b *booking) claimOperatorKey(ctx workflow.Context, name string, a OperatorAction) error {
	if a.Key == "" || workflow.GetVersion(ctx, versionOperatorKeys, workflow.DefaultVersion, 1) != 1 {
		return nil
	}
	claimer := workflow.GetInfo(ctx).WorkflowExecution.RunID + "/" + workflow.GetCurrentUpdateInfo(ctx).ID
	var fresh bool
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: dbStepTimeout,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumAttempts: 5},
	}), bookings.ClaimOperatorKey, activities.OperatorKeyClaim{
		Command: db.OperatorCommand(b.in.BookingID, a.Key, name == UpdateResolveRefund, a.Actor), Claimer: claimer,
	}).Get(ctx, &fresh)
	var appErr *temporal.ApplicationError
	switch {
	case errors.As(err, &appErr) && appErr.Type() == activities.ErrTypeIdempotencyMismatch:
		return temporal.NewApplicationError(appErr.Message(), activities.ErrTypeIdempotencyMismatch)
	case err != nil:
		return err
	case !fresh:
		return temporal.NewApplicationError("the same action was taken under key "+a.Key, ErrTypeActionTaken)
	}
	return nil
}

// setOperatorHandlers registers the operators' retry-refund and resolve-refund updates, which
// every workflow that runs refund sagas takes (the booking, a late payment, a recovery). They are
// refused unless a saga waits for an operator (awaitOperator), and while another action is taken.
func (b *booking) setOperatorHandlers(ctx workflow.Context) error {
	validate := func(OperatorAction) error {
		if len(b.stuck) == 0 {
			return temporal.NewApplicationError("no refund of this booking is waiting for an operator", ErrTypeNotStuck)
		}
		return b.checkOperatorFree()
	}
	// A resolution says the refund was made by hand: while an attempt of it may still be given
	// back by the provider, that could pay the guest twice (and a decline later leaves it owed).
	validateResolve := func(a OperatorAction) error {
		for _, s := range b.waiting {
			if s.InRefund && s.InFlight {
				return temporal.NewApplicationError(fmt.Sprintf("refund attempt %d of %s is still pending at the provider: "+
					"retry it (the provider is asked for its answer) and resolve only once it was declined", s.Attempt,
					s.refundStep()), ErrTypeRefundInFlight)
			}
		}
		return validate(a)
	}
	for _, name := range []string{UpdateRetryRefund, UpdateResolveRefund} {
		// An action applies to every refund step waiting at the time; the handler answers once
		// they have all taken it. One action at a time, so each keeps its own intent: a retry and
		// a resolve sent together never both act as the later one.
		handler := func(ctx workflow.Context, a OperatorAction) (BookingState, error) {
			ctx = uncancellable(ctx)
			if err := b.checkOperatorFree(); err != nil {
				return b.state, err // accepted beside another in the same workflow task
			}
			b.opBusy = true
			defer func() { b.opBusy = false }()
			if err := b.claimOperatorKey(ctx, name, a); err != nil {
				return b.state, err // the same action again, or the key holds another command
			}
			b.opRound++
			b.opResolve, b.opAction = name == UpdateResolveRefund, a
			round := b.opRound
			b.logger.Info("Operator action on stuck refunds", "action", name, "actor", a.Actor, "reason", a.Reason)
			if b.opResolve {
				b.state.Reason = "resolved by " + a.Actor + ": " + a.Reason
			}
			err := workflow.Await(ctx, func() bool {
				for _, waitingFor := range b.stuck {
					if waitingFor <= round {
						return false // a step this action applies to has not taken it yet
					}
				}
				return true
			})
			return b.state, err
		}
		validator := validate
		if name == UpdateResolveRefund {
			validator = validateResolve
		}
		if err := workflow.SetUpdateHandlerWithOptions(ctx, name, handler,
			workflow.UpdateHandlerOptions{Validator: validator}); err != nil {
			return err
		}
	}
	return nil
}

// checkOperatorFree refuses an operator action while another is still being taken.
func (b *booking) checkOperatorFree() error {
	if b.opBusy {
		return temporal.NewApplicationError("another operator action on this booking is being carried out; "+
			"send yours again once it is answered", ErrTypeOperatorBusy)
	}
	return nil
}

// awaitOperator marks the booking PAYMENT_STUCK and waits for an operator's retry (false) or
// resolution (true) of saga s, stuck at step. A saga handed over waiting takes the first
// operator action of the run, even one taken before it got here. answered, when not nil, ends
// the wait as a retry would, without an operator: the refund the step waited for was settled
// meanwhile (handed over at the desk a day late, say).
func (b *booking) awaitOperator(ctx workflow.Context, s *Saga, step, why string, answered func() bool) (resolved bool, err error) {
	round, handedOver := b.stuck[s.ID]
	if !handedOver || !s.Parked {
		round = b.opRound + 1
		b.count(ctx, MetricStuck, nil) // not for a saga handed over already waiting
	}
	if !handedOver || !s.Parked {
		if err := b.tellPaymentStuck(ctx, s, round, step, why); err != nil {
			return false, err
		}
	}
	b.stuck[s.ID], b.waiting[s.ID] = round, s
	s.Parked, s.Waiting = true, why
	b.state.Reason = why
	b.logger.Error("Payment stuck: waiting for an operator", "step", step, "reason", why)
	if err := b.publish(ctx); err != nil {
		return false, err
	}
	woken := func() bool { return b.opRound >= round }
	if answered != nil && workflow.GetVersion(ctx, versionStuckWakesOnAnswer, workflow.DefaultVersion, 1) == 1 {
		woken = func() bool { return b.opRound >= round || answered() }
	}
	err = workflow.Await(ctx, woken)
	delete(b.stuck, s.ID)
	delete(b.waiting, s.ID)
	s.Parked, s.Waiting = false, ""
	if err != nil {
		return false, err
	}
	return b.opResolve, b.publish(ctx)
}

// versionStuckWakesOnAnswer marks the workflows in which a refund step parked for an operator
// while its attempt was under way goes on by itself once that attempt is settled (its webhook, or
// its hand-over at the desk, arriving after RefundWait); before, it waited for an operator's retry.
const versionStuckWakesOnAnswer = "stuck-wakes-on-answer"

// versionStuckEvent marks the workflows that tell integrators of a refund handed to an operator
// (booking.payment_stuck). A new change: the lean histories that took earlier changes without
// their markers (b.takes) did not take this one, so it asks GetVersion itself.
const versionStuckEvent = "payment-stuck-event"

// tellPaymentStuck queues the booking.payment_stuck event of saga s's new wait for an operator.
func (b *booking) tellPaymentStuck(ctx workflow.Context, s *Saga, round int, step, why string) error {
	if workflow.GetVersion(ctx, versionStuckEvent, workflow.DefaultVersion, 1) != 1 {
		return nil
	}
	key := fmt.Sprintf("%s_%d_%d", workflow.GetInfo(ctx).WorkflowExecution.ID, s.ID, round)
	return workflow.ExecuteActivity(dbActivity(ctx), refunds.RecordPaymentStuck, activities.PaymentStuck{
		Key: key, BookingID: b.in.BookingID, Step: step, Reason: why}).Get(ctx, nil)
}
