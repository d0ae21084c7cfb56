package console

import (
	"cmp"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// The desk's search (issue 39): every signed-in page's header has a search box (layout.html)
// sending q here; the API finds the bookings (GET /staff/search), a front desk's in its own
// sites only.

// searchRow is one booking found, as the results page shows it: by its guest first.
type searchRow struct {
	ID, Guest, Status, Site, When, Matched string
}

// searchView is the results page.
type searchView struct {
	Q     string
	Short bool // q is too short (or empty) to search for
	Rows  []searchRow
}

// searchLimit is how many bookings a search shows: a desk narrows a longer list by typing more.
const searchLimit = "50"

// search shows the bookings matching q, newest first.
func (c *Console) search(r *request) error {
	v := searchView{Q: strings.TrimSpace(r.QueryParam("q"))}
	title := r.text.T("search.title")
	if len([]rune(v.Q)) < 2 { // the API's own bound: too short to mean one guest
		v.Short = true
		return r.render(http.StatusOK, "search", title, v)
	}
	title = r.text.T("search.titleFor", v.Q)
	var found struct {
		Results []struct {
			domain.Booking
			GuestName string `json:"guestName"`
			Matched   string `json:"matched"`
		} `json:"results"`
	}
	err := c.api.call(r.ctx(), r.who, http.MethodGet, q("/staff/search", "q", v.Q, "limit", searchLimit), nil, "", &found)
	var ae *apiError
	if errors.As(err, &ae) && ae.Status == http.StatusBadRequest { // over 200 characters
		v.Short = true
		return r.render(http.StatusOK, "search", title, v)
	}
	if err != nil {
		return r.fail(err)
	}
	names := c.siteNames(r)
	for _, b := range found.Results {
		site := cmp.Or(b.HotelID, b.VenueID)
		row := searchRow{ID: b.ID, Guest: cmp.Or(b.GuestName, r.text.Guest(b.CustomerID)),
			Status: r.text.T("status." + string(b.Status)), Site: cmp.Or(names[site], site), When: bookedWhen(b.Booking)}
		if b.Matched != "" {
			row.Matched = r.text.T("search.matched." + b.Matched)
		}
		v.Rows = append(v.Rows, row)
	}
	return r.render(http.StatusOK, "search", title, v)
}

// siteNames are the names of the sites the person works for, by id (none when they cannot be
// read: the results then name sites by id).
func (c *Console) siteNames(r *request) map[string]string {
	var out struct {
		Sites []db.SiteSummary `json:"sites"`
	}
	names := map[string]string{}
	if err := c.api.call(r.ctx(), r.who, http.MethodGet, "/staff/sites", nil, "", &out); err != nil {
		return names
	}
	for _, s := range out.Sites {
		names[s.ID] = s.Name
	}
	return names
}

// bookedWhen is a stay's dates, or a venue booking's first slot in its site's time.
func bookedWhen(b domain.Booking) string {
	if b.VenueID == "" {
		return b.CheckIn.String() + " → " + b.CheckOut.String()
	}
	if len(b.Price.Lines) == 0 {
		return ""
	}
	zone, err := time.LoadLocation(b.TimeZone)
	if err != nil {
		zone = time.UTC
	}
	l := b.Price.Lines[0]
	return l.Start.In(zone).Format("2006-01-02 15:04") + "–" + l.End.In(zone).Format("15:04")
}
