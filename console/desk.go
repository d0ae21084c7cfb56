package console

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bookflow/bookflow/domain"
)

// deskRoutes are the front desk's pages: a site's day, a booking, and what the desk does.
// Reading is for every staff role (the API narrows a front desk to its sites); acting is for
// the front desk and admins, as the API's routes are.
func (c *Console) deskRoutes(page func(method, path string, h handler, roles []domain.Role), desk, anyStaff []domain.Role) {
	page(http.MethodGet, "/venues/:venueId/day", c.venueDay, anyStaff)
	page(http.MethodPost, "/venues/:venueId/closures", c.closeUnits(false), desk)
	page(http.MethodPost, "/venues/:venueId/reopenings", c.closeUnits(true), desk)
	page(http.MethodPost, "/venues/:venueId/late-arrivals", c.recordLateArrival, desk)
	page(http.MethodGet, "/venues/:venueId/walk-in", c.venueWalkInForm, desk)
	page(http.MethodPost, "/venues/:venueId/walk-in", c.venueWalkIn, desk)
	page(http.MethodGet, "/hotels/:hotelId/day", c.hotelDay, anyStaff)
	page(http.MethodPost, "/hotels/:hotelId/walk-in", c.hotelWalkIn, desk)
	page(http.MethodGet, "/waitlist", c.waitlist, anyStaff)
	page(http.MethodPost, "/waitlist/offers", c.offerWaitlist, desk)
	c.bookingRoutes(page, desk, anyStaff)
	c.roomRoutes(page, desk) // a booking's room, a room out of order (hotel_rooms.go)
	c.blockRoutes(page, desk, anyStaff)
}

// closeUnits closes (or reopens) a slot, a resource's day or the venue's day, with a reason,
// through the API's desk closures.
func (c *Console) closeUnits(reopen bool) handler {
	return func(r *request) error {
		venue := r.Param("venueId")
		body := map[string]any{"resourceId": r.FormValue("resourceId"), "reason": r.FormValue("reason")}
		if start := r.FormValue("start"); start != "" {
			t, err := time.Parse(time.RFC3339, start)
			if err != nil {
				return r.fail(&apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: err.Error()})
			}
			body["start"] = t
		} else {
			body["date"] = r.FormValue("date")
		}
		path, done, msg := "/staff/venues/"+seg(venue)+"/closures", "closed", "venue.closed"
		if reopen {
			path, done, msg = "/staff/venues/"+seg(venue)+"/reopenings", "reopened", "venue.reopened"
		}
		if r.FormValue("keepBookings") == "true" && !reopen {
			body["keepBookings"] = true
		}
		var out map[string]any
		if err := c.api.call(r.ctx(), r.who, http.MethodPost, path, body, "", &out); err != nil {
			if refusal, ok := bookedRefusal(r, err); ok {
				return c.refusedClosure(r, venue, refusal)
			}
			return r.fail(err)
		}
		n, _ := out[done].(float64)
		r.flash(r.text.T(msg, int(n)))
		return r.Redirect(http.StatusSeeOther, q(Prefix+"/venues/"+seg(venue)+"/day", "date", r.FormValue("date")))
	}
}

// walkInView is the walk-in form of a venue slot.
type walkInView struct {
	VenueID, ResourceID string
	Start, End          time.Time
	Zone                *time.Location
	Key                 string
	Quota               bool
	// Form is the form as typed when it was refused (empty but for its defaults otherwise).
	Form      walkInForm
	PhoneHint string
}

// venueWalkInForm asks for the guest's phone (and name) for a slot picked on the grid.
func (c *Console) venueWalkInForm(r *request) error {
	v, err := c.walkInOf(r, r.QueryParam("resource"), r.QueryParam("start"), r.QueryParam("end"))
	if err != nil {
		return r.fail(err)
	}
	v.Form = walkInForm{Quantity: "1"}
	return r.render(http.StatusOK, "walk_in", r.text.T("walkin.title"), v)
}

