package db_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// A direct sale is reserved in one round trip (the reserve_stay function) unless its hotel has
// sale rules; then the full path's statements, judged in Go, do it. These tests run every
// outcome through both, on two hotels set up alike, and require the same result.

// twinHotels sets up "fast" and "full" alike; "full" gets a sale rule that never applies to
// them (a stop-sell of another room type), which sends its direct sales down the full path.
func twinHotels(t *testing.T, d *testsuite.Database, setup func(hotel string)) {
	t.Helper()
	for _, h := range []string{"fast", "full"} {
		setup(h)
	}
	d.SetInventory(t, "full", "suite", dec10, dec13, 1)
	createRule(t, d, domain.SaleRule{Kind: domain.RuleStopSell, HotelID: "full", RoomTypeID: "suite",
		From: dec10, To: dec13, Reason: "other"}) // any rule in force sends direct sales down the full path
}

// sameOutcome reserves p on both hotels and requires the same booking (apart from its id and
// times), the same error, and the same counts afterwards.
func sameOutcome(t *testing.T, d *testsuite.Database, name string, p db.ReserveParams, roomType string) (domain.Booking, error) {
	t.Helper()
	ctx := context.Background()
	var got [2]domain.Booking
	var errs [2]error
	var counts [2][]int
	for i, h := range []string{"fast", "full"} {
		trips := db.OneRoundTrips(d.Store)
		q := p
		q.Request.HotelID = h
		// Customers of their own, so a hold limit counts one hotel's holds.
		q.Request.CustomerID, q.CreatedBy = h+"-"+p.Request.CustomerID, h+"-"+p.CreatedBy
		q.BookingID = domain.BookingID(idKey, q.Request.CustomerID, q.CreatedBy, q.IdempotencyKey)
		got[i], errs[i] = d.Store.Reserve(ctx, q)
		counts[i] = d.Reserved(t, h, roomType, p.Request.Stay)
		if errs[i] == nil {
			assert.Equal(t, h == "fast", db.OneRoundTrips(d.Store) == trips+1, "%s: %s in one round trip", name, h)
		}
	}
	if errs[0] != nil || errs[1] != nil {
		require.Error(t, errs[0], "%s: the full path gave %v", name, errs[1])
		require.Error(t, errs[1], "%s: the one round trip gave %v", name, errs[0])
		for _, target := range []error{domain.ErrNotFound, domain.ErrIdempotencyMismatch, domain.ErrTooManyHolds} {
			assert.Equal(t, errors.Is(errs[1], target), errors.Is(errs[0], target), "%s: %v against %v", name, errs[0], errs[1])
		}
	}
	assert.Equal(t, counts[1], counts[0], "%s: counts", name)
	fast, full := got[0], got[1]
	if !fast.CreatedAt.IsZero() {
		assert.WithinDuration(t, fast.CreatedAt.Add(10*time.Minute), fast.ExpiresAt, time.Second, name)
	}
	for _, b := range []*domain.Booking{&fast, &full} {
		// The fingerprint covers the hotel and customer.
		b.CustomerID, b.CreatedBy = strings.TrimPrefix(b.CustomerID, b.HotelID+"-"), strings.TrimPrefix(b.CreatedBy, b.HotelID+"-")
		b.ID, b.HotelID, b.Fingerprint, b.CreatedAt, b.UpdatedAt, b.ExpiresAt = "", "", "", time.Time{}, time.Time{}, time.Time{}
	}
	if errs[0] == nil {
		assert.Equal(t, full, fast, name)
	}
	return got[0], errs[0]
}

