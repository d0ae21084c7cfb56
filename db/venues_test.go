package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// venueWith creates a venue in tz with one resource.
func venueWith(t *testing.T, store *db.Store, tz string, r domain.VenueResource) {
	t.Helper()
	ctx := context.Background()
	v := domain.NewVenue("v1", "", tz)
	require.NoError(t, v.Validate())
	_, err := store.PutVenue(ctx, v)
	require.NoError(t, err)
	r.VenueID = "v1"
	require.NoError(t, r.Validate())
	_, err = store.PutVenueResource(ctx, r)
	require.NoError(t, err)
}

var court = domain.VenueResource{ID: "court-1", Kind: domain.KindExclusiveSlot, Name: "Court 1", Sport: "badminton"}

func schedule(from, to domain.Date, opens, closes string, minutes int) domain.Schedule {
	return domain.Schedule{From: from, To: to, Opens: opens, Closes: closes, SlotMinutes: minutes,
		Price: domain.Money{Amount: 2000, Currency: "EUR"}}
}

func slotsOn(t *testing.T, store *db.Store, d domain.Date) []db.Slot {
	t.Helper()
	_, loc, err := store.GetVenue(context.Background(), "v1")
	require.NoError(t, err)
	slots, err := store.VenueSlots(context.Background(), "v1", "", domain.DayBounds(d, loc), loc)
	require.NoError(t, err)
	return slots
}

func starts(slots []db.Slot) []string {
	out := []string{}
	for _, s := range slots {
		out = append(out, s.Start.Format(time.RFC3339))
	}
	return out
}

// TestApplyingAScheduleTwiceCreatesNothingNew, and a change of hours adds and removes only
// unsold units: a sold unit stays, and the new units it overlaps are skipped.
func TestApplyingAScheduleTwiceCreatesNothingNew(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	venueWith(t, d.Store, "UTC", court)
	day1, day3 := domain.NewDate(2030, 6, 3), domain.NewDate(2030, 6, 5)

	first, err := d.Store.ApplySchedule(ctx, "v1", "court-1", schedule(day1, day3, "07:00", "10:00", 60))
	require.NoError(t, err)
	assert.Equal(t, db.ScheduleResult{Units: 6, Created: 6}, first)
	again, err := d.Store.ApplySchedule(ctx, "v1", "court-1", schedule(day1, day3, "07:00", "10:00", 60))
	require.NoError(t, err)
	assert.Equal(t, db.ScheduleResult{Units: 6}, again, "the same schedule again creates nothing")
	assert.Equal(t, []string{"2030-06-03T07:00:00Z", "2030-06-03T08:00:00Z", "2030-06-03T09:00:00Z"}, starts(slotsOn(t, d.Store, day1)))

	// Something is booked 08:00-09:00 on the first day; the venue moves to 90-minute slots.
	_, err = d.Pool.Exec(ctx, `UPDATE inventory SET reserved = 1 WHERE unit_start = '2030-06-03 08:00'`)
	require.NoError(t, err)
	changed, err := d.Store.ApplySchedule(ctx, "v1", "court-1", schedule(day1, day3, "07:00", "10:00", 90))
	require.NoError(t, err)
	// New: 07:00-08:30 and 08:30-10:00 on both days; on the first both overlap the sold unit.
	assert.Equal(t, db.ScheduleResult{Units: 4, Created: 2, Removed: 5, KeptSold: 1, Skipped: 2}, changed)
	assert.Equal(t, []string{"2030-06-03T08:00:00Z"}, starts(slotsOn(t, d.Store, day1)), "the sold unit alone stays")
	assert.Equal(t, []string{"2030-06-04T07:00:00Z", "2030-06-04T08:30:00Z"}, starts(slotsOn(t, d.Store, day3.AddDays(-1))))

	// Staff close 07:00 on the second day; going back to hourly slots keeps it, closed.
	seven := time.Date(2030, 6, 4, 7, 0, 0, 0, time.UTC)
	_, err = d.Store.CloseUnits(ctx, db.Closure{VenueID: "v1", ResourceID: "court-1", From: seven, To: seven.Add(time.Minute),
		Reason: "resurfacing", By: "admin"})
	require.NoError(t, err)
	back, err := d.Store.ApplySchedule(ctx, "v1", "court-1", schedule(day1.AddDays(1), day3, "07:00", "10:00", 60))
	require.NoError(t, err)
	assert.Equal(t, db.ScheduleResult{Units: 3, Created: 1, Removed: 1, KeptClosed: 1, Skipped: 2}, back,
		"the closed 07:00-08:30 stays and blocks 07:00 and 08:00; 09:00 is new")
	slots := slotsOn(t, d.Store, day3.AddDays(-1))
	require.Len(t, slots, 2)
	assert.False(t, slots[0].Open, "a schedule never reopens what staff closed")
}

