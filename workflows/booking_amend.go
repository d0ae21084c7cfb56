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

// An amendment changes what the booking holds (its dates, room type, quantity) under the same
// booking id, workflow, payments and history. The update hands it to the main loop, which carries
// it out as one database step (activities.Bookings.Amend): on a hold, or when the price does not
// rise, at once (a fall is refunded by the policy, beside the main loop); on a paid booking that
// costs more, the added units are held until the balance is paid (a payment of exactly the
// balance) or the balance window (the hold's TTL) runs out, when they go back.

// AmendRequest is the amend update's argument.
type AmendRequest struct {
	IdempotencyKey string
	Change         domain.Change
	Actor          string // who asks: the token's subject
}

// AmendAnswer is the amend update's answer: the amendment as stored and the state it leads to.
type AmendAnswer struct {
	State     BookingState
	Amendment domain.Amendment
}

// versionAmendments marks the workflows that carry amendments out (none arrive at older ones:
// the update did not exist).
const versionAmendments = "amendments"

// validateAmend rejects an amendment the booking cannot take, before it is stored in history:
// a booking that is not held or confirmed (or is past its stay), one its supplier has not
// confirmed yet, and a
// change that changes nothing. While an amendment waits for its balance the database answers
// (its retry under the same key is answered with it; any other is balance_due).
func (b *booking) validateAmend(req AmendRequest) error {
	switch {
	case b.supplierPending:
		return notAmendable("the supplier has not confirmed the booking yet")
	case b.closing && !b.busy:
		return notAmendable("the booking has ended")
	case !b.steady():
		return nil // the main loop decides
	case !amendable(b.status()) || b.stayOver:
		return notAmendable(fmt.Sprintf("booking %s is %s", b.in.BookingID, b.status()))
	case b.state.Pending != nil:
		return nil // the database answers: a retry of the pending amendment under its key, or balance_due
	case req.Change.Apply(domain.UnitsOf(b.state.Booking)).Equal(domain.UnitsOf(b.state.Booking)):
		return b.noChange("the amendment changes nothing")
	}
	return nil
}

// amendable reports whether a booking in status st can be amended: held, or confirmed (checked
// in included).
func amendable(st domain.Status) bool { return st == domain.StatusHold || st.Used() }

func notAmendable(why string) error { return temporal.NewApplicationError(why, ErrTypeNotAmendable) }

// requestAmend is the amend update: it hands the amendment to the main loop and answers with
// its outcome.
func (b *booking) requestAmend(ctx workflow.Context, req AmendRequest) (AmendAnswer, error) {
	ctx = uncancellable(ctx)
	if err := workflow.Await(ctx, func() bool { return b.reserved }); err != nil {
		return AmendAnswer{State: b.state}, err
	}
	if b.closing && !b.busy {
		return AmendAnswer{State: b.state}, notAmendable("the booking has ended")
	}
	cmd := &command{name: UpdateAmend, at: workflow.Now(ctx), actor: req.Actor, amend: &req}
	b.enqueue(ctx, cmd)
	if err := workflow.Await(ctx, func() bool { return cmd.done }); err != nil {
		return AmendAnswer{State: b.state}, err
	}
	return AmendAnswer{State: b.state, Amendment: cmd.amended}, cmd.refusal
}

// amend carries an amendment out in the booking's current state. A refusal of the booking's
// state is the update's answer (cmd.refusal), not the workflow's failure.
func (b *booking) amend(ctx workflow.Context, cmd *command) error {
	_ = b.takes(ctx, versionAmendments)
	if !amendable(b.status()) || b.stayOver {
		cmd.refusal = notAmendable(fmt.Sprintf("booking %s is %s", b.in.BookingID, b.status()))
		return nil
	}
	var out activities.AmendOutcome
	err := workflow.ExecuteActivity(dbActivity(ctx), bookings.Amend, activities.AmendInput{BookingID: b.in.BookingID,
		IdempotencyKey: cmd.amend.IdempotencyKey, Change: cmd.amend.Change, Actor: cmd.actor, BalanceWindow: b.in.HoldTTL,
		At: cmd.at}).Get(ctx, &out)
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		cmd.refusal = err // the database refused it (its state, or the key reused): nothing changed
		return nil
	}
	if err != nil {
		return err
	}
	if out.Amendment.ID <= b.state.LastAmendment {
		cmd.amended = out.Amendment
		return nil // taken before: a client's retry under the same key
	}
	b.state.LastAmendment = out.Amendment.ID // an earlier attempt's answer lost is taken now
	if out.Amendment.Status == domain.AmendmentSupplierPending {
		if out, err = b.askSupplier(ctx, cmd, out); err != nil {
			return err
		}
	}
	a := out.Amendment
	cmd.amended = a
	b.logger.Info("Amendment", "amendment", a.ID, "status", a.Status, "difference", a.Difference, "reason", a.Reason)
	b.count(ctx, MetricAmendments, map[string]string{"outcome": string(a.Status)})
	switch a.Status {
	case domain.AmendmentApplied:
		if err := b.takeAmended(ctx, out); err != nil {
			return err
		}
		parts, err := b.drawRefund(ctx, a)
		if err != nil {
			return err
		}
		// The refund names who made the amendment when staff or an agent did (issue 39).
		actor := b.handedOverBy(a.Actor)
		for i, pay := range parts {
			step := fmt.Sprintf("amendment-%d", a.ID)
			if i > 0 {
				step += "-" + pay.ID
			}
			b.startSaga(ctx, &Saga{Step: step, Kind: sagaPart, Payment: pay, Reason: "the amendment lowered the price",
				FirstAttempt: 1, Actor: actor}, nil)
		}
	case domain.AmendmentBalanceDue:
		b.state.Booking, b.state.Pending, b.replan = out.Booking, &a, true
	}
	return b.publish(ctx)
}

