package db_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// A venue "v1" in UTC with a court, a 6-place lane and 2 rackets by the hour, 07:00-10:00 on
// orderDay.
var orderDay = domain.NewDate(2030, 6, 3)

func at(hour int) time.Time { return orderDay.Time().Add(time.Duration(hour) * time.Hour) }

func openVenue(t *testing.T) *testsuite.Database {
	t.Helper()
	d := testsuite.NewDatabase(t)
	venueWith(t, d.Store, "UTC", court)
	for _, r := range []domain.VenueResource{
		{ID: "lane-1", VenueID: "v1", Kind: domain.KindQuotaSlot, Capacity: 6},
		{ID: "rackets", VenueID: "v1", Kind: domain.KindEquipment, Unit: domain.UnitHour, Capacity: 2},
	} {
		require.NoError(t, r.Validate())
		_, err := d.Store.PutVenueResource(context.Background(), r)
		require.NoError(t, err)
	}
	for _, id := range []string{"court-1", "lane-1", "rackets"} {
		_, err := d.Store.ApplySchedule(context.Background(), "v1", id, schedule(orderDay, orderDay.AddDays(1), "07:00", "10:00", 60))
		require.NoError(t, err)
	}
	return d
}

func order(customer, key string, lines ...domain.OrderLine) db.OrderParams {
	req := domain.OrderRequest{CustomerID: customer, VenueID: "v1", Lines: lines}
	return db.OrderParams{BookingID: domain.BookingID(idKey, customer, customer, key), IdempotencyKey: key,
		Request: req, CreatedBy: customer, HoldTTL: 15 * time.Minute}
}

func slotLine(resource string, hour, qty int) domain.OrderLine {
	return domain.OrderLine{ResourceID: resource, Start: at(hour), End: at(hour + 1), Quantity: qty}
}

func reserved(t *testing.T, d *testsuite.Database, resource string, hour int) int {
	t.Helper()
	var n int
	require.NoError(t, d.Pool.QueryRow(context.Background(), `SELECT i.reserved FROM inventory i
		JOIN resources r ON r.id = i.resource_id WHERE r.code = $1 AND i.unit_start = $2`, resource, at(hour)).Scan(&n))
	return n
}

// raceOrders places n orders of one line each, from n customers at once, and counts outcomes.
func raceOrders(t *testing.T, d *testsuite.Database, n int, l domain.OrderLine) map[domain.Status]int {
	t.Helper()
	statuses, errs := make([]domain.Status, n), make([]error, n)
	testsuite.Race(n, func(i int) {
		b, err := d.Store.ReserveOrder(context.Background(), order(fmt.Sprintf("c%d", i), "k", l))
		statuses[i], errs[i] = b.Status, err
	})
	require.NoError(t, errors.Join(errs...))
	count := map[domain.Status]int{}
	for _, s := range statuses {
		count[s]++
	}
	return count
}

func TestTenOrdersForOneCourtSlotHaveOneWinner(t *testing.T) {
	t.Parallel()
	d := openVenue(t)
	got := raceOrders(t, d, 10, slotLine("court-1", 8, 1))
	assert.Equal(t, map[domain.Status]int{domain.StatusHold: 1, domain.StatusRejected: 9}, got)
	assert.Equal(t, 1, reserved(t, d, "court-1", 8))
	d.AssertInventoryMatchesBookings(t)
}

func TestTwelveOrdersForASixPlaceLaneGetSix(t *testing.T) {
	t.Parallel()
	d := openVenue(t)
	got := raceOrders(t, d, 12, slotLine("lane-1", 7, 1))
	assert.Equal(t, map[domain.Status]int{domain.StatusHold: 6, domain.StatusRejected: 6}, got)
	assert.Equal(t, 6, reserved(t, d, "lane-1", 7))
	d.AssertInventoryMatchesBookings(t)
}

