package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// A staff money request's key is the booking's once, in the database (db.MoneyCommand): the
// workflow asks whether it is spent before it judges the booking, so the same request again is
// answered by its first outcome whatever the booking became since (a cancel retried finds it
// REFUNDING), and a key another command holds is refused (422) before anything moves. The store
// claims the key with the money it moves, so the database, not the workflow, has the last word.

// versionMoneyCommandKeys marks the workflows in which the database decides a money request's
// key. Before it, a cancel with a refund was answered by CancelledWith and the refunds' keys by
// their own rows only: those histories replay as they were. A new change: the lean histories
// that took earlier changes without their markers (b.takes) did not take this one, so it asks
// GetVersion itself.
const versionMoneyCommandKeys = "money-command-keys"

// keysInDatabase reports whether the workflow takes versionMoneyCommandKeys.
func keysInDatabase(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, versionMoneyCommandKeys, workflow.DefaultVersion, 1) == 1
}

// Command is the money command req asks of booking bookingID, as the store claims its key.
func (req MoneyRequest) Command(bookingID string) db.MoneyCommand {
	switch {
	case req.Kind == MoneyDeskPayment:
		return db.DeskPaymentCommand(db.DeskPayment{BookingID: bookingID, Key: req.Key, Amount: req.Amount,
			Currency: req.Currency, Method: req.Method, TakenBy: req.Actor})
	case req.ReleaseUnits:
		return db.CancelRefundCommand(bookingID, req.Key, req.Amount, req.Currency, req.Actor)
	}
	r := db.StaffRefund{ID: db.StaffRefundID(bookingID, req.Key), BookingID: bookingID, Kind: db.RefundGoodwill,
		Amount: req.Amount, Currency: req.Currency, Actor: req.Actor, Method: req.Method, AwayFromDesk: req.AwayFromDesk}
	if req.Reverses != "" {
		r.Kind, r.Parts = db.RefundReversal, []domain.Payment{{ID: req.Reverses, Amount: req.Amount, Currency: req.Currency}}
	}
	return db.StaffRefundCommand(r)
}

// keySpent asks the database whether req's key is spent: true for the same request again; a key
// another command holds is the refusal (an application error of type ErrTypeIdempotencyMismatch).
func (b *booking) keySpent(ctx workflow.Context, req MoneyRequest) (bool, error) {
	var seen bool
	err := workflow.ExecuteActivity(dbActivity(ctx), bookings.MoneyCommandSeen, req.Command(b.in.BookingID)).Get(ctx, &seen)
	return seen, err
}

// cancelUnderKey cancels the booking with the refund staff decide (judged by refundCancelling),
// claiming the request's key in the transaction that releases its units and marks it REFUNDING.
// A refusal by the database is the answer: nothing moved and the key is still free.
func (b *booking) cancelUnderKey(ctx workflow.Context, req MoneyRequest) error {
	var stored domain.Booking
	if err := workflow.ExecuteActivity(dbActivity(ctx), bookings.StartCancelRefund, activities.CancelRefundInput{
		Command: req.Command(b.in.BookingID), Amount: req.Amount}).Get(ctx, &stored); err != nil {
		return err
	}
	currency, err := b.refundStarted(ctx, stored, activities.StartRefundInput{BookingID: b.in.BookingID}, req.Reason)
	if err != nil {
		return err
	}
	b.startSaga(ctx, &Saga{Step: "refund", Kind: sagaRefund, Booking: stored, Currency: currency, Reason: req.Reason,
		FirstAttempt: 1, Actor: req.givenBackBy(b.handedOverBy(req.Actor))}, nil)
	return b.bookingOff(ctx, EventCancelled, req.Reason)
}
