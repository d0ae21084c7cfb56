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
	page(http.MethodGet, "/venues/:venueId/walk-in", c.venueWalkInForm, desk)
	page(http.MethodPost, "/venues/:venueId/walk-in", c.venueWalkIn, desk)
	page(http.MethodGet, "/hotels/:hotelId/day", c.hotelDay, anyStaff)
	page(http.MethodPost, "/hotels/:hotelId/walk-in", c.hotelWalkIn, desk)
	page(http.MethodGet, "/waitlist", c.waitlist, anyStaff)
	page(http.MethodPost, "/waitlist/offers", c.offerWaitlist, desk)
	c.bookingRoutes(page, desk, anyStaff)
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
		var out map[string]any
		if err := c.api.call(r.ctx(), r.who, http.MethodPost, path, body, "", &out); err != nil {
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
}

// venueWalkInForm asks for the guest's phone (and name) for a slot picked on the grid.
func (c *Console) venueWalkInForm(r *request) error {
	site, err := r.site("venue", r.Param("venueId"))
	if err != nil {
		return r.fail(err)
	}
	zone, err := time.LoadLocation(site.TimeZone)
	if err != nil {
		return r.fail(err)
	}
	v := walkInView{VenueID: site.ID, ResourceID: r.QueryParam("resource"), Zone: zone}
	if v.Start, err = time.Parse(time.RFC3339, r.QueryParam("start")); err != nil {
		return r.fail(&apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: r.text.T("walkin.noSlot")})
	}
	if v.End, err = time.Parse(time.RFC3339, r.QueryParam("end")); err != nil || !v.End.After(v.Start) {
		return r.fail(&apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: r.text.T("walkin.noSlot")})
	}
	v.Key = "walk-in-" + newToken() // the guest is not known until the form is sent: keyFor finds a lost answer's key
	for _, res := range site.Resources {
		if res.ID == v.ResourceID {
			v.Quota = res.Kind == string(domain.KindQuotaSlot)
		}
	}
	return r.render(http.StatusOK, "walk_in", r.text.T("walkin.title"), v)
}

// venueWalkIn books the slot for the guest by phone through the API (found or created as
// today's walk-in guest), then opens the booking to take the payment.
func (c *Console) venueWalkIn(r *request) error {
	venue := r.Param("venueId")
	start, err1 := time.Parse(time.RFC3339, r.FormValue("start"))
	end, err2 := time.Parse(time.RFC3339, r.FormValue("end"))
	if err1 != nil || err2 != nil {
		return r.fail(&apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: r.text.T("walkin.noSlot")})
	}
	qty, err := formQuantity(r, "quantity")
	if err != nil {
		return r.fail(err)
	}
	body := map[string]any{"phone": r.FormValue("phone"), "name": r.FormValue("name"),
		"lines": []domain.OrderLine{{ResourceID: r.FormValue("resourceId"), Start: start, End: end, Quantity: qty}}}
	var b domain.Booking
	intent := walkInIntent(venue, r.FormValue("resourceId"), start, r.FormValue("phone"))
	key := r.keyFor(intent)
	err = c.api.call(r.ctx(), r.who, http.MethodPost, "/staff/venues/"+seg(venue)+"/bookings", body, key, &b)
	if r.settle(intent, key, err); err != nil {
		return r.fail(err)
	}
	r.flash(r.text.T("walkin.booked", b.ID))
	return r.Redirect(http.StatusSeeOther, Prefix+"/bookings/"+seg(b.ID))
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
