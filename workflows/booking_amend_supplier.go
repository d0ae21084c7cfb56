package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// A supplier's booking is amended as a new hold at its supplier (its protocol cannot change a
// hold): the amendment waits while the supplier is asked to confirm the new stay, at most
// SupplierStuckAfter; confirmed, it goes on as any amendment, and the hold the booking left is
// cancelled once the request is answered; refused or unanswered, nothing changed for the guest
// (an unanswered hold is cancelled, in case the supplier made it after all).

// askSupplier carries the supplier's step of an amendment waiting for it, and returns the
// amendment as it then stands.
func (b *booking) askSupplier(ctx workflow.Context, cmd *command, out activities.AmendOutcome) (activities.AmendOutcome, error) {
	a := out.Amendment
	var ans db.SupplierAnswer
	err := workflow.ExecuteActivity(supplierActivity(ctx, b.in.SupplierStuckAfter), supplierSteps.HoldAmendment,
		activities.HoldAmendmentInput{BookingID: b.in.BookingID, AmendmentID: a.ID}).Get(ctx, &ans)
	if err != nil {
		b.logger.Warn("The supplier did not confirm the amendment", "amendment", a.ID, "error", err)
		ans = db.SupplierAnswer{Reason: "the supplier did not answer"}
		b.cancelAtSupplier(a.SupplierHoldRef)
	}
	var decided activities.AmendOutcome
	if err := workflow.ExecuteActivity(dbActivity(ctx), bookings.SupplierAnswered, activities.SupplierAnsweredInput{
		BookingID: b.in.BookingID, AmendmentID: a.ID, Answer: ans, BalanceWindow: b.in.HoldTTL, At: cmd.at}).Get(ctx, &decided); err != nil {
		return out, err
	}
	b.cancelAtSupplier(decided.OldSupplierRef)
	return decided, nil
}

// cancelAtSupplier queues cancelling one of the booking's holds at its supplier (none when ref
// is empty), for once the request in hand is answered.
func (b *booking) cancelAtSupplier(ref string) {
	if ref != "" {
		b.supplierCancels = append(b.supplierCancels, ref)
	}
}

// flushSupplierCancels cancels the holds queued. One the supplier cannot be told of is logged: it
// lapses at the supplier, and a cancel of the booking tells it again (db.Store.SupplierRefs).
func (b *booking) flushSupplierCancels(ctx workflow.Context) {
	for len(b.supplierCancels) > 0 {
		ref := b.supplierCancels[0]
		b.supplierCancels = b.supplierCancels[1:]
		if err := workflow.ExecuteActivity(supplierCleanupActivity(ctx, b.in.SupplierTellFor), supplierSteps.CancelSupplierHold,
			b.in.BookingID, ref).Get(ctx, nil); err != nil {
			b.logger.Error("The supplier could not be told a hold is off", "reference", ref, "error", err)
		}
	}
}

// supplierAmendment reports whether a is a supplier's amendment (its new hold has a reference).
func supplierAmendment(a *domain.Amendment) bool { return a != nil && a.SupplierHoldRef != "" }