// TestAnOrderIsAllOrNothing: a court slot with two rackets when the rackets are out reserves
// nothing, not even the court; with the rackets free, both lines are taken and priced.
func TestAnOrderIsAllOrNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := openVenue(t)
	out, err := d.Store.ReserveOrder(ctx, order("other", "k", slotLine("rackets", 9, 2)))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, out.Status)

	b, err := d.Store.ReserveOrder(ctx, order("guest", "k1", slotLine("court-1", 9, 1), slotLine("rackets", 9, 2)))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, b.Status)
	assert.Zero(t, reserved(t, d, "court-1", 9), "the court is not taken without the rackets")

	// Two hours of court and rackets from 07:00: both lines taken, priced per line.
	twoHours := func(resource string, qty int) domain.OrderLine {
		return domain.OrderLine{ResourceID: resource, Start: at(7), End: at(9), Quantity: qty}
	}
	b, err = d.Store.ReserveOrder(ctx, order("guest", "k2", slotLine("court-1", 7, 1), twoHours("rackets", 2)))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, b.Status)
	assert.Equal(t, "v1", b.VenueID)
	require.Len(t, b.Price.Lines, 2)
	assert.Equal(t, int64(2000), b.Price.Lines[0].Total)
	assert.Equal(t, int64(4000), b.Price.Lines[1].UnitPrice, "two hours of one racket")
	assert.Equal(t, int64(8000), b.Price.Lines[1].Total)
	assert.Equal(t, domain.Price{Currency: "EUR", Total: 10000, Lines: b.Price.Lines}, b.Price)
	assert.Equal(t, []int{2, 2}, []int{reserved(t, d, "rackets", 7), reserved(t, d, "rackets", 8)})
	d.AssertInventoryMatchesBookings(t)
	findings, err := d.Store.InventoryMismatches(ctx)
	require.NoError(t, err)
	assert.Empty(t, findings, "the checker counts every line of an order")
	_, err = d.Pool.Exec(ctx, `DELETE FROM booking_lines`)
	require.NoError(t, err)
	findings, err = d.Store.InventoryMismatches(ctx)
	require.NoError(t, err)
	assert.Len(t, findings, 2, "control: without its lines, the order's two hours of rackets are held by nobody")

	// A line that is not whole units is not sold.
	half := domain.OrderLine{ResourceID: "lane-1", Start: at(7).Add(30 * time.Minute), End: at(8).Add(30 * time.Minute), Quantity: 1}
	b, err = d.Store.ReserveOrder(ctx, order("guest", "k3", half))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, b.Status)
}

// TestOneActiveOrderPerCustomerAndSlot: two clicks with two keys give one order; once it is
// released the customer may order the slot again. A retry under the same key is the same order.
func TestOneActiveOrderPerCustomerAndSlot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := openVenue(t)
	results, errs := make([]domain.Booking, 2), make([]error, 2)
	testsuite.Race(2, func(i int) {
		results[i], errs[i] = d.Store.ReserveOrder(ctx, order("guest", fmt.Sprintf("click-%d", i), slotLine("lane-1", 8, 1)))
	})
	var held int
	for i := range results {
		if errs[i] == nil && results[i].Status == domain.StatusHold {
			held++
		} else {
			assert.ErrorIs(t, errs[i], db.ErrAlreadyOrdered)
		}
	}
	assert.Equal(t, 1, held)
	assert.Equal(t, 1, reserved(t, d, "lane-1", 8))

	first := order("guest", "click-0", slotLine("lane-1", 8, 1))
	if errs[0] != nil {
		first = order("guest", "click-1", slotLine("lane-1", 8, 1))
	}
	again, err := d.Store.ReserveOrder(ctx, first)
	require.NoError(t, err, "a retry under its key finds the order")
	assert.Equal(t, domain.StatusHold, again.Status)
	changed := first
	changed.Request.Lines = []domain.OrderLine{slotLine("lane-1", 8, 2)}
	_, err = d.Store.ReserveOrder(ctx, changed)
	assert.ErrorIs(t, err, domain.ErrIdempotencyMismatch)

	_, err = d.Store.Release(ctx, first.BookingID, domain.StatusCancelled)
	require.NoError(t, err)
	b, err := d.Store.ReserveOrder(ctx, order("guest", "click-2", slotLine("lane-1", 8, 1)))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusHold, b.Status, "released, the slot may be ordered again")
	d.AssertInventoryMatchesBookings(t)
}

