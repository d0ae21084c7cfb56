package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
)

// A stay at a supplier's hotel is confirmed by the supplier: after the reservation (local stock,
// or a direct_connect supplier's quote) the workflow asks the supplier to confirm, retrying
// while it does not answer, until the hold runs out. A stay sold through a channel is then
// confirmed on the channel's account; a direct sale waits for payment as any hold does. A
// rejection, a cancel or the hold running out releases everything, tells the supplier the
// booking is off, and notifies the agent.

// IssueSupplierNotTold is the PaymentIssue of a booking whose supplier could not be told it is
// off; TellSupplierWorkflow tells it again.
const IssueSupplierNotTold = "supplier_not_told"

// DefaultSupplierStuckAfter is how long a supplier may leave a booking unanswered before the
// booking shows as SUPPLIER_STUCK to operators.
const DefaultSupplierStuckAfter = 2 * time.Minute

// DefaultSupplierTellFor is how long telling a supplier that a booking is off is retried.
const DefaultSupplierTellFor = 2 * time.Minute

// StatusSupplierStuck is the BookingStatus search attribute of a booking whose supplier has not
// answered for SupplierStuckAfter.
const StatusSupplierStuck = "SUPPLIER_STUCK"

// Agent notification events.
const (
	EventConfirmed       = "confirmed"
	EventRejected        = "rejected"
	EventSupplierTimeout = "supplier_timeout"
	EventCancelled       = "cancelled"
	EventExpired         = "expired"
	// EventAmended: an amendment of the booking was applied (its amendment id is given).
	EventAmended = "amended"
)

// afterReserve runs the steps a new hold takes before it waits for payment: the supplier's
// confirmation at a supplier's hotel, and a sale through a channel is confirmed on the channel's
// account (agents do not pay at checkout). A direct sale, or a booking that was not held, goes
// on as it is.
func (b *booking) afterReserve(ctx workflow.Context) error {
	switch {
	case b.status() != domain.StatusHold:
		return nil
	case b.in.SupplierID != "":
		return b.confirmWithSupplier(ctx)
	case b.in.ChannelID != "":
		return b.confirmOnAccount(ctx, "")
	}
	return nil
}

// confirmOnAccount confirms a hold sold through a channel, which is invoiced, and tells the agent.
func (b *booking) confirmOnAccount(ctx workflow.Context, detail string) error {
	if err := b.confirm(ctx, nil, activities.ActorOnAccount); err != nil || b.status() != domain.StatusConfirmed {
		return err // the hold ran out as it was confirmed: released (and the supplier told)
	}
	if detail == "" {
		detail = "confirmed on the channel's account"
	}
	return b.notifyAgent(ctx, offNotice{event: EventConfirmed, detail: detail})
}

