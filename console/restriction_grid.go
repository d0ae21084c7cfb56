package console

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// The grid shows 14 dates, or 31 when asked.
const (
	gridDays     = 14
	gridLongDays = 31
)

// gridWindow is the dates [From, To) the restriction grid shows, Days of them, and the windows
// before and after it (the previous/next links).
type gridWindow struct {
	From, To, Prev, Next domain.Date
	Days                 int
}

// windowOf is the window starting at from (today when it is not a date) of days dates (14 unless
// 31 is asked for).
func windowOf(from, days string, today domain.Date) gridWindow {
	w := gridWindow{From: today, Days: gridDays}
	if d, err := domain.ParseDate(from); err == nil {
		w.From = d
	}
	if n, err := strconv.Atoi(days); err == nil && n == gridLongDays {
		w.Days = gridLongDays
	}
	w.To, w.Prev, w.Next = w.From.AddDays(w.Days), w.From.AddDays(-w.Days), w.From.AddDays(w.Days)
	return w
}

// restrictionGrid is the calendar as a table: a column per date, a row per room type and plan.
type restrictionGrid struct {
	Dates []restrictionDate
	Rows  []restrictionRow
}

type restrictionDate struct {
	Date    domain.Date
	Weekday int // 1 Monday ... 7 Sunday, the admin catalogue's weekday keys
}

// restrictionRow is a room type's restrictions under a plan ("": the rules of every plan).
type restrictionRow struct {
	RoomTypeID, RatePlan string
	Cells                []restrictionCell
}

// restrictionCell is one date of a row: what restricts it, in a fixed order.
type restrictionCell struct {
	Date   domain.Date
	Closed bool
	Marks  []restrictionMark
}

// restrictionMark is one restriction of a cell: its kind (a key under "rates.mark.") and its number, if
// it has one.
type restrictionMark struct {
	Kind string
	N    string
}

// Restricted reports whether anything restricts the date.
func (c restrictionCell) Restricted() bool { return len(c.Marks) > 0 }

// buildGrid lays the calendar's rows out over the window's dates: rows by room type, every plan's
// row before the plans' own; a date a row lacks is an empty cell.
func buildGrid(rows []db.RestrictionRow, w gridWindow) restrictionGrid {
	var g restrictionGrid
	for d := w.From; d.Before(w.To); d = d.AddDays(1) {
		wd := int(d.Time().Weekday())
		if wd == 0 {
			wd = 7
		}
		g.Dates = append(g.Dates, restrictionDate{Date: d, Weekday: wd})
	}
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b db.RestrictionRow) int {
		return cmp.Or(cmp.Compare(a.RoomTypeID, b.RoomTypeID), cmp.Compare(a.RatePlan, b.RatePlan))
	})
	for _, r := range rows {
		byDate := map[string]domain.RestrictionDay{} // by the date's text: a Date holds a time.Time
		for _, d := range r.Days {
			byDate[d.Date.String()] = d
		}
		row := restrictionRow{RoomTypeID: r.RoomTypeID, RatePlan: r.RatePlan}
		for _, gd := range g.Dates {
			row.Cells = append(row.Cells, cellOf(gd.Date, byDate[gd.Date.String()]))
		}
		g.Rows = append(g.Rows, row)
	}
	return g
}

// cellOf is a date's cell from what restricts it.
func cellOf(date domain.Date, d domain.RestrictionDay) restrictionCell {
	c := restrictionCell{Date: date, Closed: d.Closed}
	flag := func(on bool, kind string) {
		if on {
			c.Marks = append(c.Marks, restrictionMark{Kind: kind})
		}
	}
	bound := func(n *int, kind string) {
		if n != nil {
			c.Marks = append(c.Marks, restrictionMark{Kind: kind, N: strconv.Itoa(*n)})
		}
	}
	flag(d.Closed, "closed")
	flag(d.ClosedToArrival, "closedToArrival")
	flag(d.ClosedToDeparture, "closedToDeparture")
	bound(d.MinStay, "minStay")
	bound(d.MaxStay, "maxStay")
	bound(d.MinStayArrival, "minStayArrival")
	bound(d.MaxStayArrival, "maxStayArrival")
	bound(d.MinAdvance, "minAdvance")
	bound(d.MaxAdvance, "maxAdvance")
	return c
}
