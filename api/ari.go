package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// ARI feed pages: 500 changes unless ?limit= says otherwise, at most 1000.
const (
	ariDefaultLimit = 500
	ariMaxLimit     = 1000
)

// calendarRequest reads what a date grid of a hotel asks for (the restriction calendar, the ARI
// export): the hotel, an optional ?roomTypeId= and ?ratePlan=, and ?from=&to= (at most
// domain.MaxRestrictionNights dates), the caller being one who may manage the hotel's rules
// (admins, supplier staff at their hotels).
func (s *Server) calendarRequest(c echo.Context) (hotelID, roomTypeID, plan string, span domain.Stay, err error) {
	hotelID, roomTypeID, plan = c.Param("hotelId"), c.QueryParam("roomTypeId"), c.QueryParam("ratePlan")
	for _, f := range []struct{ name, v string }{{"hotelId", hotelID}, {"roomTypeId", roomTypeID}, {"ratePlan", plan}} {
		if f.v != "" || f.name == "hotelId" {
			if err = domain.ValidateID(f.name, f.v); err != nil {
				return
			}
		}
	}
	if err = s.mayManageRules(c, hotelID); err != nil {
		return
	}
	if span, err = queryRange(c); err == nil && span.Nights() > domain.MaxRestrictionNights {
		err = fmt.Errorf("%w: at most %d dates", domain.ErrInvalid, domain.MaxRestrictionNights)
	}
	return
}

// ariExport answers a hotel's availability, rates and restrictions per room type, plan and date
// (db.Store.ARIExport: one snapshot), with the feed's cursor to follow from.
func (s *Server) ariExport(c echo.Context) error {
	hotelID, roomTypeID, plan, span, err := s.calendarRequest(c)
	if err != nil {
		return err
	}
	out, err := s.store.ARIExport(c.Request().Context(), hotelID, roomTypeID, plan, span.CheckIn, span.CheckOut)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// ariChanges answers the changes of a hotel's ARI after ?since= (an export's cursor or a page's
// next), at most ?limit= of them, with an ETag naming the hotel, the page's next and its limit:
// If-None-Match with it answers 304 while nothing new has settled. A cursor the retention
// passed is 410 Gone: export again.
func (s *Server) ariChanges(c echo.Context) error {
	hotelID, since := c.Param("hotelId"), c.QueryParam("since")
	if err := domain.ValidateID("hotelId", hotelID); err != nil {
		return err
	}
	if err := s.mayManageRules(c, hotelID); err != nil {
		return err
	}
	if since == "" {
		return fmt.Errorf("%w: since is required: the cursor of an export (GET .../ari) or a page's next", domain.ErrInvalid)
	}
	limit := ariDefaultLimit
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > ariMaxLimit {
			return fmt.Errorf("%w: limit must be between 1 and %d", domain.ErrInvalid, ariMaxLimit)
		}
		limit = n
	}
	page, err := s.store.ARIChanges(c.Request().Context(), hotelID, since, limit)
	if errors.Is(err, db.ErrCursorGone) {
		return newError(http.StatusGone, "cursor_gone", "%s", strings.TrimPrefix(err.Error(), db.ErrCursorGone.Error()+": "))
	}
	if err != nil {
		return err
	}
	etag := fmt.Sprintf(`"ari.%s.%s.%d"`, hotelID, page.Next, limit)
	c.Response().Header().Set("ETag", etag)
	c.Response().Header().Set("Cache-Control", "private, no-cache")
	if etagMatches(c.Request().Header.Get("If-None-Match"), etag) {
		return c.NoContent(http.StatusNotModified)
	}
	return c.JSON(http.StatusOK, page)
}

// etagMatches reports whether an If-None-Match header names etag (weakly compared, as RFC 9110
// asks of If-None-Match) or is "*".
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
