package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// A booking's money has one home, the ledger (docs/payments-and-refunds.md): a workflow keeps no
// copy of what its booking keeps of each payment. A refund that keeps the units is drawn by the
// database when it is recorded (db.StaffRefund without parts), and a cancel's or an amendment's
// refund is read back from the ledger, which drew it in the transaction that recorded it.
//
// Runs recorded before versionLedgerDraws kept their own draw (BookingState.Kept, filled from the
// second payment a booking kept) and replay with it; a run continued as new drops it.

// versionLedgerDraws marks the runs whose refunds are drawn where the ledger drew them.
const versionLedgerDraws = "ledger-draws"

// ledgerDraws reports whether this run's refunds are drawn by the ledger: every run but one
// recorded before it that had begun its own draw. A new change: the lean histories that took
// earlier changes without their markers (b.takes) did not take this one.
func (b *booking) ledgerDraws(ctx workflow.Context) bool {
	return b.state.Kept == nil && workflow.GetVersion(ctx, versionLedgerDraws, workflow.DefaultVersion, 1) == 1
}

// ledgerParts reads what the refund ref (db.CancelRefundRef, db.AmendmentRefundRef) asked back of
// each payment; when the ledger's draw does not add up to amount (it drew nothing: a payment it
// never recorded as kept), the whole amount is drawn on the booking's payment, as before the
// ledger (db.PartsOrWhole), and the ledger posts what it did not ask as unplanned.
func (b *booking) ledgerParts(ctx workflow.Context, ref string, amount int64, currency string) ([]domain.Payment, error) {
	var parts []domain.Payment
	if err := workflow.ExecuteActivity(dbActivity(ctx), bookings.RefundParts, activities.RefundPartsInput{
		BookingID: b.in.BookingID, Ref: ref}).Get(ctx, &parts); err != nil {
		return nil, err
	}
	whole := db.PartsOrWhole(parts, amount, domain.Payment{ID: b.state.Booking.PaymentID, Currency: currency})
	if len(parts) > 0 && whole[0] != parts[0] { // not the ledger's draw
		b.logger.Warn("The ledger's draw does not add up to the refund: drawn whole on the booking's payment",
			"ref", ref, "amount", amount, "drawn", parts)
	}
	return whole, nil
}

// keepLegacy adds pay to the run's own draw, in runs recorded before versionLedgerDraws: its
// first payment beside the one it kept before.
func (b *booking) keepLegacy(before domain.Booking, pay domain.Payment) {
	if b.state.Kept == nil {
		b.state.Kept = []domain.Payment{{ID: before.PaymentID, Amount: before.Paid, Currency: pay.Currency}}
	}
	b.state.Kept = append(b.state.Kept, pay)
}
