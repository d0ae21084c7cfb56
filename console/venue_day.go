package console

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// venueDayView is a venue's day: its slot resources by row, its slot start times by column.
type venueDayView struct {
	Site             db.SiteSummary
	Zone             *time.Location
	Date, Prev, Next domain.Date
	Today            bool
	Columns          []time.Time // the local start of each column
	Rows             []gridRow
	Desk             bool      // the person may book, close and reopen here
	Now              time.Time // slots ended by now are not offered for a walk-in
	Refused          *closureRefusal
}

type gridRow struct {
	ResourceID, Name, Kind string
	Cells                  []gridCell
}

// gridCell is one slot of a resource, or an empty stretch where it has none. Its words and
// times are set once in Go (label), not worked out by the template cell by cell: a busy day
// has hundreds of cells.
type gridCell struct {
	Span         int // how many columns it covers
	Slot         bool
	Start, End   time.Time
	State        string // free, held, paid, in, closed (or none: no slot)
	ClosedReason string
	Capacity     int
	PlacesLeft   int
	Bookings     []cellBooking
	// What the template shows: the state's name, the slot's local times, the places left of a
	// class, and whether a walk-in can still be booked into it.
	Label, Clock, Times, Places string
	StartAt, EndAt              string // RFC 3339, for the forms and links
	Bookable                    bool
}

type cellBooking struct {
	ID, Customer string
	Status       domain.Status
	Quantity     int
	Label        string // the status's name and the guest
}

// venueDay shows a venue's day as a grid of resources by slot, in the venue's time zone: what is
// free, held, paid, checked in, closed and why. htmx reloads the grid every 20 s.
func (c *Console) venueDay(r *request) error {
	site, err := r.site("venue", r.Param("venueId"))
	if err != nil {
		return r.fail(err)
	}
	v, err := c.loadVenueDay(r, site, r.QueryParam("date"))
	if err != nil {
		return r.fail(err)
	}
	return r.render(http.StatusOK, "venue_day", r.text.T("venue.title", siteName(site), v.Date), v)
}

// loadVenueDay reads the slots and the bookings of the day asked for (day, today when empty)
// and lays them out.
func (c *Console) loadVenueDay(r *request, site db.SiteSummary, day string) (venueDayView, error) {
	zone, err := time.LoadLocation(site.TimeZone)
	if err != nil {
		return venueDayView{}, err
	}
	today := domain.DateOf(c.cfg.Now(), zone)
	date := today
	if day != "" {
		if date, err = domain.ParseDate(day); err != nil {
			return venueDayView{}, &apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: r.text.T("date.invalid", day)}
		}
	}
	var slots struct {
		Slots []db.Slot `json:"slots"`
	}
	if err := c.api.call(r.ctx(), r.who, http.MethodGet, q("/venues/"+seg(site.ID)+"/slots", "date", date.String()), nil, "", &slots); err != nil {
		return venueDayView{}, err
	}
	bookings, names, err := r.dayBookings("venueId", site.ID, date)
	if err != nil {
		return venueDayView{}, err
	}
	v := layoutGrid(slots.Slots, bookings, zone)
	v.Site, v.Zone, v.Date, v.Prev, v.Next, v.Today = site, zone, date, date.AddDays(-1), date.AddDays(1), date == today
	v.Now = c.cfg.Now()
	v.label(r.text)
	v.nameGuests(r.text, names)
	v.Desk = r.who.CanBookVenue(site.ID)
	return v, nil
}

// dayBookings are a site's bookings of a local date, every page of them, and their guests'
// names by booking id (those the desk wrote down, or a walk-in's).
func (r *request) dayBookings(siteParam, siteID string, date domain.Date) ([]domain.Booking, map[string]string, error) {
	var all []domain.Booking
	names := map[string]string{}
	cursor := ""
	for {
		// Only what a day's page shows is decoded: a busy day is hundreds of bookings.
		var page struct {
			Bookings []struct {
				ID         string        `json:"id"`
				CustomerID string        `json:"customerId"`
				GuestName  string        `json:"guestName"`
				RoomTypeID string        `json:"roomTypeId"`
				CheckIn    domain.Date   `json:"checkIn"`
				CheckOut   domain.Date   `json:"checkOut"`
				Quantity   int           `json:"quantity"`
				Status     domain.Status `json:"status"`
				Price      struct {
					Lines []domain.LinePrice `json:"lines"`
				} `json:"price"`
			} `json:"bookings"`
			Next string `json:"next"`
		}
		path := q("/staff/bookings", siteParam, siteID, "date", date.String(), "limit", "100", "cursor", cursor)
		if err := r.c.api.call(r.ctx(), r.who, http.MethodGet, path, nil, "", &page); err != nil {
			return nil, nil, err
		}
		for _, b := range page.Bookings {
			if b.GuestName != "" {
				names[b.ID] = b.GuestName
			}
			all = append(all, domain.Booking{ID: b.ID, CustomerID: b.CustomerID, RoomTypeID: b.RoomTypeID,
				Stay: domain.Stay{CheckIn: b.CheckIn, CheckOut: b.CheckOut}, Quantity: b.Quantity, Status: b.Status,
				Price: domain.Price{Lines: b.Price.Lines}})
		}
		if page.Next == "" {
			return all, names, nil
		}
		cursor = page.Next
	}
}

