package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// A review of the money ledger (migration 00033) along the money paths its triggers follow.

// ledgerKinds counts booking id's ledger entries by kind.
func ledgerKinds(t *testing.T, d *testsuite.Database, id string) map[string]int {
	t.Helper()
	entries, err := d.Store.BookingLedger(context.Background(), id)
	require.NoError(t, err)
	kinds := map[string]int{}
	for _, e := range entries {
		kinds[e.Kind]++
	}
	return kinds
}

// noLedgerFindings requires the checker's ledger_mismatch to find nothing.
func noLedgerFindings(t *testing.T, d *testsuite.Database) {
	t.Helper()
	found, err := d.Store.LedgerMismatches(context.Background())
	require.NoError(t, err)
	assert.Empty(t, found)
}

// A provider payment reported failed, then succeeded, then succeeded again is captured once.
func TestReviewAPaymentThatFailedThenSucceededIsCapturedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", nights(dec10, 2), 1)
	for i, ok := range []bool{false, true, true} {
		_, err := d.Store.RecordPaymentEvent(ctx, domain.PaymentEvent{EventID: "evt_" + string(rune('a'+i)),
			Type: "payment_intent.succeeded", BookingID: b.ID, PaymentID: "pi_late", Succeeded: ok, Amount: b.Price.Total,
			Currency: "EUR"}, []byte(`{}`))
		require.NoError(t, err)
	}
	_, err := d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_late", Amount: b.Price.Total, Currency: "EUR"})
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"captured": 1, "kept": 1}, ledgerKinds(t, d, b.ID))
	d.AssertLedgerAgrees(t)
	noLedgerFindings(t, d)
}

// A payment the booking names before its webhook records it is kept when it is recorded.
func TestReviewAPaymentRecordedAfterConfirmNamedItIsKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := paidBooking(t, d, "g1", nights(dec10, 2), 1, 0)
	assert.Empty(t, ledgerKinds(t, d, b.ID), "nothing moved before the payment is recorded")
	recordPayment(t, d, b.ID, b.PaymentID, b.Paid)
	m, err := d.Store.LedgerMoney(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, db.LedgerMoney{Paid: b.Paid, Kept: b.Paid}, m)
	d.AssertLedgerAgrees(t)
	noLedgerFindings(t, d)
}

// A refund attempt left pending by the provider and settled by its webhook the next day is given
// back once, on the day it settled, in the ledger and in the daily report.
func TestReviewARefundSettledByWebhookCountsOnceOnTheDayItSettled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := providerPaid(t, d, "g1")
	_, b, err := d.Store.StartStaffRefund(ctx, goodwill(b, "gw", 2500))
	require.NoError(t, err)
	a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: b.ID + "/staff-gw/1", BookingID: b.ID,
		PaymentID: b.PaymentID, Amount: 2500, Currency: "EUR", Reason: "goodwill"})
	require.NoError(t, err)
	require.NoError(t, d.Store.FinishRefundAttempt(ctx, a.ID, "re_pending", "pending", ""))
	// Sent yesterday (a column no trigger watches).
	_, err = d.Pool.Exec(ctx, `UPDATE refunds SET created_at = created_at - interval '1 day',
		updated_at = updated_at - interval '1 day' WHERE id = $1`, a.ID)
	require.NoError(t, err)
	m, err := d.Store.LedgerMoney(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, int64(2500), m.Refunding, "sent, the provider's word not yet in")

	settled := time.Now().Add(-time.Minute)
	require.NoError(t, d.Store.SettleRefund(ctx, "re_pending", true, ""))
	require.NoError(t, d.Store.SettleRefund(ctx, "re_pending", true, ""), "the webhook delivered twice")
	m, err = d.Store.LedgerMoney(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, db.LedgerMoney{Paid: 20000, Kept: 17500, Refunded: 2500}, m)
	var at time.Time
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT at FROM money_ledger WHERE kind = 'refund_succeeded' AND ref = $1`,
		a.ID).Scan(&at))
	assert.True(t, at.After(settled), "given back when the webhook said so, not when it was sent: %s", at)

	today := domain.Span{Start: settled.Add(-12 * time.Hour), End: settled.Add(12 * time.Hour)}
	report, err := d.Store.DailyReport(ctx, db.Site{HotelID: "h1"}, today)
	require.NoError(t, err)
	var refunds []int64
	for _, it := range report.Items {
		if it.Kind == "refund" {
			refunds = append(refunds, it.Amount)
		}
	}
	assert.Equal(t, []int64{-2500}, refunds, "one refund, on the day it settled")
	d.AssertLedgerAgrees(t)
	noLedgerFindings(t, d)
}
