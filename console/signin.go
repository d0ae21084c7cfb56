package console

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// signInView is what the sign-in page offers.
type signInView struct {
	OIDC      bool
	Dev       bool
	Next      string
	SignedOut bool
	Sites     []db.SiteSummary // for the development sign-in
	Roles     []domain.Role
}

// devRoles are the roles the development sign-in offers: the console's users.
var devRoles = []domain.Role{domain.RoleFrontDesk, domain.RoleFinance, domain.RoleAdmin}

// devLister reads the sites the development sign-in offers; nobody is signed in yet.
var devLister = domain.Principal{Subject: "console-dev-sign-in", Roles: []domain.Role{domain.RoleAdmin}}

func (c *Console) signInPage(ec echo.Context) error {
	ctx := ec.Request().Context()
	text := c.language(ec)
	v := signInView{OIDC: c.oidc != nil, Dev: c.cfg.DevSignIn, Next: safeNext(ec.QueryParam("next")),
		SignedOut: ec.QueryParam("signedOut") != "", Roles: devRoles}
	if c.cfg.DevSignIn {
		var out struct {
			Sites []db.SiteSummary `json:"sites"`
		}
		if err := c.api.call(ctx, devLister, http.MethodGet, "/staff/sites", nil, "", &out); err != nil {
			return err
		}
		v.Sites = out.Sites
	}
	p, _ := c.principal(ctx)
	return c.pages.write(ec, http.StatusOK, "signin", view{T: text, Who: p, CSRF: c.csrfToken(ctx), Title: text.T("signin.title"),
		Path: Prefix + "/sign-in", Languages: languageNames, Data: v}, false)
}

// devSignIn signs in as the role and site picked, under the name given: local development only.
func (c *Console) devSignIn(ec echo.Context) error {
	text := c.language(ec)
	if !c.cfg.DevSignIn {
		return c.renderPlainError(ec, http.StatusNotFound, text.T("error.page"))
	}
	role := domain.Role(ec.FormValue("role"))
	subject := strings.TrimSpace(ec.FormValue("subject"))
	if !slices.Contains(devRoles, role) || domain.ValidateTokenSubject("subject", subject) != nil {
		return c.renderPlainError(ec, http.StatusBadRequest, text.T("signin.devInvalid"))
	}
	p := domain.Principal{Subject: subject, Roles: []domain.Role{role}}
	if role == domain.RoleFrontDesk {
		kind, id, _ := strings.Cut(ec.FormValue("site"), ":")
		switch {
		case kind == "hotel" && domain.ValidateID("site", id) == nil:
			p.Hotels = []string{id}
		case kind == "venue" && domain.ValidateID("site", id) == nil:
			p.Venues = []string{id}
		default:
			return c.renderPlainError(ec, http.StatusBadRequest, text.T("signin.devSite"))
		}
	}
	if err := c.signIn(ec.Request().Context(), signedInAs{who: p}); err != nil {
		return err
	}
	c.cfg.Logger.Info("console: development sign-in", "subject", p.Subject, "role", role)
	return ec.Redirect(http.StatusSeeOther, safeNext(ec.FormValue("next")))
}
