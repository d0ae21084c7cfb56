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

// staffAttempt records attempt 1 of part i (on payment pay) of the staff refund under key, as
// the refund saga's activity does, and returns it as stored.
func staffAttempt(t *testing.T, d *testsuite.Database, b domain.Booking, key string, i int, pay string, amount int64) db.RefundAttempt {
	t.Helper()
	a, err := d.Store.BeginRefundAttempt(context.Background(), db.RefundAttempt{
		ID: b.ID + "/" + db.StaffRefundStep(key, i, pay) + "/1", BookingID: b.ID, PaymentID: pay, Amount: amount,
		Currency: "EUR", Reason: "test", RecordedBy: "desk-1"})
	require.NoError(t, err)
	return a
}

// TestTheDeskChoosesHowARefundIsGivenBack (issue 39, defect 9): a stay paid online. A goodwill
// refund of 50.00 handed over in cash is made at the desk at once, by cash, with who made it,
// never sent to the provider; one left as it was paid goes to the provider. Another stay paid
// at the desk refuses a refund "only to the card" (the provider has no card for cash), and
// nothing is written. The same key with another method is another request.
func TestTheDeskChoosesHowARefundIsGivenBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 2)
	online := reviewConfirmedPaid(t, d, "c-online")

	cash := db.StaffRefund{ID: db.StaffRefundID(online.ID, "gw-cash"), BookingID: online.ID, Kind: db.RefundGoodwill,
		Amount: 5000, Currency: "EUR", Reason: "noisy room", Actor: "desk-1", Method: domain.MethodCash}
	r, _, err := d.Store.StartStaffRefund(ctx, cash)
	require.NoError(t, err)
	assert.Equal(t, domain.MethodCash, r.Method)
	a := staffAttempt(t, d, online, "gw-cash", 0, "pi_c-online", 5000)
	assert.Equal(t, []string{"succeeded", domain.MethodCash, "desk-1"}, []string{a.Status, a.Method, a.RecordedBy},
		"handed over at the desk in cash, never sent to the provider")

	asPaid := cash
	asPaid.ID, asPaid.Method = db.StaffRefundID(online.ID, "gw-card"), ""
	_, _, err = d.Store.StartStaffRefund(ctx, asPaid)
	require.NoError(t, err)
	a = staffAttempt(t, d, online, "gw-card", 0, "pi_c-online", 5000)
	assert.Equal(t, []string{"requested", domain.MethodProvider}, []string{a.Status, a.Method}, "as it was paid: the provider")

	other := cash
	other.Method = domain.MethodCardTerminal
	_, _, err = d.Store.StartStaffRefund(ctx, other)
	require.ErrorIs(t, err, domain.ErrIdempotencyMismatch, "the same key with another method")

	held, err := d.Store.Reserve(ctx, holdParams("c-desk", "k", stay3, 1))
	require.NoError(t, err)
	desk := deskDeposit(t, d, held, 10000)
	_, _, err = d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(desk.ID, "gw-card"), BookingID: desk.ID,
		Kind: db.RefundGoodwill, Amount: 2000, Currency: "EUR", Reason: "to the card", Actor: "desk-1",
		Method: domain.MethodProvider})
	require.ErrorIs(t, err, domain.ErrConflict, "cash is not given back by the provider")
	b, err := d.Store.GetBooking(ctx, desk.ID)
	require.NoError(t, err)
	assert.Equal(t, int64(10000), b.Paid, "nothing was written")
	d.AssertLedgerAgrees(t)
}
