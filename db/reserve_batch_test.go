package db_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// Concurrent direct sales of one room type share a transaction (reserve_batch.go). These tests
// form their batches on purpose: the writer is held (db.HoldBatches) until every reservation
// has queued, so one transaction holds them all.

// inOneBatch runs the reservations concurrently through store and returns, in order, what each
// got, requiring that one transaction of exactly len(ps) reservations ran them.
func inOneBatch(t *testing.T, store *db.Store, ctxs []context.Context, ps []db.ReserveParams) ([]domain.Booking, []error) {
	t.Helper()
	release := db.HoldBatches(store)
	defer release()
	runs, calls := db.BatchRuns(store)
	got, errs := make([]domain.Booking, len(ps)), make([]error, len(ps))
	done := make(chan int, len(ps))
	for i := range ps {
		ctx := context.Background()
		if ctxs != nil {
			ctx = ctxs[i]
		}
		go func() {
			got[i], errs[i] = store.Reserve(ctx, ps[i])
			done <- i
		}()
	}
	h, rt := ps[0].Request.HotelID, ps[0].Request.RoomTypeID
	require.Eventually(t, func() bool { return db.Queued(store, h, rt) == len(ps) }, 10*time.Second, time.Millisecond)
	release()
	for range ps {
		<-done
	}
	r, c := db.BatchRuns(store)
	require.Zero(t, db.FailedBatches(store), "no batch failed as a whole")
	if ctxs == nil {
		require.Equal(t, [2]int64{runs + 1, calls + int64(len(ps))}, [2]int64{r, c}, "one transaction ran them all")
	}
	return got, errs
}

// batchStore is a store of d's with batched reservations on.
func batchStore(d *testsuite.Database, lockTimeout time.Duration) *db.Store {
	s := db.NewStore(d.Pool, lockTimeout)
	s.SetBatching(true)
	return s
}

// oversold lists what is wrong with the room type's counts after a race: a night reserved
// beyond its total or other than its HOLD bookings' units, or a finding of the store's own
// inventory check.
func oversold(t *testing.T, d *testsuite.Database, hotel, roomType string, first, last domain.Date) []string {
	t.Helper()
	ctx := context.Background()
	var problems []string
	for _, night := range (domain.Stay{CheckIn: first, CheckOut: last}).NightDates() {
		var reserved, total, held int
		require.NoError(t, d.Pool.QueryRow(ctx, `SELECT i.reserved, i.total,
				(SELECT COALESCE(sum(b.quantity), 0) FROM bookings b WHERE b.resource_id = i.resource_id AND b.status = 'HOLD'
					AND i.unit_start >= b.unit_from AND i.unit_start < b.unit_to)
			FROM inventory i JOIN resources r ON r.id = i.resource_id
			WHERE r.hotel_id = $1 AND r.code = $2 AND i.unit_start = $3`, hotel, roomType, night.Time()).Scan(&reserved, &total, &held))
		if reserved > total || held > total || reserved != held {
			problems = append(problems, fmt.Sprintf("%s: reserved %d, held by bookings %d, total %d", night, reserved, held, total))
		}
	}
	// The unit changes read as if the bookings were made one at a time: on every night each
	// starts where the one before ended, and every HOLD booking changed each of its nights once.
	var broken int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM (
			SELECT c.reserved_before, lag(c.reserved_after) OVER (PARTITION BY c.unit_start ORDER BY c.id) AS prev, c.change
			FROM inventory_changes c JOIN resources r ON r.id = c.resource_id WHERE r.hotel_id = $1 AND r.code = $2) x
		WHERE x.change = 'updated' AND x.reserved_before IS DISTINCT FROM x.prev`, hotel, roomType).Scan(&broken))
	if broken > 0 {
		problems = append(problems, fmt.Sprintf("%d unit changes do not start where the one before ended", broken))
	}
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM bookings b JOIN resources r ON r.id = b.resource_id
		WHERE r.hotel_id = $1 AND r.code = $2 AND b.status = 'HOLD' AND (b.unit_to::date - b.unit_from::date) <>
			(SELECT count(*) FROM inventory_changes c WHERE c.booking_id = b.id AND c.reserved_after - c.reserved_before = b.quantity)`,
		hotel, roomType).Scan(&broken))
	if broken > 0 {
		problems = append(problems, fmt.Sprintf("%d holds without one unit change per night", broken))
	}
	findings, err := d.Store.InventoryMismatches(ctx)
	require.NoError(t, err)
	for _, f := range findings {
		problems = append(problems, f.Detail)
	}
	return problems
}

