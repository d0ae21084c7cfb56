package workflows

import (
	"errors"
	"slices"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
)

// A confirmation run as a local activity (b.confirmLocally) answers a payment in the workflow
// task that received it: no activity task through the server, one workflow task less. But a
// local activity commits before its workflow task is recorded. A worker that dies in between
// leaves the booking confirmed in the database, and the retried task decides again with what
// arrived meanwhile, perhaps a cancel or the hold's expiry before the payment. So a payment that
// waited beside a command is taken before it (paymentFirst), and every step a workflow may take
// for a hold recognises a database that is ahead of it (ErrTypeAhead: "already confirmed by
// payment P"): the workflow takes the booking as the database has it and carries on from there,
// as it would have after the confirmation. The confirmation itself, run again, answers the
// booking it confirmed (db.Store.Confirm).

// errCaughtUp is what a hold's step returns when the database held the booking confirmed: the
// workflow took that booking, and the step's caller goes on from the confirmed booking.
var errCaughtUp = errors.New("the database had the booking confirmed: the workflow caught up")

// runConfirm runs the confirmation of a hold, locally when the workflow may.
func (b *booking) runConfirm(ctx workflow.Context, in activities.ConfirmInput) workflow.Future {
	if !b.confirmLocally {
		return workflow.ExecuteActivity(dbActivity(ctx), bookings.Confirm, in)
	}
	in.CatchUp = true
	return workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: dbStepTimeout, RetryPolicy: dbRetryPolicy()}), bookings.Confirm, in)
}

// caughtUp reports whether err is ErrTypeAhead; if so the workflow takes the booking the database
// answered, and publishes it.
func (b *booking) caughtUp(ctx workflow.Context, err error) (bool, error) {
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != activities.ErrTypeAhead {
		return false, nil
	}
	var stored domain.Booking
	if err := appErr.Details(&stored); err != nil {
		return true, err
	}
	b.state.Booking, b.state.Reason = stored, ""
	if stored.PaymentID != "" {
		b.seen[stored.PaymentID] = true // its event, handled after, is the one that confirmed
	}
	b.logger.Info("The database was ahead: caught up", "reason", appErr.Message(), "status", stored.Status)
	return true, b.publish(ctx)
}

// caughtUpOr returns errCaughtUp when err is ErrTypeAhead (the workflow took the database's
// booking), or err.
func (b *booking) caughtUpOr(ctx workflow.Context, err error) error {
	if caught, cerr := b.caughtUp(ctx, err); caught && cerr == nil {
		return errCaughtUp
	} else if caught {
		return cerr
	}
	return err
}

// paymentFirst reports whether a payment waiting in the channel, while the workflow believes the
// booking held, is taken before the command beside it: it was waiting when that command was
// accepted (version 5: any payment waiting). The order they arrived in is kept: a retried task
// confirms again (answered by the confirmation its lost task committed) before it judges a
// cancel, a check-in or a refund that came after the payment by the held booking it would
// otherwise believe in, and a cancel accepted before its payment arrived is still taken first.
func (b *booking) paymentFirst() bool {
	if b.status() != domain.StatusHold || b.payments.Len() == 0 {
		return false
	}
	return b.paymentsFirst || (b.paymentsInOrder && len(b.queued) > 0 && b.queued[0].paymentsBefore > 0)
}

// enqueue hands cmd to the main loop, noting the payments waiting when it was accepted.
func (b *booking) enqueue(ctx workflow.Context, cmd *command) {
	if b.paymentsInOrder {
		cmd.paymentsBefore = b.payments.Len()
		b.queued = append(b.queued, cmd)
	}
	b.commands.Send(ctx, cmd)
}

// dequeue forgets cmd, which the main loop takes.
func (b *booking) dequeue(cmd *command) {
	b.queued = slices.DeleteFunc(b.queued, func(c *command) bool { return c == cmd })
}

// paymentTaken counts the oldest payment waiting as taken: one fewer before each command.
func (b *booking) paymentTaken() {
	for _, c := range b.queued {
		c.paymentsBefore = max(c.paymentsBefore-1, 0)
	}
}

// takeWaitingPayment takes the payment paymentFirst found, as serve would.
func (b *booking) takeWaitingPayment(ctx workflow.Context) error {
	var ev domain.PaymentEvent
	b.payments.ReceiveAsync(&ev)
	b.busy = true
	err := b.caughtUpWithin(b.onPayment(ctx, ev))
	b.busy = false
	if err == nil {
		err = b.flushBookingOff(ctx)
	}
	if err == nil {
		err = b.flushFee(ctx)
	}
	return err
}

// caughtUpWithin ends a step that caught up (errCaughtUp) where no caller took it: the workflow
// took the confirmed booking, and the rest of the step, meant for a hold, no longer applies.
func (b *booking) caughtUpWithin(err error) error {
	if errors.Is(err, errCaughtUp) {
		b.logger.Warn("A step caught up with a confirmed booking; the rest of it was for a hold", "status", b.status())
		return nil
	}
	return err
}

// confirmedAhead finishes a confirmation the database had made already: pay, when set, is not
// the payment that confirmed it, so it is a second payment and goes back.
func (b *booking) confirmedAhead(ctx workflow.Context, pay *domain.Payment) error {
	if pay == nil {
		return nil
	}
	return b.refundExtra(ctx, *pay, IssueDuplicatePayment, "a second payment for a booking already paid")
}
