package workflows

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// Staff steer a booking's money through the money update: a payment taken at the desk, a price
// set by hand before payment, a refund that keeps the booking's units (goodwill, a discount), or
// one that gives them back (a cancel with the amount staff decide). The main loop carries each
// out, one at a time with payments, expiry and cancels; the database has the last word on what
// is allowed (what is due, what may still be refunded) and a refusal is the update's answer.

// Kinds of a MoneyRequest.
const (
	MoneyDeskPayment = "desk-payment"
	MoneyPrice       = "price"
	MoneyRefund      = "refund"
)

// MoneyRequest is the money update's argument.
type MoneyRequest struct {
	Kind  string
	Actor string // who asks: the token's subject
	// Key is the staff member's idempotency key: a desk payment's and a refund's id follow it.
	Key      string
	Amount   int64 // a desk payment's or a refund's amount; a price change's new total
	Currency string
	Method   string // a desk payment's method; how a refund is given back ("": as it was paid)
	Note     string // a desk payment's note (an "other" method says what it was)
	Reason   string // a price change's or a refund's reason
	// ReleaseUnits makes a refund a cancel: the units go back and the booking is REFUNDED with
	// Amount given back, whatever its policy says.
	ReleaseUnits bool
	// Reverses makes a refund the reversal of the desk payment it names, entered by mistake:
	// drawn on it alone, and what it gave back is due again.
	Reverses string `json:",omitempty"`
	// AwayFromDesk marks a refund asked by staff who are not the booking's desk (finance): what
	// goes back at the desk waits there until someone hands it over (db.HandOverRefund), as a
	// guest's own cancel's does, rather than being recorded as handed over by them. A staff refund
	// keeps it in the database (db.StaffRefund), which decides for every saga that asks its parts;
	// a cancel's refund names nobody in its saga (givenBackBy). False in every request recorded
	// before it: those are given back as they were.
	AwayFromDesk bool `json:",omitempty"`
}

// validateMoney rejects a request the booking cannot take, before it is stored in history.
func (b *booking) validateMoney(req MoneyRequest) error {
	switch {
	case b.supplierPending:
		return notAmendable("the supplier has not confirmed the booking yet")
	case b.closing && !b.busy:
		return notAmendable(RefusalEnded)
	case req.Amount < 0 || req.Amount == 0 && req.Kind != MoneyPrice:
		return invalidMoney("the amount is more than zero")
	case req.Kind != MoneyDeskPayment && req.Kind != MoneyPrice && req.Kind != MoneyRefund:
		return invalidMoney(fmt.Sprintf("unknown money request %q", req.Kind))
	}
	return nil
}

// RefusalEnded is the money update's refusal once the booking's late window has passed: its
// workflow only finishes the refunds it runs, then closes. The API gives a refund that keeps the
// units through the booking's StaffRefund workflow instead.
const RefusalEnded = "the booking has ended"

func invalidMoney(why string) error {
	return temporal.NewApplicationError(why, activities.ErrTypeInvalid)
}

// requestMoney is the money update: it hands the request to the main loop and answers with the
// state it leads to.
func (b *booking) requestMoney(ctx workflow.Context, req MoneyRequest) (BookingState, error) {
	ctx = uncancellable(ctx)
	if err := workflow.Await(ctx, func() bool { return b.reserved }); err != nil {
		return b.state, err
	}
	if b.closing && !b.busy {
		return b.state, notAmendable(RefusalEnded)
	}
	cmd := &command{name: UpdateMoney, at: workflow.Now(ctx), actor: req.Actor, money: &req}
	b.enqueue(ctx, cmd)
	if err := workflow.Await(ctx, func() bool { return cmd.done }); err != nil {
		return b.state, err
	}
	return b.state, cmd.refusal
}

// money carries a money request out in the booking's current state.
func (b *booking) money(ctx workflow.Context, cmd *command) error {
	req := *cmd.money
	var err error
	switch {
	case req.Kind == MoneyDeskPayment:
		err = b.takeDeskPayment(ctx, req)
	case req.Kind == MoneyPrice:
		err = b.changePrice(ctx, req)
	case req.ReleaseUnits:
		err = b.refundCancelling(ctx, req, cmd)
	case req.Reverses != "":
		err = b.refundKeeping(ctx, req, db.RefundReversal, req.Key)
	default:
		err = b.refundKeeping(ctx, req, db.RefundGoodwill, req.Key)
	}
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		cmd.refusal = err // the database refused it: nothing changed
		return nil
	}
	return err
}

