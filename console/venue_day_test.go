package console

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// TestTheGridShowsACourtTakenWithoutABookingOnItsLinesAsTaken: a court's slot can be taken
// by units no listed booking's price lines name: a paid order's amendment that costs more holds
// its added units beside the order's own until the balance is paid (db/amend_orders.go, stored
// in booking_lines with the amendment's id by insertAmendment), while the booking's price lines
// (line_prices, which linesByResource reads) change only when it is settled. The API's slots say so (placesLeft
// 0), but the grid decides a court's state from the bookings' lines alone: it shows the slot
// free and offers a walk-in the API will refuse.
func TestTheGridShowsACourtTakenWithoutABookingOnItsLinesAsTaken(t *testing.T) {
	start := time.Date(2030, 6, 3, 10, 0, 0, 0, time.UTC)
	slots := []db.Slot{
		{ResourceID: "court-1", Kind: domain.KindExclusiveSlot, Start: start, End: start.Add(time.Hour), Capacity: 1,
			PlacesLeft: 0, Open: true},
		{ResourceID: "court-1", Kind: domain.KindExclusiveSlot, Start: start.Add(time.Hour), End: start.Add(2 * time.Hour),
			Capacity: 1, PlacesLeft: 1, Open: true},
	}
	v := layoutGrid(slots, nil, time.UTC)
	v.Zone = time.UTC
	v.label(catalogueFor("en"), nil)
	require.Len(t, v.Rows, 1)
	require.Len(t, v.Rows[0].Cells, 2)
	taken, free := v.Rows[0].Cells[0], v.Rows[0].Cells[1]
	assert.Equal(t, "free", free.State, "the control: a court with its place left is free")
	assert.True(t, free.Bookable)
	assert.NotEqual(t, "free", taken.State, "a court the API says has no place left is not shown free")
	assert.False(t, taken.Bookable, "nor offered for a walk-in")
}

// TestTheGridLaysUnitsOfEveryLengthOnOneAxis: a 60-minute court, a 30-minute lane starting at
// 07:15, a 90-minute class and a day's locker share one axis of 5-minute steps from the first
// whole hour to the last: each cell starts at its start's step and spans its length, and the
// locker's day runs across the hours the others cover (it does not stretch the axis to 24 hours).
func TestTheGridLaysUnitsOfEveryLengthOnOneAxis(t *testing.T) {
	zone, err := time.LoadLocation("Europe/Budapest")
	require.NoError(t, err)
	at := func(h, m int) time.Time { return time.Date(2030, 6, 3, h, m, 0, 0, zone) }
	slots := []db.Slot{
		{ResourceID: "class", Kind: domain.KindQuotaSlot, Unit: "slot", Start: at(8, 0), End: at(9, 30), Capacity: 12, PlacesLeft: 12, Open: true},
		{ResourceID: "court", Kind: domain.KindExclusiveSlot, Unit: "slot", Start: at(8, 0), End: at(9, 0), Capacity: 1, PlacesLeft: 1, Open: true},
		{ResourceID: "court", Kind: domain.KindExclusiveSlot, Unit: "slot", Start: at(9, 0), End: at(10, 0), Capacity: 1, PlacesLeft: 1, Open: true},
		{ResourceID: "lane", Kind: domain.KindQuotaSlot, Unit: "slot", Start: at(7, 15), End: at(7, 45), Capacity: 6, PlacesLeft: 6, Open: true},
		{ResourceID: "locker", Kind: domain.KindEquipment, Unit: "day", Start: at(0, 0), End: at(24, 0), Capacity: 20, PlacesLeft: 20, Open: true},
	}
	v := layoutGrid(slots, nil, zone)
	assert.Equal(t, at(7, 0).UTC(), v.axisStart, "the axis starts at the first unit's whole hour")
	assert.Equal(t, 36, v.Steps, "07:00 to 10:00 in 5-minute steps")
	require.Len(t, v.Hours, 3)
	assert.Equal(t, axisHour{Clock: "07:00", Span: 12}, v.Hours[0])
	cells := func(row int) [][2]int {
		var out [][2]int
		for _, c := range v.Rows[row].Cells {
			out = append(out, [2]int{c.At, c.Span})
		}
		return out
	}
	assert.Equal(t, [][2]int{{0, 12}, {12, 18}, {30, 6}}, cells(0), "the class: empty to 08:00, then 90 minutes")
	assert.Equal(t, [][2]int{{0, 12}, {12, 12}, {24, 12}}, cells(1), "the court: an hour each")
	assert.Equal(t, [][2]int{{0, 3}, {3, 6}, {9, 27}}, cells(2), "the lane: 07:15 for 30 minutes")
	assert.Equal(t, [][2]int{{0, 36}}, cells(3), "the locker's day across the axis")
	for i, row := range v.Rows {
		assert.Equal(t, v.Steps, row.width(), "row %d fills the axis", i)
	}
}

