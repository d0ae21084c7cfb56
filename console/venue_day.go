package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// venueDayView is a venue's day: its resources by row, their units laid out on one time axis
// (venue_grid.go).
type venueDayView struct {
	Site             db.SiteSummary
	Zone             *time.Location
	Date, Prev, Next domain.Date
	Today            bool
	axisStart        time.Time   // the axis's first instant, a whole local hour
	Steps            int         // the axis's steps (gridStep each): the table's time columns
	Hours            []axisHour  // the header, an hour a cell
	Starts           []time.Time // every unit's local start, for the closure form
	Rows             []gridRow
	Desk             bool      // the person may book, close and reopen here
	Now              time.Time // units ended by now are greyed out and not offered
	NowClock         string    // "now 14:35", when the now line is on the grid
	Refused          *closureRefusal
	// The words every cell's links and buttons show, looked up once.
	BookText, WaitText, LateText, ReopenText string
	NoShowText                               string
	Due                                      dueList // today's page only (booking_hand_over.go)
}

type gridRow struct {
	ResourceID, Name, Kind, Unit string
	Cells                        []gridCell
}

// gridCell is one unit of a resource, or an empty stretch where it has none, at step At of the
// axis, Span steps wide. Its words and times are set once in Go (label), not worked out by the
// template cell by cell: a busy day has hundreds of cells.
type gridCell struct {
	At, Span     int
	Slot         bool
	Start, End   time.Time
	State        string // free, held, paid, in, closed (or none: no slot)
	Past         bool   // it has ended: greyed out, offered for nothing
	HasNow       bool   // the now line crosses it, at NowAt per cent of its width
	NowAt        int
	ClosedReason string
	Capacity     int
	PlacesLeft   int
	Bookings     []cellBooking
	// What the template shows: the state's name, the slot's local times, the places left of a
	// class or of equipment, and whether a walk-in can still be booked into it.
	Label, Clock, Times, Places string
	PlacesWords                 string // the places left in words, when Places is short
	StartAt, EndAt              string // RFC 3339, for the forms and links
	Bookable                    bool
	// Its links, and their names for a screen reader, made once here: the template's own calls
	// cost a busy day's render a third more.
	BookHref, BookAria, WaitHref, WaitAria string
	Title                                  string // its times and state, whole, where the cell cuts them
}

type cellBooking struct {
	ID, Customer string
	Status       domain.Status
	Quantity     int
	Starts       time.Time // when the booking's first line starts
	BookedLate   bool      // booked after it began (a walk-in for a slot under way): never late
	MinutesLate  int       // the late arrival the desk recorded (0: none)
	LateOffer    bool      // the desk may record its guest's late arrival now
	Label, Late  string    // the status's name and the guest; "late 15 min"
	LateShort    string    // "+15 min", what a narrow cell shows of it
	LateAria     string    // the late arrival's button, named
	// NoShowOffer: the desk may mark it a no-show (its slot under way or over, nobody checked
	// in); NoShowAria names its button.
	NoShowOffer bool
	NoShowAria  string
}

// venueDay shows a venue's day as a grid of resources on one time axis, in the venue's time zone:
// what is free, held, paid, checked in, closed and why, what has ended, and the time now. htmx
// reloads the grid (its caption with the time now, the now line) every 20 s.
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
	path := q("/venues/"+seg(site.ID)+"/slots", "date", date.String(), "equipment", "true")
	if err := c.api.call(r.ctx(), r.who, http.MethodGet, path, nil, "", &slots); err != nil {
		return venueDayView{}, err
	}
	booked, err := r.siteDayBookings("venueId", site.ID, date)
	if err != nil {
		return venueDayView{}, err
	}
	v := layoutGrid(slots.Slots, booked.bookings, zone)
	v.Site, v.Zone, v.Date, v.Prev, v.Next, v.Today = site, zone, date, date.AddDays(-1), date.AddDays(1), date == today
	v.Now, v.Desk = c.cfg.Now(), r.who.CanBookVenue(site.ID)
	v.placeNow(v.Now, r.text)
	v.label(r.text, booked.late)
	v.nameGuests(r.text, booked.names)
	if v.Today {
		v.Due = c.dueAt(r, site.ID, zone, v.Desk)
	}
	return v, nil
}

