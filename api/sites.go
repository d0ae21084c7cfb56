package api

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/domain"
)

// staffSites lists the hotels and venues the caller works for, each with its time zone and what
// it sells: a front desk's own sites, every site for finance and admin; ?hotelId or ?venueId
// asks for one (403 when it is not the caller's, 404 when there is none). It is where a staff
// screen starts.
func (s *Server) staffSites(c echo.Context) error {
	p := principal(c)
	var hotels, venues []string
	if !p.Has(domain.RoleFinance, domain.RoleAdmin) {
		hotels, venues = append([]string{}, p.Hotels...), append([]string{}, p.Venues...)
	}
	hotel, venue := c.QueryParam("hotelId"), c.QueryParam("venueId")
	switch {
	case hotel != "" && venue != "":
		return fmt.Errorf("%w: give hotelId or venueId, not both", domain.ErrInvalid)
	case hotel != "":
		if !p.CanRead(hotel) {
			return errOtherHotel(hotel)
		}
		hotels, venues = []string{hotel}, []string{}
	case venue != "":
		if !p.CanReadAt(domain.Booking{VenueID: venue}) {
			return newError(http.StatusForbidden, "forbidden", "your token does not name venue %s", venue)
		}
		hotels, venues = []string{}, []string{venue}
	}
	sites, err := s.store.Sites(c.Request().Context(), hotels, venues)
	if err != nil {
		return err
	}
	if (hotel != "" || venue != "") && len(sites) == 0 {
		return fmt.Errorf("%w: no such site %s%s", domain.ErrNotFound, hotel, venue)
	}
	return c.JSON(http.StatusOK, map[string]any{"sites": sites})
}

// deskClosures lets a front desk close and reopen its own venue's units, as an admin may any
// venue's (closeUnits, reopenUnits).
func (s *Server) deskClosures(reopen bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		if venue := c.Param("venueId"); !principal(c).CanBookVenue(venue) {
			return newError(http.StatusForbidden, "forbidden", "your token does not name venue %s", venue)
		}
		return s.setClosed(c, reopen)
	}
}
