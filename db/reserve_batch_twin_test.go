package db_test

import (
	"context"
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

// The same reservations, made one at a time (unbatched) on hotel "alone" and in one batch on
// hotel "batch", set up alike, give the same bookings (status, refusal, price, policy) and the
// same unit changes, in the same order: the batch decides as one at a time in check-in order
// would.
func TestABatchDecidesAsOneAtATimeWould(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	eur := &domain.Money{Amount: 12550, Currency: "EUR"}
	for _, h := range []string{"alone", "batch"} {
		d.SetInventory(t, h, "double", dec10, dec10.AddDays(6), 4)
		require.NoError(t, d.Store.SetCancellationPolicy(ctx, h, domain.CancellationPolicy{FreeUntilHours: 24, FeePercent: 10,
			EarlyDeparture: domain.EarlyDepartureAllButFirst}))
		require.NoError(t, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: h, RoomTypeID: "double",
			From: dec10.AddDays(1), To: dec10.AddDays(2), TotalRooms: 4, Rate: eur}))
		_, err := d.Store.SetBlockedRooms(ctx, db.BlockRooms{HotelID: h, RoomTypeID: "double", From: dec10.AddDays(3),
			To: dec10.AddDays(4), Blocked: 2})
		require.NoError(t, err)
		_, err = d.Store.SetRates(ctx, h, "double", dec10.AddDays(5), dec10.AddDays(6), domain.Money{Currency: "EUR"}, false)
		require.NoError(t, err) // the last night at 0, not free: no rate
	}
	stays := []domain.Stay{nightsFrom(dec10, 3), nightsFrom(dec10.AddDays(2), 3), nightsFrom(dec10, 2),
		nightsFrom(dec10.AddDays(4), 2), nightsFrom(dec10.AddDays(1), 4), nightsFrom(dec10.AddDays(3), 1)}
	var ps []db.ReserveParams
	for i := range 24 {
		p := holdParams(fmt.Sprintf("c%02d", i), "k", stays[i%len(stays)], 1+i%3)
		p.MaxActiveHolds = i % 2 // half under a hold limit: the other step 1
		ps = append(ps, p)
	}
	// One at a time in the order the batch decides in: by check-in, then booking id.
	on := func(h string, p db.ReserveParams) db.ReserveParams {
		p.Request.HotelID, p.Request.CustomerID, p.CreatedBy = h, h+"-"+p.Request.CustomerID, h+"-"+p.CreatedBy
		p.BookingID = domain.BookingID(idKey, p.Request.CustomerID, p.CreatedBy, p.IdempotencyKey)
		return p
	}
	batch := make([]db.ReserveParams, len(ps))
	for i, p := range ps {
		batch[i] = on("batch", p)
	}
	got, errs := inOneBatch(t, batchStore(d, 0), nil, batch)
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	before := func(a, b int) bool {
		if c := batch[a].Request.CheckIn.Time().Compare(batch[b].Request.CheckIn.Time()); c != 0 {
			return c < 0
		}
		return batch[a].BookingID < batch[b].BookingID
	}
	for i := range order { // a small insertion sort keeps the test free of another import
		for j := i; j > 0 && before(order[j], order[j-1]); j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	alone := db.NewStore(d.Pool, 0)
	alone.SetBatching(false)
	want := make([]domain.Booking, len(ps))
	for _, i := range order {
		var err error
		want[i], err = alone.Reserve(ctx, on("alone", ps[i]))
		require.NoError(t, err)
		require.NoError(t, errs[i])
	}
	statuses := map[domain.Status]int{}
	for i := range ps {
		a, b := want[i], got[i]
		statuses[b.Status]++
		for _, x := range []*domain.Booking{&a, &b} {
			x.CustomerID, x.CreatedBy = strings.TrimPrefix(x.CustomerID, x.HotelID+"-"), strings.TrimPrefix(x.CreatedBy, x.HotelID+"-")
			x.ID, x.HotelID, x.Fingerprint, x.CreatedAt, x.UpdatedAt, x.ExpiresAt = "", "", "", time.Time{}, time.Time{}, time.Time{}
		}
		assert.Equal(t, a, b, "reservation %d", i)
	}
	assert.Positive(t, statuses[domain.StatusHold])
	assert.Positive(t, statuses[domain.StatusRejected])
	for _, night := range nightsFrom(dec10, 6).NightDates() {
		assert.Equal(t, unitChanges(t, d, "alone", night), unitChanges(t, d, "batch", night), "the unit changes of %s", night)
	}
	for _, h := range []string{"alone", "batch"} {
		assert.Empty(t, oversold(t, d, h, "double", dec10, dec10.AddDays(6)))
	}
	d.AssertInventoryMatchesBookings(t)
}

// unitChanges are a night's recorded changes of its counts, in order, each with the customer
// (less its hotel's prefix) of the booking it was made for.
func unitChanges(t *testing.T, d *testsuite.Database, hotel string, night domain.Date) []string {
	t.Helper()
	rows, err := d.Pool.Query(context.Background(), `SELECT c.change, COALESCE(c.reserved_before, -1), COALESCE(c.reserved_after, -1),
			COALESCE(c.total_after, -1), COALESCE(c.blocked_after, -1), COALESCE(b.customer_id, '')
		FROM inventory_changes c JOIN resources r ON r.id = c.resource_id LEFT JOIN bookings b ON b.id = c.booking_id
		WHERE r.hotel_id = $1 AND c.unit_start = $2 ORDER BY c.id`, hotel, night.Time())
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var change, customer string
		var before, after, total, blocked int
		require.NoError(t, rows.Scan(&change, &before, &after, &total, &blocked, &customer))
		out = append(out, fmt.Sprintf("%s %d->%d of %d (%d blocked) for %q", change, before, after, total, blocked,
			strings.TrimPrefix(customer, hotel+"-")))
	}
	require.NoError(t, rows.Err())
	return out
}
