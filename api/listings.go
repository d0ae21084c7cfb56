package api

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// bookingPage is one page of a booking list; Next, when set, is the cursor of the next page.
type bookingPage struct {
	Bookings []bookingView `json:"bookings"`
	Next     string        `json:"next,omitempty"`
}

// myBookings lists the calling customer's bookings, newest first, a page at a time:
// ?limit (1-100, 20), ?cursor (the previous page's next), ?status.
func (s *Server) myBookings(c echo.Context) error {
	f, err := listFilter(c)
	if err != nil {
		return err
	}
	f.CustomerID = principal(c).Subject
	return s.listBookings(c, f, customerView, false)
}

// staffListBookings lists bookings for staff: a front desk sees the hotels its token names,
// finance and admin every hotel. ?hotelId (or ?venueId) and ?customerId narrow the list; with a
// site, ?date keeps its bookings of that local day (a stay arriving, staying or leaving, a venue
// order with a line that day): the front desk's day.
func (s *Server) staffListBookings(c echo.Context) error {
	f, err := listFilter(c)
	if err != nil {
		return err
	}
	p := principal(c)
	hotel, venue := c.QueryParam("hotelId"), c.QueryParam("venueId")
	switch {
	case hotel != "" && venue != "":
		return fmt.Errorf("%w: give hotelId or venueId, not both", domain.ErrInvalid)
	case hotel != "":
		if !p.CanRead(hotel) {
			return errOtherHotel(hotel)
		}
		f.HotelIDs = []string{hotel}
	case venue != "":
		if !p.CanReadAt(domain.Booking{VenueID: venue}) {
			return newError(http.StatusForbidden, "forbidden", "your token does not name venue %s", venue)
		}
		f.VenueIDs = []string{venue}
	case !p.Has(domain.RoleFinance, domain.RoleAdmin):
		// A front desk sees its own hotels and venues (never nil: none named, no bookings).
		f.HotelIDs, f.VenueIDs = append([]string{}, p.Hotels...), append([]string{}, p.Venues...)
	}
	if v := c.QueryParam("date"); v != "" {
		day, err := s.siteDay(c, hotel, venue, v)
		if err != nil {
			return err
		}
		f.Meeting = &day
	}
	if customer := c.QueryParam("customerId"); customer != "" {
		if err := domain.ValidateSubject("customerId", customer); err != nil {
			return err
		}
		f.CustomerID = customer
	}
	return s.listBookings(c, f, staffView, true)
}

// listBookings answers a page of bookings as view shows them, with their guests' names for
// staff (named).
func (s *Server) listBookings(c echo.Context, f db.BookingFilter, view viewer, named bool) error {
	list, next, err := s.store.ListBookings(c.Request().Context(), f)
	if err != nil {
		return err
	}
	page := bookingPage{Bookings: make([]bookingView, len(list))}
	for i, b := range list {
		page.Bookings[i] = view(b, "")
	}
	if named {
		if err := s.nameGuests(c, page.Bookings); err != nil {
			return err
		}
		if err := s.lateArrivals(c, page.Bookings); err != nil {
			return err
		}
	}
	if next != nil {
		raw, _ := json.Marshal(next)
		page.Next = base64.RawURLEncoding.EncodeToString(raw)
	}
	return c.JSON(http.StatusOK, page)
}

// allStatuses are the statuses a list may be narrowed to.
var allStatuses = []domain.Status{domain.StatusHold, domain.StatusConfirmed, domain.StatusCompleted, domain.StatusNoShow,
	domain.StatusExpired, domain.StatusCancelled, domain.StatusRejected, domain.StatusRefunding, domain.StatusRefunded}

// listFilter reads the paging and status parameters every booking list takes.
func listFilter(c echo.Context) (db.BookingFilter, error) {
	var f db.BookingFilter
	var err error
	if f.Limit, err = pageLimit(c, 20); err != nil {
		return f, err
	}
	if v := c.QueryParam("status"); v != "" {
		if f.Status = domain.Status(v); !slices.Contains(allStatuses, f.Status) {
			return f, fmt.Errorf("%w: status %q is not a booking status", domain.ErrInvalid, v)
		}
	}
	if v := c.QueryParam("cursor"); v != "" {
		raw, err := base64.RawURLEncoding.DecodeString(v)
		f.After = &db.ListPosition{}
		if err != nil || json.Unmarshal(raw, f.After) != nil || f.After.ID == "" {
			return f, fmt.Errorf("%w: cursor must be the next value of a previous page", domain.ErrInvalid)
		}
	}
	return f, nil
}

// pageLimit reads ?limit: 1-100, def when absent.
func pageLimit(c echo.Context, def int) (int, error) {
	v := c.QueryParam("limit")
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 100 {
		return 0, fmt.Errorf("%w: limit must be between 1 and 100", domain.ErrInvalid)
	}
	return n, nil
}

// siteDay is the span ?date names at a hotel (its date, as stays are stored) or a venue (its
// local day, in UTC).
func (s *Server) siteDay(c echo.Context, hotel, venue, date string) (domain.Span, error) {
	d, err := domain.ParseDate(date)
	if err != nil {
		return domain.Span{}, fmt.Errorf("date: %w", err)
	}
	switch {
	case hotel != "":
		return domain.DayBounds(d, time.UTC), nil
	case venue != "":
		_, loc, err := s.store.GetVenue(c.Request().Context(), venue)
		if err != nil {
			return domain.Span{}, err
		}
		return domain.DayBounds(d, loc), nil
	}
	return domain.Span{}, fmt.Errorf("%w: date needs hotelId or venueId", domain.ErrInvalid)
}
