package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestTheDailyReportReadsItsDaysEntriesNotEveryBookingOfTheSite: a hotel of 20,000 bookings,
// each with a payment captured on one day of a year, about 55 a day. The report of a day lists
// that day's payments, and its query reads no more bookings and ledger entries than the day has
// entries (EXPLAIN ANALYZE's rows of each scan): the report of a day takes as long as the day's
// entries, not as the site's bookings or the whole ledger (issue 34, over a million entries).
func TestTheDailyReportReadsItsDaysEntriesNotEveryBookingOfTheSite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, bk := hotelOfBookings(t, 20_000)
	year := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	_, err := d.Pool.Exec(ctx, `INSERT INTO money_ledger (at, booking_id, payment_id, kind, debit, credit, amount, currency, ref, method)
		SELECT $2::timestamptz + (n % 365) * interval '1 day' + (n % 1440) * interval '1 minute', id, id || '/p', 'captured',
			'paid_in', 'received', 17500, 'EUR', id || '/p', 'provider'
		FROM (SELECT id, row_number() OVER (ORDER BY id) n FROM bookings WHERE id LIKE $1 || '%') b`, bk.ID, year)
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `ANALYZE money_ledger; ANALYZE bookings; ANALYZE resources`)
	require.NoError(t, err)
	day := domain.Span{Start: year.Add(100 * 24 * time.Hour), End: year.Add(101 * 24 * time.Hour)}
	entries := count(t, d, `SELECT count(*) FROM money_ledger WHERE at >= $1 AND at < $2`, day.Start, day.End)
	require.Greater(t, entries, 40)

	r, err := d.Store.DailyReport(ctx, db.Site{HotelID: "h1"}, day)
	require.NoError(t, err)
	require.Len(t, r.Items, entries)
	for _, it := range r.Items {
		require.Equal(t, db.ReportItem{At: it.At, Kind: "payment", Channel: db.ChannelOnline, Method: "provider",
			BookingID: it.BookingID, PaymentID: it.BookingID + "/p", Amount: 17500, Currency: "EUR"}, it)
	}

	var plan []struct{ Plan planNode }
	require.NoError(t, d.Pool.QueryRow(ctx, `EXPLAIN (ANALYZE, FORMAT JSON) `+db.DailyReportItems, "h1", "", day.Start,
		day.End).Scan(&plan))
	read := map[string]float64{}
	plan[0].Plan.rowsRead(read)
	t.Logf("a day of %d entries: %v rows read", entries, read)
	require.LessOrEqual(t, read["bookings"], float64(entries), "bookings read for a day of %d entries", entries)
	require.LessOrEqual(t, read["money_ledger"], float64(entries), "entries read for a day of %d", entries)
}

// planNode is a node of EXPLAIN (ANALYZE, FORMAT JSON).
type planNode struct {
	Relation  string     `json:"Relation Name"`
	Rows      float64    `json:"Actual Rows"`
	Loops     float64    `json:"Actual Loops"`
	Removed   float64    `json:"Rows Removed by Filter"`
	Rechecked float64    `json:"Rows Removed by Index Recheck"`
	Plans     []planNode `json:"Plans"`
}

// rowsRead adds to read the rows each scan of a table under n read, by table: those it returned
// and those its filter removed, in all its loops.
func (n planNode) rowsRead(read map[string]float64) {
	if n.Relation != "" {
		read[n.Relation] += (n.Rows + n.Removed + n.Rechecked) * n.Loops
	}
	for _, c := range n.Plans {
		c.rowsRead(read)
	}
}

// hotelOfBookings is a database with n bookings of the hotel h1: a hold, and n-1 copies of it (ids
// <hold>-1 to <hold>-<n-1>, each its own idempotency key, 175.00 paid) written without their
// triggers' history.
func hotelOfBookings(t testing.TB, n int) (*testsuite.Database, domain.Booking) {
	t.Helper()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	bk, err := d.Store.Reserve(ctx, holdParams("bench", "k", nights(dec10, 1), 1))
	require.NoError(t, err)
	require.NoError(t, pgx.BeginFunc(ctx, d.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO bookings SELECT (jsonb_populate_record(b, jsonb_build_object('id', b.id || '-' || g,
			'idempotency_key', 'bench-' || g, 'paid', 17500))).* FROM bookings b, generate_series(1, $2::int) g WHERE b.id = $1`,
			bk.ID, n-1)
		return err
	}))
	return d, bk
}
