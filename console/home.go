package console

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// sites are the hotels and venues the person works for, as the API lists them.
func (r *request) sites() ([]db.SiteSummary, error) {
	var out struct {
		Sites []db.SiteSummary `json:"sites"`
	}
	err := r.c.api.call(r.ctx(), r.who, http.MethodGet, "/staff/sites", nil, "", &out)
	return out.Sites, err
}

// site is one site of the person's by kind ("hotel" or "venue") and id: the API answers 403
// for a site that is not theirs, 404 for none.
func (r *request) site(kind, id string) (db.SiteSummary, error) {
	var out struct {
		Sites []db.SiteSummary `json:"sites"`
	}
	if err := r.c.api.call(r.ctx(), r.who, http.MethodGet, q("/staff/sites", kind+"Id", id), nil, "", &out); err != nil {
		return db.SiteSummary{}, err
	}
	return out.Sites[0], nil
}

// home lists the person's sites, each opening on today's front desk.
func (c *Console) home(ec echo.Context) error {
	return c.signedIn(func(r *request) error {
		sites, err := r.sites()
		if err != nil {
			return r.fail(err)
		}
		return r.render(http.StatusOK, "home", r.text.T("home.title"), sites)
	}, []domain.Role{domain.RoleFrontDesk, domain.RoleFinance, domain.RoleAdmin})(ec)
}