func TestTheOneRoundTripReservationMatchesTheFullPath(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	eur := func(v int64) *domain.Money { return &domain.Money{Amount: v, Currency: "EUR"} }
	twinHotels(t, d, func(h string) {
		d.SetInventory(t, h, "double", dec10, dec13, 3)
		require.NoError(t, d.Store.SetCancellationPolicy(ctx, h, domain.CancellationPolicy{FreeUntilHours: 24, FeePercent: 10,
			EarlyDeparture: domain.EarlyDepartureAllButFirst})) // copied onto the booking by both paths
		require.NoError(t, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: h, RoomTypeID: "double",
			From: dec10.AddDays(1), To: dec10.AddDays(2), TotalRooms: 3, Rate: eur(12550)}))
		d.SetInventory(t, h, "gap", dec10, dec10.AddDays(1), 3) // the second night is missing
		d.SetInventory(t, h, "gap", dec10.AddDays(2), dec13, 3)
		d.SetInventory(t, h, "shut", dec10, dec13, 3)
		_, err := d.Pool.Exec(ctx, `UPDATE inventory i SET closed_reason = 'maintenance', closed_at = now()
			FROM resources r WHERE r.id = i.resource_id AND r.hotel_id = $1 AND r.code = 'shut' AND i.unit_start = $2`,
			h, dec10.AddDays(1).Time())
		require.NoError(t, err)
		require.NoError(t, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: h, RoomTypeID: "unpriced",
			From: dec10, To: dec13, TotalRooms: 3}))
		require.NoError(t, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: h, RoomTypeID: "open",
			From: dec10, To: dec13, Unlimited: true, Rate: eur(5000)}))
		d.SetInventory(t, h, "blocked", dec10, dec13, 3) // 2 rooms of Dec 11 out of order
		_, err = d.Store.SetBlockedRooms(ctx, db.BlockRooms{HotelID: h, RoomTypeID: "blocked", From: dec10.AddDays(1),
			To: dec10.AddDays(2), Blocked: 2})
		require.NoError(t, err)
		// A rate of 0 on one night: by mistake (zero), or meant (free).
		for _, rt := range []string{"zero", "free"} {
			d.SetInventory(t, h, rt, dec10, dec13, 3)
			_, err := d.Store.SetRates(ctx, h, rt, dec10.AddDays(1), dec10.AddDays(2), *eur(0), rt == "free")
			require.NoError(t, err)
		}
	})

	held, _ := sameOutcome(t, d, "two rooms over nights at two rates", holdParams("c1", "k1", stay3, 2), "double")
	assert.Equal(t, domain.StatusHold, held.Status)
	assert.Equal(t, domain.EarlyDepartureAllButFirst, held.CancellationPolicy.EarlyDeparture)
	assert.Equal(t, int64(2*(10000+12550+10000)), held.Price.Total)
	assert.Equal(t, []domain.NightRate{{Date: dec10, Amount: 20000}, {Date: dec10.AddDays(1), Amount: 25100},
		{Date: dec10.AddDays(2), Amount: 20000}}, held.Price.Nights)

	sameOutcome(t, d, "the retry", holdParams("c1", "k1", stay3, 2), "double")
	_, err := sameOutcome(t, d, "the key reused for another stay", holdParams("c1", "k1", stay3, 1), "double")
	assert.ErrorIs(t, err, domain.ErrIdempotencyMismatch)
	short, _ := sameOutcome(t, d, "more than is left", holdParams("c2", "k2", stay3, 2), "double")
	assert.Equal(t, domain.StatusRejected, short.Status)
	sameOutcome(t, d, "the last room", holdParams("c2", "k3", stay3, 1), "double")

	for _, rt := range []string{"gap", "shut", "unpriced", "zero", "nowhere"} {
		p := holdParams("c3", "k-"+rt, stay3, 1)
		p.Request.RoomTypeID = rt
		b, err := sameOutcome(t, d, rt, p, rt)
		switch rt {
		case "nowhere":
			assert.ErrorIs(t, err, domain.ErrNotFound)
		case "unpriced":
			assert.Equal(t, domain.StatusRejected, b.Status, rt)
			assert.Equal(t, "no rate is set for the night of 2030-12-10", b.Refusal)
		case "zero":
			assert.Equal(t, domain.StatusRejected, b.Status, "a rate of 0 not set free is no rate")
			assert.Equal(t, "no rate is set for the night of 2030-12-11", b.Refusal)
		default:
			assert.Equal(t, domain.StatusRejected, b.Status, rt)
			assert.Empty(t, b.Refusal, "a refusal by stock needs no more words")
		}
	}
	blocked := holdParams("c3", "k-blocked", stay3, 2)
	blocked.Request.RoomTypeID = "blocked"
	b, _ := sameOutcome(t, d, "more than the rooms not blocked", blocked, "blocked")
	assert.Equal(t, domain.StatusRejected, b.Status)
	blocked.IdempotencyKey, blocked.Request.Quantity = "k-blocked-1", 1
	b, _ = sameOutcome(t, d, "the room not blocked", blocked, "blocked")
	assert.Equal(t, domain.StatusHold, b.Status)

	free := holdParams("c3", "k-free", stay3, 1)
	free.Request.RoomTypeID = "free"
	b, _ = sameOutcome(t, d, "a night given away on purpose", free, "free")
	assert.Equal(t, domain.StatusHold, b.Status)
	assert.Equal(t, int64(20000), b.Price.Total)
	open := holdParams("c4", "k4", stay3, 500)
	open.Request.RoomTypeID = "open"
	b, _ = sameOutcome(t, d, "unlimited", open, "open")
	assert.Equal(t, domain.StatusHold, b.Status)

	limited := holdParams("c5", "k5", stay3, 1)
	limited.Request.RoomTypeID, limited.MaxActiveHolds = "open", 1
	sameOutcome(t, d, "a first hold under a limit of one", limited, "open")
	limited.IdempotencyKey = "k6"
	_, err = sameOutcome(t, d, "a second hold under a limit of one", limited, "open")
	assert.ErrorIs(t, err, domain.ErrTooManyHolds)
	var written int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM bookings WHERE idempotency_key LIKE '%k6'`).Scan(&written))
	assert.Zero(t, written, "a hold refused by the limit writes nothing")
	d.AssertInventoryMatchesBookings(t)
}

// lockNights holds the nights of a room type locked, as a long transaction elsewhere would,
// until the test ends.
func lockNights(t *testing.T, d *testsuite.Database, hotel string) {
	t.Helper()
	ctx := context.Background()
	tx, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tx.Rollback(ctx) })
	_, err = tx.Exec(ctx, `SELECT 1 FROM inventory i JOIN resources r ON r.id = i.resource_id WHERE r.hotel_id = $1 FOR UPDATE OF i`, hotel)
	require.NoError(t, err)
}

// A retry of a committed reservation, and a customer over the hold limit, are answered from the
// booking rows: neither waits for nights another transaction holds (it would time out, and the
// workflow would abandon a hold that did commit, or retry a refusal).
func TestRetriesAndHoldLimitsDoNotWaitForTheNights(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	p := holdParams("c1", "k1", stay3, 1)
	p.MaxActiveHolds = 1
	held, err := d.Store.Reserve(ctx, p)
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, held.Status)
	lockNights(t, d, "h1")

	began := time.Now()
	again, err := d.Store.Reserve(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, held.ID, again.ID)
	second := holdParams("c1", "k2", stay3, 1)
	second.MaxActiveHolds = 1
	_, err = d.Store.Reserve(ctx, second)
	assert.ErrorIs(t, err, domain.ErrTooManyHolds)
	assert.Less(t, time.Since(began), db.DefaultLockTimeout/2, "answered without waiting for the locked nights")
}

// A release of a booking racing a retry of its reservation: both take the booking's row before
// the nights, so neither deadlocks.
func TestAReleaseRacingARetryDoesNotDeadlock(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 100)
	for i := range 30 {
		p := holdParams(fmt.Sprintf("c%d", i), "k", stay3, 1)
		_, err := d.Store.Reserve(ctx, p)
		require.NoError(t, err)
		errs := make([]error, 2)
		testsuite.Race(2, func(j int) {
			if j == 0 {
				_, errs[j] = d.Store.Release(ctx, p.BookingID, domain.StatusCancelled)
			} else {
				_, errs[j] = d.Store.Reserve(ctx, p)
			}
		})
		require.NoError(t, errors.Join(errs...), "round %d", i)
	}
	d.AssertInventoryMatchesBookings(t)
}
