package console

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// adminRoutes are admins' pages: every site, a venue's terms, resources and schedules, a
// hotel's room types, inventory, rates, cancellation policy, rate plans and restrictions. HTML
// forms only GET and POST, so each form POSTs here and the console makes the API's PUT or POST.
func (c *Console) adminRoutes(page func(method, path string, h handler, roles []domain.Role), admin []domain.Role) {
	page(http.MethodGet, "/admin", c.adminHome, admin)
	page(http.MethodPost, "/admin/venues", c.adminCreateVenue, admin)
	page(http.MethodPost, "/admin/hotels", c.adminCreateHotel, admin)
	c.adminVenueRoutes(page, admin)
	c.adminHotelRoutes(page, admin)
	c.adminRatesRoutes(page, admin)
}

// adminHomeView is the admin home: every site, and the forms that make new ones.
type adminHomeView struct {
	Sites    []db.SiteSummary
	Defaults domain.Venue // a new venue's terms, as the API would fill them in
}

func (c *Console) adminHome(r *request) error {
	sites, err := r.sites()
	if err != nil {
		return r.fail(err)
	}
	return r.render(http.StatusOK, "admin", r.text.T("admin.title"),
		adminHomeView{Sites: sites, Defaults: domain.NewVenue("", "", "")})
}

// venueForm reads a venue's name and terms from its form: a term left empty is left out, so the
// API fills in its default.
func (r *request) venueForm() (map[string]any, error) {
	body := map[string]any{"name": strings.TrimSpace(r.FormValue("name")),
		"timeZone": strings.TrimSpace(r.FormValue("timeZone"))}
	for _, f := range []string{"paymentWindowMinutes", "freeCancelHours", "noShowGraceMinutes"} {
		n, ok, err := r.formInt(f)
		if err != nil {
			return nil, err
		}
		if ok {
			body[f] = n
		}
	}
	return body, nil
}

// adminCreateVenue creates a venue (PUT /admin/venues/:id) and opens its admin page.
func (c *Console) adminCreateVenue(r *request) error {
	id := strings.TrimSpace(r.FormValue("venueId"))
	body, err := r.venueForm()
	if err != nil {
		return r.badForm(err)
	}
	var v domain.Venue
	if err := r.c.api.call(r.ctx(), r.who, http.MethodPut, "/admin/venues/"+seg(id), body, "", &v); err != nil {
		return r.fail(err)
	}
	r.flash(r.text.T("admin.venueSaved", v.ID, v.TimeZone))
	return r.Redirect(http.StatusSeeOther, Prefix+"/admin/venues/"+seg(v.ID))
}

// adminCreateHotel creates a hotel with its first room type: the inventory call with a time zone
// makes both.
func (c *Console) adminCreateHotel(r *request) error {
	hotelID := strings.TrimSpace(r.FormValue("hotelId"))
	if done, err := r.putInventory(hotelID, strings.TrimSpace(r.FormValue("timeZone"))); !done {
		return err
	}
	return r.Redirect(http.StatusSeeOther, Prefix+"/admin/hotels/"+seg(hotelID))
}

// formInt reads the form's field as a whole number; ok is false when it was left empty.
func (r *request) formInt(field string) (n int, ok bool, err error) {
	s := strings.TrimSpace(r.FormValue(field))
	if s == "" {
		return 0, false, nil
	}
	n, err = strconv.Atoi(s)
	if err != nil {
		return 0, false, formError{field, s}
	}
	return n, true, nil
}

// formError is a field a person typed that the console cannot read, before any API call.
type formError struct{ field, value string }

func (e formError) Error() string { return e.field + ": " + strconv.Quote(e.value) }

// badForm shows a form the console could not read: nothing was sent to the API.
func (r *request) badForm(err error) error {
	return r.c.renderError(r, http.StatusBadRequest, r.text.T("admin.badForm", err.Error()))
}