// dayBookings are a site's bookings of a local date, every page of them, and their guests'
// names by booking id (those the desk wrote down, or a walk-in's).
func (r *request) dayBookings(siteParam, siteID string, date domain.Date) ([]domain.Booking, map[string]string, error) {
	d, err := r.siteDayBookings(siteParam, siteID, date)
	return d.bookings, d.names, err
}

// dayOfBookings are a site's bookings of a local date with their guests' names and the late
// arrivals the desk recorded (minutes late), by booking id.
type dayOfBookings struct {
	bookings []domain.Booking
	names    map[string]string
	late     map[string]int
}

func (r *request) siteDayBookings(siteParam, siteID string, date domain.Date) (dayOfBookings, error) {
	d := dayOfBookings{names: map[string]string{}, late: map[string]int{}}
	cursor := ""
	for {
		// Only what a day's page shows is decoded: a busy day is hundreds of bookings.
		var page struct {
			Bookings []struct {
				ID          string        `json:"id"`
				CustomerID  string        `json:"customerId"`
				GuestName   string        `json:"guestName"`
				RoomTypeID  string        `json:"roomTypeId"`
				CheckIn     domain.Date   `json:"checkIn"`
				CheckOut    domain.Date   `json:"checkOut"`
				Quantity    int           `json:"quantity"`
				Status      domain.Status `json:"status"`
				CreatedAt   time.Time     `json:"createdAt"`
				LateArrival *struct {
					MinutesLate int `json:"minutesLate"`
				} `json:"lateArrival"`
				Price struct {
					Lines []domain.LinePrice `json:"lines"`
				} `json:"price"`
			} `json:"bookings"`
			Next string `json:"next"`
		}
		path := q("/staff/bookings", siteParam, siteID, "date", date.String(), "limit", "100", "cursor", cursor)
		if err := r.c.api.call(r.ctx(), r.who, http.MethodGet, path, nil, "", &page); err != nil {
			return d, err
		}
		for _, b := range page.Bookings {
			if b.GuestName != "" {
				d.names[b.ID] = b.GuestName
			}
			if b.LateArrival != nil {
				d.late[b.ID] = b.LateArrival.MinutesLate
			}
			d.bookings = append(d.bookings, domain.Booking{ID: b.ID, CustomerID: b.CustomerID, RoomTypeID: b.RoomTypeID,
				Stay: domain.Stay{CheckIn: b.CheckIn, CheckOut: b.CheckOut}, Quantity: b.Quantity, Status: b.Status,
				Price: domain.Price{Lines: b.Price.Lines}, CreatedAt: b.CreatedAt})
		}
		if page.Next == "" {
			return d, nil
		}
		cursor = page.Next
	}
}

