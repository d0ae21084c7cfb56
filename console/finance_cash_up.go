package console

import (
	"cmp"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// The cash-up page (/console/finance/cash-up?site=hotel:<id>): a cashier's shift, what the
// ledger expects of it per desk method and currency, inputs for what was counted, the
// differences, the close, and the site's closed cash-ups of the shift's day with their notes. A
// front desk reaches it for its own shift at its own sites (the API decides); finance any.

// cashUpRoutes are the cash-up page's routes: every staff role, narrowed by the API.
func (c *Console) cashUpRoutes(page func(method, path string, h handler, roles []domain.Role), anyStaff []domain.Role) {
	page(http.MethodGet, "/finance/cash-up", c.cashUpPage, anyStaff)
	page(http.MethodPost, "/finance/cash-up", c.cashUpPost, anyStaff)
	page(http.MethodPost, "/finance/cash-up/notes", c.cashUpNote, anyStaff)
}

// cashUpView is the page: the shift as typed, its expected lines with what was typed against
// them, and the day's closed cash-ups.
type cashUpView struct {
	Site       financeSite
	AnyCashier bool   // finance and admins name the cashier; a front desk is its own
	Cashier    string // as typed
	From, To   string // datetime-local values, at the site's time
	Key        string
	Lines      []cashUpRow
	Extra      cashUpExtra
	Note       string
	Checked    bool   // the differences of what was typed are shown
	Refused    string // why the API or the console refused, above the form
	Status     int
	Date       domain.Date
	Closed     []db.CashUp
	Methods    []string // the counted methods, for the extra line
	Back       string   // this page for this shift, for the notes' form
}

// cashUpRow is one expected line, with the count typed against it.
type cashUpRow struct {
	db.CashUpLine
	Counts bool   // cash or card terminal: counted
	Typed  string // what was typed, as typed
	Diff   *int64 // what was typed less expected, when it reads as an amount
	Error  string
}

// cashUpExtra is a count in a currency nothing was expected in (money found in the drawer).
type cashUpExtra struct{ Method, Currency, Amount string }

// localForm is how a datetime-local field with seconds (step 1) holds a time; a browser leaves
// ":00" seconds out (localMinutes).
const localForm, localMinutes = "2006-01-02T15:04:05", "2006-01-02T15:04"

// cashUpShift reads the page's shift from the form or the query: the site, the cashier (the
// person by default), and the window (today at the site from midnight to now by default).
func (r *request) cashUpShift() (cashUpView, error) {
	site, err := r.siteParam()
	if err != nil {
		return cashUpView{}, err
	}
	now := r.c.cfg.Now().In(site.Loc)
	now = now.Truncate(time.Second) // money taken this second is the next shift's
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, site.Loc)
	v := cashUpView{Site: site, AnyCashier: r.who.Has(domain.RoleFinance, domain.RoleAdmin),
		Cashier: cmp.Or(strings.TrimSpace(r.FormValue("cashier")), r.who.Subject),
		From:    cmp.Or(r.FormValue("from"), midnight.Format(localForm)), To: cmp.Or(r.FormValue("to"), now.Format(localForm)),
		Note: r.FormValue("note"), Methods: db.CountedMethods,
		Extra: cashUpExtra{Method: r.FormValue("extraMethod"), Currency: strings.ToUpper(strings.TrimSpace(r.FormValue("extraCurrency"))),
			Amount: strings.TrimSpace(r.FormValue("extraAmount"))}, Status: http.StatusOK}
	if !v.AnyCashier {
		v.Cashier = r.who.Subject
	}
	v.Key = cmp.Or(r.FormValue("key"), r.formKey("cash-up-", v.intent()))
	v.Date = domain.DateOf(now, site.Loc)
	v.Back = q(Prefix+"/finance/cash-up", "site", site.Key, "cashier", v.Cashier, "from", v.From, "to", v.To)
	return v, nil
}

// intent names the close of this shift, for its idempotency key (keys.go).
func (v *cashUpView) intent() string {
	return "cash-up:" + v.Site.Key + ":" + v.Cashier + ":" + v.From + ":" + v.To
}