// raceFewRooms makes 60 reservations of 5 rooms in one batch, over stays that overlap from
// both ends (so the batch's nights are not one block); then 90 more of "free" race freely
// through two batching stores (two processes) and one that does not, some released as soon as
// held. It returns what is wrong with the counts afterwards.
func raceFewRooms(t *testing.T, d *testsuite.Database) []string {
	t.Helper()
	first, last := dec10, dec10.AddDays(6)
	stays := []domain.Stay{{CheckIn: first, CheckOut: last}, {CheckIn: first.AddDays(3), CheckOut: last},
		{CheckIn: first, CheckOut: first.AddDays(2)}, {CheckIn: first.AddDays(1), CheckOut: first.AddDays(4)}}
	var problems []string
	for _, rt := range []string{"double", "free"} {
		d.SetInventory(t, "h1", rt, first, last, 5)
	}
	ps := make([]db.ReserveParams, 60)
	for i := range ps {
		ps[i] = holdParams(fmt.Sprintf("c%d", i), "k", stays[i%len(stays)], 1+i%2)
	}
	got, errs := inOneBatch(t, batchStore(d, 0), nil, ps)
	require.NoError(t, errors.Join(errs...))
	for i, b := range got {
		require.Contains(t, []domain.Status{domain.StatusHold, domain.StatusRejected}, b.Status, "reservation %d", i)
	}
	problems = append(problems, oversold(t, d, "h1", "double", first, last)...)

	stores := []*db.Store{batchStore(d, 0), batchStore(d, 0), db.NewStore(d.Pool, 0)}
	stores[2].SetBatching(false)
	ctx := context.Background()
	errs = make([]error, 90)
	testsuite.Race(90, func(i int) {
		p := holdParams(fmt.Sprintf("r%d", i), "k", stays[i%len(stays)], 1+i%2)
		p.Request.RoomTypeID = "free"
		b, err := stores[i%3].Reserve(ctx, p)
		if err == nil && b.Status == domain.StatusHold && i%4 == 0 {
			_, err = stores[(i+1)%3].Release(ctx, b.ID, domain.StatusCancelled)
		}
		errs[i] = err
	})
	require.NoError(t, errors.Join(errs...), "no deadlock, no lock timeout")
	for _, s := range stores[:2] {
		runs, _ := db.BatchRuns(s)
		require.Positive(t, runs, "the free race formed batches")
		require.Zero(t, db.FailedBatches(s), "no batch failed as a whole")
	}
	return append(problems, oversold(t, d, "h1", "free", first, last)...)
}

func TestABatchOfReservationsNeverOversells(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	assert.Empty(t, raceFewRooms(t, d))
	d.AssertInventoryMatchesBookings(t)
	var held int
	require.NoError(t, d.Pool.QueryRow(context.Background(), `SELECT count(*) FROM bookings WHERE status = 'HOLD'`).Scan(&held))
	assert.Positive(t, held, "some of them won")
}