// takeDeskPayment records money the desk took. A hold its payments now cover is confirmed; once
// the booking has more than one payment, a refund is drawn on each (Kept).
func (b *booking) takeDeskPayment(ctx workflow.Context, req MoneyRequest) error {
	before := b.state.Booking
	var stored domain.Booking
	if err := workflow.ExecuteActivity(dbActivity(ctx), bookings.TakeDeskPayment, db.DeskPayment{BookingID: b.in.BookingID,
		Key: req.Key, Amount: req.Amount, Currency: req.Currency, Method: req.Method, Note: req.Note, TakenBy: req.Actor}).Get(ctx, &stored); err != nil {
		return err
	}
	if stored.Paid == before.Paid {
		return nil // taken before under this key
	}
	b.keep(ctx, before, domain.Payment{ID: domain.DeskPaymentID(b.in.BookingID, req.Key), Amount: req.Amount, Currency: req.Currency})
	b.state.Booking = stored
	if before.Status == domain.StatusHold && stored.Status == domain.StatusConfirmed {
		b.state.Reason = "paid at the desk"
	}
	b.logger.Info("Desk payment", "amount", req.Amount, "method", req.Method, "status", stored.Status)
	return b.publish(ctx)
}

// keep adds pay to the run's own draw in runs recorded before the ledger drew refunds (see
// keepLegacy), before being the booking until then: its first payment needs none.
func (b *booking) keep(ctx workflow.Context, before domain.Booking, pay domain.Payment) {
	if before.PaymentID == "" && before.Paid == 0 || b.ledgerDraws(ctx) {
		return
	}
	b.keepLegacy(before, pay)
}

// changePrice sets a held, unpaid booking's price by hand.
func (b *booking) changePrice(ctx workflow.Context, req MoneyRequest) error {
	var stored domain.Booking
	if err := workflow.ExecuteActivity(dbActivity(ctx), bookings.ChangePrice, db.PriceChange{BookingID: b.in.BookingID,
		Total: req.Amount, Currency: req.Currency, Reason: req.Reason, Actor: req.Actor}).Get(ctx, &stored); err != nil {
		return err
	}
	b.state.Booking = stored
	b.logger.Info("Price changed by hand", "total", stored.Price.Total, "reason", req.Reason)
	return b.publish(ctx)
}

