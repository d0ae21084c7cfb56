package testsuite

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// DefaultAdminURL is the server the tests create their databases on when TEST_DATABASE_URL is
// not set. scripts/test sets it to the private cluster it starts.
const DefaultAdminURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// AdminURL returns the URL of the database the tests create their own databases from.
func AdminURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultAdminURL
}

// Database is a freshly created, migrated database that is dropped when the test ends.
type Database struct {
	URL   string
	Pool  *pgxpool.Pool
	Store *db.Store
}

// NewDatabase creates a database of its own for t, so tests can run in parallel, and migrates
// it (db.Migrate: the migrations, then the functions of db/functions).
func NewDatabase(t testing.TB) *Database {
	t.Helper()
	d := NewEmptyDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, db.Migrate(ctx, d.Pool))
	return d
}

// NewEmptyDatabase is NewDatabase without the migrations: for a test that migrates it itself.
func NewEmptyDatabase(t testing.TB) *Database {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	admin, err := pgx.Connect(ctx, AdminURL())
	require.NoError(t, err, "connect to TEST_DATABASE_URL %s (scripts/test starts a server)", AdminURL())
	defer admin.Close(ctx)
	name := "bookflow_test_" + randomHex(6)
	_, err = admin.Exec(ctx, "CREATE DATABASE "+name)
	require.NoError(t, err)

	cfg, err := pgx.ParseConfig(AdminURL())
	require.NoError(t, err)
	url := fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", cfg.User, cfg.Host, cfg.Port, name)
	pool, err := db.Connect(ctx, url)
	require.NoError(t, err)

	t.Cleanup(func() {
		pool.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if admin, err := pgx.Connect(ctx, AdminURL()); err == nil {
			_, _ = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			_ = admin.Close(ctx)
		}
	})
	return &Database{URL: url, Pool: pool, Store: db.NewStore(pool, 0)}
}

// TestRate is the nightly rate SetInventory sets: 100.00 EUR.
var TestRate = domain.Money{Amount: 10000, Currency: "EUR"}

// SetInventory opens a room type for the nights [from, to) with total rooms at TestRate.
func (d *Database) SetInventory(t testing.TB, hotelID, roomTypeID string, from, to domain.Date, total int) {
	t.Helper()
	require.NoError(t, d.Store.SetInventory(context.Background(), db.SetInventoryParams{
		HotelID: hotelID, RoomTypeID: roomTypeID, From: from, To: to, TotalRooms: total, Rate: &TestRate}))
}

// Reserved returns the reserved count of every night of the stay, in order; a night not on sale
// reads as -1.
func (d *Database) Reserved(t testing.TB, hotelID, roomTypeID string, stay domain.Stay) []int {
	t.Helper()
	var out []int
	for _, night := range stay.NightDates() {
		var reserved int
		err := d.Pool.QueryRow(context.Background(), `SELECT COALESCE((SELECT i.reserved FROM inventory i
			JOIN resources r ON r.id = i.resource_id
			WHERE r.hotel_id = $1 AND r.code = $2 AND i.unit_start = $3), -1)`,
			hotelID, roomTypeID, night.Time()).Scan(&reserved)
		require.NoError(t, err)
		out = append(out, reserved)
	}
	return out
}

