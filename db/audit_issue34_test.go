package db_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// An audit of issue 34 before it is closed. Each test showed a defect and failed on the code it
// was written against (2029f64):
//
//	go test -count=1 -run 'TestAudit34' ./db/

// TestAudit34ARefundAttemptsOutcomeIsFinalInTheDatabase: issue 34 asks the database to enforce
// exactly one outcome per attempt. The ledger did (money_ledger_one_outcome), but the attempt's
// row in refunds took a second outcome: a goodwill refund of 25.00 whose attempt 2 succeeded was
// then written failed. ledger_on_refund posted nothing for it, so the ledger still said 25.00 went
// back while the row said it did not, no check told them apart, and the readers of the rows
// (UnfinishedStaffRefunds for a resumed booking, OwedStaffRefunds for the checker's repair) owed
// the 25.00 again: a resumed run or the checker would have paid the guest twice. The other way,
// attempt 1, failed, written succeeded, was a refund the rows counted and the ledger never saw.
// The database now refuses both (ledger_refund_outcome_final), and an attempt still requested or
// pending moves on as before.
func TestAudit34ARefundAttemptsOutcomeIsFinalInTheDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := deskThenCardThenGoodwill(t, d, hold(t, d, "g1", nights(dec10, 2), 1), "pi_rest")
	before, err := d.Store.LedgerMoney(ctx, b.ID)
	require.NoError(t, err)
	require.Equal(t, int64(2500), before.Refunded, "the goodwill refund's attempt 2 gave 25.00 back")

	for _, c := range []struct{ attempt, status string }{{"2", "failed"}, {"1", "succeeded"}} {
		_, err = d.Pool.Exec(ctx, `UPDATE refunds SET status = $2, updated_at = now() WHERE id = $1`,
			b.ID+"/staff-gw/"+c.attempt, c.status)
		assert.Equal(t, "23001", pgErrCode(err), "attempt %s written %s: a second outcome is refused", c.attempt, c.status)
	}
	_, err = d.Pool.Exec(ctx, `UPDATE refunds SET amount = amount + 1 WHERE id = $1`, b.ID+"/staff-gw/2")
	assert.Equal(t, "23001", pgErrCode(err), "the amount of a final attempt is refused too")
	_, err = d.Pool.Exec(ctx, `UPDATE refunds SET reference = 'erased' WHERE id = $1`, b.ID+"/staff-gw/2")
	assert.NoError(t, err, "what is not its outcome may change (an erasure scrubs it)")

	after, err := d.Store.LedgerMoney(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, before, after)
	owed, err := d.Store.UnfinishedStaffRefunds(ctx, b.ID)
	require.NoError(t, err)
	assert.Empty(t, owed, "nothing is owed")
	assert.Empty(t, findingsOf(t, d, b.ID))
}

// findingsOf is what the invariant checker's money checks and its ledger_mismatch find of
// booking id, however young.
func findingsOf(t *testing.T, d *testsuite.Database, id string) []domain.Finding {
	t.Helper()
	ledger, err := d.Store.LedgerMismatches(context.Background())
	require.NoError(t, err)
	var all []domain.Finding
	for _, f := range append(ledger, checkerMoneyFindings(t, d)...) {
		if f.BookingID == id {
			all = append(all, f)
		}
	}
	return all
}

// pgErrCode is err's SQLSTATE, "" when it is not PostgreSQL's.
func pgErrCode(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}