// TestUnitsOfOneResourceNeverOverlap: the database refuses overlapping units whatever writes
// them.
func TestUnitsOfOneResourceNeverOverlap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	venueWith(t, d.Store, "UTC", court)
	_, err := d.Store.ApplySchedule(ctx, "v1", "court-1", schedule(domain.NewDate(2030, 6, 3), domain.NewDate(2030, 6, 4), "07:00", "09:00", 60))
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `INSERT INTO inventory (resource_id, unit_start, unit_end, total)
		SELECT resource_id, '2030-06-03 07:30', '2030-06-03 08:30', 1 FROM inventory LIMIT 1`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "units_never_overlap")
}

// TestSlotsAcrossBerlinsClockChanges: on the day the clocks go back the repeated hour sells as
// two slots; on the day they go forward the skipped hour has none.
func TestSlotsAcrossBerlinsClockChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	venueWith(t, d.Store, "Europe/Berlin", court)
	spring, autumn := domain.NewDate(2030, 3, 31), domain.NewDate(2030, 10, 27)
	for _, day := range []domain.Date{spring, autumn} {
		_, err := d.Store.ApplySchedule(ctx, "v1", "court-1", schedule(day, day.AddDays(1), "00:00", "05:00", 60))
		require.NoError(t, err)
	}
	assert.Equal(t, []string{"2030-03-31T00:00:00+01:00", "2030-03-31T01:00:00+01:00", "2030-03-31T03:00:00+02:00",
		"2030-03-31T04:00:00+02:00"}, starts(slotsOn(t, d.Store, spring)), "no slot starts in the skipped hour")
	assert.Equal(t, []string{"2030-10-27T00:00:00+02:00", "2030-10-27T01:00:00+02:00", "2030-10-27T02:00:00+02:00",
		"2030-10-27T02:00:00+01:00", "2030-10-27T03:00:00+01:00", "2030-10-27T04:00:00+01:00"},
		starts(slotsOn(t, d.Store, autumn)), "the repeated hour is two slots")
}

// TestASlotIsOnItsVenuesLocalDate: a 07:00 slot in Shanghai is 23:00 UTC the day before, and is
// listed on its local date.
func TestASlotIsOnItsVenuesLocalDate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	venueWith(t, d.Store, "Asia/Shanghai", court)
	dec1 := domain.NewDate(2030, 12, 1)
	_, err := d.Store.ApplySchedule(ctx, "v1", "court-1", schedule(dec1, dec1.AddDays(1), "07:00", "08:00", 60))
	require.NoError(t, err)
	assert.Equal(t, []string{"2030-12-01T07:00:00+08:00"}, starts(slotsOn(t, d.Store, dec1)))
	assert.Empty(t, slotsOn(t, d.Store, dec1.AddDays(-1)), "not on the UTC date")
	var utc time.Time
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT unit_start FROM inventory`).Scan(&utc))
	assert.Equal(t, "2030-11-30T23:00:00Z", utc.Format(time.RFC3339), "stored as the UTC instant")
}

// TestClosingASlotStopsItsSales: closed, a slot shows nothing left and is not sold; its count
// is kept; reopened, it sells again.
func TestClosingASlotStopsItsSales(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	lane := domain.VenueResource{ID: "lane-1", Kind: domain.KindQuotaSlot, Capacity: 6, Sport: "swimming"}
	venueWith(t, d.Store, "UTC", lane)
	day := domain.NewDate(2030, 6, 3)
	_, err := d.Store.ApplySchedule(ctx, "v1", "lane-1", schedule(day, day.AddDays(1), "07:00", "09:00", 60))
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `UPDATE inventory SET reserved = 2 WHERE unit_start = '2030-06-03 07:00'`)
	require.NoError(t, err)

	seven := time.Date(2030, 6, 3, 7, 0, 0, 0, time.UTC)
	closure := db.Closure{VenueID: "v1", ResourceID: "lane-1", From: seven, To: seven.Add(time.Hour), Reason: "lane rope broken", By: "admin"}
	n, err := d.Store.CloseUnits(ctx, closure)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	n, err = d.Store.CloseUnits(ctx, closure)
	require.NoError(t, err)
	assert.Zero(t, n, "closed once")
	slots := slotsOn(t, d.Store, day)
	require.Len(t, slots, 2)
	assert.False(t, slots[0].Open)
	assert.Equal(t, "lane rope broken", slots[0].ClosedReason)
	assert.Zero(t, slots[0].PlacesLeft, "a closed slot has nothing left to sell")
	assert.True(t, slots[1].Open)
	assert.Equal(t, 6, slots[1].PlacesLeft)
	var reserved int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT reserved FROM inventory WHERE unit_start = $1`, seven).Scan(&reserved))
	assert.Equal(t, 2, reserved, "its bookings stay")

	n, err = d.Store.ReopenUnits(ctx, db.Closure{VenueID: "v1", From: seven, To: seven.Add(24 * time.Hour)})
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Equal(t, 4, slotsOn(t, d.Store, day)[0].PlacesLeft)

	// The 2 places were planted without bookings: the invariant checker sees venue units too.
	findings, err := d.Store.InventoryMismatches(ctx)
	require.NoError(t, err)
	require.Len(t, findings, 1)
	assert.Contains(t, findings[0].Detail, "v1 lane-1")
}