// takeAmended takes the booking as an amendment left it: its stay, price and payment, the
// no-show deadline and end of its new stay, and what operators filter on. Its agent hears of it
// once the request is answered.
func (b *booking) takeAmended(ctx workflow.Context, out activities.AmendOutcome) error {
	b.state.Booking, b.state.Pending, b.replan = out.Booking, nil, true
	if b.in.AgentID != "" && b.in.Order == nil { // agents sell stays only
		u := out.Amendment.After
		b.offPending = append(b.offPending, offNotice{event: EventAmended, amendment: out.Amendment.ID,
			detail: fmt.Sprintf("now %d × %s from %s to %s, %d %s", u.Quantity, u.RoomTypeID, u.CheckIn, u.CheckOut,
				out.Booking.Price.Total, out.Booking.Price.Currency)})
	}
	if !b.in.NoShowAt.IsZero() && !out.NoShowAt.IsZero() {
		// Moved out of a closed slot, it waits for its guest again (the database excuses it anew
		// if its new slot is closed too). Only runs under no-show-closed set excused: none
		// recorded before it had both.
		b.in.NoShowAt, b.excused = out.NoShowAt, false
	}
	starts := out.Booking.CheckIn.Time()
	b.in.AmendedEnd = out.Booking.CheckOut.AddDays(1).Time()
	if b.in.Order != nil {
		starts, b.in.AmendedEnd = out.Booking.OrderStarts(), out.Booking.OrderEnds()
	}
	if b.stayOver && b.in.ends().After(workflow.Now(ctx)) {
		b.stayOver = false // a balance paid after the old stay's end: the longer stay goes on
	}
	return workflow.UpsertTypedSearchAttributes(ctx, SearchCheckIn.ValueSet(starts))
}

// payBalance acts on a payment of exactly the pending amendment's balance: the amendment is
// applied. When the database no longer has it waiting (it lapsed), the payment goes back.
func (b *booking) payBalance(ctx workflow.Context, pay domain.Payment) error {
	var out activities.AmendOutcome
	err := workflow.ExecuteActivity(dbActivity(ctx), bookings.SettleAmendment, activities.SettleAmendmentInput{
		BookingID: b.in.BookingID, AmendmentID: b.state.Pending.ID, Payment: pay}).Get(ctx, &out)
	var appErr *temporal.ApplicationError
	switch {
	case conflict(err):
		b.state.Pending = nil
		return b.refundExtra(ctx, pay, IssueDuplicatePayment, "a balance payment for an amendment that no longer waits for it")
	case errors.As(err, &appErr) && appErr.NonRetryable():
		// It cannot be applied now (the customer ordered the new first slot meanwhile, the stay or
		// a line has begun): it lapses at its time, as it would unpaid; this payment goes back.
		return b.refundExtra(ctx, pay, IssueDuplicatePayment, "a balance payment for an amendment that cannot be applied now: "+
			appErr.Message())
	}
	if err != nil {
		return err
	}
	b.logger.Info("Amendment balance paid", "amendment", out.Amendment.ID, "paymentId", pay.ID)
	b.cancelAtSupplier(out.OldSupplierRef) // the hold the booking left for the new one
	if !b.ledgerDraws(ctx) {
		b.keepLegacy(b.state.Booking, pay)
	}
	if err := b.takeAmended(ctx, out); err != nil {
		return err
	}
	return b.publish(ctx)
}

// lapseBalance gives back the units the pending amendment held: its balance was not paid in
// time. The booking is exactly as it was before it.
func (b *booking) lapseBalance(ctx workflow.Context) error {
	var out activities.AmendOutcome
	if err := workflow.ExecuteActivity(dbActivity(ctx), bookings.LapseAmendment, activities.LapseAmendmentInput{
		BookingID: b.in.BookingID, AmendmentID: b.state.Pending.ID, Reason: "the balance was not paid in time"}).Get(ctx, &out); err != nil {
		return err
	}
	b.logger.Info("Amendment lapsed", "amendment", out.Amendment.ID)
	if supplierAmendment(b.state.Pending) {
		b.cancelAtSupplier(b.state.Pending.SupplierHoldRef) // its new hold will not be used
	}
	b.state.Booking, b.state.Pending, b.replan = out.Booking, nil, true
	return b.publish(ctx)
}

// pendingBalance reports whether ev pays the pending amendment's balance: exactly its amount, made
// for it (the checkout of a balance names the amendment), or, named for none, of an amount that
// is not the booking's price (which would be a second payment of it).
func (b *booking) pendingBalance(ev domain.PaymentEvent) bool {
	p := b.state.Pending
	if p == nil || !b.status().Used() || p.Currency != ev.Currency || p.Difference != ev.Amount {
		return false
	}
	return ev.AmendmentID == p.ID || ev.AmendmentID == 0 && ev.Amount != b.state.Booking.Price.Total
}

// drawRefund is where amendment a's refund is drawn: where the ledger drew it when the amendment
// was applied (a run recorded before it: the booking's payment, or, once a balance was paid, the
// run's own draw on its payments newest first).
func (b *booking) drawRefund(ctx workflow.Context, a domain.Amendment) ([]domain.Payment, error) {
	switch {
	case a.Refund <= 0:
		return nil, nil
	case b.ledgerDraws(ctx):
		return b.ledgerParts(ctx, db.AmendmentRefundRef(b.in.BookingID, a.ID), a.Refund, a.Currency)
	case b.state.Kept == nil:
		return []domain.Payment{{ID: b.state.Booking.PaymentID, Amount: a.Refund, Currency: a.Currency}}, nil
	}
	return domain.DrawRefund(b.state.Kept, a.Refund), nil
}
