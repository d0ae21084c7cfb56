package console

import (
	"net/http"

	"github.com/bookflow/bookflow/domain"
)

// adminRoutes are admins' pages.
func (c *Console) adminRoutes(page func(method, path string, h handler, roles []domain.Role), admin []domain.Role) {
	page(http.MethodGet, "/admin", c.adminHome, admin)
}

func (c *Console) adminHome(r *request) error {
	return r.render(http.StatusOK, "admin", r.text.T("admin.title"), nil)
}