// TestTheNowLineAndEndedSlots: at 09:20 the now line crosses the court's 09:00 slot a third
// in, the lane's empty stretch and the header's 09:00 hour; the court's 08:00 slot has ended
// (greyed, not offered), the one under way is still offered to a walk-in (issue 39, defect 3),
// and its booking's late arrival may be recorded; the class under way from 08:00 too. Another
// day's grid has no line.
func TestTheNowLineAndEndedSlots(t *testing.T) {
	zone := time.UTC
	at := func(h, m int) time.Time { return time.Date(2030, 6, 3, h, m, 0, 0, zone) }
	slots := []db.Slot{
		{ResourceID: "court", Kind: domain.KindExclusiveSlot, Unit: "slot", Start: at(8, 0), End: at(9, 0), Capacity: 1, PlacesLeft: 1, Open: true},
		{ResourceID: "court", Kind: domain.KindExclusiveSlot, Unit: "slot", Start: at(9, 0), End: at(10, 0), Capacity: 1, PlacesLeft: 1, Open: true},
		{ResourceID: "lane", Kind: domain.KindQuotaSlot, Unit: "slot", Start: at(8, 0), End: at(8, 30), Capacity: 6, PlacesLeft: 6, Open: true},
	}
	line := domain.LinePrice{OrderLine: domain.OrderLine{ResourceID: "court", Start: at(9, 0), End: at(10, 0), Quantity: 1}}
	bookings := []domain.Booking{{ID: "b-1", CustomerID: "c-1", Status: domain.StatusConfirmed, Price: domain.Price{Lines: []domain.LinePrice{line}}}}
	text := catalogueFor("en")
	for _, tc := range []struct {
		name string
		now  time.Time
		line bool
	}{{"today at 09:20", at(9, 20), true}, {"the control: the next day", at(9, 20).Add(24 * time.Hour), false}} {
		v := layoutGrid(slots, bookings, zone)
		v.Zone, v.Now, v.Desk = zone, tc.now, true
		v.placeNow(tc.now, text)
		v.label(text, nil)
		ended, underWay, lane := v.Rows[0].Cells[0], v.Rows[0].Cells[1], v.Rows[1].Cells[1]
		if !tc.line {
			assert.Empty(t, v.NowClock, tc.name)
			assert.False(t, underWay.HasNow || v.Hours[1].HasNow, tc.name)
			assert.True(t, underWay.Past, "%s: every slot has ended", tc.name)
			assert.False(t, underWay.Bookable || underWay.Bookings[0].LateOffer, tc.name)
			continue
		}
		assert.Equal(t, "Now: 09:20", v.NowClock)
		assert.True(t, underWay.HasNow && v.Hours[1].HasNow && lane.HasNow)
		assert.Equal(t, 33, underWay.NowAt, "a third into the hour")
		assert.Equal(t, 33, v.Hours[1].NowAt)
		assert.Equal(t, 56, lane.NowAt, "50 minutes into the lane's empty stretch from 08:30 to 10:00")
		assert.False(t, ended.HasNow)
		assert.True(t, ended.Past)
		assert.False(t, ended.Bookable, "an ended slot is not offered")
		assert.False(t, underWay.Past)
		assert.True(t, underWay.Bookings[0].LateOffer, "its guest may be recorded late")
		assert.Equal(t, "Late arrival: Paid: c-1", underWay.Bookings[0].LateAria)
	}
}

