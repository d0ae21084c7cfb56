package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/domain"
)

// validateHold rejects an Update-with-Start whose request differs from the one this workflow
// was started with: the idempotency key was reused for another booking.
//
// Once the outcome is known a repeated request would change nothing, so it is rejected too (a
// rejected update is not written to history, which caps accepted updates): the API then answers
// from the database.
func (b *booking) validateHold(fingerprint string) error {
	if fingerprint != b.in.fingerprint() {
		return temporal.NewApplicationError(fmt.Sprintf("Idempotency-Key %q was first used for a different booking request",
			b.in.IdempotencyKey), ErrTypeIdempotencyMismatch)
	}
	if b.reserved {
		return b.noChange("the reservation outcome is known")
	}
	return nil
}

// validateConfirm rejects a confirm that could change nothing: the booking is not (or not yet
// known to be) on hold.
func (b *booking) validateConfirm() error {
	if (b.closing && !b.busy) || (b.steady() && b.status() != domain.StatusHold) {
		return b.noChange("only a booking on hold is confirmed")
	}
	if b.supplierPending {
		return b.noChange("the supplier has not confirmed it yet")
	}
	return nil
}

// validateCheckIn rejects a check-in that could change nothing: the booking is not (or not yet
// known to be) confirmed.
func (b *booking) validateCheckIn() error {
	if (b.closing && !b.busy) || (b.steady() && b.status() != domain.StatusConfirmed) {
		return b.noChange("only a confirmed booking is checked in")
	}
	return nil
}

// validateCheckOut rejects a check-out that could change nothing: a stay not checked in (a
// venue order has none), or one that is over.
func (b *booking) validateCheckOut() error {
	if (b.closing && !b.busy) || (b.steady() && (b.status() != domain.StatusCompleted || b.stayOver || b.in.Order != nil)) {
		return b.noChange("only a checked-in stay before its end is checked out")
	}
	return nil
}

// validateNoShow rejects a no-show by hand that could change nothing: the booking is not
// confirmed (a checked-in one was not a no-show), its guest left early, a slot it holds was
// closed, or its use is over; and one asked before the booking started (ErrTypeTooEarly). Only
// the validator judges the start: it reads the hotel's time zone, which replayed code must not
// depend on, and it is not replayed.
func (b *booking) validateNoShow(ctx workflow.Context, _ string) error {
	if (b.closing && !b.busy) || (b.steady() && !b.noShowable()) {
		return b.noChange("only a confirmed booking nobody checked in is marked a no-show")
	}
	if !b.started(workflow.Now(ctx)) {
		return temporal.NewApplicationError(fmt.Sprintf("booking %s has not started: a no-show is marked from the "+
			"check-in date at the hotel, or from a venue booking's first slot", b.in.BookingID), ErrTypeTooEarly)
	}
	return nil
}

// noShowable reports whether the booking could be a no-show now: confirmed, not checked in, its
// guest not gone early, no slot of it closed, its use not over.
func (b *booking) noShowable() bool {
	return b.status() == domain.StatusConfirmed && !b.departed && !b.excused && !b.stayOver
}

// started reports whether the booking had started at instant at: a stay from its check-in date
// at the hotel (as a check-in opens; the deadline's timer waits until noon the day after), a venue
// order from its first line's start (the timer waits until its last line ends, plus the grace).
func (b *booking) started(at time.Time) bool {
	if b.in.Order == nil {
		return b.state.Booking.StayBegun(at)
	}
	starts := b.state.Booking.OrderStarts()
	if starts.IsZero() {
		starts = b.in.Order.Starts()
	}
	return !at.Before(starts)
}

// validateCancel rejects a cancel that could change nothing: the booking holds no nights, or
// its stay is over.
func (b *booking) validateCancel() error {
	if (b.closing && !b.busy) || (b.steady() && (!b.status().HoldsInventory() || b.stayOver)) {
		return b.noChange("only a held or confirmed booking before the end of its stay is cancelled")
	}
	return nil
}

// steady reports whether the state is not about to change: the reservation outcome is known and
// the main loop is between steps (a step in flight, such as a late payment taking the nights
// again, may be about to make a cancel meaningful).
func (b *booking) steady() bool { return b.reserved && !b.busy }

// noChange is the rejection of an update that would change nothing.
func (b *booking) noChange(why string) error {
	return temporal.NewApplicationError(fmt.Sprintf("booking %s is %s: %s", b.in.BookingID, b.status(), why), ErrTypeNoChange)
}

// awaitReservation is the hold update: it returns as soon as the reservation outcome is known.
func (b *booking) awaitReservation(ctx workflow.Context, _ string) (BookingState, error) {
	ctx = uncancellable(ctx)
	if err := workflow.Await(ctx, func() bool { return b.reserved }); err != nil {
		return b.state, err
	}
	return b.state, b.refused
}

// request hands a confirm or cancel to the main loop and answers with the state it leads to.
// The main loop decides, not the handler: an activity in flight may be about to change the state.
func (b *booking) request(ctx workflow.Context, name, actor string) (BookingState, error) {
	ctx = uncancellable(ctx)
	if err := workflow.Await(ctx, func() bool { return b.reserved }); err != nil {
		return b.state, err
	}
	if b.closing && !b.busy {
		return b.state, nil
	}
	cmd := &command{name: name, at: workflow.Now(ctx), actor: actor}
	b.enqueue(ctx, cmd)
	err := workflow.Await(ctx, func() bool { return cmd.done })
	return b.state, err
}
