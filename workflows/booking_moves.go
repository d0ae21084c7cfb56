package workflows

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// cancel cancels a booking that holds rooms: a paid one is refunded by the policy it was held
// under, judged at the moment the cancel was accepted; an unpaid one just gives its nights back.
// A confirmed stay that has begun is an early departure instead, and a stay that is over is not
// cancelled.
func (b *booking) cancel(ctx workflow.Context, reason string, at time.Time, actor string) error {
	if !b.status().HoldsInventory() || b.stayOver {
		return nil
	}
	// A venue order has no early departure: it is refunded whole (new in its own workflows, so
	// the version marker is not consulted for it).
	if b.status().Used() && b.in.Order == nil &&
		b.takes(ctx, versionEarlyDeparture) {
		if begun, err := b.departEarly(ctx, at, actor, false); err != nil || begun {
			return err
		}
	}
	return b.cancelWhole(ctx, reason, at, actor)
}

// cancelWhole cancels the whole booking, judged at, by its policy: what it keeps is refunded
// through the refund saga, or, unpaid, its units are simply given back; a guaranteed booking's
// card is then charged what the policy keeps (lateCancelFee).
func (b *booking) cancelWhole(ctx workflow.Context, reason string, at time.Time, actor string) error {
	var err error
	if b.state.Booking.Paid > 0 {
		err = b.startRefund(ctx, activities.StartRefundInput{BookingID: b.in.BookingID, ByPolicy: true,
			CancelledAt: at, Actor: actor}, reason)
	} else {
		err = b.release(ctx, domain.StatusCancelled, reason, actor)
	}
	if errors.Is(err, errCaughtUp) {
		return b.cancel(ctx, reason, at, actor) // the booking was confirmed: cancel that
	}
	if err != nil || b.status().HoldsInventory() {
		return err // a refund the database refused leaves the booking as it was: the supplier keeps it
	}
	if err := b.bookingOff(ctx, EventCancelled, reason); err != nil {
		return err
	}
	return b.lateCancelFee(ctx, at)
}

// versionNoShow marks the workflows that wait for a check-in until their no-show deadline.
const versionNoShow = "no-show"

// checkIn marks the confirmed booking COMPLETED: staff checked its guest in.
func (b *booking) checkIn(ctx workflow.Context, actor string) error {
	var stored domain.Booking
	if err := workflow.ExecuteActivity(dbActivity(ctx), bookings.CheckIn, b.in.BookingID, actor).Get(ctx, &stored); err != nil {
		return err
	}
	b.state.Booking, b.state.Reason = stored, "checked in"
	b.logger.Info("Checked in")
	return b.publish(ctx)
}

// versionNoShowRefund marks the workflows in which a no-show gives back what its plan's no-show
// terms do not keep (MarkNoShow); before it, the NoShow activity kept the payment whole. A new
// change: the lean histories took earlier ones without their markers (b.takes) but not this one,
// so it asks GetVersion itself.
const versionNoShowRefund = "no-show-refund"

