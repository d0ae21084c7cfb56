package console

import (
	"math"
	"slices"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// The venue's grid lays every resource's units on one time axis (issue 39): a 60-minute court,
// 30-minute lanes, 90-minute classes and rackets by the hour side by side, each cell as wide as
// its unit is long. The axis is cut in steps of gridStep; the table has one column a step, its
// width shared out equally (table-layout: fixed), and a cell spans the steps of its unit
// (colspan, an attribute, which the CSP allows where a style attribute is refused). The page
// therefore fits any screen's width: a longer day gives each step less room, never a scrollbar.

// gridStep is the axis's step: the shortest slot a schedule lays out (5 minutes).
const gridStep = 5 * time.Minute

// axisHour is one hour of the grid's header: its local clock and the steps it covers.
type axisHour struct {
	Clock  string
	Span   int
	HasNow bool // the now line crosses it, at NowAt per cent of its width
	NowAt  int
}

// layoutGrid lays the day's units (slots, and equipment's hours and days) out on the axis, each
// resource a row, with the bookings that hold each unit and the state they give it.
func layoutGrid(slots []db.Slot, bookings []domain.Booking, zone *time.Location) venueDayView {
	var v venueDayView
	if len(slots) == 0 {
		return v
	}
	v.axisStart, v.Steps = gridAxis(slots, zone)
	starts := map[time.Time]bool{}
	for _, s := range slots {
		if !starts[s.Start.UTC()] {
			starts[s.Start.UTC()] = true
			v.Starts = append(v.Starts, s.Start.In(zone))
		}
	}
	slices.SortFunc(v.Starts, func(a, b time.Time) int { return a.Compare(b) })
	for at := 0; at < v.Steps; at += stepsPerHour {
		v.Hours = append(v.Hours, axisHour{Clock: v.axisStart.Add(time.Duration(at) * gridStep).In(zone).Format("15:04"),
			Span: min(stepsPerHour, v.Steps-at)})
	}
	holding := linesByResource(bookings)
	for _, s := range slots { // by resource, then start
		if n := len(v.Rows); n == 0 || v.Rows[n-1].ResourceID != s.ResourceID {
			v.Rows = append(v.Rows, gridRow{ResourceID: s.ResourceID, Name: s.Name, Kind: string(s.Kind), Unit: s.Unit})
		}
		row := &v.Rows[len(v.Rows)-1]
		at, end := v.step(s.Start), v.step(s.End)
		filled := row.width()
		if at < filled {
			continue // overlaps the unit before it (a schedule changed mid-day, or units not of whole steps): the first is shown
		}
		if filled < at {
			row.Cells = append(row.Cells, gridCell{At: filled, Span: at - filled, State: "none"})
		}
		cell := gridCell{At: at, Span: max(end-at, 1), Slot: true, Start: s.Start.In(zone), End: s.End.In(zone),
			Capacity: s.Capacity, PlacesLeft: s.PlacesLeft, ClosedReason: s.ClosedReason}
		if cell.At+cell.Span > v.Steps {
			cell.Span = v.Steps - cell.At // a day's rental beyond the slots' hours
		}
		for _, h := range holding[s.ResourceID] {
			if h.start.Before(s.End) && s.Start.Before(h.end) {
				cell.Bookings = append(cell.Bookings, h.booking)
			}
		}
		cell.State = cellState(s.Open, cell.Bookings, s.PlacesLeft)
		row.Cells = append(row.Cells, cell)
	}
	for i := range v.Rows {
		if filled := v.Rows[i].width(); filled < v.Steps {
			v.Rows[i].Cells = append(v.Rows[i].Cells, gridCell{At: filled, Span: v.Steps - filled, State: "none"})
		}
	}
	return v
}

// stepsPerHour is how many steps an hour of the header covers.
const stepsPerHour = int(time.Hour / gridStep)

// gridAxis is where the axis starts (a whole local hour) and how many steps it has: from the
// first unit's start to the last one's end, rounded out to whole hours. A day's rental (an
// equipment's unit from midnight to midnight) does not stretch the axis when the day has shorter
// units: it is drawn across the hours they cover.
func gridAxis(slots []db.Slot, zone *time.Location) (time.Time, int) {
	var first, last time.Time
	for _, daily := range []bool{false, true} {
		for _, s := range slots {
			if (s.Unit == "day") != daily {
				continue
			}
			if first.IsZero() || s.Start.Before(first) {
				first = s.Start
			}
			if s.End.After(last) {
				last = s.End
			}
		}
		if !first.IsZero() {
			break
		}
	}
	local := first.In(zone)
	start := local.Add(-time.Duration(local.Minute())*time.Minute - time.Duration(local.Second())*time.Second -
		time.Duration(local.Nanosecond()))
	hours := int(math.Ceil(last.Sub(start).Hours()))
	return start.UTC(), max(hours, 1) * stepsPerHour
}

// step is the axis's step nearest to t, within the axis.
func (v *venueDayView) step(t time.Time) int {
	n := int(math.Round(float64(t.Sub(v.axisStart)) / float64(gridStep)))
	return min(max(n, 0), v.Steps)
}

// placeNow draws the now line where now falls on the axis (in every row, across the cell under
// way, and across the header's hour), marks the units that have ended, and says what time it is.
// A grid whose axis does not hold now (another day's) has no line.
func (v *venueDayView) placeNow(now time.Time, text catalogue) {
	for i := range v.Rows {
		for j := range v.Rows[i].Cells {
			c := &v.Rows[i].Cells[j]
			c.Past = c.Slot && !c.End.After(now)
		}
	}
	at := float64(now.Sub(v.axisStart)) / float64(gridStep)
	if v.Steps == 0 || at < 0 || at >= float64(v.Steps) {
		return
	}
	v.NowClock = text.T("venue.now", now.In(v.Zone).Format("15:04"))
	crosses := func(from, span int) (bool, int) {
		if at < float64(from) || at >= float64(from+span) {
			return false, 0
		}
		return true, int(math.Round((at - float64(from)) / float64(span) * 100))
	}
	from := 0
	for i := range v.Hours {
		v.Hours[i].HasNow, v.Hours[i].NowAt = crosses(from, v.Hours[i].Span)
		from += v.Hours[i].Span
	}
	for i := range v.Rows {
		for j := range v.Rows[i].Cells {
			c := &v.Rows[i].Cells[j]
			c.HasNow, c.NowAt = crosses(c.At, c.Span)
		}
	}
}

func (r gridRow) width() int {
	n := 0
	for _, c := range r.Cells {
		n += c.Span
	}
	return n
}

// cellState is what a slot shows: closed first (its bookings stay, listed), then the furthest
// along of the bookings holding it (checked in, paid, held), else free. A slot with no place
// left and no listed booking is held: an amendment waiting for its balance holds its added units
// beside its booking's lines.
func cellState(open bool, holders []cellBooking, placesLeft int) string {
	if !open {
		return "closed"
	}
	state := "free"
	for _, b := range holders {
		switch {
		case b.Status == domain.StatusCompleted:
			return "in"
		case b.Status == domain.StatusConfirmed:
			state = "paid"
		case b.Status == domain.StatusHold && state == "free":
			state = "held"
		}
	}
	if state == "free" && placesLeft <= 0 {
		state = "held"
	}
	return state
}

type heldLine struct {
	start, end time.Time
	booking    cellBooking
}

// linesByResource is every line of the bookings that hold their units, by resource.
func linesByResource(bookings []domain.Booking) map[string][]heldLine {
	out := map[string][]heldLine{}
	for _, b := range bookings {
		if !b.Status.HoldsInventory() {
			continue
		}
		for _, l := range b.Price.Lines {
			out[l.ResourceID] = append(out[l.ResourceID], heldLine{start: l.Start, end: l.End,
				booking: cellBooking{ID: b.ID, Customer: b.CustomerID, Status: b.Status, Quantity: l.Quantity,
					Starts: b.OrderStarts(), BookedLate: b.CreatedAt.After(b.OrderStarts())}})
		}
	}
	return out
}
