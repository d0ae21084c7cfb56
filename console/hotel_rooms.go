package console

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// A hotel's rooms on its day (issue 39): every room of the hotel that night, free, with its guest
// (linked to the booking) or out of order with the reason, the arrivals' and stays' rooms, and
// the desk's forms to put a room out of order and back in order (POST
// /staff/hotels/{hotelId}/rooms/{room}/out-of-order, .../back-in-order).

// roomRoutes are the desk's room actions: a booking's room (booking_room.go) and a room out of
// order or back in order from the hotel's day.
func (c *Console) roomRoutes(page func(method, path string, h handler, roles []domain.Role), desk []domain.Role) {
	page(http.MethodPost, "/bookings/:id/rooms", c.assignRoom, desk)
	page(http.MethodPost, "/hotels/:hotelId/rooms/out-of-order", c.roomOutOfOrder, desk)
	page(http.MethodPost, "/hotels/:hotelId/rooms/back-in-order", c.roomBackInOrder, desk)
}

// roomRow is one room of the rooms panel.
type roomRow struct {
	db.RoomNight
	Guest string // the guest's name, or how the console names their customer
}

// outOfOrderForm is the out-of-order form as shown: its defaults, or as typed when refused.
type outOfOrderForm struct {
	Room, From, To, Reason string
	Errors                 map[string]string
	Refused                string
	Status                 int
}

// hotelRooms are the rooms of the day's view: the panel, and the rooms of each booking in it.
type hotelRooms struct {
	Rooms   []roomRow
	RoomsOf map[string]string // each booking's rooms that night, by booking id ("101, 102")
	OutForm outOfOrderForm
	// RoomsUnread: the API did not answer the rooms (the day shows without them).
	RoomsUnread bool
}

// addRooms reads the hotel's rooms on v's night into v. Guests are named as the day's lists name
// them (names, else the customer).
func (c *Console) addRooms(r *request, v *hotelDayView, bookings []domain.Booking) {
	var on struct {
		Rooms []db.RoomNight `json:"rooms"`
	}
	path := q("/staff/hotels/"+seg(v.Site.ID)+"/rooms", "date", v.Date.String())
	v.OutForm = outOfOrderForm{From: v.Date.String(), To: v.Next.String()}
	if err := c.api.call(r.ctx(), r.who, http.MethodGet, path, nil, "", &on); err != nil {
		// The day's arrivals and stays matter more than its rooms: the page says they could
		// not be read, and the log says why.
		c.cfg.Logger.Warn("console: the hotel's rooms could not be read", "hotel", v.Site.ID, "err", err)
		v.RoomsUnread = true
		return
	}
	customers := map[string]string{}
	for _, b := range bookings {
		customers[b.ID] = b.CustomerID
	}
	v.RoomsOf = map[string]string{}
	for _, n := range on.Rooms {
		row := roomRow{RoomNight: n}
		if n.BookingID != "" {
			row.Guest = v.Names[n.BookingID]
			if row.Guest == "" {
				row.Guest = r.text.Guest(customers[n.BookingID])
			}
			if had := v.RoomsOf[n.BookingID]; had != "" {
				v.RoomsOf[n.BookingID] = had + ", " + n.Room
			} else {
				v.RoomsOf[n.BookingID] = n.Room
			}
		}
		v.Rooms = append(v.Rooms, row)
	}
}

// roomOutOfOrder puts the room picked out of order over the nights typed, with the reason; a
// refused form comes back on the day as typed, the refusal in a sentence for staff.
func (c *Console) roomOutOfOrder(r *request) error {
	hotel := r.Param("hotelId")
	f := outOfOrderForm{Room: r.FormValue("room"), From: strings.TrimSpace(r.FormValue("from")),
		To: strings.TrimSpace(r.FormValue("to")), Reason: strings.TrimSpace(r.FormValue("reason")), Errors: map[string]string{}}
	from, errFrom := domain.ParseDate(f.From)
	to, errTo := domain.ParseDate(f.To)
	switch {
	case errFrom != nil:
		f.Errors["oooFrom"] = r.text.T("form.err.date")
	case errTo != nil:
		f.Errors["oooTo"] = r.text.T("form.err.date")
	case !from.Before(to):
		f.Errors["oooTo"] = r.text.T("rooms.err.order")
	}
	if f.Reason == "" {
		f.Errors["oooReason"] = r.text.T("refusal.reasonNeeded")
	}
	if len(f.Errors) > 0 {
		f.Status = http.StatusBadRequest
		return c.refusedRooms(r, f)
	}
	body := map[string]any{"from": from, "to": to, "reason": f.Reason}
	err := c.api.call(r.ctx(), r.who, http.MethodPost, "/staff/hotels/"+seg(hotel)+"/rooms/"+seg(f.Room)+"/out-of-order", body, "", nil)
	if err != nil {
		return c.roomRefused(r, f, err)
	}
	r.flash(r.text.T("rooms.done.out", f.Room, f.From, f.To))
	return r.Redirect(http.StatusSeeOther, q(Prefix+"/hotels/"+seg(hotel)+"/day", "date", r.FormValue("date")))
}

// roomBackInOrder puts a room out of order back in order from the day's night to the end of its
// range (the panel's button).
func (c *Console) roomBackInOrder(r *request) error {
	hotel, room := r.Param("hotelId"), r.FormValue("room")
	from, errFrom := domain.ParseDate(r.FormValue("from"))
	to, errTo := domain.ParseDate(r.FormValue("to"))
	if errFrom != nil || errTo != nil {
		return r.fail(&apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: r.text.T("form.err.date")})
	}
	var out struct {
		NightsBack int `json:"nightsBack"`
	}
	body := map[string]any{"from": from, "to": to}
	err := c.api.call(r.ctx(), r.who, http.MethodPost, "/staff/hotels/"+seg(hotel)+"/rooms/"+seg(room)+"/back-in-order", body, "", &out)
	if err != nil {
		return c.roomRefused(r, outOfOrderForm{}, err)
	}
	r.flash(r.text.T("rooms.done.back", room, strconv.Itoa(out.NightsBack)))
	return r.Redirect(http.StatusSeeOther, q(Prefix+"/hotels/"+seg(hotel)+"/day", "date", r.FormValue("date")))
}

// roomRefused shows the API's refusal of a room action on the day, in a sentence for staff, the
// out-of-order form as typed; a refusal that is no answer of the API is the error page.
func (c *Console) roomRefused(r *request, f outOfOrderForm, err error) error {
	var ae *apiError
	if !errors.As(err, &ae) || ae.Status == http.StatusForbidden || ae.Status >= 500 {
		return r.fail(err)
	}
	f.Status, f.Refused = ae.Status, r.refusalText(ae)
	return c.refusedRooms(r, f)
}

// refusedRooms draws the day the form was sent from again, with the form f.
func (c *Console) refusedRooms(r *request, f outOfOrderForm) error {
	v, err := c.hotelDayOf(r, r.FormValue("date"))
	if err != nil {
		return r.fail(err)
	}
	v.Form = walkInForm{CheckIn: v.Date.String(), Nights: "1", Quantity: "1"}
	if f.From == "" && f.To == "" { // a refused back-in-order: the form keeps its defaults
		f.From, f.To = v.OutForm.From, v.OutForm.To
	}
	v.OutForm = f
	return r.render(f.Status, "hotel_day", r.text.T("hotel.title", siteName(v.Site), v.Date), v)
}
