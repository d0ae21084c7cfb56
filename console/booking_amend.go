package console

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/bookflow/bookflow/domain"
)

// amend changes a stay's dates, rooms, room type or rate plan through the API's staff amendment
// (the form's "See the price first" asks the quote: booking_quote.go).
func (c *Console) amend(r *request) error {
	id := r.Param("id")
	change, err := amendChange(r)
	if err != nil {
		var ae *apiError
		if errors.As(err, &ae) && ae.Message == r.text.T("booking.badDate") {
			return r.refuseForm(id, "booking.badDate")
		}
		return r.fail(err)
	}
	return r.sendAmendment(id, change)
}

// moveLine moves one line of a venue order to another resource or start, keeping its length
// and quantity, through the API's staff amendment of the order's lines (all of them, as they
// should be afterwards).
func (c *Console) moveLine(r *request) error {
	id := r.Param("id")
	var b bookingWithMoney
	if err := c.api.call(r.ctx(), r.who, http.MethodGet, "/staff/bookings/"+seg(id), nil, "", &b); err != nil {
		return r.fail(err)
	}
	zone, err := time.LoadLocation(b.TimeZone)
	if err != nil {
		return r.fail(err)
	}
	n, err := strconv.Atoi(r.FormValue("line"))
	if err != nil || n < 0 || n >= len(b.Price.Lines) {
		return r.fail(&apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: r.text.T("booking.noLine")})
	}
	start, err := time.ParseInLocation("2006-01-02T15:04", r.FormValue("start"), zone)
	if err != nil {
		return r.fail(&apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: r.text.T("booking.badStart")})
	}
	lines := make([]domain.OrderLine, len(b.Price.Lines))
	for i, l := range b.Price.Lines {
		lines[i] = l.OrderLine
	}
	moved := &lines[n]
	moved.Start, moved.End = start, start.Add(moved.End.Sub(moved.Start))
	if res := r.FormValue("resourceId"); res != "" {
		moved.ResourceID = res
	}
	return r.sendAmendment(id, map[string]any{"lines": lines})
}

// sendAmendment asks the API for the change, under the amendment form's key, and says what
// became of it.
func (r *request) sendAmendment(id string, change map[string]any) error {
	var out struct {
		Amendment struct {
			Status string `json:"status"`
		} `json:"amendment"`
	}
	key := r.keyFor("amend:" + id)
	err := r.c.api.call(r.ctx(), r.who, http.MethodPost, "/staff/bookings/"+seg(id)+"/amendments", change, key, &out)
	if r.settle("amend:"+id, key, err); err != nil {
		return r.failOn(id, err)
	}
	r.flash(r.text.T("booking.done.amend", r.text.T("amendment."+out.Amendment.Status)))
	return r.Redirect(http.StatusSeeOther, Prefix+"/bookings/"+seg(id))
}
