package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestReviewANoShowsCashRefundWaitsAtTheDesk (review of 4fe2372): a booking held by a 100.00
// cash deposit (desk-1) is a no-show whose plan keeps 60.00: the workflow gives 40.00 back
// through refundDerived -> refundKeeping, whose saga carries the MoneyRequest's actor,
// db.ActorNoShow ("system:no-show", workflows/booking_staff_money.go startSaga ... Actor: req.Actor,
// never handedOverBy). Its attempt reaches BeginRefundAttempt with RecordedBy "system:no-show",
// which is not empty: the cash is recorded as handed over at once, succeeded, by nobody at the
// desk, while it is still in desk-1's drawer. The commit says a no-show's refund waits at the
// desk (pending, nobody's) until someone hands it over.
func TestReviewANoShowsCashRefundWaitsAtTheDesk(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 2)
	b := deskDeposit(t, d, hold(t, d, "g-ns", nights(dec10, 2), 1), 10000)
	pay := domain.DeskPaymentID(b.ID, "deposit")

	key := db.NoShowKey(b.CheckIn) // the no-show's derived refund, as the workflow records it
	_, _, err := d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, key), BookingID: b.ID,
		Kind: db.RefundNoShow, Amount: 4000, Currency: "EUR", Reason: "nobody checked in", Actor: db.ActorNoShow})
	require.NoError(t, err)
	// The saga's attempt, as refundFrom sends it: RecordedBy is the saga's Actor, req.Actor.
	a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: b.ID + "/" + db.StaffRefundStep(key, 0, pay) + "/1",
		BookingID: b.ID, PaymentID: pay, Amount: 4000, Currency: "EUR", Reason: "nobody checked in",
		RecordedBy: db.ActorNoShow})
	require.NoError(t, err)
	assert.Equal(t, []string{"pending", domain.MethodCash, ""}, []string{a.Status, a.Method, a.RecordedBy},
		"a no-show's cash refund waits at the desk: nobody handed it over (got it recorded given back by %q)", a.RecordedBy)
	d.AssertLedgerAgrees(t)
}