// layoutGrid places each slot under the column of its start, spanning the columns it covers,
// with the bookings that hold it and the state they give it.
func layoutGrid(slots []db.Slot, bookings []domain.Booking, zone *time.Location) venueDayView {
	var v venueDayView
	starts := map[time.Time]bool{}
	for _, s := range slots {
		starts[s.Start.UTC()] = true
	}
	for t := range starts {
		v.Columns = append(v.Columns, t)
	}
	slices.SortFunc(v.Columns, func(a, b time.Time) int { return a.Compare(b) })
	column := make(map[time.Time]int, len(v.Columns))
	for i, t := range v.Columns {
		column[t] = i
		v.Columns[i] = t.In(zone)
	}
	holding := linesByResource(bookings)
	for _, s := range slots { // by resource, then start
		if n := len(v.Rows); n == 0 || v.Rows[n-1].ResourceID != s.ResourceID {
			v.Rows = append(v.Rows, gridRow{ResourceID: s.ResourceID, Name: s.Name, Kind: string(s.Kind)})
		}
		row := &v.Rows[len(v.Rows)-1]
		at := column[s.Start.UTC()]
		if filled := row.width(); filled < at {
			row.Cells = append(row.Cells, gridCell{Span: at - filled, State: "none"})
		} else if filled > at {
			continue // overlaps the slot before it: a schedule changed mid-day; the first is shown
		}
		end := at + 1
		for end < len(v.Columns) && v.Columns[end].Before(s.End) {
			end++
		}
		cell := gridCell{Span: end - at, Slot: true, Start: s.Start.In(zone), End: s.End.In(zone), Capacity: s.Capacity,
			PlacesLeft: s.PlacesLeft, ClosedReason: s.ClosedReason}
		for _, h := range holding[s.ResourceID] {
			if h.start.Before(s.End) && s.Start.Before(h.end) {
				cell.Bookings = append(cell.Bookings, h.booking)
			}
		}
		cell.State = cellState(s.Open, cell.Bookings, s.PlacesLeft)
		row.Cells = append(row.Cells, cell)
	}
	for i := range v.Rows {
		if filled := v.Rows[i].width(); filled < len(v.Columns) {
			v.Rows[i].Cells = append(v.Rows[i].Cells, gridCell{Span: len(v.Columns) - filled, State: "none"})
		}
	}
	return v
}

// label sets the words and times of every cell in the catalogue's language.
func (v *venueDayView) label(text catalogue) {
	for i := range v.Rows {
		quota := v.Rows[i].Kind == string(domain.KindQuotaSlot)
		for j := range v.Rows[i].Cells {
			c := &v.Rows[i].Cells[j]
			if !c.Slot {
				continue
			}
			c.Label, c.Clock = text.T("cell."+c.State), c.Start.In(v.Zone).Format("15:04")
			c.Times = c.Clock + "–" + c.End.In(v.Zone).Format("15:04")
			c.StartAt, c.EndAt = c.Start.Format(time.RFC3339), c.End.Format(time.RFC3339)
			if quota {
				c.Places = text.T("cell.places", c.PlacesLeft, c.Capacity)
			}
			// A walk-in takes a place left in a slot not over yet; the API has the last word.
			c.Bookable = c.State != "closed" && c.PlacesLeft > 0 && (v.Now.IsZero() || c.End.After(v.Now))
			for k := range c.Bookings {
				bk := &c.Bookings[k]
				bk.Label = text.T("status."+string(bk.Status)) + ": " + text.Guest(bk.Customer)
				if bk.Quantity > 1 {
					bk.Label += " ×" + strconv.Itoa(bk.Quantity)
				}
			}
		}
	}
}

// nameGuests labels the grid's bookings by their guests' names where known (issue 39), the
// status first as label does.
func (v *venueDayView) nameGuests(text catalogue, names map[string]string) {
	for i := range v.Rows {
		for j := range v.Rows[i].Cells {
			for k := range v.Rows[i].Cells[j].Bookings {
				bk := &v.Rows[i].Cells[j].Bookings[k]
				if name := names[bk.ID]; name != "" {
					bk.Label = strings.Replace(bk.Label, text.Guest(bk.Customer), name, 1)
				}
			}
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
				booking: cellBooking{ID: b.ID, Customer: b.CustomerID, Status: b.Status, Quantity: l.Quantity}})
		}
	}
	return out
}

// siteName is a site's name, or its id when it has none.
func siteName(s db.SiteSummary) string {
	if s.Name != "" {
		return s.Name
	}
	return s.ID
}
