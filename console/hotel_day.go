package console

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// hotelDayView is a hotel's day at the desk: who arrives, who stays, who leaves.
type hotelDayView struct {
	Site                         db.SiteSummary
	Date, Prev, Next, Today      domain.Date
	Arrivals, Staying, Departing []domain.Booking
	Names                        map[string]string // guests' names by booking id, where known
	Desk                         bool
	WalkInKey                    string
	Plans                        []domain.Offer // the plans the desk may sell, the default plan first
	// Form is the walk-in form: empty but for its defaults, or as typed when it was refused.
	Form       walkInForm
	PhoneHint  string
	hotelRooms         // the night's rooms (hotel_rooms.go)
	Due        dueList // today's page only (booking_hand_over.go)
}

// hotelDay shows a hotel's arrivals, stays and departures of a date (today by default; the
// page links tomorrow), in the hotel's time zone, with a walk-in form.
func (c *Console) hotelDay(r *request) error {
	v, err := c.hotelDayOf(r, r.QueryParam("date"))
	if err != nil {
		return r.fail(err)
	}
	v.Form = walkInForm{CheckIn: v.Date.String(), Nights: "1", Quantity: "1"}
	return r.render(http.StatusOK, "hotel_day", r.text.T("hotel.title", siteName(v.Site), v.Date), v)
}

// hotelDayOf is the hotel's day of date ("" for today).
func (c *Console) hotelDayOf(r *request, date string) (hotelDayView, error) {
	site, err := r.site("hotel", r.Param("hotelId"))
	if err != nil {
		return hotelDayView{}, err
	}
	zone, err := time.LoadLocation(site.TimeZone)
	if err != nil {
		return hotelDayView{}, err
	}
	v := hotelDayView{Site: site, Today: domain.DateOf(c.cfg.Now(), zone), Desk: r.who.CanBook(site.ID),
		WalkInKey: "walk-in-" + newToken(), // keyFor finds a lost answer's key once the guest is known
		PhoneHint: phoneHint(r.text, site.Country)}
	v.Date = v.Today
	if date != "" {
		if v.Date, err = domain.ParseDate(date); err != nil {
			return v, &apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: r.text.T("date.invalid", date)}
		}
	}
	v.Prev, v.Next = v.Date.AddDays(-1), v.Date.AddDays(1)
	bookings, names, err := r.dayBookings("hotelId", site.ID, v.Date)
	if err != nil {
		return v, err
	}
	if v.Desk && !v.Date.Before(v.Today) {
		// The picker is a convenience: a search that fails leaves the form with the default plan.
		v.Plans, _ = c.deskPlans(r, site.ID, v.Date)
	}
	v.Names = names
	if v.Date == v.Today {
		v.Due = c.dueAt(r, site.ID, zone, v.Desk)
	}
	c.addRooms(r, &v, bookings)
	for _, b := range bookings {
		switch {
		case b.CheckIn == v.Date && (b.Status.HoldsInventory() || b.Status == domain.StatusNoShow):
			v.Arrivals = append(v.Arrivals, b)
		case b.CheckOut == v.Date && b.Status.HoldsInventory():
			v.Departing = append(v.Departing, b)
		case b.CheckIn.Before(v.Date) && v.Date.Before(b.CheckOut) && b.Status.HoldsInventory():
			v.Staying = append(v.Staying, b)
		}
	}
	return v, nil
}

// hotelWalkIn holds rooms for a guest by phone (found or created as today's walk-in guest)
// through the API, then opens the booking to take the payment. A refused form comes back as
// typed, with the refusal beside its field (refusedHotelWalkIn).
func (c *Console) hotelWalkIn(r *request) error {
	hotel := r.Param("hotelId")
	f := postedWalkIn(r)
	checkIn, err := domain.ParseDate(f.CheckIn)
	if err != nil {
		f.invalid(r.text, "checkIn", "form.err.date")
	}
	nights, err := formQuantity(r, "nights")
	if err != nil {
		f.invalid(r.text, "nights", "walkin.quantity")
	}
	qty, err := formQuantity(r, "quantity")
	if err != nil {
		f.invalid(r.text, "quantity", "walkin.quantity")
	}
	if len(f.Errors) > 0 {
		return c.refusedHotelWalkIn(r, f)
	}
	body := map[string]any{"hotelId": hotel, "roomTypeId": f.RoomTypeID, "checkIn": checkIn,
		"checkOut": checkIn.AddDays(nights), "quantity": qty, "phone": f.Phone, "name": f.Name}
	if f.RatePlan != "" {
		body["ratePlan"] = f.RatePlan
	}
	var b domain.Booking
	intent := "walk-in:" + hotel + ":" + f.RoomTypeID + ":" + f.RatePlan + ":" + checkIn.String() + ":" +
		strconv.Itoa(nights) + "x" + strconv.Itoa(qty) + ":" + strings.TrimSpace(f.Phone)
	key := r.keyFor(intent)
	err = c.api.call(r.ctx(), r.who, http.MethodPost, "/staff/bookings", body, key, &b)
	if r.settle(intent, key, err); err != nil {
		if f.refusal(r.text, err) {
			return c.refusedHotelWalkIn(r, f)
		}
		return r.fail(err)
	}
	r.flash(r.text.T("walkin.booked", b.ID))
	return r.Redirect(http.StatusSeeOther, Prefix+"/bookings/"+seg(b.ID))
}

// refusedHotelWalkIn shows the day the form was sent from again, its walk-in form as typed
// (under a new key: the refused request's is spent) with why it was refused, at the refusal's
// status.
func (c *Console) refusedHotelWalkIn(r *request, f walkInForm) error {
	v, err := c.hotelDayOf(r, r.FormValue("date"))
	if err != nil {
		return r.fail(err)
	}
	v.Form = f
	return r.render(f.Status, "hotel_day", r.text.T("hotel.title", siteName(v.Site), v.Date), v)
}

// phoneHint says how the site's walk-in forms read a phone number without its country code.
func phoneHint(t catalogue, country string) string {
	if code, ok := domain.CallingCode(country); ok {
		return t.T("form.phoneHint", country, code)
	}
	return t.T("form.phoneHintNone")
}

// deskPlans are the rate plans the desk may sell at a hotel, as a search of one night from day
// offers them (every plan, the default plan first), each once.
func (c *Console) deskPlans(r *request, hotel string, day domain.Date) ([]domain.Offer, error) {
	var search struct {
		RoomTypes []struct {
			Offers []domain.Offer `json:"offers"`
		} `json:"roomTypes"`
	}
	path := "/hotels/" + seg(hotel) + "/availability?checkIn=" + day.String() + "&checkOut=" + day.AddDays(1).String()
	if err := c.api.call(r.ctx(), r.who, http.MethodGet, path, nil, "", &search); err != nil {
		return nil, err
	}
	var plans []domain.Offer
	seen := map[string]bool{}
	for _, rt := range search.RoomTypes {
		for _, o := range rt.Offers {
			if !seen[o.RatePlan] {
				seen[o.RatePlan] = true
				plans = append(plans, o)
			}
		}
	}
	return plans, nil
}
