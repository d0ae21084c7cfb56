package db_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// requireLedgerRefused requires err to be ledger_post's refusal (check_violation) naming the
// account and what it would hold.
func requireLedgerRefused(t *testing.T, err error, would string) {
	t.Helper()
	var pgErr *pgconn.PgError
	require.True(t, errors.As(err, &pgErr), "the database refused the entry: %v", err)
	assert.Equal(t, "23514", pgErr.Code)
	assert.Contains(t, pgErr.Message, would)
}

// The database refuses an entry that takes a payment's account below zero, whatever path asks:
// a refund attempt written straight into refunds for more than its payment keeps (no per-payment
// bound asked first), and entries posted by hand that draw on owed, refunding or a captured
// payment's received beyond what they hold. Nothing of the refused is in the ledger; what is
// left may still be refunded. Control: without the guard in ledger_post each is posted and the
// accounts go below zero (docs/testing.md).
func TestTheLedgerRefusesARefundBeyondWhatIsLeftOfItsPayment(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	// pi_over brought 150.00, of which 25.00 went back as goodwill: the booking keeps 125.00 of it.
	bk := deskThenCardThenGoodwill(t, d, hold(t, d, "over", nights(dec10, 2), 1), "pi_over")
	before, err := d.Store.BookingLedger(ctx, bk.ID)
	require.NoError(t, err)
	refund := func(id string, amount int64) error {
		_, err := d.Pool.Exec(ctx, `INSERT INTO refunds (id, booking_id, payment_id, amount, currency, reason, status)
			VALUES ($1, $2, 'pi_over', $3, 'EUR', 'by hand in SQL', 'requested')`, bk.ID+id, bk.ID, amount)
		return err
	}
	requireLedgerRefused(t, refund("/raw/1", 12501), "its kept account would hold -1")
	post := func(debit, credit string, amount int64, ref string) error {
		_, err := d.Pool.Exec(ctx, `SELECT ledger_post($1, 'pi_over', 'attempt_sent', NULL, $2, $3, $4, 'EUR', $5, NULL,
			NULL, NULL)`, bk.ID, debit, credit, amount, ref)
		return err
	}
	requireLedgerRefused(t, post("owed", "refunding", 1, "by-hand-owed"), "its owed account would hold -1")
	requireLedgerRefused(t, post("refunding", "paid_back", 1, "by-hand-refunding"), "its refunding account would hold -1")
	requireLedgerRefused(t, post("received", "owed", 1, "by-hand-received"), "its received account would hold -1")
	after, err := d.Store.BookingLedger(ctx, bk.ID)
	require.NoError(t, err)
	assert.Equal(t, before, after, "nothing of the refused entries is in the ledger")

	// What is left is refunded: 125.00, all the booking keeps of pi_over.
	require.NoError(t, refund("/raw/2", 12500))
	m, err := d.Store.LedgerMoney(ctx, bk.ID)
	require.NoError(t, err)
	assert.Equal(t, int64(5000), m.Kept, "the desk's deposit")
	assert.Equal(t, int64(12500), m.Refunding)
	found, err := d.Store.LedgerMismatches(ctx)
	require.NoError(t, err)
	for _, f := range found {
		assert.NotEmpty(t, f.Detail)
		assert.NotContains(t, f.Detail, "the ledger moved money that was not there")
	}
}