// noShow marks a confirmed booking nobody checked in by its deadline NO_SHOW: its units go back,
// and what its plan's no-show terms do not keep of its payment is refunded; a guaranteed
// booking's card is charged what they keep. by is the desk member who marked it by hand
// (UpdateNoShow), empty for the deadline's timer: the step is the same.
func (b *booking) noShow(ctx workflow.Context, by string) error {
	var out activities.NoShowOutput
	var err error
	switch {
	case workflow.GetVersion(ctx, versionNoShowRefund, workflow.DefaultVersion, 1) != 1:
		err = workflow.ExecuteActivity(dbActivity(ctx), bookings.NoShow, b.in.BookingID).Get(ctx, &out.Booking)
	case workflow.GetVersion(ctx, versionNoShowClosed, workflow.DefaultVersion, 1) == 1:
		err = workflow.ExecuteActivity(dbActivity(ctx), bookings.MarkNoShowUnlessClosed, b.in.BookingID).Get(ctx, &out)
	default:
		err = workflow.ExecuteActivity(dbActivity(ctx), bookings.MarkNoShow, b.in.BookingID).Get(ctx, &out)
	}
	if err != nil {
		return err
	}
	if out.SlotClosed {
		// The venue closed a slot it holds: its guest could not come. It stays as it is, for the
		// desk to move or refund, and waits for the end of its use.
		b.state.Booking, b.excused = out.Booking, true
		b.logger.Info("Not a no-show: a slot it holds was closed", "deadline", b.in.NoShowAt)
		return nil
	}
	b.state.Booking, b.state.Reason = out.Booking, "nobody checked in by the deadline"
	if by != "" {
		b.state.Reason = "nobody checked in: the desk marked it a no-show"
	}
	b.logger.Info("No-show", "deadline", b.in.NoShowAt, "refund", out.Refund, "by", by)
	if err := b.publish(ctx); err != nil {
		return err
	}
	if out.Refund > 0 {
		key := db.NoShowKey(out.Booking.CheckIn)
		if err := b.refundDerived(ctx, MoneyRequest{Kind: MoneyRefund, Actor: db.ActorNoShow, Key: key, Amount: out.Refund,
			Currency: out.Booking.Price.Currency, Reason: noShowReason(out.Booking.PlanTerms)}, db.RefundNoShow); err != nil {
			return err
		}
	}
	// A guaranteed booking's card pays what its terms keep beyond what it was paid at the hotel.
	return b.chargeFee(ctx, domain.FeeNoShow, out.Booking.PlanTerms.NoShowKeeps(out.Booking.Price), max(out.Refund, 0),
		out.Booking.Paid-out.Refund)
}

// versionNoShowClosed marks the workflows whose no-show excuses a booking one of whose slots
// was closed (MarkNoShowUnlessClosed); before it, such a booking was a no-show.
const versionNoShowClosed = "no-show-closed"

// noShowReason is the reason of a no-show's refund: what its terms kept.
func noShowReason(terms *domain.PlanTerms) string {
	if terms != nil && terms.NoShow == domain.NoShowKeepsPercent {
		return fmt.Sprintf("nobody checked in: the rate plan keeps %d%% of the price", terms.NoShowPercent)
	}
	return "nobody checked in: the rate plan keeps the first night"
}

// versionEarlyDeparture marks the workflows in which a cancel of a confirmed stay that has
// begun is an early departure; histories from before it replay without the extra step.
const versionEarlyDeparture = "early-departure"

// versionEarlyDepartureRefund marks the workflows in which an early departure gives back what
// the booking's policy says of the nights not stayed; before it, the payment stayed whole.
const versionEarlyDepartureRefund = "early-departure-refund"

// departEarly asks the database whether the stay had begun, at the hotel, when the cancel was
// accepted; if so the cancel is an early departure (the nights after that day go back on sale,
// from that day for a check-out, endsToday; the booking stays as it is) and begun is true. What the booking's policy gives back of the
// nights not stayed is refunded for actor while the booking keeps its units.
func (b *booking) departEarly(ctx workflow.Context, at time.Time, actor string, endsToday bool) (begun bool, err error) {
	var out activities.DepartEarlyOutput
	err = workflow.ExecuteActivity(dbActivity(ctx), bookings.DepartEarly, activities.DepartEarlyInput{
		BookingID: b.in.BookingID, At: at, EndsToday: endsToday}).Get(ctx, &out)
	if err != nil || !out.Begun {
		return false, err
	}
	b.state.Booking, b.departed = out.Booking, true
	if supplierAmendment(b.state.Pending) {
		b.cancelAtSupplier(b.state.Pending.SupplierHoldRef) // its new hold will not be used
	}
	b.state.Pending = nil // the database lapsed it with the nights given back
	b.state.Reason = "left early: the nights from " + out.Booking.CheckOut.String() + " are back on sale"
	b.logger.Info("Early departure", "checkOut", out.Booking.CheckOut, "refund", out.Refund)
	if err := b.publish(ctx); err != nil {
		return true, err
	}
	if out.Refund <= 0 || b.state.Booking.Paid <= 0 ||
		!b.takes(ctx, versionEarlyDepartureRefund) {
		return true, nil
	}
	return true, b.refundNightsNotStayed(ctx, out, actor)
}

