package console

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/bookflow/bookflow/db"
)

// closureRefusal is a closure the API refused because bookings hold its units (slots_booked):
// the venue's day shows them, each linking to its page (to move or refund it), and offers the
// same closure again keeping them.
type closureRefusal struct {
	ResourceID, Start, Date, Reason string // the closure as sent, for "close keeping them"
	Booked                          []db.BookedUnit
	Bookings                        []bookedLine
}

// bookedLine is one booking a refused closure named, as the desk reads it.
type bookedLine struct {
	ID, Label string
}

// bookedRefusal reads err as the API's slots_booked refusal of the closure r sent.
func bookedRefusal(r *request, err error) (*closureRefusal, bool) {
	var ae *apiError
	if !errors.As(err, &ae) || ae.Code != "slots_booked" {
		return nil, false
	}
	var details struct {
		Bookings []db.BookedUnit `json:"bookings"`
	}
	if json.Unmarshal(ae.Details, &details) != nil || len(details.Bookings) == 0 {
		return nil, false
	}
	return &closureRefusal{ResourceID: r.FormValue("resourceId"), Start: r.FormValue("start"), Date: r.FormValue("date"),
		Reason: r.FormValue("reason"), Booked: details.Bookings}, true
}

// refusedClosure shows the venue's day with the closure's refusal and what to do about it (409):
// each booking by its guest, resource, local time and status.
func (c *Console) refusedClosure(r *request, venue string, refusal *closureRefusal) error {
	site, err := r.site("venue", venue)
	if err != nil {
		return r.fail(err)
	}
	v, err := c.loadVenueDay(r, site, refusal.Date)
	if err != nil {
		return r.fail(err)
	}
	for _, b := range refusal.Booked {
		refusal.Bookings = append(refusal.Bookings, bookedLine{ID: b.BookingID, Label: r.text.T("venue.bookedLine",
			b.CustomerID, b.ResourceID, b.Start.In(v.Zone).Format("2006-01-02 15:04"), r.text.T("status."+string(b.Status)))})
	}
	v.Refused = refusal
	return r.render(http.StatusConflict, "venue_day", r.text.T("venue.title", siteName(site), v.Date), v)
}
