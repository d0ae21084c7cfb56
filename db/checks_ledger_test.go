package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// The checker's ledger_mismatch finds a booking whose row and ledger disagree, and an account the
// ledger took below zero; a booking whose money went through every step is not reported.
func TestTheLedgerCheckFindsWhereTheLedgerAndTheRowsDisagree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	quiet := deskThenCardThenGoodwill(t, d, hold(t, d, "quiet", nights(dec10, 2), 1), "pi_quiet")
	found, err := d.Store.LedgerMismatches(ctx)
	require.NoError(t, err)
	assert.Empty(t, found, "a booking whose money went through the store's paths")

	row := deskThenCardThenGoodwill(t, d, hold(t, d, "row", nights(dec10, 2), 1), "pi_row")
	_, err = d.Pool.Exec(ctx, `UPDATE bookings SET paid = paid + 100 WHERE id = $1`, row.ID)
	require.NoError(t, err)
	// An entry drawing more than was kept, as one posted before ledger_post refused it (now it
	// would be refused: TestTheLedgerRefusesARefundBeyondWhatIsLeftOfItsPayment): the entry and
	// what ledger_post moved with it, written by hand.
	_, err = d.Pool.Exec(ctx, `WITH entry AS (
			INSERT INTO money_ledger (booking_id, payment_id, kind, cause, debit, credit, amount, currency, ref)
			VALUES ($1, 'pi_quiet', 'refund_asked', 'goodwill', 'kept', 'owed', 99999, 'EUR', 'by-hand-in-sql')
		), balances AS (
			INSERT INTO money_balances AS m (payment_id, account, booking_id, balance)
			VALUES ('pi_quiet', 'kept', $1, -99999), ('pi_quiet', 'owed', $1, 99999)
			ON CONFLICT (payment_id, account) DO UPDATE SET balance = m.balance + EXCLUDED.balance
		)
		UPDATE money_kept_by_booking SET kept = kept - 99999 WHERE booking_id = $1`, quiet.ID)
	require.NoError(t, err)
	found, err = d.Store.LedgerMismatches(ctx)
	require.NoError(t, err)
	assert.ElementsMatch(t, []domain.Finding{
		{Check: domain.CheckLedger, BookingID: row.ID, Detail: "the booking keeps 17600 EUR by its row and 17500 by its ledger"},
		{Check: domain.CheckLedger, BookingID: quiet.ID, Detail: "the booking keeps 17500 EUR by its row and -82499 by its ledger"},
		{Check: domain.CheckLedger, BookingID: quiet.ID, PaymentID: "pi_quiet",
			Detail: "its kept account holds -87499: the ledger moved money that was not there"},
	}, found)
}