// confirmWithSupplier asks the supplier to confirm the booking on hold, racing the hold's expiry
// and the guest's or agent's cancel.
func (b *booking) confirmWithSupplier(ctx workflow.Context) error {
	b.state.Reason = "waiting for the supplier to confirm"
	b.supplierPending = true
	defer func() { b.supplierPending = false }()
	actCtx, abort := workflow.WithCancel(supplierActivity(ctx, until(ctx, b.state.Booking.ExpiresAt)))
	defer abort()
	answer := workflow.ExecuteActivity(actCtx, supplierSteps.ConfirmWithSupplier, b.in.BookingID)
	stuckCtx, stopStuck := workflow.WithCancel(ctx)
	defer stopStuck()
	stuck := workflow.NewTimer(stuckCtx, b.in.SupplierStuckAfter)

	var out activities.SupplierOutcome
	var err error
	var cancelledBy *command
	answered, cancelled := false, false
	for !answered && !cancelled {
		sel := workflow.NewSelector(ctx)
		sel.AddFuture(answer, func(f workflow.Future) {
			answered, err = true, f.Get(ctx, &out)
		})
		if stuck != nil {
			sel.AddFuture(stuck, func(workflow.Future) {
				stuck, b.supplierStuck = nil, true
				b.logger.Warn("The supplier has not answered", "after", b.in.SupplierStuckAfter)
				err = b.publish(ctx)
			})
		}
		sel.AddReceive(b.commands, func(c workflow.ReceiveChannel, _ bool) {
			var cmd *command
			c.Receive(ctx, &cmd)
			if cmd.name == UpdateCancel {
				cancelled, cancelledBy = true, cmd
			} else {
				if cmd.name == UpdateAmend {
					cmd.refusal = notAmendable("the supplier has not confirmed the booking yet")
				}
				cmd.done = true // only the supplier confirms (its validator says so), and nothing is checked in yet
			}
		})
		if !b.cancelSeen {
			sel.AddReceive(b.cancelled, func(workflow.ReceiveChannel, bool) { b.cancelSeen, cancelled = true, true })
		}
		sel.Select(ctx)
		if err != nil && !answered {
			return err
		}
	}
	b.supplierStuck = false
	if cancelled {
		// The attempt in flight is waited for (WaitForCancellation), so the supplier hears the
		// cancel after the hold request, never before it.
		abort()
		_ = answer.Get(ctx, nil)
		b.busy = true
		actor := activities.ActorOperator // the workflow's cancellation
		if cancelledBy != nil {
			actor = cancelledBy.actor
		}
		err := b.release(ctx, domain.StatusCancelled, "cancelled while the supplier was confirming", actor)
		b.busy = false
		if cancelledBy != nil {
			cancelledBy.done = true
		}
		if err != nil {
			return err
		}
		return b.bookingOff(ctx, EventCancelled, b.state.Reason)
	}
	var appErr *temporal.ApplicationError
	switch {
	case err == nil && out.Confirmed:
		return b.supplierConfirmed(ctx, out.Booking)
	case err == nil, errors.As(err, &appErr) && appErr.Type() == activities.ErrTypeSupplierRefused:
		reason := out.Reason
		if err != nil {
			reason = "the supplier refused the booking: " + appErr.Message()
		}
		if !b.takes(ctx, versionSupplierRejects) {
			if err := b.release(ctx, domain.StatusCancelled, reason, activities.ActorSupplier); err != nil {
				return err
			}
			return b.notifyAgent(ctx, offNotice{event: EventRejected, detail: reason})
		}
		// REJECTED, with the supplier's reason on the booking (for staff and the agent: customers
		// are shown a fixed sentence); the supplier hears the booking is off too, in case it
		// holds anything for it.
		reason = domain.SupplierRefusal(reason)
		if err := b.release(ctx, domain.StatusRejected, reason, activities.ActorSupplier); err != nil {
			return err
		}
		return b.bookingOff(ctx, EventRejected, reason)
	}
	// Out of time: the supplier did not answer before the hold ran out.
	b.logger.Warn("The supplier did not confirm before the hold ran out", "error", err)
	if err := b.release(ctx, domain.StatusExpired, "the supplier did not confirm before the hold ran out", activities.ActorSupplier); err != nil {
		return err
	}
	return b.bookingOff(ctx, EventSupplierTimeout, b.state.Reason)
}

// versionSupplierRejects marks the workflows in which a supplier's refusal makes the booking
// REJECTED with its reason and tells the supplier the booking is off (before: CANCELLED, and
// only the agent heard).
const versionSupplierRejects = "supplier-rejects"

// supplierConfirmed records the supplier's confirmation: a stay sold through a channel is
// confirmed on the channel's account at once; a direct sale goes on waiting for payment.
func (b *booking) supplierConfirmed(ctx workflow.Context, stored domain.Booking) error {
	b.state.Booking, b.state.Reason = stored, ""
	b.supplierPending = false
	b.logger.Info("The supplier confirmed", "confirmation", stored.SupplierRef)
	if b.in.ChannelID == "" {
		return b.publish(ctx)
	}
	return b.confirmOnAccount(ctx, "confirmed by the supplier: "+stored.SupplierRef)
}

// offNotice is a booking that went off (cancelled, expired), for its supplier and agent to hear,
// or an amendment of it (amendment set), for its agent alone.
type offNotice struct {
	event, detail string
	amendment     int64
}

// bookingOff queues telling the supplier (it may have confirmed the booking, or may still) and
// the agent that the booking is off. The main loop does it once the request that ended the
// booking is answered, so a slow supplier or webhook never holds that answer up (histories from
// before versionNoticeAfterAnswer told them at once).
func (b *booking) bookingOff(ctx workflow.Context, event, detail string) error {
	if b.in.SupplierID == "" && b.in.AgentID == "" {
		return nil
	}
	b.offPending = append(b.offPending, offNotice{event: event, detail: detail})
	if !b.takes(ctx, versionNoticeAfterAnswer) {
		return b.flushBookingOff(ctx)
	}
	return nil
}

// versionNoticeAfterAnswer marks the workflows that answer a cancel before telling the supplier
// and the agent.
const versionNoticeAfterAnswer = "notice-after-answer"

