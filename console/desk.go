package console

import (
	"net/http"

	"github.com/bookflow/bookflow/domain"
)

// deskRoutes are the front desk's pages: a site's day, a booking, and what the desk does.
func (c *Console) deskRoutes(page func(method, path string, h handler, roles []domain.Role), desk, anyStaff []domain.Role) {
	page(http.MethodGet, "/venues/:venueId/day", c.venueDay, anyStaff)
	page(http.MethodGet, "/hotels/:hotelId/day", c.hotelDay, anyStaff)
}