// window is the shift's [from, to) as times, read at the site's time.
func (v *cashUpView) window() (time.Time, time.Time, bool) {
	read := func(s string) (time.Time, error) {
		t, err := time.ParseInLocation(localForm, s, v.Site.Loc)
		if err != nil {
			t, err = time.ParseInLocation(localMinutes, s, v.Site.Loc)
		}
		return t, err
	}
	from, err1 := read(v.From)
	to, err2 := read(v.To)
	return from, to, err1 == nil && err2 == nil && from.Before(to)
}

// cashUpsPath is the API's cash-ups of the page's site.
func cashUpsPath(site financeSite) string { return "/staff/sites/" + seg(site.ID) + "/cash-ups" }

// load reads the shift's expected lines and the closed cash-ups of its day through the API,
// putting what was typed (the form's counted_<method>_<currency>) against each line.
func (r *request) loadCashUp(v *cashUpView) error {
	from, to, ok := v.window()
	if !ok {
		v.Refused, v.Status = r.text.T("cashup.err.times"), http.StatusBadRequest
	} else {
		v.Date = domain.DateOf(from, v.Site.Loc)
		var preview struct {
			Lines []db.CashUpLine `json:"lines"`
		}
		err := r.c.api.call(r.ctx(), r.who, http.MethodGet, q(cashUpsPath(v.Site)+"/preview", "cashier", v.Cashier,
			"from", from.Format(time.RFC3339), "to", to.Format(time.RFC3339)), nil, "", &preview)
		if err != nil && !r.cashUpRefused(v, err) {
			return err
		}
		for _, l := range preview.Lines {
			row := cashUpRow{CashUpLine: l, Counts: slices.Contains(db.CountedMethods, l.Method),
				Typed: strings.TrimSpace(r.FormValue("counted_" + l.Method + "_" + l.Currency))}
			v.Lines = append(v.Lines, row)
		}
	}
	var list struct {
		CashUps []db.CashUp `json:"cashUps"`
	}
	if err := r.c.api.call(r.ctx(), r.who, http.MethodGet, q(cashUpsPath(v.Site), "date", v.Date.String()), nil, "",
		&list); err != nil {
		return err
	}
	v.Closed = list.CashUps
	return nil
}

// cashUpPage shows a shift's expected figures and the day's closed cash-ups.
func (c *Console) cashUpPage(r *request) error {
	v, err := r.cashUpShift()
	if err != nil {
		return r.fail(err)
	}
	if err := r.loadCashUp(&v); err != nil {
		return r.fail(err)
	}
	return r.render(v.Status, "finance_cash_up", r.text.T("cashup.title", siteName(v.Site.SiteSummary)), v)
}

// counts reads what was typed against the lines (and the extra line) as the API's counts,
// setting each line's difference; a count that does not read marks its line and is false.
func (r *request) counts(v *cashUpView) ([]db.CashCount, bool) {
	var out []db.CashCount
	ok := true
	for i := range v.Lines {
		row := &v.Lines[i]
		if !row.Counts {
			continue
		}
		n, err := parseAmount(row.Typed, row.Currency)
		if err != nil {
			row.Error, ok = r.text.T("finance.badAmount", row.Typed, row.Currency), false
			continue
		}
		diff := n - row.Expected
		row.Diff = &diff
		out = append(out, db.CashCount{Method: row.Method, Currency: row.Currency, Amount: n})
	}
	if e := v.Extra; e.Amount != "" || e.Currency != "" {
		n, err := parseAmount(e.Amount, e.Currency)
		if err != nil || domain.ValidateCurrency(e.Currency) != nil {
			v.Refused, ok = r.text.T("finance.badAmount", e.Amount, e.Currency), false
		} else {
			out = append(out, db.CashCount{Method: e.Method, Currency: e.Currency, Amount: n})
		}
	}
	return out, ok
}

