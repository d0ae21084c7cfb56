package console

import (
	"net/http"

	"github.com/bookflow/bookflow/domain"
)

// financeRoutes are finance's pages.
func (c *Console) financeRoutes(page func(method, path string, h handler, roles []domain.Role), money []domain.Role) {
	page(http.MethodGet, "/finance", c.financeHome, money)
}

func (c *Console) financeHome(r *request) error {
	return r.render(http.StatusOK, "finance", r.text.T("finance.title"), nil)
}
