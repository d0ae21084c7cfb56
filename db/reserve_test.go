package db_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

var (
	dec10 = domain.NewDate(2030, 12, 10)
	dec13 = domain.NewDate(2030, 12, 13)
	stay3 = domain.Stay{CheckIn: dec10, CheckOut: dec13}
)

// idKey is the booking-id key of these tests.
var idKey = []byte("db-tests-booking-id-key-32-bytes")

// holdParams is a customer's own hold request.
func holdParams(customer, key string, stay domain.Stay, qty int) db.ReserveParams {
	req := domain.HoldRequest{CustomerID: customer, HotelID: "h1", RoomTypeID: "double", Stay: stay, Quantity: qty}
	return db.ReserveParams{BookingID: domain.BookingID(idKey, customer, customer, key), IdempotencyKey: key,
		Request: req, CreatedBy: customer, HoldTTL: 10 * time.Minute}
}

func TestLastRoomOverThreeNightsHasExactlyOneWinner(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)

	statuses := make([]domain.Status, 20)
	errs := make([]error, 20)
	testsuite.Race(20, func(i int) {
		b, err := d.Store.Reserve(context.Background(), holdParams(fmt.Sprintf("c%d", i), "k", stay3, 1))
		statuses[i], errs[i] = b.Status, err
	})

	require.NoError(t, errors.Join(errs...))
	count := map[domain.Status]int{}
	for _, s := range statuses {
		count[s]++
	}
	assert.Equal(t, map[domain.Status]int{domain.StatusHold: 1, domain.StatusRejected: 19}, count)
	assert.Equal(t, []int{1, 1, 1}, d.Reserved(t, "h1", "double", stay3))
	d.AssertInventoryMatchesBookings(t)
}

// TestNaiveReadThenWriteOversells is the control for the test above: the same race against a
// read-then-write reservation (read what is left, decide in Go, write the new count) sells the
// last room more than once. It proves the race is real and that the harness can see it.
func TestNaiveReadThenWriteOversells(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)
	ctx := context.Background()

	winners := make([]bool, 20)
	testsuite.Race(20, func(i int) {
		winners[i] = naiveReserve(ctx, t, d, stay3)
	})

	sold := 0
	for _, w := range winners {
		if w {
			sold++
		}
	}
	assert.Greater(t, sold, 1, "the naive version must oversell, or this control proves nothing")
	assert.Equal(t, []int{1, 1, 1}, d.Reserved(t, "h1", "double", stay3), "the lost updates hide the oversell from the counts")
}

// naiveReserve is the bug the store's Reserve avoids: no lock, the decision made in Go.
func naiveReserve(ctx context.Context, t *testing.T, d *testsuite.Database, stay domain.Stay) bool {
	left := map[time.Time]int{}
	rows, err := d.Pool.Query(ctx, `SELECT unit_start, total - reserved FROM inventory WHERE unit_start >= $1 AND unit_start < $2`,
		stay.CheckIn.Time(), stay.CheckOut.Time())
	require.NoError(t, err)
	for rows.Next() {
		var night time.Time
		var n int
		require.NoError(t, rows.Scan(&night, &n))
		left[night] = n
	}
	require.NoError(t, rows.Err())
	for _, n := range left {
		if n < 1 {
			return false
		}
	}
	time.Sleep(20 * time.Millisecond) // the think time of any real handler between read and write
	for night, n := range left {
		_, err := d.Pool.Exec(ctx, `UPDATE inventory SET reserved = total - $2 + 1 WHERE unit_start = $1`, night, n)
		require.NoError(t, err)
	}
	return true
}

func TestOverlappingStaysBothDirectionsNoDeadlockNoOversell(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	first, last := dec10, dec10.AddDays(8)
	d.SetInventory(t, "h1", "double", first, last, 5)
	ctx := context.Background()

	// Stays that overlap each other from both ends, booked and cancelled concurrently: a writer
	// that locked nights in request order would deadlock here.
	stays := []domain.Stay{
		{CheckIn: first, CheckOut: last},
		{CheckIn: first.AddDays(4), CheckOut: last},
		{CheckIn: first, CheckOut: first.AddDays(4)},
		{CheckIn: first.AddDays(2), CheckOut: first.AddDays(6)},
	}
	errs := make([]error, 40)
	testsuite.Race(40, func(i int) {
		p := holdParams(fmt.Sprintf("c%d", i), "k", stays[i%len(stays)], 1+i%2)
		b, err := d.Store.Reserve(ctx, p)
		if err == nil && b.Status == domain.StatusHold && i%3 == 0 {
			_, err = d.Store.Release(ctx, b.ID, domain.StatusCancelled)
		}
		errs[i] = err
	})

	require.NoError(t, errors.Join(errs...), "no deadlock, no lock timeout")
	d.AssertInventoryMatchesBookings(t)
	for _, r := range d.Reserved(t, "h1", "double", domain.Stay{CheckIn: first, CheckOut: last}) {
		assert.LessOrEqual(t, r, 5)
	}
}