// TestALatePaymentDoesNotRetakeASlotTheCustomerOrderedAgain: the customer's order expired and
// they ordered the slot again under another key; the first order's late payment cannot take it
// a second time (one active order per slot) and is refused as unavailable, so it is refunded.
func TestALatePaymentDoesNotRetakeASlotTheCustomerOrderedAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := openVenue(t)
	first, err := d.Store.ReserveOrder(ctx, order("guest", "k1", slotLine("lane-1", 9, 1)))
	require.NoError(t, err)
	_, err = d.Store.Release(ctx, first.ID, domain.StatusExpired)
	require.NoError(t, err)
	second, err := d.Store.ReserveOrder(ctx, order("guest", "k2", slotLine("lane-1", 9, 1)))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, second.Status)

	_, err = d.Store.Retake(ctx, first.ID, domain.Payment{ID: "pi_late", Amount: 2000, Currency: "EUR"})
	assert.ErrorIs(t, err, domain.ErrUnavailable)
	again, err := d.Store.GetBooking(ctx, first.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusExpired, again.Status, "nothing changed")
	assert.Equal(t, 1, reserved(t, d, "lane-1", 9))
	d.AssertInventoryMatchesBookings(t)
}

// TestReleasingNeverReopensAClosedSlot: staff close a slot with an order on it; releasing the
// order gives its count back but the slot stays closed; a release repeated changes nothing and
// counts never go above the total.
func TestReleasingNeverReopensAClosedSlot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := openVenue(t)
	b, err := d.Store.ReserveOrder(ctx, order("guest", "k", slotLine("court-1", 8, 1), slotLine("rackets", 8, 1)))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, b.Status)
	n, err := d.Store.CloseUnits(ctx, db.Closure{VenueID: "v1", ResourceID: "court-1", From: at(8), To: at(9), Reason: "leak", By: "admin",
		KeepBookings: true})
	require.NoError(t, err)
	require.Equal(t, 1, n)

	for range 2 {
		_, err = d.Store.Release(ctx, b.ID, domain.StatusExpired)
		require.NoError(t, err)
	}
	assert.Equal(t, []int{0, 0}, []int{reserved(t, d, "court-1", 8), reserved(t, d, "rackets", 8)}, "given back once")
	slots := slotsOn(t, d.Store, orderDay)
	assert.False(t, slots[1].Open, "still closed")
	assert.Zero(t, slots[1].PlacesLeft)
	late, err := d.Store.ReserveOrder(ctx, order("late", "k", slotLine("court-1", 8, 1)))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, late.Status, "a closed slot is not sold")
	d.AssertInventoryMatchesBookings(t)
	findings, err := d.Store.InventoryMismatches(ctx)
	require.NoError(t, err)
	assert.Empty(t, findings, "the checker agrees")
}

// TestEveryChangeIsRecordedWithItsCounts: a booking's state changes, and each unit change with
// the counts before and after and the booking it was for, are recorded by the database itself;
// a unit's history tells why it cannot be booked.
func TestEveryChangeIsRecordedWithItsCounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := openVenue(t)
	b, err := d.Store.ReserveOrder(ctx, order("guest", "k", slotLine("lane-1", 8, 2)))
	require.NoError(t, err)
	_, err = d.Store.CloseUnits(ctx, db.Closure{VenueID: "v1", ResourceID: "lane-1", From: at(8), To: at(9), Reason: "rope broken", By: "ops",
		KeepBookings: true})
	require.NoError(t, err)
	_, err = d.Store.Release(ctx, b.ID, domain.StatusCancelled)
	require.NoError(t, err)

	changes, units, err := d.Store.BookingHistory(ctx, b.ID)
	require.NoError(t, err)
	require.Len(t, changes, 2)
	assert.Equal(t, []domain.Status{"", domain.StatusHold}, []domain.Status{changes[0].From, changes[0].To})
	assert.Equal(t, []domain.Status{domain.StatusHold, domain.StatusCancelled}, []domain.Status{changes[1].From, changes[1].To})
	require.Len(t, units, 2, "taken, then given back")
	assert.Equal(t, []int{0, 2}, []int{*units[0].ReservedBefore, *units[0].ReservedAfter})
	assert.Equal(t, []int{2, 0}, []int{*units[1].ReservedBefore, *units[1].ReservedAfter})
	assert.True(t, *units[1].ClosedAfter, "given back into a closed unit, which stays closed")

	_, loc, err := d.Store.GetVenue(ctx, "v1")
	require.NoError(t, err)
	history, err := d.Store.UnitHistory(ctx, db.ResourceRef{VenueID: "v1", Code: "lane-1"}, domain.DayBounds(orderDay, loc))
	require.NoError(t, err)
	require.Len(t, history, 3)
	eight := history[1]
	assert.False(t, eight.Open)
	assert.Equal(t, "rope broken", eight.ClosedReason)
	assert.Equal(t, "ops", eight.ClosedBy)
	var kinds []string
	for _, c := range eight.Changes {
		kinds = append(kinds, c.Change+"/"+c.BookingID)
	}
	assert.Equal(t, []string{"created/", "updated/" + b.ID, "updated/", "updated/" + b.ID}, kinds,
		"laid out, taken, closed by staff, given back")
}

