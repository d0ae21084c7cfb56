package console

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// adminVenueRoutes are a venue's admin page and its forms.
func (c *Console) adminVenueRoutes(page func(method, path string, h handler, roles []domain.Role), admin []domain.Role) {
	page(http.MethodGet, "/admin/venues/:venueId", c.adminVenue, admin)
	page(http.MethodPost, "/admin/venues/:venueId/terms", c.adminVenueTerms, admin)
	page(http.MethodPost, "/admin/venues/:venueId/resources", c.adminVenueResource, admin)
	page(http.MethodPost, "/admin/venues/:venueId/resources/:resourceId/schedule", c.adminSchedule, admin)
}

// adminVenueView is a venue's admin page.
type adminVenueView struct {
	Site     db.SiteSummary
	Venue    domain.Venue
	Kinds    []domain.ResourceKind
	Weekdays []int
	Today    string // the venue's local date, where a schedule form starts
	// Date is the local date whose units the page shows (?date, or today), Slots those units by
	// resource id, in Loc.
	Date  string
	Slots map[string][]db.Slot
	Loc   *time.Location
}

func (c *Console) adminVenue(r *request) error {
	id := r.Param("venueId")
	site, err := r.site("venue", id)
	if err != nil {
		return r.fail(err)
	}
	var v domain.Venue
	if err := r.c.api.call(r.ctx(), r.who, http.MethodGet, "/admin/venues/"+seg(id), nil, "", &v); err != nil {
		return r.fail(err)
	}
	loc, err := time.LoadLocation(site.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	view := adminVenueView{Site: site, Venue: v, Loc: loc, Slots: map[string][]db.Slot{},
		Kinds:    []domain.ResourceKind{domain.KindExclusiveSlot, domain.KindQuotaSlot, domain.KindEquipment},
		Weekdays: []int{1, 2, 3, 4, 5, 6, 7}, Today: domain.DateOf(r.c.cfg.Now(), loc).String()}
	view.Date = view.Today
	if d, err := domain.ParseDate(r.QueryParam("date")); err == nil {
		view.Date = d.String()
	}
	var slots struct {
		Slots []db.Slot `json:"slots"`
	}
	if err := r.c.api.call(r.ctx(), r.who, http.MethodGet, q("/venues/"+seg(id)+"/slots", "date", view.Date), nil, "", &slots); err != nil {
		return r.fail(err)
	}
	for _, sl := range slots.Slots {
		view.Slots[sl.ResourceID] = append(view.Slots[sl.ResourceID], sl)
	}
	return r.render(http.StatusOK, "admin_venue", r.text.T("admin.venueTitle", site.ID), view)
}

// adminVenueTerms updates a venue's name and terms (the time zone only while it has no
// resources: the API says so).
func (c *Console) adminVenueTerms(r *request) error {
	id := r.Param("venueId")
	body, err := r.venueForm()
	if err != nil {
		return r.badForm(err)
	}
	if country := strings.ToUpper(strings.TrimSpace(r.FormValue("country"))); country != "" {
		body["country"] = country // the PUT replaces the venue: the form shows the country it has
	}
	var v domain.Venue
	if err := r.c.api.call(r.ctx(), r.who, http.MethodPut, "/admin/venues/"+seg(id), body, "", &v); err != nil {
		return r.fail(err)
	}
	r.flash(r.text.T("admin.termsSaved", v.ID, v.PaymentWindowMinutes, v.FreeCancelHours, v.NoShowGraceMinutes))
	return r.Redirect(http.StatusSeeOther, Prefix+"/admin/venues/"+seg(id))
}

// adminVenueResource creates a resource or updates its name, sport and capacity.
func (c *Console) adminVenueResource(r *request) error {
	venueID, resourceID := r.Param("venueId"), strings.TrimSpace(r.FormValue("resourceId"))
	capacity, _, err := r.formInt("capacity")
	if err != nil {
		return r.badForm(err)
	}
	body := map[string]any{"kind": r.FormValue("kind"), "name": strings.TrimSpace(r.FormValue("name")),
		"sport": strings.TrimSpace(r.FormValue("sport")), "capacity": capacity}
	if u := r.FormValue("unit"); u != "" {
		body["unit"] = u
	}
	var res domain.VenueResource
	if err := r.c.api.call(r.ctx(), r.who, http.MethodPut, "/admin/venues/"+seg(venueID)+"/resources/"+seg(resourceID),
		body, "", &res); err != nil {
		return r.fail(err)
	}
	r.flash(r.text.T("admin.resourceSaved", res.ID, string(res.Kind), res.Capacity, res.Unit))
	return r.Redirect(http.StatusSeeOther, Prefix+"/admin/venues/"+seg(venueID)+"#resource-"+res.ID)
}

// adminSchedule lays a resource's units out over a range of dates, and says what the API did.
func (c *Console) adminSchedule(r *request) error {
	venueID, resourceID := r.Param("venueId"), r.Param("resourceId")
	if err := r.Request().ParseForm(); err != nil {
		return r.badForm(err)
	}
	slotMinutes, _, err := r.formInt("slotMinutes")
	if err != nil {
		return r.badForm(err)
	}
	currency := strings.ToUpper(strings.TrimSpace(r.FormValue("currency")))
	amount, err := parseAmount(r.FormValue("amount"), currency)
	if err != nil {
		return r.badForm(err)
	}
	weekdays := []int{}
	for _, d := range r.Request().Form["weekdays"] {
		n, err := strconv.Atoi(d)
		if err != nil {
			return r.badForm(formError{"weekdays", d})
		}
		weekdays = append(weekdays, n)
	}
	body := map[string]any{"from": r.FormValue("from"), "to": r.FormValue("to"), "weekdays": weekdays,
		"opens": r.FormValue("opens"), "closes": r.FormValue("closes"), "slotMinutes": slotMinutes,
		"price": domain.Money{Amount: amount, Currency: currency}}
	var res db.ScheduleResult
	if err := r.c.api.call(r.ctx(), r.who, http.MethodPost,
		"/admin/venues/"+seg(venueID)+"/resources/"+seg(resourceID)+"/schedule", body, "", &res); err != nil {
		return r.fail(err)
	}
	r.flash(r.text.T("admin.scheduleApplied", resourceID, res.Units, res.Created, res.Removed, res.KeptSold,
		res.KeptClosed, res.Skipped))
	// Open on the schedule's first day, whose units it just laid out.
	return r.Redirect(http.StatusSeeOther, q(Prefix+"/admin/venues/"+seg(venueID), "date", r.FormValue("from"))+"#resource-"+resourceID)
}
