package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/domain"
)

// getBooking answers a customer's own booking.
func (s *Server) getBooking(c echo.Context) error {
	b, err := s.ownBooking(c)
	if err != nil {
		return err
	}
	return s.withMoney(c, customerView(b, ""))
}

// withMoney answers a booking's view with its money summed (paid, refunded, due).
func (s *Server) withMoney(c echo.Context, v bookingView) error {
	m, err := s.store.BookingMoneySummary(c.Request().Context(), v.Booking)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, moneyView{bookingView: v, Money: m})
}

// staffGetBooking answers any booking of a hotel the staff member works for.
func (s *Server) staffGetBooking(c echo.Context) error {
	b, err := s.staffBooking(c, domain.Principal.CanReadAt)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	m, err := s.store.BookingMoneySummary(ctx, b)
	if err != nil {
		return err
	}
	guest, err := s.store.GuestOf(ctx, b)
	if err != nil {
		return err
	}
	rooms, err := s.store.BookingRooms(ctx, b.ID)
	if err != nil {
		return err
	}
	v := staffView(b, "")
	v.GuestName = guest.Name
	return c.JSON(http.StatusOK, guestView{moneyView: moneyView{bookingView: v, Money: m}, Guest: guest, Rooms: rooms})
}

// ownBooking loads the booking named in the path for the customer calling. Anyone else's
// booking answers 404 exactly as one that does not exist, so ids cannot be probed.
func (s *Server) ownBooking(c echo.Context) (domain.Booking, error) {
	b, err := s.bookingInPath(c)
	if err == nil && b.CustomerID != principal(c).Subject {
		return domain.Booking{}, errNoBooking(c.Param("id"))
	}
	return b, err
}

// staffBooking loads the booking named in the path for a staff member: 403 when its hotel is
// not one they may act on as the route needs (domain.Principal.CanBook or CanRead).
func (s *Server) staffBooking(c echo.Context, may func(domain.Principal, domain.Booking) bool) (domain.Booking, error) {
	b, err := s.bookingInPath(c)
	if err == nil && !may(principal(c), b) {
		if b.VenueID != "" {
			return domain.Booking{}, newError(http.StatusForbidden, "forbidden", "your token does not name venue %s", b.VenueID)
		}
		return domain.Booking{}, errOtherHotel(b.HotelID)
	}
	return b, err
}

func (s *Server) bookingInPath(c echo.Context) (domain.Booking, error) {
	id := c.Param("id")
	if !strings.HasPrefix(id, domain.BookingIDPrefix) {
		return domain.Booking{}, errNoBooking(id)
	}
	b, err := s.store.GetBooking(c.Request().Context(), id)
	if errors.Is(err, domain.ErrNotFound) {
		return b, errNoBooking(id)
	}
	return b, err
}

func errNoBooking(id string) error {
	return newError(http.StatusNotFound, "not_found", "no booking %q", id)
}

func errOtherHotel(hotelID string) error {
	return newError(http.StatusForbidden, "forbidden", "your token does not name hotel %s", hotelID)
}
