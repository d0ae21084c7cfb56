package db_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// The money ledger (migration 00033): every money path posts its entries, in the transaction of
// the change; the entries are never changed; the figures the API shows are its sums.

// deskThenCardThenGoodwill runs the story of docs/payments-and-refunds.md's worked example on
// booking b (two nights, 200.00 EUR, on hold): a 50.00 cash deposit, the rest paid by card (payment
// card), then a 25.00 goodwill refund on the card whose first attempt fails and second succeeds.
func deskThenCardThenGoodwill(t *testing.T, d *testsuite.Database, b domain.Booking, card string) domain.Booking {
	t.Helper()
	ctx := context.Background()
	heldDeposit(t, d, deskPayment(b.ID, "deposit", 5000))
	recordPayment(t, d, b.ID, card, 15000)
	b, err := d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: card, Amount: 15000, Currency: "EUR"})
	require.NoError(t, err)
	gw := goodwill(b, "gw", 2500)
	_, b, err = d.Store.StartStaffRefund(ctx, gw)
	require.NoError(t, err)
	for i, outcome := range []string{"failed", "succeeded"} {
		a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: b.ID + "/staff-gw/" + string(rune('1'+i)), BookingID: b.ID,
			PaymentID: card, Amount: 2500, Currency: "EUR", Reason: gw.Reason})
		require.NoError(t, err)
		require.NoError(t, d.Store.FinishRefundAttempt(ctx, a.ID, "re_"+a.ID, outcome, ""))
	}
	return b
}

func TestTheLedgerTellsABookingsMoneyFromHoldToPartialRefund(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := deskThenCardThenGoodwill(t, d, hold(t, d, "g1", nights(dec10, 2), 1), "pi_rest")
	desk := domain.DeskPaymentID(b.ID, "deposit")

	entries, err := d.Store.BookingLedger(ctx, b.ID)
	require.NoError(t, err)
	type move struct {
		Kind, Payment, Debit, Credit string
		Amount                       int64
	}
	var got []move
	for _, e := range entries {
		got = append(got, move{e.Kind, e.PaymentID, e.Debit, e.Credit, e.Amount})
	}
	assert.Equal(t, []move{
		{"captured", desk, "paid_in", "received", 5000},
		{"kept", desk, "received", "kept", 5000},
		{"captured", "pi_rest", "paid_in", "received", 15000},
		{"kept", "pi_rest", "received", "kept", 15000},
		{"refund_asked", "pi_rest", "kept", "owed", 2500},
		{"attempt_sent", "pi_rest", "owed", "refunding", 2500},
		{"refund_failed", "pi_rest", "refunding", "owed", 2500},
		{"attempt_sent", "pi_rest", "owed", "refunding", 2500},
		{"refund_succeeded", "pi_rest", "refunding", "paid_back", 2500},
	}, got)

	m, err := d.Store.LedgerMoney(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, db.LedgerMoney{Paid: 20000, Kept: 17500, Refunded: 2500}, m)
	assert.Equal(t, b.Paid, m.Kept, "what the booking keeps is what its ledger keeps")
	summary, err := d.Store.BookingMoneySummary(ctx, b)
	require.NoError(t, err)
	assert.Equal(t, db.MoneySummary{Currency: "EUR", Paid: 20000, Refunded: 2500}, summary)
	d.AssertLedgerAgrees(t)
}

func TestTheLedgerRefusesToChangeOrDeleteAnEntry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", nights(dec10, 2), 1)
	heldDeposit(t, d, deskPayment(b.ID, "deposit", 5000))

	for _, change := range []string{`UPDATE money_ledger SET amount = 1`, `DELETE FROM money_ledger`} {
		_, err := d.Pool.Exec(ctx, change)
		var pgErr *pgconn.PgError
		require.ErrorAs(t, err, &pgErr, change)
		assert.Equal(t, "23001", pgErr.Code, "restrict_violation: %s", change)
		assert.Contains(t, pgErr.Message, "append-only")
	}
	assert.Equal(t, 2, count(t, d, `SELECT count(*) FROM money_ledger WHERE booking_id = $1`, b.ID))
}

// A refund attempt has one outcome: a second one posted for it is refused by the database.
func TestARefundAttemptHasOneOutcomeInTheLedger(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := deskThenCardThenGoodwill(t, d, hold(t, d, "g1", nights(dec10, 2), 1), "pi_rest")
	_, err := d.Pool.Exec(ctx, `SELECT ledger_post($1, 'pi_rest', 'refund_failed', NULL, 'refunding', 'owed', 2500, 'EUR',
		$2, NULL, NULL, NULL)`, b.ID, b.ID+"/staff-gw/2")
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr)
	assert.Equal(t, "23505", pgErr.Code, "unique_violation: money_ledger_one_outcome")
}
