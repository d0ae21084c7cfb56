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

// oldMoney is what the rows said of a booking's money before the ledger (the summary's SQL of
// migration 00032's release): what its kept payments brought, what of them succeeded in going
// back, what was on its way back, and what was due.
func oldMoney(t *testing.T, d *testsuite.Database, id string) db.MoneySummary {
	t.Helper()
	const kept = `(SELECT b.payment_id UNION SELECT p.payment_id FROM payments p WHERE p.booking_id = b.id
		AND p.method <> 'provider' UNION SELECT m.balance_payment_id FROM booking_amendments m WHERE m.booking_id = b.id
		AND m.balance_payment_id IS NOT NULL)`
	var m db.MoneySummary
	var paid, due, total, back int64
	var status string
	require.NoError(t, d.Pool.QueryRow(context.Background(), `SELECT b.currency, b.status, b.paid, b.refund_due, b.total,
			(SELECT COALESCE(sum(p.amount), 0) FROM payments p WHERE p.booking_id = b.id AND p.status = 'succeeded'
				AND p.payment_id IN `+kept+`),
			COALESCE((SELECT sum(f.amount) FROM refunds f WHERE f.booking_id = b.id AND f.status = 'succeeded'
				AND f.payment_id IN `+kept+`), 0),
			(SELECT COALESCE(sum(r.amount), 0) FROM staff_refunds r WHERE r.booking_id = b.id AND r.kind = 'reversal')
		FROM bookings b WHERE b.id = $1`, id).Scan(&m.Currency, &status, &paid, &due, &total, &m.Paid, &m.Refunded, &back))
	givenBack := m.Paid - paid
	if status == string(domain.StatusRefunding) || status == string(domain.StatusRefunded) {
		givenBack += due
	}
	m.Refunding = max(givenBack-m.Refunded, 0)
	if domain.Status(status).HoldsInventory() {
		m.Due = max(total-m.Paid+back, 0)
	}
	return m
}