// TestTheGridShowsALateArrivalAndOffersItOnce: a booking whose late arrival was recorded shows
// how late, and is not offered it again; equipment is never offered one (it is picked up when
// it suits), nor a walk-in booked once its slot had begun.
func TestTheGridShowsALateArrivalAndOffersItOnce(t *testing.T) {
	at := func(h, m int) time.Time { return time.Date(2030, 6, 3, h, m, 0, 0, time.UTC) }
	slots := []db.Slot{
		{ResourceID: "court", Kind: domain.KindExclusiveSlot, Unit: "slot", Start: at(9, 0), End: at(10, 0), Capacity: 1, Open: true},
		{ResourceID: "rackets", Kind: domain.KindEquipment, Unit: "hour", Start: at(9, 0), End: at(10, 0), Capacity: 10, PlacesLeft: 9, Open: true},
	}
	lines := []domain.LinePrice{{OrderLine: domain.OrderLine{ResourceID: "court", Start: at(9, 0), End: at(10, 0), Quantity: 1}},
		{OrderLine: domain.OrderLine{ResourceID: "rackets", Start: at(9, 0), End: at(10, 0), Quantity: 1}}}
	bookings := []domain.Booking{{ID: "b-1", CustomerID: "c-1", Status: domain.StatusConfirmed, Price: domain.Price{Lines: lines}}}
	walkIn := domain.Booking{ID: "b-2", CustomerID: "c-2", Status: domain.StatusHold, CreatedAt: at(9, 5),
		Price: domain.Price{Lines: []domain.LinePrice{{OrderLine: domain.OrderLine{ResourceID: "court", Start: at(9, 0), End: at(10, 0), Quantity: 1}}}}}
	bookings = append(bookings, walkIn)
	for _, late := range []map[string]int{nil, {"b-1": 12}} {
		v := layoutGrid(slots, bookings, time.UTC)
		v.Zone, v.Now, v.Desk = time.UTC, at(9, 12), true
		v.placeNow(v.Now, catalogueFor("en"))
		v.label(catalogueFor("en"), late)
		court, rackets := v.Rows[0].Cells[0].Bookings[0], v.Rows[1].Cells[0].Bookings[0]
		assert.False(t, rackets.LateOffer, "equipment has no late arrival")
		assert.False(t, v.Rows[0].Cells[0].Bookings[1].LateOffer, "a walk-in booked at 09:05 came when it booked")
		if late == nil {
			assert.True(t, court.LateOffer, "the control: none recorded, it is offered")
			assert.Empty(t, court.Late)
			continue
		}
		assert.False(t, court.LateOffer, "recorded once, not offered again")
		assert.Equal(t, "late 12 min", court.Late)
		assert.Equal(t, "late 12 min", rackets.Late, "shown on each of its units")
	}
}

// TestTheGridAxisOnTheDayTheClocksGoBack: in Budapest on 2030-10-27 the hour from 02:00 comes
// twice; hourly slots from 01:00 to 04:00 local are four real hours, and the axis shows each
// hour by its clock, 02:00 twice, each slot under its own.
func TestTheGridAxisOnTheDayTheClocksGoBack(t *testing.T) {
	zone, err := time.LoadLocation("Europe/Budapest")
	require.NoError(t, err)
	first := time.Date(2030, 10, 27, 1, 0, 0, 0, zone)
	var slots []db.Slot
	for h := 0; h < 4; h++ {
		start := first.Add(time.Duration(h) * time.Hour)
		slots = append(slots, db.Slot{ResourceID: "court", Kind: domain.KindExclusiveSlot, Unit: "slot", Start: start,
			End: start.Add(time.Hour), Capacity: 1, PlacesLeft: 1, Open: true})
	}
	v := layoutGrid(slots, nil, zone)
	var clocks []string
	for _, h := range v.Hours {
		clocks = append(clocks, h.Clock)
	}
	assert.Equal(t, []string{"01:00", "02:00", "02:00", "03:00"}, clocks)
	require.Len(t, v.Rows[0].Cells, 4)
	for i, c := range v.Rows[0].Cells {
		assert.Equal(t, [2]int{i * 12, 12}, [2]int{c.At, c.Span}, "slot %d", i)
	}
}
