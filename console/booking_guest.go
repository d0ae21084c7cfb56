package console

import (
	"bytes"
	"cmp"
	"errors"
	"html/template"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// A booking's guest on its page (issue 39): who stays or plays, how to reach them, how many,
// when they arrive, what they asked for. The API keeps them (PUT /staff/bookings/{id}/guest);
// the section is its own template (booking_guest.html), drawn here and placed in the booking
// page by one line, so the booking page's other sections stay apart from it.

// guestRoutes are the desk's search and the guest's form.
func (c *Console) guestRoutes(page func(method, path string, h handler, roles []domain.Role), desk, anyStaff []domain.Role) {
	page(http.MethodGet, "/search", c.search, anyStaff)
	page(http.MethodPost, "/bookings/:id/guest", c.putGuest, desk)
}

// guestForm is the guest's form as shown: what is written down, or what the desk typed when it
// was refused, with each field's error beside it (Errors, by the API's field name) or Refused
// above the form.
type guestForm struct {
	Name, Phone, Email, Guests, ArrivalTime, Notes string
	Errors                                         map[string]string
	Refused                                        string
	Status                                         int // a refusal's; 0 for a form not sent
}

// guestSection is what booking_guest.html's "guest" draws.
type guestSection struct {
	T      catalogue
	CSRF   string
	ID     string
	Desk   bool // the person may write the guest down
	Guest  db.StoredGuest
	Zone   *time.Location
	Form   guestForm
	Shown  bool // something is written down (or a walk-in's name or phone is known)
	Opened bool // the form is open: refused, or no name written down yet
}

// bookingWithGuest is the booking page's data with its guest's section drawn, and its rooms'
// (booking_room.go).
type bookingWithGuest struct {
	bookingPageView
	GuestSection template.HTML
	RoomSection  template.HTML
}

// keyGuestForm carries a refused guest form to the booking page drawn again.
const keyGuestForm = "console.guestForm"

// renderBooking draws the booking page v with its guest: the page is named by the guest's name
// when one is known, else by the customer as before.
func (c *Console) renderBooking(r *request, v bookingPageView) error {
	g := v.B // the page read the booking with its guest
	s := guestSection{T: r.text, CSRF: r.csrf, ID: v.B.ID, Desk: v.Desk, Guest: g.Guest, Zone: v.Zone,
		Form: storedGuestForm(g.Guest.Guest)}
	s.Shown = g.Guest.Name != "" || g.Guest.Phone != "" || g.Guest.Email != "" || g.Guest.Notes != ""
	status := http.StatusOK
	if f, ok := r.Get(keyGuestForm).(guestForm); ok {
		s.Form, status = f, f.Status
	}
	if f, ok := r.Get(keyChargeForm).(chargeForm); ok { // a refused charge (booking_folio.go)
		status = f.Status
	}
	s.Opened = g.Guest.Name == "" || s.Form.Status != 0 // open until the guest is named
	t, ok := c.pages.byName["booking_guest"]
	if !ok {
		return errors.New("console: no template booking_guest")
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "guest", s); err != nil {
		return err
	}
	rooms, roomStatus, err := c.drawRoomSection(r, v)
	if err != nil {
		return err
	}
	status = max(status, roomStatus) // a refused form's status (only one form is sent at a time)
	name := cmp.Or(g.GuestName, g.Guest.Name, r.text.Guest(v.B.CustomerID))
	//nolint:gosec // the section is html/template's own output, escaped as it was drawn
	return r.render(status, "booking", r.text.T("booking.title", name), bookingWithGuest{bookingPageView: v,
		GuestSection: template.HTML(buf.String()), RoomSection: rooms})
}

// storedGuestForm is the form filled in with what is written down.
func storedGuestForm(g domain.Guest) guestForm {
	f := guestForm{Name: g.Name, Phone: g.Phone, Email: g.Email, ArrivalTime: g.ArrivalTime, Notes: g.Notes}
	if g.Guests > 0 {
		f.Guests = strconv.Itoa(g.Guests)
	}
	return f
}

// guestReasons turn the API's refusals of a guest (domain.Guest.Validate's, the phone's) into a
// field and a sentence; the phone's are the walk-in form's.
var guestReasons = []refusalReason{
	{regexp.MustCompile(`name is at most`), "name", "form.err.name"},
	{regexp.MustCompile(`email`), "email", "guest.err.email"},
	{regexp.MustCompile(`guests is`), "guests", "guest.err.guests"},
	{regexp.MustCompile(`arrivalTime`), "arrivalTime", "guest.err.arrivalTime"},
	{regexp.MustCompile(`notes are at most`), "notes", "guest.err.notes"},
}

// putGuest writes down the booking's guest; a refused form comes back on the booking page as
// typed, the refusal beside its field.
func (c *Console) putGuest(r *request) error {
	id := r.Param("id")
	f := guestForm{Name: r.FormValue("name"), Phone: r.FormValue("phone"), Email: r.FormValue("email"),
		Guests: strings.TrimSpace(r.FormValue("guests")), ArrivalTime: strings.TrimSpace(r.FormValue("arrivalTime")),
		Notes: r.FormValue("notes"), Errors: map[string]string{}}
	guests := 0
	if f.Guests != "" {
		n, err := strconv.Atoi(f.Guests)
		if err != nil || n < 1 || n > 99 {
			f.Errors["guests"], f.Status = r.text.T("guest.err.guests"), http.StatusBadRequest
			return c.refusedGuest(r, f)
		}
		guests = n
	}
	body := map[string]any{"name": f.Name, "phone": f.Phone, "email": f.Email, "guests": guests,
		"arrivalTime": f.ArrivalTime, "notes": f.Notes}
	err := c.api.call(r.ctx(), r.who, http.MethodPut, "/staff/bookings/"+seg(id)+"/guest", body, "", nil)
	if err == nil {
		r.flash(r.text.T("guest.saved"))
		return r.Redirect(http.StatusSeeOther, Prefix+"/bookings/"+seg(id))
	}
	var ae *apiError
	if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest {
		return r.failOn(id, err)
	}
	f.Status, f.Refused = ae.Status, r.text.T("guest.err.refused", ae.Message)
	for _, p := range append(phoneReasons(), guestReasons...) {
		if p.re.MatchString(ae.Message) {
			f.Errors[p.field], f.Refused = r.text.T(p.key), ""
			break
		}
	}
	return c.refusedGuest(r, f)
}

// phoneReasons are the walk-in form's refusals of a phone.
func phoneReasons() []refusalReason {
	var out []refusalReason
	for _, p := range walkInReasons {
		if p.field == "phone" {
			out = append(out, p)
		}
	}
	return out
}

// refusedGuest draws the booking page again with the guest's form as typed.
func (c *Console) refusedGuest(r *request, f guestForm) error {
	r.Set(keyGuestForm, f)
	return c.bookingPage(r)
}
