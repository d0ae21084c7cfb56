package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
)

// hold waits for payment, a confirm or a cancel, raced against the hold timer.
func (b *booking) hold(ctx workflow.Context) error {
	return b.serve(ctx, until(ctx, b.state.Booking.ExpiresAt), func() error {
		var err error
		if b.state.Booking.Paid > 0 {
			err = b.depositExpired(ctx, nil) // the desk took part of the price: it goes back
		} else if err = b.release(ctx, domain.StatusExpired, "the hold expired before payment was confirmed", ""); err == nil {
			err = b.bookingOff(ctx, EventExpired, b.state.Reason)
		}
		if errors.Is(err, errCaughtUp) {
			return nil // a payment confirmed the booking before its hold ran out
		}
		return err
	})
}

// stay keeps a confirmed booking cancellable until its use is over. Until its no-show deadline it
// waits to be checked in; past it, a booking still not checked in is a no-show.
func (b *booking) stay(ctx workflow.Context) error {
	if b.status() == domain.StatusConfirmed && !b.in.NoShowAt.IsZero() && !b.departed && !b.excused &&
		b.takes(ctx, versionNoShow) {
		return b.serve(ctx, until(ctx, b.in.NoShowAt), func() error {
			if b.status() != domain.StatusConfirmed || b.departed || b.excused {
				return nil
			}
			return b.noShow(ctx, "")
		})
	}
	return b.serve(ctx, until(ctx, b.in.ends()), func() error {
		b.stayOver = true
		return nil
	})
}

// uncancellable detaches an update handler's context from the workflow's cancellation, so a
// request accepted before a cancel still gets its answer.
func uncancellable(ctx workflow.Context) workflow.Context {
	ctx, _ = workflow.NewDisconnectedContext(ctx)
	return ctx
}

// until returns the time left until t, at least a millisecond: a deadline already passed (the
// reservation took longer than the hold, say) fires at once rather than never.
func until(ctx workflow.Context, t time.Time) time.Duration {
	return max(t.Sub(workflow.Now(ctx)), time.Millisecond)
}

// linger keeps a settled booking listening for late payments for the late window. It reports
// again when a late payment moved the booking on (confirmed it, or started a refund).
func (b *booking) linger(ctx workflow.Context) (again bool, err error) {
	if b.lingerUntil.IsZero() {
		b.lingerUntil = workflow.Now(ctx).Add(b.in.LateWindow)
	}
	err = b.serve(ctx, until(ctx, b.lingerUntil), func() error { return nil })
	return b.active(), err
}

// serve handles commands and payments in the booking's current phase, until something moves the
// booking on, the phase's timer fires (then it runs onTimer; no timer when d is 0), or the
// workflow is cancelled (then the booking is cancelled as if the guest had asked).
func (b *booking) serve(ctx workflow.Context, d time.Duration, onTimer func() error) error {
	timerCtx, cancelTimer := workflow.WithCancel(ctx)
	defer cancelTimer() // the phase ended another way: the timer is no longer needed
	var timer workflow.Future
	if d != 0 {
		timer = workflow.NewTimer(timerCtx, d)
	}
	var balanceDue workflow.Future // a pending amendment's balance window
	if p := b.state.Pending; p != nil {
		balanceDue = workflow.NewTimer(timerCtx, until(ctx, p.DueBy))
	}
	planDue := b.planBalanceTimer(ctx, timerCtx) // a deposit plan's balance date
	b.replan = false
	phase, stayOver, active := b.status(), b.stayOver, b.active()
	var err error
	fired := false
	for err == nil && !fired && !b.continuing && !b.replan && b.status() == phase && b.stayOver == stayOver && b.active() == active {
		if b.paymentFirst() {
			err = b.takeWaitingPayment(ctx)
			continue
		}
		sel := workflow.NewSelector(ctx)
		if timer != nil {
			sel.AddFuture(timer, func(workflow.Future) {
				fired, b.busy = true, true
				err = onTimer()
			})
		}
		if balanceDue != nil && b.state.Pending != nil {
			sel.AddFuture(balanceDue, func(workflow.Future) {
				b.busy = true
				err = b.lapseBalance(ctx)
			})
		}
		if planDue != nil {
			sel.AddFuture(planDue, func(workflow.Future) {
				planDue, b.busy = nil, true
				err = b.lapsePlanBalance(ctx)
			})
		}
		sel.AddReceive(b.wake, func(c workflow.ReceiveChannel, _ bool) {
			c.Receive(ctx, nil)
			b.continuing = b.shouldContinueAsNew(ctx)
		})
		sel.AddReceive(b.commands, func(c workflow.ReceiveChannel, _ bool) {
			var cmd *command
			c.Receive(ctx, &cmd)
			b.busy = true
			err = b.handle(ctx, cmd)
		})
		sel.AddReceive(b.payments, func(c workflow.ReceiveChannel, _ bool) {
			var ev domain.PaymentEvent
			c.Receive(ctx, &ev)
			b.busy = true
			err = b.onPayment(ctx, ev)
		})
		if !b.cancelSeen {
			sel.AddReceive(b.cancelled, func(workflow.ReceiveChannel, bool) {
				b.cancelSeen, b.busy = true, true
				err = b.cancel(ctx, "the workflow was cancelled by an operator", workflow.Now(ctx), activities.ActorOperator)
			})
		}
		sel.Select(ctx)
		b.busy = false
		err = b.caughtUpWithin(err)
		if err == nil {
			// Requests are answered first; the supplier and agent hear after, and a card is
			// charged its fee.
			err = b.flushBookingOff(ctx)
		}
		if err == nil {
			err = b.flushFee(ctx)
		}
	}
	return err
}