// refundKeeping gives part of what the booking keeps back while it keeps its units: drawn on its
// payments newest first, each part through the refund saga (a desk payment's at the desk).
func (b *booking) refundKeeping(ctx workflow.Context, req MoneyRequest, kind, key string) error {
	retry := false // the same request again: the database answers it with the first one's refund
	// A derived key (an early departure's, a no-show's) is no client's: it holds no other command.
	if kind != db.RefundEarlyDeparture && kind != db.RefundNoShow && keysInDatabase(ctx) {
		var err error
		if retry, err = b.keySpent(ctx, req); err != nil {
			return err
		}
	}
	if bk := b.state.Booking; req.Amount > bk.Paid && !retry {
		return invalidState(fmt.Sprintf("booking %s keeps %d %s of what was paid; a refund of %d is more", bk.ID, bk.Paid,
			bk.Price.Currency, req.Amount))
	}
	// The database draws the parts on what the ledger says the booking keeps; a reversal names its
	// payment, which the database holds to what is left of it. A run recorded before the ledger
	// drew them draws them itself (Kept).
	var parts []domain.Payment
	kept := append([]domain.Payment(nil), b.state.Kept...)
	switch {
	case req.Reverses != "":
		parts = []domain.Payment{{ID: req.Reverses, Amount: req.Amount, Currency: req.Currency}}
		for i := range kept {
			if kept[i].ID == req.Reverses {
				kept[i].Amount -= req.Amount
			}
		}
	case b.state.Kept != nil:
		parts = domain.DrawRefund(kept, req.Amount)
	}
	var out activities.StaffRefundOutcome
	if err := workflow.ExecuteActivity(dbActivity(ctx), bookings.StartStaffRefund, db.StaffRefund{
		ID: db.StaffRefundID(b.in.BookingID, key), BookingID: b.in.BookingID, Kind: kind, Amount: req.Amount,
		Currency: req.Currency, Reason: req.Reason, Actor: req.Actor, Parts: parts, Method: req.Method,
		AwayFromDesk: req.AwayFromDesk}).Get(ctx, &out); err != nil {
		return err
	}
	if out.Booking.Paid == b.state.Booking.Paid {
		// Recorded before under this key. A part no attempt ever asked for, and no saga here
		// gives back, was lost with the workflow that recorded it: it is given back now.
		if !b.takes(ctx, versionLostStaffRefunds) {
			return nil
		}
		for i, pay := range out.Refund.Parts {
			step := db.StaffRefundStep(key, i, pay.ID)
			if (i >= len(out.Asked) || !out.Asked[i]) && b.running[step] == 0 {
				b.startSaga(ctx, &Saga{Step: step, Kind: sagaPart, Payment: pay, Reason: out.Refund.Reason, FirstAttempt: 1,
					Actor: out.Refund.Actor}, nil)
			}
		}
		return nil
	}
	if b.state.Kept != nil {
		b.state.Kept = kept
	}
	b.state.Booking = out.Booking
	for i, pay := range out.Refund.Parts {
		b.startSaga(ctx, &Saga{Step: db.StaffRefundStep(key, i, pay.ID), Kind: sagaPart, Payment: pay, Reason: req.Reason,
			FirstAttempt: 1, Actor: req.Actor}, nil)
	}
	b.logger.Info("Refund that keeps the units", "kind", kind, "amount", req.Amount, "reason", req.Reason)
	return b.publish(ctx)
}

// versionLostStaffRefunds marks the workflows in which a staff refund asked again gives back the
// parts its lost workflow never asked for.
const versionLostStaffRefunds = "lost-staff-refunds"

// refundCancelling cancels a confirmed booking whose stay has not begun with the refund staff
// decide instead of the policy's: its units go back and it is REFUNDED. Its key is the
// database's to judge (cancelUnderKey), first of all: the same cancel again answers as the first
// did, and a key another command holds (a goodwill refund's, say) is refused before the booking
// is judged.
func (b *booking) refundCancelling(ctx workflow.Context, req MoneyRequest, cmd *command) error {
	bk := b.state.Booking
	keyed := req.Key != "" && keysInDatabase(ctx)
	if keyed {
		if spent, err := b.keySpent(ctx, req); err != nil || spent {
			return err // the same cancel again (its refund was made), or the key holds another command
		}
	}
	switch {
	case req.Key != "" && req.Key == b.state.CancelledWith:
		return nil // a retry of a cancel made before the database kept its key
	case req.Currency != bk.Price.Currency:
		return invalidMoney(fmt.Sprintf("booking %s is paid in %s, not %s", bk.ID, bk.Price.Currency, req.Currency))
	case req.Reason == "":
		return invalidMoney("a refund has a reason")
	case bk.Status != domain.StatusConfirmed || b.stayOver:
		return invalidState(fmt.Sprintf("booking %s is %s: only a confirmed booking gives its units back with a refund", bk.ID, bk.Status))
	case bk.VenueID == "" && bk.StayBegun(cmd.at):
		return invalidState("the stay has begun: an early departure gives the nights after today back")
	case req.Amount > bk.Paid:
		return invalidState(fmt.Sprintf("booking %s keeps %d %s of what was paid; a refund of %d is more", bk.ID, bk.Paid,
			bk.Price.Currency, req.Amount))
	}
	if keyed {
		return b.cancelUnderKey(ctx, req)
	}
	if err := b.startRefund(ctx, activities.StartRefundInput{BookingID: b.in.BookingID, Amount: req.Amount,
		CancelledAt: cmd.at, Actor: req.Actor}, req.Reason); err != nil || b.status().HoldsInventory() {
		return err
	}
	b.state.CancelledWith = req.Key
	return b.bookingOff(ctx, EventCancelled, req.Reason)
}

func invalidState(why string) error {
	return temporal.NewApplicationError(why, activities.ErrTypeConflict)
}
