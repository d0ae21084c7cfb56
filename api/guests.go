package api

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// A booking's guest and the front desk's search (issue 39). Guests are personal data, kept in
// PostgreSQL beside the booking (db/guests.go), never sent to a workflow.

// guestView is a staff booking with its money and its guest.
type guestView struct {
	moneyView
	Guest db.StoredGuest `json:"guest"`
	// Rooms are a stay's rooms, night by night (rooms.go).
	Rooms []db.RoomAssignment `json:"rooms,omitempty"`
}

// putGuest records the guest of a booking of the desk's site: name, phone (read in the site's
// country), e-mail, how many, arrival time, notes. Audited by the fields given, never their values.
func (s *Server) putGuest(c echo.Context) error {
	b, err := s.staffBooking(c, domain.Principal.CanBookAt)
	if err != nil {
		return err
	}
	var g domain.Guest
	if err := decodeJSON(c, &g); err != nil {
		return err
	}
	if g.Phone = strings.TrimSpace(g.Phone); g.Phone != "" {
		country, err := s.walkInCountry(c, walkIn{Phone: g.Phone}, b.HotelID, b.VenueID)
		if err != nil {
			return err
		}
		if g.Phone, err = domain.NormalisePhoneIn(g.Phone, country); err != nil {
			return err
		}
	}
	if err := g.Validate(); err != nil {
		return err
	}
	ctx := c.Request().Context()
	stored, err := s.store.PutGuest(db.WithActor(ctx, principal(c).Subject), b.ID, g)
	if err != nil {
		return err
	}
	if err := s.audit(c, "guest", b.ID, "guest details", map[string]any{"fields": givenFields(g)}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, stored)
}

// givenFields names the guest's fields that hold something (the audit keeps no personal data).
func givenFields(g domain.Guest) []string {
	fields := []string{}
	for name, given := range map[string]bool{"name": g.Name != "", "phone": g.Phone != "", "email": g.Email != "",
		"guests": g.Guests > 0, "arrivalTime": g.ArrivalTime != "", "notes": g.Notes != ""} {
		if given {
			fields = append(fields, name)
		}
	}
	slices.Sort(fields)
	return fields
}

// nameGuests fills in each staff list entry's guest name.
func (s *Server) nameGuests(c echo.Context, list []bookingView) error {
	ids := make([]string, len(list))
	for i, v := range list {
		ids[i] = v.ID
	}
	names, err := s.store.GuestNames(c.Request().Context(), ids)
	for i := range list {
		list[i].GuestName = names[list[i].ID]
	}
	return err
}

// searchHit is a booking the search found, as staff see it, and what matched.
type searchHit struct {
	bookingView
	Matched string `json:"matched"`
}

// staffSearch finds bookings by guest name, phone, e-mail, booking id, supplier reference or
// customer id: a front desk in its own hotels and venues, finance and admin everywhere.
func (s *Server) staffSearch(c echo.Context) error {
	q := db.SearchQuery{Text: c.QueryParam("q"), Limit: 20}
	if n := c.QueryParam("limit"); n != "" {
		limit, err := strconv.Atoi(n)
		if err != nil || limit < 1 || limit > 100 {
			return newError(http.StatusBadRequest, "invalid_request", "limit is 1 to 100")
		}
		q.Limit = limit
	}
	if text := strings.TrimSpace(q.Text); len([]rune(text)) < 2 || domain.Longer(text, 200) {
		return newError(http.StatusBadRequest, "invalid_request", "q is 2 to 200 characters: a name, phone, e-mail, booking id or reference")
	}
	if p := principal(c); !p.Has(domain.RoleFinance, domain.RoleAdmin) {
		q.HotelIDs, q.VenueIDs = append([]string{}, p.Hotels...), append([]string{}, p.Venues...)
	}
	hits, err := s.store.SearchBookings(c.Request().Context(), q)
	if err != nil {
		return err
	}
	out := make([]searchHit, len(hits))
	for i, h := range hits {
		out[i] = searchHit{bookingView: staffView(h.Booking, ""), Matched: h.Matched}
		out[i].GuestName = h.Guest
	}
	return c.JSON(http.StatusOK, map[string]any{"results": out})
}
