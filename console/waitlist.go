package console

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// productFields name a product as the API's waitlist routes take it: a hotel's room type for a
// stay, or a venue's resource over a slot.
var productFields = []string{"hotelId", "roomTypeId", "checkIn", "checkOut", "venueId", "resourceId", "start", "end"}

// waitlistView is one product's waitlist: its open entries in the order they are offered.
type waitlistView struct {
	Site    db.SiteSummary
	Product string            // the product in words
	Fields  map[string]string // the product's fields, for the offer form
	Query   string            // the same as a query, for links back here
	Back    string            // the day the product is on
	Entries []waitlistRow
	Desk    bool
}

type waitlistRow struct {
	Place, Quantity      int
	Customer, Status     string
	StatusCode           string
	OfferBooking, Expiry string
}

// waitlist shows a product's open entries (GET /staff/waitlist): place, customer, quantity,
// status, and a live offer's booking and expiry in the site's time zone.
func (c *Console) waitlist(r *request) error {
	fields := map[string]string{}
	for _, f := range productFields {
		if v := r.QueryParam(f); v != "" {
			fields[f] = v
		}
	}
	kind, siteID := "hotel", fields["hotelId"]
	if siteID == "" {
		kind, siteID = "venue", fields["venueId"]
	}
	if siteID == "" {
		return r.fail(&apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: r.text.T("waitlist.noProduct")})
	}
	site, err := r.site(kind, siteID)
	if err != nil {
		return r.waitlistFail(siteID, err)
	}
	zone, err := time.LoadLocation(site.TimeZone)
	if err != nil {
		return r.fail(err)
	}
	kv := make([]string, 0, 2*len(fields))
	for _, f := range productFields {
		kv = append(kv, f, fields[f])
	}
	path := q("/staff/waitlist", kv...)
	var out struct {
		Entries []domain.WaitlistEntry `json:"entries"`
	}
	if err := c.api.call(r.ctx(), r.who, http.MethodGet, path, nil, "", &out); err != nil {
		return r.waitlistFail(siteID, err)
	}
	v := waitlistView{Site: site, Fields: fields, Query: strings.TrimPrefix(path, "/staff/waitlist?")}
	if kind == "hotel" {
		v.Product = r.text.T("waitlist.stay", fields["roomTypeId"], fields["checkIn"], fields["checkOut"])
		v.Back = Prefix + "/hotels/" + seg(siteID) + "/day?date=" + fields["checkIn"]
		v.Desk = r.who.CanBook(siteID)
	} else {
		start, err1 := time.Parse(time.RFC3339, fields["start"])
		end, err2 := time.Parse(time.RFC3339, fields["end"])
		if err1 != nil || err2 != nil {
			return r.fail(&apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: r.text.T("waitlist.noProduct")})
		}
		day := domain.DateOf(start, zone)
		v.Product = r.text.T("waitlist.slot", fields["resourceId"], day, start.In(zone).Format("15:04"), end.In(zone).Format("15:04"))
		v.Back = Prefix + "/venues/" + seg(siteID) + "/day?date=" + day.String()
		v.Desk = r.who.CanBookVenue(siteID)
	}
	for _, e := range out.Entries {
		row := waitlistRow{Place: e.Place, Quantity: e.Quantity, Customer: e.CustomerID, StatusCode: e.Status,
			Status: r.text.T("waitlist.status." + e.Status)}
		if e.Status == domain.WaitlistOffered {
			row.OfferBooking = e.OfferBookingID
			if e.OfferExpiresAt != nil {
				row.Expiry = e.OfferExpiresAt.In(zone).Format("2006-01-02 15:04")
			}
		}
		v.Entries = append(v.Entries, row)
	}
	return r.render(http.StatusOK, "waitlist", r.text.T("waitlist.title", siteName(site)), v)
}

// offerWaitlist offers what is free of the product now (POST /staff/waitlist/offers), by the
// rules a give-back follows, and says which entries were offered.
func (c *Console) offerWaitlist(r *request) error {
	body := map[string]any{"quantity": 1}
	kv := []string{}
	for _, f := range productFields {
		v := r.FormValue(f)
		kv = append(kv, f, v)
		if v != "" {
			body[f] = v
		}
	}
	siteID := r.FormValue("hotelId") + r.FormValue("venueId")
	var out struct {
		Entries []domain.WaitlistEntry `json:"entries"`
	}
	if err := c.api.call(r.ctx(), r.who, http.MethodPost, "/staff/waitlist/offers", body, "", &out); err != nil {
		return r.waitlistFail(siteID, err)
	}
	if len(out.Entries) == 0 {
		r.flash(r.text.T("waitlist.nothing"))
	} else {
		offered := make([]string, 0, len(out.Entries))
		for _, e := range out.Entries {
			offered = append(offered, r.text.T("waitlist.offeredTo", e.CustomerID, strconv.Itoa(e.Quantity), e.OfferBookingID))
		}
		r.flash(r.text.T("waitlist.offered", strings.Join(offered, "; ")))
	}
	return r.Redirect(http.StatusSeeOther, q(Prefix+"/waitlist", kv...))
}

// waitlistFail shows the API's refusal; a site that is not the person's is said in their
// language, not the API's.
func (r *request) waitlistFail(siteID string, err error) error {
	var ae *apiError
	if errors.As(err, &ae) && ae.Status == http.StatusForbidden {
		return r.c.renderError(r, http.StatusForbidden, r.text.T("waitlist.notYours", siteID))
	}
	return r.fail(err)
}