func TestMissingNightIsUnavailableAndChangesNothing(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec10.AddDays(1), 3)
	d.SetInventory(t, "h1", "double", dec10.AddDays(2), dec13, 3) // the 11th is not on sale

	b, err := d.Store.Reserve(context.Background(), holdParams("c1", "k1", stay3, 1))

	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, b.Status)
	assert.Equal(t, []int{0, -1, 0}, d.Reserved(t, "h1", "double", stay3))
	d.AssertInventoryMatchesBookings(t)
}

func TestReserveRetryIsIdempotent(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	ctx := context.Background()
	p := holdParams("c1", "k1", stay3, 2)

	first, err := d.Store.Reserve(ctx, p)
	require.NoError(t, err)
	again, err := d.Store.Reserve(ctx, p) // the retry after a lost reply
	require.NoError(t, err)

	assert.Equal(t, first.ID, again.ID)
	assert.Equal(t, domain.StatusHold, again.Status)
	assert.Equal(t, []int{2, 2, 2}, d.Reserved(t, "h1", "double", stay3))

	other := p
	other.Request.Quantity = 3
	_, err = d.Store.Reserve(ctx, other)
	assert.ErrorIs(t, err, domain.ErrIdempotencyMismatch)
	assert.Equal(t, []int{2, 2, 2}, d.Reserved(t, "h1", "double", stay3))
}

func TestReleaseIsIdempotentAndOnlyFromHoldingStates(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	ctx := context.Background()
	b, err := d.Store.Reserve(ctx, holdParams("c1", "k1", stay3, 2))
	require.NoError(t, err)

	for range 2 {
		got, err := d.Store.Release(ctx, b.ID, domain.StatusExpired)
		require.NoError(t, err)
		assert.Equal(t, domain.StatusExpired, got.Status)
	}
	assert.Equal(t, []int{0, 0, 0}, d.Reserved(t, "h1", "double", stay3), "released once, not twice")

	_, err = d.Store.Release(ctx, b.ID, domain.StatusCancelled)
	assert.ErrorIs(t, err, domain.ErrConflict, "an expired booking cannot be cancelled")
	_, err = d.Store.Confirm(ctx, b.ID, nil)
	assert.ErrorIs(t, err, domain.ErrConflict, "an expired booking cannot be confirmed")
	d.AssertInventoryMatchesBookings(t)
}

func TestConfirmChecksTheHoldByTheDatabaseClock(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	ctx := context.Background()

	live, err := d.Store.Reserve(ctx, holdParams("c1", "live", stay3, 1))
	require.NoError(t, err)
	got, err := d.Store.Confirm(ctx, live.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusConfirmed, got.Status)
	_, err = d.Store.Confirm(ctx, live.ID, nil)
	assert.NoError(t, err, "confirming twice is a retry, not an error")

	p := holdParams("c1", "short", stay3, 1)
	p.HoldTTL = time.Millisecond
	short, err := d.Store.Reserve(ctx, p)
	require.NoError(t, err)
	time.Sleep(10 * time.Millisecond)
	_, err = d.Store.Confirm(ctx, short.ID, nil)
	assert.ErrorIs(t, err, domain.ErrConflict)
	got, err = d.Store.GetBooking(ctx, short.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusHold, got.Status, "a refused confirmation changes nothing")
}

func TestLoweringTotalBelowReservedIsRefused(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	ctx := context.Background()
	_, err := d.Store.Reserve(ctx, holdParams("c1", "k1", domain.Stay{CheckIn: dec10.AddDays(1), CheckOut: dec13}, 3))
	require.NoError(t, err)

	err = d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: "h1", RoomTypeID: "double", From: dec10, To: dec13, TotalRooms: 2})
	assert.ErrorIs(t, err, domain.ErrConflict)

	avail, err := d.Store.Availability(ctx, "h1", "", stay3)
	require.NoError(t, err)
	require.Len(t, avail, 1)
	assert.Equal(t, 2, avail[0].Available, "the minimum over the nights, totals unchanged")
	assert.Equal(t, []int{5, 2, 2}, []int{avail[0].Nights[0].Available, avail[0].Nights[1].Available, avail[0].Nights[2].Available})
}