// cashUpPost shows the differences of what was typed (intent check), or closes the shift with
// it through the API (intent close). A refusal shows the page again as typed, with why.
func (c *Console) cashUpPost(r *request) error {
	v, err := r.cashUpShift()
	if err != nil {
		return r.fail(err)
	}
	if err := r.loadCashUp(&v); err != nil {
		return r.fail(err)
	}
	title := r.text.T("cashup.title", siteName(v.Site.SiteSummary))
	if v.Refused != "" {
		return r.render(v.Status, "finance_cash_up", title, v)
	}
	counted, ok := r.counts(&v)
	v.Checked = true
	if !ok {
		v.Status = http.StatusBadRequest
		v.Refused = cmp.Or(v.Refused, r.text.T("cashup.err.counts"))
		return r.render(v.Status, "finance_cash_up", title, v)
	}
	if r.FormValue("intent") != "close" {
		return r.render(http.StatusOK, "finance_cash_up", title, v)
	}
	from, to, _ := v.window()
	body := map[string]any{"cashier": v.Cashier, "from": from.Format(time.RFC3339), "to": to.Format(time.RFC3339),
		"counted": orNone(counted), "note": strings.TrimSpace(v.Note)}
	intent := v.intent()
	key := r.keyFor(intent)
	err = r.c.api.call(r.ctx(), r.who, http.MethodPost, cashUpsPath(v.Site), body, key, nil)
	if r.settle(intent, key, err); err != nil {
		if !r.cashUpRefused(&v, err) {
			return r.fail(err)
		}
		return r.render(v.Status, "finance_cash_up", title, v)
	}
	r.flash(r.text.T("cashup.closed", v.Cashier))
	return r.Redirect(http.StatusSeeOther, v.Back)
}

// orNone is counts, an empty list rather than null.
func orNone(c []db.CashCount) []db.CashCount {
	if c == nil {
		return []db.CashCount{}
	}
	return c
}

// cashUpReasons turn the API's refusals of a cash-up into a sentence for staff. The messages
// are db/cash_ups.go's and api/cash_ups.go's.
var cashUpReasons = []struct {
	re  *regexp.Regexp
	key string
}{
	{regexp.MustCompile(`overlaps a closed cash-up`), "cashup.err.overlap"},
	{regexp.MustCompile(`is expected \(-?\d+\): give what was counted`), "cashup.err.counts"},
	{regexp.MustCompile(`has not ended`), "cashup.err.notEnded"},
	{regexp.MustCompile(`a shift is at most`), "cashup.err.tooLong"},
	{regexp.MustCompile(`from is before its to`), "cashup.err.times"},
	{regexp.MustCompile(`cashes up its own shift`), "cashup.err.notYours"},
	{regexp.MustCompile(`counted twice|is not counted at a cash-up|never below zero|not an ISO 4217`), "cashup.err.counts"},
	{regexp.MustCompile(`closed another shift or count`), "booking.wentThrough"},
}

// cashUpRefused puts the API's refusal err above the form, and is false for what is no
// refusal of it (the API down): the caller shows its error page.
func (r *request) cashUpRefused(v *cashUpView, err error) bool {
	var ae *apiError
	if !errors.As(err, &ae) || ae.Status >= http.StatusInternalServerError || ae.Status == http.StatusNotFound {
		return false
	}
	v.Status, v.Refused = ae.Status, ae.Message
	for _, p := range cashUpReasons {
		if p.re.MatchString(ae.Message) {
			v.Refused = r.text.T(p.key)
			return true
		}
	}
	if _, known := refusalKey(ae); known {
		v.Refused = r.refusalText(ae)
	}
	return true
}

// cashUpNote adds a note to a closed cash-up through the API, and goes back to the page.
func (c *Console) cashUpNote(r *request) error {
	v, err := r.cashUpShift()
	if err != nil {
		return r.fail(err)
	}
	id, err := strconv.ParseInt(r.FormValue("id"), 10, 64)
	note := strings.TrimSpace(r.FormValue("cashUpNote"))
	if err != nil || note == "" {
		return r.c.renderError(r, http.StatusBadRequest, r.text.T("cashup.err.note"))
	}
	path := cashUpsPath(v.Site) + "/" + strconv.FormatInt(id, 10) + "/notes"
	if err := r.c.api.call(r.ctx(), r.who, http.MethodPost, path, map[string]any{"note": note}, "", nil); err != nil {
		return r.fail(err)
	}
	r.flash(r.text.T("cashup.noted"))
	return r.Redirect(http.StatusSeeOther, v.Back)
}