// TestABatchWithoutTheStockCheckOversells is the control for the test above: with the stock
// check taken out of reserve_stays (and the table's own CHECK dropped), the same race sells
// more than there is, and the test's checks see it.
func TestABatchWithoutTheStockCheckOversells(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	var def string
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT pg_get_functiondef('reserve_stays'::regproc)`).Scan(&def))
	for _, guard := range []string{"OR n_total[j] - n_reserved[j] - n_granted[j] - n_blocked[j] < b.quantity", // step 2
		"OR n.total - n.reserved - n.blocked < b.quantity"} { // step 2b
		require.Contains(t, def, guard)
		def = strings.Replace(def, guard, "", 1)
	}
	_, err := d.Pool.Exec(ctx, def)
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `ALTER TABLE inventory DROP CONSTRAINT reserved_within_total`)
	require.NoError(t, err)
	assert.NotEmpty(t, raceFewRooms(t, d), "without the stock check the batch must oversell, or the race test proves nothing")
}

// Every outcome in one batch, each as Reserve alone would give it.
func TestEachReservationInABatchGetsItsOwnAnswer(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 3)
	retried := holdParams("a", "k1", stay3, 1)
	first, err := d.Store.Reserve(ctx, retried)
	require.NoError(t, err)
	other, err := d.Store.Reserve(ctx, holdParams("b", "k1", stay3, 1))
	require.NoError(t, err)
	limited := holdParams("l", "k1", nightsFrom(dec10.AddDays(1), 1), 1)
	limited.MaxActiveHolds = 1
	_, err = d.Store.Reserve(ctx, limited)
	require.NoError(t, err) // 0 rooms left on Dec 11, 1 on Dec 10 and 12

	mismatch := holdParams("b", "k1", stay3, 2) // b's key again, for two rooms
	overLimit := holdParams("l", "k2", nightsFrom(dec10, 1), 1)
	overLimit.MaxActiveHolds = 1
	short := holdParams("s", "k1", nightsFrom(dec10, 1), 2)
	fits := holdParams("f", "k1", nightsFrom(dec10, 1), 1)
	late := holdParams("z", "k1", nightsFrom(dec10.AddDays(2), 1), 1)
	full := holdParams("x", "k1", stay3, 1)
	unknown := holdParams("u", "k1", stay3, 1)
	unknown.Request.RoomTypeID = "suite"
	got, errs := inOneBatch(t, batchStore(d, 0), nil, []db.ReserveParams{retried, mismatch, overLimit, short, fits, late, full})

	require.NoError(t, errs[0], "the retry")
	assert.Equal(t, first.ID, got[0].ID)
	assert.Equal(t, domain.StatusHold, got[0].Status)
	assert.ErrorIs(t, errs[1], domain.ErrIdempotencyMismatch)
	assert.ErrorIs(t, errs[2], domain.ErrTooManyHolds)
	assert.Contains(t, errs[2].Error(), "customer already has 1 unexpired holds")
	require.NoError(t, errors.Join(errs[3:]...))
	assert.Equal(t, domain.StatusRejected, got[3].Status, "2 rooms, 1 left")
	assert.Empty(t, got[3].Refusal)
	assert.Equal(t, domain.StatusHold, got[4].Status, "the last room of Dec 10")
	assert.Equal(t, int64(10000), got[4].Price.Total)
	assert.Equal(t, domain.StatusHold, got[5].Status, "the last room of Dec 12")
	assert.Equal(t, domain.StatusRejected, got[6].Status, "Dec 11 is full")

	again, err := d.Store.GetBooking(ctx, other.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, again.Quantity, "the mismatch changed nothing")
	var written int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM bookings WHERE idempotency_key = 'k2'`).Scan(&written))
	assert.Zero(t, written, "a hold refused by the limit writes nothing")
	assert.Equal(t, []int{3, 3, 3}, d.Reserved(t, "h1", "double", stay3))
	assert.Empty(t, oversold(t, d, "h1", "double", dec10, dec13))
	d.AssertInventoryMatchesBookings(t)

	unknown2 := unknown
	unknown2.Request.CustomerID, unknown2.BookingID = "u2", "u2"
	_, errs = inOneBatch(t, batchStore(d, 0), nil, []db.ReserveParams{unknown, unknown2})
	for _, err := range errs {
		assert.ErrorIs(t, err, domain.ErrNotFound)
	}
}

// nightsFrom is the stay of n nights from in.
func nightsFrom(in domain.Date, n int) domain.Stay {
	return domain.Stay{CheckIn: in, CheckOut: in.AddDays(n)}
}

// A booking whose nights time out fails alone: the rest of its batch holds, and it leaves no
// booking behind. A caller who gives up while queued leaves nothing either, and the others
// are not disturbed.
func TestOneFailureOrCancellationInABatchSparesTheOthers(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec10.AddDays(4), 5)
	tx, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck
	_, err = tx.Exec(ctx, `SELECT 1 FROM inventory WHERE unit_start = $1 FOR UPDATE`, dec13.Time())
	require.NoError(t, err)

	gone, cancel := context.WithCancel(ctx)
	ps := []db.ReserveParams{holdParams("c1", "k", stay3, 1), holdParams("c2", "k", nightsFrom(dec10.AddDays(2), 2), 1),
		holdParams("c3", "k", stay3, 2), holdParams("c4", "k", stay3, 1)}
	ctxs := []context.Context{ctx, ctx, ctx, gone}
	cancel()
	store := batchStore(d, 300*time.Millisecond)
	runs, calls := db.BatchRuns(store)
	got, errs := inOneBatch(t, store, ctxs, ps)
	r, c := db.BatchRuns(store)
	assert.Equal(t, [2]int64{runs + 1, calls + 3}, [2]int64{r, c}, "one transaction, without the caller who left")

	require.NoError(t, errs[0])
	require.NoError(t, errs[2])
	assert.Equal(t, domain.StatusHold, got[0].Status)
	assert.Equal(t, domain.StatusHold, got[2].Status)
	var pgErr *pgconn.PgError
	require.ErrorAs(t, errs[1], &pgErr)
	assert.Equal(t, "55P03", pgErr.Code, "the locked night timed out: %v", errs[1])
	assert.ErrorIs(t, errs[3], context.Canceled)
	for _, p := range []db.ReserveParams{ps[1], ps[3]} {
		_, err = d.Store.GetBooking(ctx, p.BookingID)
		assert.ErrorIs(t, err, domain.ErrNotFound, "no booking left behind")
	}
	var history int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM booking_changes WHERE booking_id = $1`, ps[1].BookingID).Scan(&history))
	assert.Zero(t, history)
	require.NoError(t, tx.Rollback(ctx))
	assert.Equal(t, []int{3, 3, 3, 0}, d.Reserved(t, "h1", "double", nightsFrom(dec10, 4)))
	d.AssertInventoryMatchesBookings(t)
}