func TestLockTimeoutFailsFastOnAHotRow(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	ctx := context.Background()
	store := db.NewStore(d.Pool, 200*time.Millisecond)

	// Another transaction holds the first night.
	tx, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck
	_, err = tx.Exec(ctx, `SELECT 1 FROM inventory WHERE unit_start = $1 FOR UPDATE`, dec10.Time())
	require.NoError(t, err)

	began := time.Now()
	_, err = store.Reserve(ctx, holdParams("c1", "k1", stay3, 1))
	require.Error(t, err)
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr)
	assert.Equal(t, "55P03", pgErr.Code, "a lock timeout, not a hang: %v", err)
	assert.Less(t, time.Since(began), 5*time.Second)
	require.NoError(t, tx.Rollback(ctx))
	_, err = d.Store.GetBooking(ctx, holdParams("c1", "k1", stay3, 1).BookingID)
	assert.ErrorIs(t, err, domain.ErrNotFound, "the failed attempt left no booking behind")
}

func TestDepartEarlyGivesBackOnlyTheNightsAfterToday(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 2)
	ctx := context.Background()
	b, err := d.Store.Reserve(ctx, holdParams("c1", "k1", stay3, 2))
	require.NoError(t, err)
	firstNight := dec10.Time().Add(20 * time.Hour) // 20:00 on check-in day at the hotel (UTC)
	left, err := d.Store.DepartEarly(ctx, b.ID, firstNight)
	require.NoError(t, err)
	assert.False(t, left.Begun, "a hold is cancelled, not shortened")
	_, err = d.Store.Confirm(ctx, b.ID, nil)
	require.NoError(t, err)

	left, err = d.Store.DepartEarly(ctx, b.ID, dec10.Time().Add(-time.Minute))
	require.NoError(t, err)
	assert.False(t, left.Begun, "the evening before check-in: an ordinary cancel")
	assert.Equal(t, []int{2, 2, 2}, d.Reserved(t, "h1", "double", stay3))

	left, err = d.Store.DepartEarly(ctx, b.ID, firstNight)
	require.NoError(t, err)
	assert.True(t, left.Begun)
	assert.Equal(t, dec10.AddDays(1), left.Booking.CheckOut)
	assert.Equal(t, domain.StatusConfirmed, left.Booking.Status)
	assert.Equal(t, 2, left.Nights)
	assert.Zero(t, left.Refund, "the default policy gives nothing back")
	assert.Equal(t, []int{2, 0, 0}, d.Reserved(t, "h1", "double", stay3), "tonight stays sold")
	left, err = d.Store.DepartEarly(ctx, b.ID, firstNight)
	require.NoError(t, err)
	assert.True(t, left.Begun, "asked again: nothing more to give back")
	assert.Equal(t, []int{2, 0, 0}, d.Reserved(t, "h1", "double", stay3))
	left, err = d.Store.DepartEarly(ctx, b.ID, firstNight.Add(24*time.Hour))
	require.NoError(t, err)
	assert.True(t, left.Begun, "asked the next day: nothing more to give back")
	assert.Zero(t, left.Nights)
	assert.Equal(t, []int{2, 0, 0}, d.Reserved(t, "h1", "double", stay3))
	d.AssertInventoryMatchesBookings(t)
}

func TestAnAbandonedReservationNeverHoldsAfterwards(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)
	ctx := context.Background()

	// Abandoned before its attempt wrote anything: a stray attempt afterwards takes nothing.
	p := holdParams("c1", "k1", stay3, 1)
	b, err := d.Store.AbandonReservation(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, b.Status)
	b, err = d.Store.Reserve(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, b.Status, "the late attempt finds the abandoned booking")
	assert.Equal(t, []int{0, 0, 0}, d.Reserved(t, "h1", "double", stay3))

	// Abandoned after its hold committed: the nights go back.
	p = holdParams("c2", "k1", stay3, 1)
	b, err = d.Store.Reserve(ctx, p)
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, b.Status)
	for range 2 {
		b, err = d.Store.AbandonReservation(ctx, p)
		require.NoError(t, err)
		assert.Equal(t, domain.StatusExpired, b.Status, "abandoning twice changes nothing more")
	}
	assert.Equal(t, []int{0, 0, 0}, d.Reserved(t, "h1", "double", stay3))
	d.AssertInventoryMatchesBookings(t)
}
