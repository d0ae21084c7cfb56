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
	_, err = d.Pool.Exec(ctx, `SELECT ledger_post($1, 'pi_quiet', 'refund_asked', 'goodwill', 'kept', 'owed', 99999, 'EUR',
		'by-hand-in-sql', NULL, NULL, NULL)`, quiet.ID)
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

// The daily report and the ledger check over a million ledger entries: each must take under a
// second (issue 34). 100,000 bookings of one hotel, each with ten entries over a year: a deposit
// and the rest captured and kept, a refund of part of the rest asked, declined, asked again and
// given back, and a price set by hand.
//
//	go test -run '^$' -bench 'OverAMillionLedgerEntries' -benchtime 5x ./db/
func BenchmarkOverAMillionLedgerEntries(b *testing.B) {
	ctx := context.Background()
	d := testsuite.NewDatabase(b)
	d.SetInventory(b, "h1", "double", dec10, dec13, 5)
	bk, err := d.Store.Reserve(ctx, holdParams("bench", "k", nights(dec10, 1), 1))
	require.NoError(b, err)
	// The bookings are copies of one hold (the report reads their hotel; the check, their row),
	// written without their triggers' history: only their money is measured.
	_, err = d.Pool.Exec(ctx, `SET session_replication_role = replica;
		INSERT INTO bookings SELECT (jsonb_populate_record(b, jsonb_build_object('id', b.id || '-' || g,
			'idempotency_key', 'bench-' || g, 'paid', 17500))).* FROM bookings b, generate_series(1, 99999) g WHERE b.id = '`+bk.ID+`';
		SET session_replication_role = DEFAULT`)
	require.NoError(b, err)
	year := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	_, err = d.Pool.Exec(ctx, `INSERT INTO money_ledger (at, booking_id, payment_id, kind, debit, credit, amount, currency, ref,
			method)
		SELECT $2::timestamptz + random() * interval '365 days', b.id, CASE WHEN e.payment = '' THEN '' ELSE b.id || e.payment END,
			e.kind, e.debit, e.credit, e.amount, 'EUR', b.id || e.ref, CASE WHEN e.payment <> '' THEN 'provider' END
		FROM bookings b CROSS JOIN (VALUES
			('/deposit', 'captured', 'paid_in', 'received', 5000, '/deposit'),
			('/deposit', 'kept', 'received', 'kept', 5000, '/deposit'),
			('/rest', 'captured', 'paid_in', 'received', 15000, '/rest'),
			('/rest', 'kept', 'received', 'kept', 15000, '/rest'),
			('/rest', 'refund_asked', 'kept', 'owed', 2500, '/gw@rest'),
			('/rest', 'attempt_sent', 'owed', 'refunding', 2500, '/staff-gw/1'),
			('/rest', 'refund_failed', 'refunding', 'owed', 2500, '/staff-gw/1'),
			('/rest', 'attempt_sent', 'owed', 'refunding', 2500, '/staff-gw/2'),
			('/rest', 'refund_succeeded', 'refunding', 'paid_back', 2500, '/staff-gw/2'),
			('', 'price_set', 'price', 'sales', 1000, '/price-change')) e(payment, kind, debit, credit, amount, ref)
		WHERE b.id LIKE $1 || '%'`, bk.ID, year)
	require.NoError(b, err)
	// The balances ledger_post keeps with each entry, summed at once here.
	_, err = d.Pool.Exec(ctx, `INSERT INTO money_balances (payment_id, account, booking_id, balance)
		SELECT payment_id, account, min(booking_id), sum(change) FROM (
			SELECT payment_id, booking_id, credit AS account, amount AS change FROM money_ledger WHERE payment_id <> ''
			UNION ALL SELECT payment_id, booking_id, debit, -amount FROM money_ledger WHERE payment_id <> '') m
		GROUP BY payment_id, account;
		ANALYZE money_ledger; ANALYZE money_balances; ANALYZE bookings`)
	require.NoError(b, err)
	require.Equal(b, 1_000_000, count(b, d, `SELECT count(*) FROM money_ledger`))
	day := domain.Span{Start: year.Add(100 * 24 * time.Hour), End: year.Add(101 * 24 * time.Hour)}
	b.Run("daily_report", func(b *testing.B) {
		for b.Loop() {
			r, err := d.Store.DailyReport(ctx, db.Site{HotelID: "h1"}, day)
			require.NoError(b, err)
			require.NotEmpty(b, r.Items)
		}
	})
	b.Run("ledger_check", func(b *testing.B) {
		for b.Loop() {
			found, err := d.Store.LedgerMismatches(ctx)
			require.NoError(b, err)
			require.Len(b, found, 1, "the one booking whose money the benchmark did not write")
		}
	})
}