// TestAClosedNightIsNotSold: a closed unit refuses the reservation that would otherwise take it.
func TestAClosedNightIsNotSold(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	_, err := d.Pool.Exec(ctx, `UPDATE inventory SET closed_reason = 'maintenance', closed_at = now() WHERE unit_start = $1`,
		dec10.AddDays(1).Time())
	require.NoError(t, err)
	b, err := d.Store.Reserve(ctx, holdParams("c1", "k", stay3, 1))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, b.Status)
	assert.Equal(t, []int{0, 0, 0}, d.Reserved(t, "h1", "double", stay3))
}

// TestEquipmentIsRentedByWholeUnits: rackets by the hour are available for a span of whole
// hours, priced per hour; a span that cuts an hour is not rentable.
func TestEquipmentIsRentedByWholeUnits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	rackets := domain.VenueResource{ID: "rackets", Kind: domain.KindEquipment, Unit: domain.UnitHour, Capacity: 8}
	venueWith(t, d.Store, "UTC", rackets)
	day := domain.NewDate(2030, 6, 3)
	sched := schedule(day, day.AddDays(1), "08:00", "12:00", 0)
	sched.Price.Amount = 300
	require.NoError(t, sched.Validate(domain.UnitHour), "sets the hour's 60 minutes")
	_, err := d.Store.ApplySchedule(ctx, "v1", "rackets", sched)
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `UPDATE inventory SET reserved = 8 WHERE unit_start = '2030-06-03 11:00'`)
	require.NoError(t, err)

	at := func(h, m int) time.Time { return time.Date(2030, 6, 3, h, m, 0, 0, time.UTC) }
	rent := func(from, to time.Time) db.Rental {
		out, err := d.Store.EquipmentAvailability(ctx, "v1", domain.Span{Start: from, End: to})
		require.NoError(t, err)
		require.Len(t, out, 1)
		return out[0]
	}
	two := rent(at(9, 0), at(11, 0))
	assert.Equal(t, 8, two.Available)
	assert.Equal(t, &domain.Money{Amount: 600, Currency: "EUR"}, two.Price)
	assert.Zero(t, rent(at(9, 30), at(10, 30)).Available, "half hours are not rented")
	assert.Zero(t, rent(at(10, 0), at(12, 0)).Available, "the rackets are out at 11:00")
	assert.Zero(t, rent(at(11, 0), at(13, 0)).Available, "not on sale after 12:00")
}

// TestCapacityCannotDropBelowWhatIsBooked: a resource's new capacity applies to its units from
// now on, unless one has more booked.
func TestCapacityCannotDropBelowWhatIsBooked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	lane := domain.VenueResource{ID: "lane-1", VenueID: "v1", Kind: domain.KindQuotaSlot, Capacity: 6, Unit: domain.UnitSlot}
	venueWith(t, d.Store, "UTC", lane)
	day := domain.DateOf(time.Now().Add(48*time.Hour), time.UTC)
	_, err := d.Store.ApplySchedule(ctx, "v1", "lane-1", schedule(day, day.AddDays(1), "07:00", "09:00", 60))
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `UPDATE inventory SET reserved = 5 WHERE unit_start = $1`, day.Time().Add(7*time.Hour))
	require.NoError(t, err)

	lane.Capacity = 4
	_, err = d.Store.PutVenueResource(ctx, lane)
	require.True(t, errors.Is(err, domain.ErrConflict), "%v", err)
	lane.Capacity = 5
	_, err = d.Store.PutVenueResource(ctx, lane)
	require.NoError(t, err)
	for _, s := range slotsOn(t, d.Store, day) {
		assert.Equal(t, 5, s.Capacity)
	}
	lane.Kind = domain.KindExclusiveSlot
	_, err = d.Store.PutVenueResource(ctx, lane)
	assert.True(t, errors.Is(err, domain.ErrConflict), "a resource's kind is fixed: %v", err)
}
