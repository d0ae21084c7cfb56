package api

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// bookingHistory answers "why is this booking in this state": its state changes, the unit
// counts each change moved (before and after), and the staff actions on it with who and why.
func (s *Server) bookingHistory(c echo.Context) error {
	b, err := s.staffBooking(c, domain.Principal.CanReadAt)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	changes, units, err := s.store.BookingHistory(ctx, b.ID)
	if err != nil {
		return err
	}
	out := map[string]any{"booking": staffView(b, ""), "changes": changes, "inventory": units}
	if principal(c).Has(domain.RoleFinance, domain.RoleAdmin) { // as GET /staff/bookings/{id}/audit
		if out["staffActions"], err = s.store.AuditLog(ctx, b.ID); err != nil {
			return err
		}
	}
	return c.JSON(http.StatusOK, out)
}

// unitHistory answers "why can't this be booked" and "what happened to it that day": a
// resource's units starting on a local date, as they stand (total, reserved, closed and why),
// each with every change to it and the booking it was for.
func (s *Server) unitHistory(c echo.Context) error {
	ref := db.ResourceRef{HotelID: c.QueryParam("hotelId"), VenueID: c.QueryParam("venueId")}
	switch {
	case ref.HotelID != "" && ref.VenueID == "":
		ref.Code = c.QueryParam("roomTypeId")
	case ref.VenueID != "" && ref.HotelID == "":
		ref.Code = c.QueryParam("resourceId")
	default:
		return fmt.Errorf("%w: give hotelId and roomTypeId, or venueId and resourceId", domain.ErrInvalid)
	}
	for _, f := range []struct{ name, v string }{{"site", ref.HotelID + ref.VenueID}, {"resource", ref.Code}} {
		if err := domain.ValidateID(f.name, f.v); err != nil {
			return err
		}
	}
	date, err := domain.ParseDate(c.QueryParam("date"))
	if err != nil {
		return fmt.Errorf("date: %w", err)
	}
	p := principal(c)
	site := domain.Booking{HotelID: ref.HotelID, VenueID: ref.VenueID}
	if !p.CanReadAt(site) {
		return newError(http.StatusForbidden, "forbidden", "your token does not name %s", ref.HotelID+ref.VenueID)
	}
	ctx := c.Request().Context()
	day := domain.Span{Start: date.Time(), End: date.AddDays(1).Time()} // a hotel's nights are local dates
	if ref.VenueID != "" {
		_, loc, err := s.store.GetVenue(ctx, ref.VenueID)
		if err != nil {
			return err
		}
		day = domain.DayBounds(date, loc)
	}
	units, err := s.store.UnitHistory(ctx, ref, day)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"hotelId": ref.HotelID, "venueId": ref.VenueID, "resourceId": ref.Code,
		"date": date, "units": units})
}
