package console

import (
	"net/http"
	"strings"

	"github.com/bookflow/bookflow/domain"
)

// recordLateArrival records, from the venue's grid, that a booking's guest has just arrived
// after it began (issue 39): the booking is kept, the API notes and audits it, and the grid
// shows how late.
func (c *Console) recordLateArrival(r *request) error {
	venue, id := r.Param("venueId"), r.FormValue("bookingId")
	if !strings.HasPrefix(id, domain.BookingIDPrefix) {
		return r.fail(&apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: r.text.T("venue.lateNoBooking")})
	}
	var out struct {
		MinutesLate int `json:"minutesLate"`
	}
	if err := c.api.call(r.ctx(), r.who, http.MethodPost, "/staff/bookings/"+seg(id)+"/late-arrival", map[string]any{}, "",
		&out); err != nil {
		return r.fail(err)
	}
	r.flash(r.text.T("venue.lateRecorded", out.MinutesLate))
	return r.Redirect(http.StatusSeeOther, q(Prefix+"/venues/"+seg(venue)+"/day", "date", r.FormValue("date")))
}