// A database used before the ledger existed, through every money path, then upgraded: the
// migration posts the ledger from its rows, and every booking's figures derived from the ledger
// are what its rows said before.
func TestTheLedgerOfAnUpgradedDatabaseSaysWhatItsRowsSaid(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewEmptyDatabase(t)
	// The schema this release's store writes (00034's money_commands too), without the ledger's
	// triggers, which db.Migrate installs: the rows are written as at 00032, with no entry.
	require.NoError(t, db.MigrateToForTodaysStore(ctx, d.Pool, 34))
	d.SetInventory(t, "h1", "double", dec10, dec14, 20)
	var ids []string
	story := func(customer string, f func(b domain.Booking)) {
		b := hold(t, d, customer, nights(dec10, 2), 1)
		ids = append(ids, b.ID)
		f(b)
	}
	pay := func(b domain.Booking, id string, amount int64) domain.Booking {
		recordPayment(t, d, b.ID, id, amount)
		b, err := d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: id, Amount: amount, Currency: "EUR"})
		require.NoError(t, err)
		return b
	}
	attempt := func(b domain.Booking, key, payment string, amount int64, outcome string) {
		a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: b.ID + "/" + key, BookingID: b.ID, PaymentID: payment,
			Amount: amount, Currency: "EUR", Reason: "test"})
		require.NoError(t, err)
		if outcome != "" && a.Status == "requested" {
			require.NoError(t, d.Store.FinishRefundAttempt(ctx, a.ID, "re_"+a.ID, outcome, ""))
		}
	}
	story("desk-card-goodwill", func(b domain.Booking) { deskThenCardThenGoodwill(t, d, b, "pi_rest") })
	story("cancelled", func(b domain.Booking) {
		b = pay(b, "pi_cancelled", twoNights)
		_, err := d.Store.StartRefund(ctx, b.ID, nil, func(domain.Booking) (int64, error) { return 15000, nil })
		require.NoError(t, err)
		attempt(b, "refund/1", "pi_cancelled", 15000, "succeeded")
		_, err = d.Store.FinishRefund(ctx, b.ID)
		require.NoError(t, err)
	})
	story("refunding", func(b domain.Booking) {
		b = pay(b, "pi_refunding", twoNights)
		_, err := d.Store.StartRefund(ctx, b.ID, nil, func(domain.Booking) (int64, error) { return twoNights, nil })
		require.NoError(t, err)
		attempt(b, "refund/1", "pi_refunding", twoNights, "failed")
		attempt(b, "refund/2", "pi_refunding", twoNights, "pending")
	})
	story("second-payment", func(b domain.Booking) {
		b = pay(b, "pi_first", twoNights)
		recordPayment(t, d, b.ID, "pi_second", twoNights)
		attempt(b, "extra-pi_second/1", "pi_second", twoNights, "succeeded")
		recordPayment(t, d, b.ID, "pi_third", 100)
		_, err := d.Store.RecordManualRefund(ctx, db.ManualRefund{PaymentID: "pi_third", Key: "1", Amount: 40, Currency: "EUR",
			Method: domain.MethodCash, Reference: "till 3", Reason: "paid twice", Actor: "ana-finance"})
		require.NoError(t, err)
	})
	story("reversed", func(b domain.Booking) {
		takeDesk(t, d, deskPayment(b.ID, "cash", 5000))
		desk := domain.DeskPaymentID(b.ID, "cash")
		_, _, err := d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, "rev"), BookingID: b.ID,
			Kind: db.RefundReversal, Amount: 5000, Currency: "EUR", Reason: "entered twice", Actor: "desk-1",
			Parts: []domain.Payment{{ID: desk, Amount: 5000, Currency: "EUR"}}})
		require.NoError(t, err)
		attempt(b, "staff-rev/1", desk, 5000, "")
	})
	story("resolved", func(b domain.Booking) {
		b = pay(b, "pi_resolved", twoNights)
		_, b, err := d.Store.StartStaffRefund(ctx, goodwill(b, "gw", 3000))
		require.NoError(t, err)
		attempt(b, "staff-gw/1", "pi_resolved", 3000, "failed")
		require.NoError(t, d.Store.RecordResolvedRefund(ctx, db.RefundAttempt{ID: b.ID + "/staff-gw/0", BookingID: b.ID,
			PaymentID: "pi_resolved", Amount: 3000, Currency: "EUR", Reason: "made by hand", RecordedBy: "op-1"}))
	})
	story("priced-by-hand", func(b domain.Booking) {
		_, err := d.Store.ChangePrice(ctx, db.PriceChange{BookingID: b.ID, Total: 18000, Currency: "EUR", Reason: "regular",
			Actor: "desk-1"})
		require.NoError(t, err)
		takeDesk(t, d, deskPayment(b.ID, "all", 18000))
	})
	story("amended-down", func(b domain.Booking) {
		b = pay(b, "pi_amended", twoNights)
		a, _ := amend(t, d, amendParams(b, "shorter", domain.Change{CheckOut: dec10.AddDays(1)}))
		require.Positive(t, a.Refund)
		attempt(b, "amendment-1/1", "pi_amended", a.Refund, "succeeded")
	})
	story("balance-paid", func(b domain.Booking) {
		b = pay(b, "pi_before", twoNights)
		a, _ := amend(t, d, amendParams(b, "longer", domain.Change{CheckOut: dec13}))
		require.Equal(t, domain.AmendmentBalanceDue, a.Status)
		recordPayment(t, d, b.ID, "pi_balance", a.Difference)
		_, _, err := d.Store.SettleAmendment(ctx, b.ID, a.ID, domain.Payment{ID: "pi_balance", Amount: a.Difference, Currency: "EUR"})
		require.NoError(t, err)
	})
	story("balance-lapsed", func(b domain.Booking) {
		b = pay(b, "pi_lapsed", twoNights)
		a, _ := amend(t, d, amendParams(b, "longer", domain.Change{CheckOut: dec13}))
		_, _, err := d.Store.LapseAmendment(ctx, b.ID, a.ID, "not paid in time")
		require.NoError(t, err)
	})
	story("held", func(domain.Booking) {})

	before := map[string]db.MoneySummary{}
	for _, id := range ids {
		before[id] = oldMoney(t, d, id)
	}
	require.Zero(t, count(t, d, `SELECT count(*) FROM money_ledger`), "no entry was posted before the upgrade")
	require.NoError(t, db.Migrate(ctx, d.Pool))

	for _, id := range ids {
		b, err := d.Store.GetBooking(ctx, id)
		require.NoError(t, err)
		after, err := d.Store.BookingMoneySummary(ctx, b)
		require.NoError(t, err)
		assert.Equal(t, before[id], after, "booking %s (%s)", id, b.CustomerID)
	}
	d.AssertLedgerAgrees(t)
	posted := count(t, d, `SELECT count(*) FROM money_ledger`)
	require.NoError(t, db.Migrate(ctx, d.Pool))
	assert.Equal(t, posted, count(t, d, `SELECT count(*) FROM money_ledger`), "the backfill runs once")
}
