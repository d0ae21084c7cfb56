package console

import (
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// reportView is a site's daily report as the page shows it.
type reportView struct {
	Site       financeSite
	Date       domain.Date
	Prev, Next domain.Date
	Report     db.DailyReport
	Payments   itemsView
	Refunds    itemsView
	CSV        string // the console's link to the report as CSV
}

// itemsView is a table of report lines: payments, or refunds (negative).
type itemsView struct {
	T     catalogue
	Items []db.ReportItem
	Loc   *time.Location
}

// reportPath is the API's daily report of site on date, in format ("" for JSON).
func reportPath(site financeSite, date domain.Date, format string) string {
	return q("/staff/reports/daily", site.Kind+"Id", site.ID, "date", date.String(), "format", format)
}

// siteDay is the site (?site) and its local date (?date, today there by default) a report is of.
func (r *request) siteDay() (financeSite, domain.Date, error) {
	site, err := r.siteParam()
	if err != nil {
		return site, domain.Date{}, err
	}
	date, err := r.dateParam(site.Loc)
	return site, date, err
}

// financeReport shows a site's money over one of its local days: totals by channel, method and
// currency, then each payment and refund, at the site's local time.
func (c *Console) financeReport(r *request) error {
	site, date, err := r.siteDay()
	if err != nil {
		return r.fail(err)
	}
	var out struct {
		Report db.DailyReport `json:"report"`
	}
	if err := r.c.api.call(r.ctx(), r.who, http.MethodGet, reportPath(site, date, ""), nil, "", &out); err != nil {
		return r.fail(err)
	}
	v := reportView{Site: site, Date: date, Prev: date.AddDays(-1), Next: date.AddDays(1), Report: out.Report,
		CSV: q(Prefix+"/finance/report.csv", "site", site.Key, "date", date.String())}
	pays, refunds := splitItems(out.Report.Items)
	v.Payments = itemsView{T: r.text, Items: pays, Loc: site.Loc}
	v.Refunds = itemsView{T: r.text, Items: refunds, Loc: site.Loc}
	title := r.text.T("finance.reportTitle", siteName(site.SiteSummary), date.String())
	return r.render(http.StatusOK, "finance_report", title, v)
}

// splitItems parts a report's lines into its payments and its refunds, in the report's order.
func splitItems(items []db.ReportItem) (payments, refunds []db.ReportItem) {
	for _, it := range items {
		if it.Kind == "refund" {
			refunds = append(refunds, it)
		} else {
			payments = append(payments, it)
		}
	}
	return payments, refunds
}

// financeReportCSV serves the API's CSV of a site's day as a download.
func (c *Console) financeReportCSV(r *request) error {
	site, date, err := r.siteDay()
	if err != nil {
		return r.fail(err)
	}
	body, err := r.c.api.raw(r.ctx(), r.who, http.MethodGet, reportPath(site, date, "csv"), nil, "", nil)
	if err != nil {
		return r.fail(err)
	}
	r.Response().Header().Set(echo.HeaderContentDisposition,
		fmt.Sprintf(`attachment; filename="%s-%s-%s.csv"`, site.Kind, site.ID, date))
	return r.Blob(http.StatusOK, "text/csv; charset=utf-8", body)
}
