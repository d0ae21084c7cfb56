package console

import (
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

// everyPlanView is the grid's plan picker's value for the rows of every plan's rules beside each
// plan's own (no plan code holds a "*").
const everyPlanView = "*"

// restrictionKinds are what the form applies or clears: the closures, then the bounds.
var restrictionKinds = []string{"closed", "closedToArrival", "closedToDeparture", "minStay", "maxStay",
	"minStayArrival", "maxStayArrival", "minAdvance", "maxAdvance"}

// restrictionsView is a hotel's restriction grid, and the form that writes restrictions.
type restrictionsView struct {
	Site   db.SiteSummary
	Window gridWindow
	// Plan is the plan the grid shows (everyPlanView: every plan's rules, and each plan's own).
	Plan             string
	Plans            []string
	Grid             restrictionGrid
	Form             restrictionForm
	Kinds            []string
	Weekdays         []string // domain.Weekdays from Monday
	PrevURL, NextURL string
}

// Last is the window's last date.
func (v restrictionsView) Last() domain.Date { return v.Window.To.AddDays(-1) }

// WeekdayKey is the admin catalogue's key of a weekday name ("mon": "admin.weekday.1").
func (v restrictionsView) WeekdayKey(name string) string {
	return "admin.weekday." + strconv.Itoa(slices.Index(v.Weekdays, name)+1)
}

// restrictionForm is the grid's form as the admin typed it, kept as typed when it is refused.
type restrictionForm struct {
	From, To, Kind, Value, Plan string
	RoomTypes, Weekdays         []string
	Errors                      map[string]string
	Refused                     string
}

// Ticks reports whether the form ticks v (a room type or a weekday).
func (f restrictionForm) Ticks(v string) bool {
	return slices.Contains(f.RoomTypes, v) || slices.Contains(f.Weekdays, v)
}

func (c *Console) adminRestrictions(r *request) error {
	v, err := r.restrictionsPage(r.Param("hotelId"), r.QueryParam("from"), r.QueryParam("days"), r.QueryParam("plan"))
	if err != nil {
		return r.fail(err)
	}
	v.Form = restrictionForm{From: v.Window.From.String(), To: v.Window.To.String(), Kind: "closed"}
	if v.Plan != everyPlanView {
		v.Form.Plan = v.Plan
	}
	return r.render(http.StatusOK, "admin_restrictions", r.text.T("rates.restrictionsTitle", v.Site.ID), v)
}

// adminSetRestrictions applies (or clears) one restriction on the dates and room types picked:
// one bulk PUT, all or nothing. The grid then shows the first date written; a form refused
// comes back as typed with the reason beside its field (400).
func (c *Console) adminSetRestrictions(r *request) error {
	hotelID := r.Param("hotelId")
	if err := r.Request().ParseForm(); err != nil {
		return r.badForm(err)
	}
	form := r.Request().Form
	f := restrictionForm{From: r.FormValue("from"), To: r.FormValue("to"), Kind: r.FormValue("kind"),
		Value: strings.TrimSpace(r.FormValue("value")), Plan: r.FormValue("ratePlan"),
		RoomTypes: form["roomTypes"], Weekdays: form["weekdays"]}
	viewPlan, viewDays := r.FormValue("viewPlan"), r.FormValue("viewDays")
	clear := r.FormValue("action") == "clear"
	if items := f.items(r.text, clear); items != nil {
		var out struct {
			Rules db.RestrictionsWritten `json:"rules"`
		}
		err := r.c.api.call(r.ctx(), r.who, http.MethodPut, "/admin/hotels/"+seg(hotelID)+"/restrictions",
			map[string]any{"items": items}, "", &out)
		if err == nil {
			done := "rates.applied"
			if clear {
				done = "rates.cleared"
			}
			plan := f.Plan
			if plan == "" {
				plan = r.text.T("rates.everyPlan")
			}
			r.flash(r.text.T(done, r.text.T("rates.kind."+f.Kind), strings.Join(f.RoomTypes, ", "), plan, f.From, f.To,
				out.Rules.Written, out.Rules.Trimmed, out.Rules.Split, out.Rules.Ended))
			return r.Redirect(http.StatusSeeOther, q(Prefix+"/admin/hotels/"+seg(hotelID)+"/restrictions",
				"from", shownFrom(r.FormValue("viewFrom"), viewDays, items[0].From), "days", viewDays, "plan", viewPlan)+
				"#restriction-grid")
		}
		if !f.refusal(r.text, err) {
			return r.fail(err)
		}
	}
	v, err := r.restrictionsPage(hotelID, r.FormValue("viewFrom"), viewDays, viewPlan)
	if err != nil {
		return r.fail(err)
	}
	v.Form = f
	return r.render(http.StatusBadRequest, "admin_restrictions", r.text.T("rates.restrictionsTitle", v.Site.ID), v)
}

// shownFrom is where the grid opens after a write from the window viewFrom: there still when
// it shows the first date written, or on that date.
func shownFrom(viewFrom, days string, written domain.Date) string {
	w := windowOf(viewFrom, days, written)
	if written.Before(w.From) || !written.Before(w.To) {
		return written.String()
	}
	return w.From.String()
}

// restrictionsPage reads the hotel, its plans and the grid of the window from (today at the hotel
// when it is not a date) for plan (BAR when empty).
func (r *request) restrictionsPage(hotelID, from, days, plan string) (restrictionsView, error) {
	site, err := r.site("hotel", hotelID)
	if err != nil {
		return restrictionsView{}, err
	}
	loc, err := time.LoadLocation(site.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	v := restrictionsView{Site: site, Window: windowOf(from, days, domain.DateOf(r.c.cfg.Now(), loc)),
		Plan: cmpOr(plan, domain.DefaultRatePlan), Kinds: restrictionKinds,
		Weekdays: append(slices.Clone(domain.Weekdays[1:]), domain.Weekdays[0])}
	var plans struct {
		RatePlans []domain.RatePlan `json:"ratePlans"`
	}
	if err := r.c.api.call(r.ctx(), r.who, http.MethodGet, "/admin/hotels/"+seg(hotelID)+"/rate-plans", nil, "", &plans); err != nil {
		return restrictionsView{}, err
	}
	for _, p := range plans.RatePlans {
		v.Plans = append(v.Plans, p.Code)
	}
	if v.Plan != everyPlanView && !slices.Contains(v.Plans, v.Plan) {
		v.Plan = domain.DefaultRatePlan
	}
	ratePlan := v.Plan
	if ratePlan == everyPlanView {
		ratePlan = ""
	}
	var cal struct {
		Rows []db.RestrictionRow `json:"rows"`
	}
	if err := r.c.api.call(r.ctx(), r.who, http.MethodGet, q("/admin/hotels/"+seg(hotelID)+"/restrictions",
		"from", v.Window.From.String(), "to", v.Window.To.String(), "ratePlan", ratePlan), nil, "", &cal); err != nil {
		return restrictionsView{}, err
	}
	v.Grid = buildGrid(cal.Rows, v.Window)
	base := Prefix + "/admin/hotels/" + seg(hotelID) + "/restrictions"
	v.PrevURL = q(base, "from", v.Window.Prev.String(), "days", strconv.Itoa(v.Window.Days), "plan", v.Plan)
	v.NextURL = q(base, "from", v.Window.Next.String(), "days", strconv.Itoa(v.Window.Days), "plan", v.Plan)
	return v, nil
}

// items are the bulk write's items for the form: one per room type ticked, applying (or, clear,
// removing) the restriction picked on the dates [From, To) (the weekdays ticked, when some are).
// nil when a field cannot be read: its error is in f.Errors, in t's language.
func (f *restrictionForm) items(t catalogue, clear bool) []domain.RestrictionSet {
	f.Errors = map[string]string{}
	from, err := domain.ParseDate(f.From)
	if err != nil {
		f.Errors["from"] = t.T("rates.err.date")
	}
	to, err := domain.ParseDate(f.To)
	switch {
	case err != nil:
		f.Errors["to"] = t.T("rates.err.date")
	case len(f.Errors) == 0 && !to.After(from):
		f.Errors["to"] = t.T("rates.err.toAfter")
	case len(f.Errors) == 0 && from.DaysUntil(to) > domain.MaxRestrictionNights:
		f.Errors["to"] = t.T("rates.err.tooLong", domain.MaxRestrictionNights)
	}
	if len(f.RoomTypes) == 0 {
		f.Errors["roomTypes"] = t.T("rates.err.pickRoomType")
	}
	for _, w := range f.Weekdays {
		if !slices.Contains(domain.Weekdays, w) {
			f.Errors["weekdays"] = t.T("rates.err.choice")
		}
	}
	if !slices.Contains(restrictionKinds, f.Kind) {
		f.Errors["kind"] = t.T("rates.err.choice")
	}
	closure := slices.Index(restrictionKinds, f.Kind) < 3
	var n int
	if !clear && !closure && len(f.Errors["kind"]) == 0 {
		if n, err = strconv.Atoi(f.Value); err != nil {
			f.Errors["value"] = t.T("rates.err.value")
		}
	}
	if len(f.Errors) > 0 {
		return nil
	}
	var items []domain.RestrictionSet
	for _, rt := range f.RoomTypes {
		set := domain.RestrictionSet{RoomTypeID: rt, RatePlan: f.Plan, From: from, To: to, Weekdays: f.Weekdays}
		on := !clear
		switch {
		case f.Kind == "closed":
			set.Closed = &on
		case f.Kind == "closedToArrival":
			set.ClosedToArrival = &on
		case f.Kind == "closedToDeparture":
			set.ClosedToDeparture = &on
		case clear:
			set.Clear = []string{f.Kind}
		default:
			bounds := map[string]**int{"minStay": &set.MinStay, "maxStay": &set.MaxStay, "minStayArrival": &set.MinStayArrival,
				"maxStayArrival": &set.MaxStayArrival, "minAdvance": &set.MinAdvance, "maxAdvance": &set.MaxAdvance}
			value := n
			*bounds[f.Kind] = &value
		}
		items = append(items, set)
	}
	return items
}

// restrictionReasons turn the API's refusals of a bulk write into a field and a sentence, as
// planReasons do for plans (pinned by TestARestrictionRefusalIsASentenceBesideItsField).
var restrictionReasons = []refusalReason{
	{regexp.MustCompile(`is below (the minimum|minAdvance)`), "value", "rates.err.belowMin"},
	{regexp.MustCompile(`between 1 and 365 nights`), "value", "rates.err.nights"},
	{regexp.MustCompile(`between 0 and 3650 days`), "value", "rates.err.days"},
	{regexp.MustCompile(`at most \d+ dates`), "to", "rates.err.tooLongAPI"},
	{regexp.MustCompile(`has no room type`), "roomTypes", "rates.err.roomType"},
	{regexp.MustCompile(`does not sell room type`), "ratePlan", "rates.err.planSells"},
	{regexp.MustCompile(`has no rate plan|rate plan \S+ of hotel`), "ratePlan", "rates.err.planGone"},
}

func (f *restrictionForm) refusal(t catalogue, err error) bool {
	var ok bool
	f.Refused, ok = refusalOf(t, err, restrictionReasons, f.Errors)
	return ok
}

// refusalReason is an API refusal's pattern, the form field it blames and the catalogue's
// sentence for it.
type refusalReason struct {
	re         *regexp.Regexp
	field, key string
}

// refusalOf puts the API's refusal err beside the field of the first reason matching its
// message (in errs), or answers a sentence for the whole form when none does. ok is false for
// what is no refusal of the form (the API down, a hotel gone): the caller shows its error page.
func refusalOf(t catalogue, err error, reasons []refusalReason, errs map[string]string) (refused string, ok bool) {
	var ae *apiError
	if !errors.As(err, &ae) || !slices.Contains([]int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict,
		http.StatusUnprocessableEntity}, ae.Status) {
		return "", false
	}
	for _, p := range reasons {
		if p.re.MatchString(ae.Message) {
			errs[p.field] = t.T(p.key)
			return "", true
		}
	}
	if ae.Status == http.StatusNotFound {
		return "", false
	}
	return t.T("rates.err.refused"), true
}