// label sets the words and times of every cell in the catalogue's language, with the late
// arrivals recorded (minutes late by booking id).
func (v *venueDayView) label(text catalogue, late map[string]int) {
	v.BookText, v.WaitText = text.T("venue.bookShort"), text.T("venue.waitlist")
	v.LateText, v.ReopenText, v.NoShowText = text.T("venue.late"), text.T("venue.reopen"), text.T("venue.noShow")
	for i := range v.Rows {
		counted := v.Rows[i].Kind == string(domain.KindQuotaSlot) || v.Rows[i].Kind == string(domain.KindEquipment)
		slot := v.Rows[i].Kind != string(domain.KindEquipment)
		for j := range v.Rows[i].Cells {
			c := &v.Rows[i].Cells[j]
			if !c.Slot {
				continue
			}
			c.Label, c.Clock = text.T("cell."+c.State), c.Start.In(v.Zone).Format("15:04")
			c.Times = c.Clock + "–" + c.End.In(v.Zone).Format("15:04")
			c.StartAt, c.EndAt = c.Start.Format(time.RFC3339), c.End.Format(time.RFC3339)
			if counted {
				// A unit shorter than two hours is too narrow for the words: its title keeps them.
				c.Places, c.PlacesWords = text.T("cell.places", c.PlacesLeft, c.Capacity), ""
				if c.Span < 2*stepsPerHour {
					c.Places, c.PlacesWords = text.T("cell.placesShort", c.PlacesLeft, c.Capacity), c.Places
				}
			}
			// A walk-in takes a place left in a slot not over yet, one under way too (issue 39,
			// defect 3: the desk sells its rest); the API has the last word.
			underWay := !v.Now.IsZero() && !v.Now.Before(c.Start) && c.End.After(v.Now)
			c.Bookable = c.State != "closed" && c.PlacesLeft > 0 && (v.Now.IsZero() || c.End.After(v.Now))
			unit := "?resource=" + url.QueryEscape(v.Rows[i].ResourceID) + "&start=" + url.QueryEscape(c.StartAt) +
				"&end=" + url.QueryEscape(c.EndAt)
			c.BookHref = Prefix + "/venues/" + seg(v.Site.ID) + "/walk-in" + unit
			c.WaitHref = Prefix + "/waitlist?venueId=" + url.QueryEscape(v.Site.ID) + "&resourceId=" +
				url.QueryEscape(v.Rows[i].ResourceID) + "&start=" + url.QueryEscape(c.StartAt) + "&end=" + url.QueryEscape(c.EndAt)
			c.Title = c.Times + " · " + c.Label
			c.BookAria = text.T("venue.bookAria", v.Rows[i].ResourceID, c.Times)
			c.WaitAria = text.T("venue.waitlistAria", v.Rows[i].ResourceID, c.Times)
			for k := range c.Bookings {
				bk := &c.Bookings[k]
				bk.Label = text.T("status."+string(bk.Status)) + ": " + text.Guest(bk.Customer)
				if bk.Quantity > 1 {
					bk.Label += " ×" + strconv.Itoa(bk.Quantity)
				}
				if bk.MinutesLate = late[bk.ID]; bk.MinutesLate > 0 {
					bk.Late, bk.LateShort = text.T("venue.lateBy", bk.MinutesLate), text.T("venue.lateShort", bk.MinutesLate)
				}
				// Its guest comes after it began, while this slot of it is under way (equipment is
				// picked up when it suits; a guest booking a slot under way came when they booked).
				bk.LateOffer = v.Desk && slot && underWay && !bk.BookedLate && bk.MinutesLate == 0 &&
					v.Now.Sub(bk.Starts) >= time.Minute
				if bk.LateOffer {
					bk.LateAria = text.T("venue.lateAria", bk.Label)
				}
				// Nobody checked in once this slot of it began (the API judges from its first
				// slot's start): the desk need not wait for the no-show deadline.
				bk.NoShowOffer = v.Desk && slot && !v.Now.IsZero() && !v.Now.Before(c.Start) &&
					bk.Status == domain.StatusConfirmed && !v.Now.Before(bk.Starts)
				if bk.NoShowOffer {
					bk.NoShowAria = text.T("venue.noShowAria", bk.Label)
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
					bk.LateAria = strings.Replace(bk.LateAria, text.Guest(bk.Customer), name, 1)
					bk.NoShowAria = strings.Replace(bk.NoShowAria, text.Guest(bk.Customer), name, 1)
				}
			}
		}
	}
}

// siteName is a site's name, or its id when it has none.
func siteName(s db.SiteSummary) string {
	if s.Name != "" {
		return s.Name
	}
	return s.ID
}
