package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// lateArrivalBody is a late arrival as the desk sends it: when the guest came (now when left
// out).
type lateArrivalBody struct {
	ArrivedAt *time.Time `json:"arrivedAt"`
}

// recordLateArrival records that a venue booking's guest arrived after it began (issue 39): the
// booking is kept as it is, its workflow is not asked, the grid shows how late, and the audit
// log has who recorded it.
func (s *Server) recordLateArrival(c echo.Context) error {
	b, err := s.staffBooking(c, domain.Principal.CanBookAt)
	if err != nil {
		return err
	}
	var body lateArrivalBody
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	now := s.cfg.Now()
	arrived := now
	if body.ArrivedAt != nil {
		if arrived = *body.ArrivedAt; arrived.After(now.Add(time.Minute)) {
			return newError(http.StatusBadRequest, "invalid_request", "arrivedAt is in the future")
		}
	}
	stored, err := s.store.RecordLateArrival(db.WithActor(c.Request().Context(), principal(c).Subject), b, arrived)
	if err != nil {
		return err
	}
	if err := s.audit(c, "late-arrival", b.ID, "", map[string]any{"arrivedAt": stored.ArrivedAt,
		"minutesLate": stored.MinutesLate}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, stored)
}

// lateArrivals fills in each staff list entry's late arrival, where one was recorded.
func (s *Server) lateArrivals(c echo.Context, list []bookingView) error {
	ids := make([]string, 0, len(list))
	for _, v := range list {
		if v.VenueID != "" {
			ids = append(ids, v.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	late, err := s.store.LateArrivals(c.Request().Context(), ids)
	for i := range list {
		if l, ok := late[list[i].ID]; ok {
			list[i].LateArrival = &l
		}
	}
	return err
}
