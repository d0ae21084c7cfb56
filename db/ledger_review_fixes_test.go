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

// Defects the review of the ledger found (each failed before its fix).

// An amendment the guest asked posts no entry naming them: an erasure leaves no ledger row
// holding the customer's id (the ledger is append-only, so it must never hold one).
func TestAnErasedCustomersAmendmentLeavesTheLedgerNamingNobody(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	const cust = "cust-ledger-erase-9c1"
	b := hold(t, d, cust, nights(dec10, 2), 1)
	recordPayment(t, d, b.ID, "pi_erase", b.Price.Total)
	b, err := d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_erase", Amount: b.Price.Total, Currency: "EUR"})
	require.NoError(t, err)
	a, _ := amend(t, d, amendParams(b, "shorter", domain.Change{CheckOut: dec10.AddDays(1)}))
	require.Positive(t, a.Refund)
	inThePast(t, d, b.ID)
	erase(t, d, cust)
	assert.Empty(t, testsuite.ColumnsHolding(t, d.Pool, cust), "no column of any table names the customer")
}

// A refund attempt of a payment the booking does not keep, recorded before the payment's own
// row arrives, is asked from what was received: once the payment is recorded the ledger agrees.
func TestARefundOfAnUnkeptPaymentRecordedBeforeThePaymentAgrees(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := providerPaid(t, d, "g1")
	a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: b.ID + "/extra-pi_second/1", BookingID: b.ID,
		PaymentID: "pi_second", Amount: 5000, Currency: "EUR", Reason: "a second payment"})
	require.NoError(t, err)
	require.NoError(t, d.Store.FinishRefundAttempt(ctx, a.ID, "re_second", "succeeded", ""))
	recordPayment(t, d, b.ID, "pi_second", 5000)

	m, err := d.Store.LedgerMoney(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, db.LedgerMoney{Paid: b.Paid, Kept: b.Paid, UnkeptRefunded: 5000}, m)
	found, err := d.Store.LedgerMismatches(ctx)
	require.NoError(t, err)
	assert.Empty(t, found)
}

// A card payment recorded before a desk deposit but confirming the booking after it is the
// newer of the two: the ledger draws a cancel's refund on it first, and a workflow reads the draw
// back from there.
func TestACancelDrawsOnThePaymentsTheWorkflowDraws(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", nights(dec10, 2), 1)
	recordPayment(t, d, b.ID, "pi_rest", 15000)
	heldDeposit(t, d, deskPayment(b.ID, "deposit", 5000)) // a hold from before issue 39
	b, err := d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_rest", Amount: 15000, Currency: "EUR"})
	require.NoError(t, err)

	_, err = d.Store.StartRefund(ctx, b.ID, nil, func(domain.Booking) (int64, error) { return 4000, nil })
	require.NoError(t, err)
	entries, err := d.Store.BookingLedger(ctx, b.ID)
	require.NoError(t, err)
	asked := map[string]int64{}
	for _, e := range entries {
		if e.Kind == "refund_asked" {
			asked[e.PaymentID] += e.Amount
		}
	}
	assert.Equal(t, map[string]int64{"pi_rest": 4000}, asked)
	parts, err := d.Store.RefundParts(ctx, b.ID, db.CancelRefundRef(b.ID))
	require.NoError(t, err)
	assert.Equal(t, []domain.Payment{{ID: "pi_rest", Amount: 4000, Currency: "EUR"}}, parts, "what a workflow reads back")
}