// walkInOf is the walk-in form of the venue's resource from start to end (RFC 3339).
func (c *Console) walkInOf(r *request, resource, start, end string) (walkInView, error) {
	site, err := r.site("venue", r.Param("venueId"))
	if err != nil {
		return walkInView{}, err
	}
	zone, err := time.LoadLocation(site.TimeZone)
	if err != nil {
		return walkInView{}, err
	}
	v := walkInView{VenueID: site.ID, ResourceID: resource, Zone: zone, PhoneHint: phoneHint(r.text, site.Country)}
	noSlot := &apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: r.text.T("walkin.noSlot")}
	if v.Start, err = time.Parse(time.RFC3339, start); err != nil {
		return v, noSlot
	}
	if v.End, err = time.Parse(time.RFC3339, end); err != nil || !v.End.After(v.Start) {
		return v, noSlot
	}
	v.Key = "walk-in-" + newToken() // the guest is not known until the form is sent: keyFor finds a lost answer's key
	for _, res := range site.Resources {
		if res.ID == v.ResourceID {
			// A class's places and equipment's items are counted: the desk says how many.
			v.Quota = res.Kind == string(domain.KindQuotaSlot) || res.Kind == string(domain.KindEquipment)
		}
	}
	return v, nil
}

// venueWalkIn books the slot for the guest by phone through the API (found or created as
// today's walk-in guest), then opens the booking to take the payment. A refused form comes
// back as typed, with the refusal beside its field.
func (c *Console) venueWalkIn(r *request) error {
	venue := r.Param("venueId")
	start, err1 := time.Parse(time.RFC3339, r.FormValue("start"))
	end, err2 := time.Parse(time.RFC3339, r.FormValue("end"))
	if err1 != nil || err2 != nil {
		return r.fail(&apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: r.text.T("walkin.noSlot")})
	}
	f := postedWalkIn(r)
	qty, err := formQuantity(r, "quantity")
	if err != nil {
		f.invalid(r.text, "quantity", "walkin.quantity")
		return c.refusedVenueWalkIn(r, f)
	}
	body := map[string]any{"phone": f.Phone, "name": f.Name,
		"lines": []domain.OrderLine{{ResourceID: r.FormValue("resourceId"), Start: start, End: end, Quantity: qty}}}
	var b domain.Booking
	intent := walkInIntent(venue, r.FormValue("resourceId"), start, f.Phone)
	key := r.keyFor(intent)
	err = c.api.call(r.ctx(), r.who, http.MethodPost, "/staff/venues/"+seg(venue)+"/bookings", body, key, &b)
	if r.settle(intent, key, err); err != nil {
		if f.refusal(r.text, err) {
			return c.refusedVenueWalkIn(r, f)
		}
		return r.fail(err)
	}
	r.flash(r.text.T("walkin.booked", b.ID))
	return r.Redirect(http.StatusSeeOther, Prefix+"/bookings/"+seg(b.ID))
}

// refusedVenueWalkIn shows the slot's walk-in form again as typed (under a new key: the refused
// request's is spent), with why it was refused, at the refusal's status.
func (c *Console) refusedVenueWalkIn(r *request, f walkInForm) error {
	v, err := c.walkInOf(r, r.FormValue("resourceId"), r.FormValue("start"), r.FormValue("end"))
	if err != nil {
		return r.fail(err)
	}
	v.Form = f
	return r.render(f.Status, "walk_in", r.text.T("walkin.title"), v)
}

// formQuantity reads a whole number of at least 1 from field, 1 when it is left empty.
func formQuantity(r *request, field string) (int, error) {
	v := r.FormValue(field)
	if v == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, &apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: r.text.T("walkin.quantity")}
	}
	return n, nil
}

// walkInIntent names one guest's walk-in booking of a slot, for its form's key.
func walkInIntent(venue, resource string, start time.Time, phone string) string {
	return "walk-in:" + venue + ":" + resource + "@" + start.UTC().Format(time.RFC3339) + ":" + strings.TrimSpace(phone)
}
