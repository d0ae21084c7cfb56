package console

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// financeRoutes are finance's pages: the sites and their daily reports, stuck refunds,
// unprocessable webhooks and refunds settled by hand.
func (c *Console) financeRoutes(page func(method, path string, h handler, roles []domain.Role), money []domain.Role) {
	page(http.MethodGet, "/finance", c.financeHome, money)
	page(http.MethodGet, "/finance/report", c.financeReport, money)
	page(http.MethodGet, "/finance/report.csv", c.financeReportCSV, money)
	page(http.MethodGet, "/finance/bookings/:id", c.financeBookingMoney, money)
	page(http.MethodGet, "/finance/stuck", c.financeStuck, money)
	page(http.MethodPost, "/finance/stuck/:id/retry", c.financeStuckAction("retry"), money)
	page(http.MethodPost, "/finance/stuck/:id/resolve", c.financeStuckAction("resolve"), money)
	page(http.MethodGet, "/finance/webhooks", c.financeWebhooks, money)
	page(http.MethodGet, "/finance/manual-refunds", c.financeManualRefundForm, money)
	page(http.MethodPost, "/finance/manual-refunds", c.financeManualRefund, money)
}

// financeHome lists the sites, each with its daily report, and finance's other pages.
func (c *Console) financeHome(r *request) error {
	sites, err := r.sites()
	if err != nil {
		return r.fail(err)
	}
	return r.render(http.StatusOK, "finance", r.text.T("finance.title"), sites)
}

// financeSite is the site a finance page is about, named "<kind>:<id>" in its query (as the
// home page links it), with its time zone.
type financeSite struct {
	db.SiteSummary
	Key string         // "venue:X", for links back
	Loc *time.Location // its time zone
}

// siteParam reads the site named by the query's site parameter; the API says whether it is one
// the person may see.
func (r *request) siteParam() (financeSite, error) {
	raw := r.QueryParam("site")
	kind, id, ok := strings.Cut(raw, ":")
	if !ok || (kind != "hotel" && kind != "venue") || id == "" {
		return financeSite{}, &apiError{Status: http.StatusBadRequest, Code: "invalid_request",
			Message: r.text.T("finance.badSite", raw)}
	}
	s, err := r.site(kind, id)
	if err != nil {
		return financeSite{}, err
	}
	loc, err := time.LoadLocation(s.TimeZone)
	if err != nil {
		return financeSite{}, fmt.Errorf("console: site %s: time zone %q: %w", raw, s.TimeZone, err)
	}
	return financeSite{SiteSummary: s, Key: kind + ":" + id, Loc: loc}, nil
}

// dateParam is the query's date, or today in loc when there is none.
func (r *request) dateParam(loc *time.Location) (domain.Date, error) {
	v := r.QueryParam("date")
	if v == "" {
		return domain.DateOf(r.c.cfg.Now(), loc), nil
	}
	d, err := domain.ParseDate(v)
	if err != nil {
		return d, &apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: r.text.T("finance.badDate", v)}
	}
	return d, nil
}
