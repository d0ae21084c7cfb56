package api

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/domain"
)

// setRestrictions writes a channel manager's restrictions for a hotel: items of a room type (none:
// the whole hotel), a plan (none: every plan), dates [from, to) (weekdays: only those) and the
// restrictions given (domain.RestrictionSet), all or none, under the sale lock (db.SetRestrictions).
// The same callers as the sale rules: admins, and supplier staff at their suppliers' hotels.
func (s *Server) setRestrictions(c echo.Context) error {
	hotelID := c.Param("hotelId")
	if err := domain.ValidateID("hotelId", hotelID); err != nil {
		return err
	}
	if err := s.mayManageRules(c, hotelID); err != nil {
		return err
	}
	var body struct {
		Items []domain.RestrictionSet `json:"items"`
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if len(body.Items) == 0 || len(body.Items) > maxBatch {
		return fmt.Errorf("%w: items must hold 1 to %d restriction sets", domain.ErrInvalid, maxBatch)
	}
	for i, set := range body.Items {
		if err := set.Validate(); err != nil {
			return fmt.Errorf("item %d: %w", i, err)
		}
	}
	n, err := s.store.SetRestrictions(c.Request().Context(), hotelID, principal(c).Subject, body.Items)
	if err != nil {
		return err
	}
	s.meta.forget()
	if err := s.audit(c, "set-restrictions", "", "", map[string]any{"hotelId": hotelID, "items": body.Items,
		"rules": n}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"hotelId": hotelID, "items": len(body.Items), "rules": n})
}

// restrictionCalendar answers the restrictions in force at a hotel per room type, plan and date
// over ?from=&to= (at most domain.MaxRestrictionNights dates), optionally of one ?roomTypeId= and
// one ?ratePlan=: the grid a console shows and a channel manager exports.
func (s *Server) restrictionCalendar(c echo.Context) error {
	hotelID, roomTypeID, plan, span, err := s.calendarRequest(c)
	if err != nil {
		return err
	}
	rows, err := s.store.RestrictionCalendar(c.Request().Context(), hotelID, roomTypeID, plan, span.CheckIn, span.CheckOut)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"hotelId": hotelID, "from": span.CheckIn, "to": span.CheckOut,
		"rows": rows})
}