// refundNightsNotStayed gives back an early departure's refund, one per departure (keyed by its
// new check-out).
func (b *booking) refundNightsNotStayed(ctx workflow.Context, out activities.DepartEarlyOutput, actor string) error {
	reason := fmt.Sprintf("the guest left early: %d nights not stayed", out.Nights)
	if out.Nights == 1 {
		reason = "the guest left early: 1 night not stayed"
	}
	return b.refundDerived(ctx, MoneyRequest{Kind: MoneyRefund, Actor: actor, Key: db.EarlyDepartureKey(out.Booking.CheckOut),
		Amount: out.Refund, Currency: out.Booking.Price.Currency, Reason: reason}, db.RefundEarlyDeparture)
}

// refundDerived gives back a refund the booking's own terms decided (an early departure's, a
// no-show's), under its derived key, while the booking keeps its units. A refusal by the
// database leaves the booking as it is: it is logged, and staff can still refund by hand.
func (b *booking) refundDerived(ctx workflow.Context, req MoneyRequest, kind string) error {
	err := b.refundKeeping(ctx, req, kind, req.Key)
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		b.logger.Warn("Refund refused", "kind", kind, "amount", req.Amount, "reason", appErr.Message())
		return nil
	}
	return err
}

// confirm confirms a held booking, with the payment that paid it (nil: without online payment),
// for actor (empty: the payment, or nobody named).
// When the database's clock says the hold ran out, the expiry wins, exactly once: the nights
// are released, and a payment is then handled as a late one.
func (b *booking) confirm(ctx workflow.Context, pay *domain.Payment, actor string) error {
	var stored domain.Booking
	err := b.runConfirm(ctx, activities.ConfirmInput{BookingID: b.in.BookingID, Payment: pay, Actor: actor}).Get(ctx, &stored)
	if caught, err := b.caughtUp(ctx, err); caught {
		if err != nil {
			return err
		}
		return b.confirmedAhead(ctx, pay)
	}
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.Type() == activities.ErrTypeBalanceDatePassed && pay != nil {
		// The deposit reached the database after the balance date: the hold, live, waits for its price.
		return b.refundExtra(ctx, *pay, IssueAmountMismatch, appErr.Message())
	}
	if errors.As(err, &appErr) && appErr.Type() == activities.ErrTypeConflict {
		b.logger.Info("Confirmation refused", "reason", appErr.Message())
		if b.state.Booking.Paid > 0 && pay != nil && pay.Amount+b.state.Booking.Paid < b.state.Booking.Price.Total &&
			planDeposits(ctx) {
			return b.depositExpired(ctx, pay) // part of a deposit, late: its nights are not taken again
		}
		if b.state.Booking.Paid > 0 && pay != nil && depositPaidLate(ctx) {
			return b.depositLate(ctx, *pay)
		}
		if b.state.Booking.Paid > 0 {
			return b.depositExpired(ctx, pay)
		}
		if err := b.release(ctx, domain.StatusExpired, "payment confirmation arrived after the hold expired", ""); errors.Is(err, errCaughtUp) {
			return b.confirmedAhead(ctx, pay)
		} else if err != nil {
			return err
		}
		if err := b.bookingOff(ctx, EventExpired, b.state.Reason); err != nil {
			return err
		}
		if pay == nil {
			return nil
		}
		if pay.Amount < b.state.Booking.Price.Total && planDeposits(ctx) {
			// A deposit after the hold: its nights are not taken again for part of their price.
			return b.startRefund(ctx, activities.StartRefundInput{BookingID: b.in.BookingID, Payment: pay},
				"the deposit arrived after the hold expired")
		}
		return b.latePayment(ctx, *pay)
	}
	if err != nil {
		return err
	}
	if pay != nil {
		b.keep(ctx, b.state.Booking, *pay) // after a desk deposit, the booking keeps both
	}
	b.state.Booking = stored
	b.state.Reason = ""
	b.logger.Info("Booking confirmed", "paid", stored.Paid)
	return b.publish(ctx)
}