// handle carries out one command in the booking's current state and marks it done.
func (b *booking) handle(ctx workflow.Context, cmd *command) error {
	defer func() { cmd.done = true }()
	b.dequeue(cmd)
	switch {
	case cmd.name == UpdateCancel:
		return b.cancel(ctx, "cancelled at the guest's request", cmd.at, cmd.actor)
	case cmd.name == UpdateCheckOut && b.status() == domain.StatusCompleted && b.in.Order == nil && !b.stayOver:
		_, err := b.departEarly(ctx, cmd.at, cmd.actor, true) // new with the update: no marker to consult
		return err
	case cmd.name == UpdateConfirm && b.status() == domain.StatusHold:
		return b.confirm(ctx, nil, cmd.actor)
	case cmd.name == UpdateNoShow && b.noShowable(): // its validator judged that it had started
		return b.noShow(ctx, cmd.actor) // new with the update: no marker to consult
	case cmd.name == UpdateCheckIn && b.status() == domain.StatusConfirmed:
		return b.checkIn(ctx, cmd.actor)
	case cmd.name == UpdateAmend:
		return b.amend(ctx, cmd)
	case cmd.name == UpdateMoney:
		return b.money(ctx, cmd)
	}
	return nil // confirming a confirmed booking: nothing to do
}

// finish runs when the late window has passed: it handles what is still queued (a payment that
// raced the end of the window is acted on, never dropped) and lets running refund sagas end. It
// reports again when a queued payment moved the booking on, so its phases go on; otherwise it
// waits for every handler and the workflow completes.
func (b *booking) finish(ctx workflow.Context) (again bool, err error) {
	b.closing = true
	for {
		// Handling what is queued may change the booking (a late payment taking its nights
		// again): updates arriving meanwhile are queued, not turned away.
		b.busy = true
		var ev domain.PaymentEvent
		for b.payments.ReceiveAsync(&ev) {
			if err := b.onPayment(ctx, ev); err != nil {
				return false, err
			}
		}
		var cmd *command
		for b.commands.ReceiveAsync(&cmd) {
			if err := b.handle(ctx, cmd); err != nil {
				return false, err
			}
		}
		b.busy = false
		if err := b.flushBookingOff(ctx); err != nil {
			return false, err
		}
		if err := b.flushFee(ctx); err != nil {
			return false, err
		}
		if b.active() {
			b.closing = false
			return true, nil
		}
		if err := workflow.Await(ctx, func() bool {
			return b.sagas == 0 || b.payments.Len() > 0 || b.commands.Len() > 0 || b.continueAsNewDue(ctx)
		}); err != nil {
			return false, err
		}
		if b.sagas == 0 && b.payments.Len() == 0 && b.commands.Len() == 0 {
			break
		}
		if b.continueAsNewDue(ctx) && b.shouldContinueAsNew(ctx) {
			b.continuing = true
			return false, nil // every saga waits for an operator: the next run waits instead
		}
	}
	return false, workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
}