// TestTheRepeatedHourSellsAsTwoSlots: in Berlin, the hour the clocks go back holds two court
// slots that both start at 02:00 local; each sells on its own, once.
func TestTheRepeatedHourSellsAsTwoSlots(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	venueWith(t, d.Store, "Europe/Berlin", court)
	autumn := domain.NewDate(2030, 10, 27)
	_, err := d.Store.ApplySchedule(ctx, "v1", "court-1", schedule(autumn, autumn.AddDays(1), "02:00", "04:00", 60))
	require.NoError(t, err)
	berlin, err := time.LoadLocation("Europe/Berlin")
	require.NoError(t, err)
	summer := time.Date(2030, 10, 27, 2, 0, 0, 0, time.FixedZone("CEST", 2*3600))
	winter := time.Date(2030, 10, 27, 2, 0, 0, 0, time.FixedZone("CET", 3600))
	require.Equal(t, time.Hour, winter.Sub(summer))
	for i, start := range []time.Time{summer, winter} {
		b, err := d.Store.ReserveOrder(ctx, order(fmt.Sprintf("c%d", i), "k", domain.OrderLine{ResourceID: "court-1",
			Start: start, End: start.Add(time.Hour), Quantity: 1}))
		require.NoError(t, err)
		assert.Equal(t, domain.StatusHold, b.Status, "02:00 %s", start.Format("-07:00"))
		again, err := d.Store.ReserveOrder(ctx, order(fmt.Sprintf("late%d", i), "k", domain.OrderLine{ResourceID: "court-1",
			Start: start, End: start.Add(time.Hour), Quantity: 1}))
		require.NoError(t, err)
		assert.Equal(t, domain.StatusRejected, again.Status, "each sells once")
	}
	slots := slotsOn(t, d.Store, autumn)
	require.Len(t, slots, 3, "02:00 CEST, 02:00 CET, 03:00 CET")
	assert.Equal(t, []int{0, 0, 1}, []int{slots[0].PlacesLeft, slots[1].PlacesLeft, slots[2].PlacesLeft})
	assert.Equal(t, "02:00 +0100", slots[1].Start.In(berlin).Format("15:04 -0700"))
	d.AssertInventoryMatchesBookings(t)
}

// TestLineOffUnitsFindsTheLineThatCutsAUnit: a line from half past cuts the units it overlaps;
// whole units, several of them, or times with no units at all (not on sale: the reservation
// answers that) cut nothing.
func TestLineOffUnitsFindsTheLineThatCutsAUnit(t *testing.T) {
	t.Parallel()
	d := openVenue(t)
	ctx := context.Background()
	off := func(lines ...domain.OrderLine) int {
		i, err := d.Store.LineOffUnits(ctx, domain.OrderRequest{VenueID: "v1", Lines: lines})
		require.NoError(t, err)
		return i
	}
	half := time.Hour / 2
	assert.Equal(t, -1, off(slotLine("court-1", 7, 1), domain.OrderLine{ResourceID: "rackets", Start: at(7), End: at(10), Quantity: 1}))
	assert.Equal(t, -1, off(slotLine("court-1", 20, 1)), "no units there: not on sale, not cut")
	assert.Equal(t, 1, off(slotLine("court-1", 7, 1), domain.OrderLine{ResourceID: "rackets", Start: at(8).Add(half),
		End: at(9).Add(half), Quantity: 1}))
	assert.Equal(t, 0, off(domain.OrderLine{ResourceID: "court-1", Start: at(7), End: at(8).Add(half), Quantity: 1}),
		"it ends inside a unit")
	assert.Equal(t, 0, off(domain.OrderLine{ResourceID: "court-1", Start: at(9).Add(half), End: at(11), Quantity: 1}),
		"it starts inside the last unit")
}
