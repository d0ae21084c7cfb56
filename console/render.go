package console

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/domain"
)

// pages are the parsed templates: each page is the layout with its own "content".
type pages struct{ byName map[string]*template.Template }

// view is what every page's template sees.
type view struct {
	T         catalogue
	Who       domain.Principal
	CSRF      string
	Flash     string
	Title     string
	Path      string // this page, for "back here" after a form
	Query     string // the search asked for, kept in the header's box on the search page
	Nav       []navItem
	Languages map[string]string
	Data      any
}

type navItem struct{ Href, Label string }

func parsePages() (*pages, error) {
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFiles, "templates/layout.html", "templates/parts.html")
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		return nil, err
	}
	p := &pages{byName: map[string]*template.Template{}}
	for _, name := range names {
		file := path.Base(name)
		if file == "layout.html" || file == "parts.html" {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(templateFiles, name)
		if err != nil {
			return nil, err
		}
		p.byName[strings.TrimSuffix(file, ".html")] = t
	}
	return p, nil
}

// render writes page with status, inside the layout (or only its "content" for htmx, which
// swaps it in place).
func (r *request) render(status int, page, title string, data any) error {
	v := view{T: r.text, Who: r.who, CSRF: r.csrf, Title: title, Path: r.Request().URL.RequestURI(),
		Nav: r.c.nav(r), Languages: languageNames, Data: data}
	if page == "search" {
		v.Query = r.QueryParam("q")
	}
	if f := r.c.sessions.PopString(r.ctx(), keyFlash); f != "" {
		v.Flash = f
	}
	return r.c.pages.write(r.Context, status, page, v, r.Request().Header.Get("HX-Request") == "true")
}

func (p *pages) write(ec echo.Context, status int, page string, v view, partial bool) error {
	t, ok := p.byName[page]
	if !ok {
		return fmt.Errorf("console: no page %q", page)
	}
	name := "layout.html"
	if partial {
		name = "content"
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, name, v); err != nil {
		return err
	}
	return ec.HTMLBlob(status, buf.Bytes())
}

// nav is the menu for the person's roles.
func (c *Console) nav(r *request) []navItem {
	var items []navItem
	if r.who.Has(domain.RoleFrontDesk, domain.RoleAdmin, domain.RoleFinance) {
		items = append(items, navItem{Prefix + "/", r.text.T("nav.sites")})
	}
	if r.who.Has(domain.RoleFinance, domain.RoleAdmin) {
		items = append(items, navItem{Prefix + "/finance", r.text.T("nav.finance")})
	}
	if r.who.Has(domain.RoleAdmin) {
		items = append(items, navItem{Prefix + "/admin", r.text.T("nav.admin")})
	}
	return items
}

// errorPage is what the error page shows.
type errorPage struct {
	Status  int
	Heading string
	Message string
	Back    string // a link to where the person was, when known
	Changed string // for a conflict: how the thing stands now
}

// renderError shows the error page for status with msg.
func (c *Console) renderError(r *request, status int, msg string) error {
	return r.render(status, "error", r.text.T(headingFor(status)), errorPage{Status: status,
		Heading: r.text.T(headingFor(status)), Message: msg, Back: sameSiteReferer(r.Request())})
}

// sameSiteReferer is the page the person came from, when it is one of the console's own:
// "Back" never leads to another site.
func sameSiteReferer(req *http.Request) string {
	u, err := url.Parse(req.Referer())
	if err != nil || u.Host != req.Host || safeNext(u.RequestURI()) != u.RequestURI() {
		return ""
	}
	return u.String()
}

// renderPlainError is the error page for someone who may not be signed in (a refused form).
func (c *Console) renderPlainError(ec echo.Context, status int, msg string) error {
	text := c.language(ec)
	v := view{T: text, Title: text.T(headingFor(status)), Languages: languageNames, Path: Prefix + "/",
		CSRF: c.sessionCSRF(ec.Request().Context()), // or the page's language switch is refused
		Data: errorPage{Status: status, Heading: text.T(headingFor(status)), Message: msg}}
	return c.pages.write(ec, status, "error", v, false)
}