// flushBookingOff tells the supplier and the agent what bookingOff queued. A supplier that
// cannot be told is flagged for operators; the booking itself is already settled here.
func (b *booking) flushBookingOff(ctx workflow.Context) error {
	b.flushSupplierCancels(ctx)
	for len(b.offPending) > 0 {
		n := b.offPending[0]
		b.offPending = b.offPending[1:]
		if b.in.SupplierID != "" && n.amendment == 0 {
			err := workflow.ExecuteActivity(supplierCleanupActivity(ctx, b.in.SupplierTellFor), supplierSteps.CancelWithSupplier,
				b.in.BookingID).Get(ctx, nil)
			if err != nil {
				b.logger.Error("The supplier could not be told the booking is off", "error", err)
				b.state.Issue = IssueSupplierNotTold
				if err := b.publish(ctx); err != nil {
					return err
				}
				// Recorded on the booking too: the flag above may be overwritten by a later issue.
				if b.takes(ctx, versionNotToldRecorded) {
					if err := workflow.ExecuteActivity(dbActivity(ctx), supplierSteps.RecordSupplierNotTold,
						b.in.BookingID).Get(ctx, nil); err != nil {
						return err
					}
				}
			}
		}
		if err := b.notifyAgent(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

// versionNotToldRecorded marks the workflows that record on the booking that its supplier
// could not be told it is off.
const versionNotToldRecorded = "not-told-recorded"

// notifyAgent tells the booking's agent, if it has one, what became of it. A notification that
// cannot be delivered stays recorded for the agent to read; the booking does not wait for it.
func (b *booking) notifyAgent(ctx workflow.Context, n offNotice) error {
	if b.in.AgentID == "" {
		return nil
	}
	err := workflow.ExecuteActivity(notifyActivity(ctx), supplierSteps.NotifyAgent, activities.NotifyInput{
		BookingID: b.in.BookingID, AgentID: b.in.AgentID, Event: n.event, Detail: n.detail, AmendmentID: n.amendment}).Get(ctx, nil)
	if err != nil {
		b.logger.Warn("The agent's webhook was not delivered; the notification stays recorded", "event", n.event, "error", err)
	}
	return nil
}

var supplierSteps *activities.Suppliers

// supplierActivity bounds asking the supplier by the time left on the hold; each attempt has
// 12 seconds, and attempts go on (backing off to 30 s) while the supplier does not answer. A
// cancelled attempt is waited for, so a cancel sent afterwards reaches the supplier after it.
func supplierActivity(ctx workflow.Context, left time.Duration) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		WaitForCancellation:    true,
		ScheduleToCloseTimeout: left,
		StartToCloseTimeout:    min(12*time.Second, left),
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
			NonRetryableErrorTypes: []string{activities.ErrTypeSupplierRefused}},
	})
}

// supplierCleanupActivity tells a supplier a booking is off, trying for up to tellFor.
func supplierCleanupActivity(ctx workflow.Context, tellFor time.Duration) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		ScheduleToCloseTimeout: tellFor,
		StartToCloseTimeout:    min(15*time.Second, tellFor),
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
			NonRetryableErrorTypes: []string{activities.ErrTypeSupplierRefused}},
	})
}

// notifyActivity delivers an agent's notification, a few times at most.
func notifyActivity(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 15 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
			MaximumAttempts: 5},
	})
}

// TellSupplierWorkflow tells a booking's supplier again that the booking is off (an operator's
// or the invariant checker's retry of a supplier_not_told booking), trying for two minutes.
// Its id is TellSupplierID(bookingID).
func TellSupplierWorkflow(ctx workflow.Context, bookingID string) error {
	return workflow.ExecuteActivity(supplierCleanupActivity(ctx, DefaultSupplierTellFor), supplierSteps.CancelWithSupplier,
		bookingID).Get(ctx, nil)
}

// SupplierSyncWorkflow pulls a supplier's stock once (its schedule starts it every
// SUPPLIER_SYNC_INTERVAL) and answers what changed, per hotel.
func SupplierSyncWorkflow(ctx workflow.Context, supplierID string) (activities.PullResult, error) {
	var out activities.PullResult
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		HeartbeatTimeout:    2 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	}), supplierSteps.PullStock, supplierID).Get(ctx, &out)
	if err == nil && len(out.Failed) > 0 {
		workflow.GetLogger(ctx).Warn("Some hotels' stock was not pulled", "supplier", supplierID, "failed", out.Failed)
	}
	return out, err
}

// ExpireStopSellsWorkflow marks the stop-sells whose last night is over expired (its schedule
// starts it hourly).
func ExpireStopSellsWorkflow(ctx workflow.Context) (int, error) {
	var n int
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	}), supplierSteps.ExpireStopSells).Get(ctx, &n)
	return n, err
}