// depositExpired ends a hold the desk took part of the price for, whose hold ran out before the
// rest was paid: what the desk took goes back by its method, and pay (the rest, arriving too
// late; nil for a desk confirmation) goes back whole.
func (b *booking) depositExpired(ctx workflow.Context, pay *domain.Payment) error {
	if err := b.startRefund(ctx, activities.StartRefundInput{BookingID: b.in.BookingID, Actor: db.ActorHoldTimer,
		EndsHold: b.confirmLocally}, "the hold expired before its price was paid: what the desk took goes back"); err != nil {
		return err
	}
	if err := b.bookingOff(ctx, EventExpired, b.state.Reason); err != nil || pay == nil {
		return err
	}
	return b.refundExtra(ctx, *pay, IssueLatePaymentRefunded, "the rest of the price arrived after the hold expired")
}

// versionDepositLate marks the workflows in which the rest of a deposit hold's price, arriving
// as the hold runs out, is a late payment (depositLate); before, deposit and rest went back.
// A new change: the lean histories took earlier ones without their markers (b.takes) but not
// this one, so it asks GetVersion itself.
const versionDepositLate = "deposit-late"

// depositPaidLate reports whether the workflow takes versionDepositLate.
func depositPaidLate(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, versionDepositLate, workflow.DefaultVersion, 1) == 1
}

// depositLate applies the late payment rule to pay, the rest of a deposit hold's price that
// arrived after its hold ran out: the nights (or slots) are taken again as a late payment's and
// the booking is confirmed keeping the deposit and pay; when they may no longer be sold, what the
// desk took and pay go back (depositExpired).
func (b *booking) depositLate(ctx workflow.Context, pay domain.Payment) error {
	before := b.state.Booking
	var stored domain.Booking
	err := workflow.ExecuteActivity(dbActivity(ctx), bookings.Retake, activities.RetakeInput{
		BookingID: b.in.BookingID, Payment: pay}).Get(ctx, &stored)
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.Type() == activities.ErrTypeUnavailable {
		b.logger.Info("Late rest of a deposit hold could not take the nights again", "reason", appErr.Message())
		return b.depositExpired(ctx, &pay)
	}
	if err != nil {
		return err
	}
	b.keep(ctx, before, pay)
	b.state.Booking, b.state.Reason = stored, "confirmed by the rest of its price, which arrived after the hold expired"
	b.logger.Info("Late rest of a deposit hold took the nights again", "paymentId", pay.ID, "paid", stored.Paid)
	return b.publish(ctx)
}

// release gives the nights of an unpaid booking back and moves it to status to (the reason of
// a REJECTED one is recorded as its refusal), for actor (empty: an expiry is the hold timer's).
func (b *booking) release(ctx workflow.Context, to domain.Status, reason, actor string) error {
	in := activities.ReleaseInput{BookingID: b.in.BookingID, To: to, Actor: actor, CatchUp: b.confirmLocally}
	if to == domain.StatusRejected {
		in.Refusal = reason
	}
	var stored domain.Booking
	err := workflow.ExecuteActivity(dbActivity(ctx), bookings.Release, in).Get(ctx, &stored)
	if err != nil {
		return b.caughtUpOr(ctx, err)
	}
	b.state.Booking = stored
	b.state.Reason = reason
	b.logger.Info("Rooms released", "status", to, "reason", reason)
	return b.publish(ctx)
}