// notFound is the 404 page for a path the console does not have.
func (c *Console) notFound(ec echo.Context) error {
	return c.renderPlainError(ec, http.StatusNotFound, c.language(ec).T("error.page"))
}

func headingFor(status int) string {
	switch status {
	case http.StatusForbidden:
		return "error.403"
	case http.StatusNotFound:
		return "error.404"
	case http.StatusConflict:
		return "error.409"
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return "error.400"
	}
	return "error.500"
}

// fail shows err: the API's refusal as its own status with a sentence for staff (refusals.go),
// anything else as 500 (whose cause goes to the log, not to the page). A refusal of what was
// typed the console has no sentence for keeps its message (an admin's form: "closes must be
// after opens"); any other is a general sentence, the API's words going to the log.
func (r *request) fail(err error) error {
	var ae *apiError
	if errors.As(err, &ae) {
		_, known := refusalKey(ae)
		switch {
		case known:
			return r.c.renderError(r, ae.Status, r.refusalText(ae))
		case ae.Status == http.StatusBadRequest || ae.Status == http.StatusUnprocessableEntity:
			return r.c.renderError(r, ae.Status, ae.Message)
		case ae.Status < 500:
			return r.c.renderError(r, ae.Status, r.refusalText(ae))
		}
		r.refusalText(ae) // to the log
		return r.c.renderError(r, ae.Status, r.text.T("error.internal"))
	}
	r.c.cfg.Logger.Error("console page failed", "path", r.Request().URL.Path, "err", err)
	return r.c.renderError(r, http.StatusInternalServerError, r.text.T("error.internal"))
}

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"money": formatMoney,
	// atTheDesk says whether a refund waits at the desk for someone to hand it over.
	"atTheDesk": atTheDesk,
	// departure says what a check-out does (or did) to the stay, in the page's language.
	"departure": departureText,
	"amount":    formatAmount,
	"clock":     func(t time.Time, loc *time.Location) string { return t.In(loc).Format("15:04") },
	"when":      func(t time.Time, loc *time.Location) string { return t.In(loc).Format("2006-01-02 15:04") },
	// whenExact is when to the second: a cash-up's shift, which ends when the next begins.
	"whenExact": func(t time.Time, loc *time.Location) string { return t.In(loc).Format("2006-01-02 15:04:05") },
	// localInput is a time as a datetime-local field holds it.
	"localInput": func(t time.Time) string { return t.Format("2006-01-02T15:04") },
	// deref is an optional amount's value (a cash-up's counted, its difference).
	"deref": func(n *int64) int64 { return *n },
	"dict": func(kv ...any) map[string]any {
		m := make(map[string]any, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	},
}

func exponent(currency string) int { return domain.CurrencyExponent(currency) }

// formatAmount shows minor units as a decimal amount of currency: 42000 EUR is "420.00".
func formatAmount(minor int64, currency string) string {
	e := exponent(currency)
	neg := minor < 0
	if neg {
		minor = -minor
	}
	s := strconv.FormatInt(minor, 10)
	if e > 0 {
		for len(s) <= e {
			s = "0" + s
		}
		s = s[:len(s)-e] + "." + s[len(s)-e:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

func formatMoney(minor int64, currency string) string {
	return currency + " " + formatAmount(minor, currency)
}

// parseAmount reads a decimal amount a person typed ("12.5", "12.50", "12") as minor units of
// currency; more decimals than the currency has, a sign or anything else is refused.
func parseAmount(s, currency string) (int64, error) {
	s = strings.TrimSpace(s)
	e := exponent(currency)
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" || len(frac) > e || (dot && frac == "") || strings.Trim(whole+frac, "0123456789") != "" || len(whole) > 12 {
		return 0, fmt.Errorf("%q is not an amount of %s", s, currency)
	}
	frac += strings.Repeat("0", e-len(frac))
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not an amount of %s", s, currency)
	}
	return n, nil
}
