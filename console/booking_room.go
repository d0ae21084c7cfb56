package console

import (
	"bytes"
	"errors"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// A hotel booking's rooms on its page (issue 39): the rooms it has, by night range, and the
// desk's form to put the guest in a room or move them from a night on, offering the rooms of its
// room type free on every night from then to its check-out (GET /staff/bookings/{id}/free-rooms).
// The section is its own template (booking_room.html), drawn into the booking page as the guest's
// is.

// roomForm is the room form as shown: its defaults, or what the desk typed when it was refused,
// with each field's error beside it (Errors) or Refused above the form.
type roomForm struct {
	Room, From, MoveFrom string
	Errors               map[string]string
	Refused              string
	Status               int // a refusal's; 0 for a form not sent
}

// roomSection is what booking_room.html's "room" draws.
type roomSection struct {
	T        catalogue
	CSRF     string
	ID       string
	Shown    string // the booking as its page showed it (shownAs)
	Rooms    []db.RoomAssignment
	Desk     bool     // the form is offered
	Free     []string // the rooms free from Form.From on (the typed room among them when refused)
	Held     []string // the booking's rooms, for a move out of one (a booking of more than one room)
	Form     roomForm
	FreeFrom string // the night Free was read from
}

// keyRoomForm carries a refused room form to the booking page drawn again.
const keyRoomForm = "console.roomForm"

// drawRoomSection draws the booking's Room section (nothing for a venue's booking).
func (c *Console) drawRoomSection(r *request, v bookingPageView) (template.HTML, int, error) {
	b := v.B
	if b.VenueID != "" {
		return "", 0, nil
	}
	s := roomSection{T: r.text, CSRF: r.csrf, ID: b.ID, Shown: v.Shown, Rooms: b.Rooms,
		Desk: v.Desk && b.Status.HoldsInventory() && b.CheckedOutAt.IsZero()}
	s.Form = roomForm{From: firstNightToRoom(b.Booking, c.cfg.Now(), v.Zone).String()}
	status := http.StatusOK
	if f, ok := r.Get(keyRoomForm).(roomForm); ok {
		s.Form, status = f, f.Status
	}
	if s.Desk {
		from := s.Form.From
		if _, err := domain.ParseDate(from); err != nil || s.Form.Errors["roomFrom"] != "" {
			from = firstNightToRoom(b.Booking, c.cfg.Now(), v.Zone).String()
		}
		var free struct {
			Rooms []string `json:"rooms"`
		}
		// The list is a convenience: a read that fails leaves the form with none, and the API
		// judges the room typed when it is sent.
		_ = c.api.call(r.ctx(), r.who, http.MethodGet, q("/staff/bookings/"+seg(b.ID)+"/free-rooms", "from", from), nil, "", &free)
		s.Free, s.FreeFrom = free.Rooms, from
		if s.Form.Room != "" && !slices.Contains(s.Free, s.Form.Room) {
			s.Free = append([]string{s.Form.Room}, s.Free...) // as typed
		}
		if b.Quantity > 1 {
			for _, a := range b.Rooms {
				if !slices.Contains(s.Held, a.Room) {
					s.Held = append(s.Held, a.Room)
				}
			}
		}
	}
	t, ok := c.pages.byName["booking_room"]
	if !ok {
		return "", 0, errors.New("console: no template booking_room")
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "room", s); err != nil {
		return "", 0, err
	}
	//nolint:gosec // the section is html/template's own output, escaped as it was drawn
	return template.HTML(buf.String()), status, nil
}

// firstNightToRoom is the night a room form starts from by default: tonight for a guest in
// house, else the check-in.
func firstNightToRoom(b domain.Booking, now time.Time, zone *time.Location) domain.Date {
	today := domain.DateOf(now, zone)
	if b.CheckIn.Before(today) && today.Before(b.CheckOut) {
		return today
	}
	return b.CheckIn
}

// assignRoom puts the booking's guest in the room picked, from the night typed, through the API;
// a refused form comes back on the booking page as typed, with the refusal in a sentence.
func (c *Console) assignRoom(r *request) error {
	id := r.Param("id")
	f := roomForm{Room: strings.TrimSpace(r.FormValue("room")), From: strings.TrimSpace(r.FormValue("from")),
		MoveFrom: r.FormValue("moveFrom"), Errors: map[string]string{}}
	from, err := domain.ParseDate(f.From)
	switch {
	case f.Room == "":
		f.Errors["room"] = r.text.T("room.err.pick")
	case err != nil:
		f.Errors["roomFrom"] = r.text.T("form.err.date")
	}
	if len(f.Errors) > 0 {
		f.Status = http.StatusBadRequest
		return c.refusedRoom(r, f)
	}
	body := map[string]any{"room": f.Room, "from": from, "moveFrom": f.MoveFrom}
	err = c.api.call(r.ctx(), r.who, http.MethodPost, "/staff/bookings/"+seg(id)+"/rooms", body, "", nil)
	if err == nil {
		r.flash(r.text.T("room.done", f.Room, f.From))
		return r.Redirect(http.StatusSeeOther, Prefix+"/bookings/"+seg(id))
	}
	var ae *apiError
	if !errors.As(err, &ae) || ae.Status == http.StatusForbidden || ae.Status >= 500 {
		return r.failOn(id, err)
	}
	f.Status, f.Refused = ae.Status, r.refusalText(ae)
	return c.refusedRoom(r, f)
}

// refusedRoom draws the booking page again with the room form as typed.
func (c *Console) refusedRoom(r *request, f roomForm) error {
	r.Set(keyRoomForm, f)
	return c.bookingPage(r)
}