// AssertInventoryMatchesBookings checks the invariant behind "never sell a unit twice": on every
// night, reserved equals the sum of the quantities of the bookings holding it, and never
// exceeds the total.
func (d *Database) AssertInventoryMatchesBookings(t testing.TB) {
	t.Helper()
	rows, err := d.Pool.Query(context.Background(), `SELECT i.resource_id, i.unit_start, i.reserved, i.total,
			COALESCE((SELECT sum(q) FROM (
				SELECT b.quantity AS q FROM bookings b
				WHERE b.resource_id = i.resource_id AND b.status IN ('HOLD', 'CONFIRMED', 'COMPLETED')
					AND i.unit_start >= b.unit_from AND i.unit_start < b.unit_to
				UNION ALL
				SELECT l.quantity FROM booking_lines l JOIN bookings b ON b.id = l.booking_id
				WHERE l.resource_id = i.resource_id AND b.status IN ('HOLD', 'CONFIRMED', 'COMPLETED')
					AND i.unit_start >= l.unit_from AND i.unit_start < l.unit_to
				UNION ALL -- what definite group blocks set aside
				SELECT n.held FROM block_nights n WHERE n.resource_id = i.resource_id AND n.unit_start = i.unit_start) held), 0)
		FROM inventory i ORDER BY 1, 2`)
	require.NoError(t, err)
	defer rows.Close()
	for rows.Next() {
		var resource int64
		var night time.Time
		var reserved, held int
		var total *int // nil: unlimited
		require.NoError(t, rows.Scan(&resource, &night, &reserved, &total, &held))
		require.Equal(t, held, reserved, "resource %d unit %s: reserved must equal what bookings hold", resource, night.Format(time.RFC3339))
		if total != nil {
			require.LessOrEqual(t, reserved, *total)
		}
	}
	require.NoError(t, rows.Err())

	// What channels took from their allocations is what the bookings holding rooms took.
	var wrong int
	require.NoError(t, d.Pool.QueryRow(context.Background(), `SELECT count(*) FROM allocations a
		WHERE a.used <> COALESCE((SELECT sum(ba.quantity) FROM booking_allocations ba JOIN bookings b ON b.id = ba.booking_id
			WHERE ba.resource_id = a.resource_id AND ba.unit_start = a.unit_start AND ba.channel_id = a.channel_id
				AND ba.agent_id IS NOT DISTINCT FROM a.agent_id AND b.status IN ('HOLD', 'CONFIRMED', 'COMPLETED')), 0)`).Scan(&wrong))
	require.Zero(t, wrong, "allocations whose used count differs from what their bookings took")
	require.NoError(t, d.Pool.QueryRow(context.Background(), `SELECT count(*) FROM booking_allocations ba
		WHERE NOT EXISTS (SELECT 1 FROM allocations a WHERE a.resource_id = ba.resource_id AND a.unit_start = ba.unit_start
			AND a.channel_id = ba.channel_id AND a.agent_id IS NOT DISTINCT FROM ba.agent_id)`).Scan(&wrong))
	require.Zero(t, wrong, "rooms taken from allocations that are gone")
	require.NoError(t, d.Pool.QueryRow(context.Background(), `SELECT count(*) FROM booking_allocations ba
		JOIN bookings b ON b.id = ba.booking_id WHERE b.status NOT IN ('HOLD', 'CONFIRMED', 'COMPLETED')`).Scan(&wrong))
	require.Zero(t, wrong, "allocation takes kept by bookings that no longer hold rooms")

	// What a block's guests picked is what the bookings holding rooms drew from it, and a block
	// accounts for every room it was promised.
	require.NoError(t, d.Pool.QueryRow(context.Background(), `SELECT count(*) FROM block_nights n JOIN blocks k ON k.id = n.block_id
		WHERE n.picked <> COALESCE((SELECT sum(bb.quantity) FROM booking_blocks bb JOIN bookings b ON b.id = bb.booking_id
				WHERE bb.block_id = n.block_id AND bb.unit_start = n.unit_start AND b.status IN ('HOLD', 'CONFIRMED', 'COMPLETED')), 0)
			OR (k.definite_at IS NULL AND n.held + n.picked + n.released > 0)
			OR (k.definite_at IS NOT NULL AND n.held + n.picked + n.released <> n.rooms)
			OR (k.status IN ('RELEASED', 'CANCELLED') AND n.held > 0)`).Scan(&wrong))
	require.Zero(t, wrong, "block nights whose counts do not add up")
	require.NoError(t, d.Pool.QueryRow(context.Background(), `SELECT count(*) FROM booking_blocks bb
		JOIN bookings b ON b.id = bb.booking_id WHERE b.status NOT IN ('HOLD', 'CONFIRMED', 'COMPLETED') OR bb.quantity > b.quantity`).Scan(&wrong))
	require.Zero(t, wrong, "block draws kept by bookings that no longer hold them")
}

// AssertMoneyBalances checks that no money is kept without a booking and none is given back
// twice: what succeeded payments brought in, less what succeeded refunds gave back, equals what
// confirmed bookings were paid plus the cancellation fees kept on refunded ones and the fees
// cancelled guaranteed bookings' cards paid.
func (d *Database) AssertMoneyBalances(t testing.TB) {
	t.Helper()
	var received, refunded, kept int64
	err := d.Pool.QueryRow(context.Background(), `SELECT
		COALESCE((SELECT sum(amount) FROM payments WHERE status = 'succeeded'), 0),
		COALESCE((SELECT sum(amount) FROM refunds WHERE status = 'succeeded'), 0),
		COALESCE((SELECT sum(CASE WHEN status = 'REFUNDED' THEN paid - refund_due ELSE paid END)
			FROM bookings WHERE status IN ('CONFIRMED', 'COMPLETED', 'NO_SHOW', 'REFUNDED')
				OR status = 'CANCELLED' AND card_guarantee IS NOT NULL), 0)`).Scan(&received, &refunded, &kept)
	require.NoError(t, err)
	require.Equal(t, kept, received-refunded, "received %d - refunded %d must equal what bookings keep", received, refunded)
	d.AssertLedgerAgrees(t)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// AssertLedgerAgrees checks that the money ledger and the bookings' rows tell the same story:
// the invariant checker's ledger_mismatch (what each booking keeps by its ledger is what its row
// says, and no account went below zero) finds nothing.
func (d *Database) AssertLedgerAgrees(t testing.TB) {
	t.Helper()
	found, err := d.Store.LedgerMismatches(context.Background())
	require.NoError(t, err)
	for _, f := range found {
		t.Errorf("%s %s: %s", f.BookingID, f.PaymentID, f.Detail)
	}
}
