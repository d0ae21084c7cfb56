package console

import (
	"net/http"
	"strings"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// adminRatesRoutes are a hotel's rate plans and its restriction grid: each form POSTs here and
// the console makes the API's PUT.
func (c *Console) adminRatesRoutes(page func(method, path string, h handler, roles []domain.Role), admin []domain.Role) {
	page(http.MethodGet, "/admin/hotels/:hotelId/rate-plans", c.adminRatePlans, admin)
	page(http.MethodPost, "/admin/hotels/:hotelId/rate-plans", c.adminPutRatePlan, admin)
	page(http.MethodGet, "/admin/hotels/:hotelId/restrictions", c.adminRestrictions, admin)
	page(http.MethodPost, "/admin/hotels/:hotelId/restrictions", c.adminSetRestrictions, admin)
}

// ratePlansView is a hotel's rate plans page: every plan, and the form that writes one.
type ratePlansView struct {
	Site  db.SiteSummary
	Plans []planRow
	Form  planForm
	// Currency is what derived amounts are shown and typed in: the hotel's rates' currency.
	Currency                                    string
	Boards, NoShows, Payments, Roundings, Early []string
}

// planRow is a plan as the list shows it: each term as a sentence.
type planRow struct {
	domain.RatePlan
	PolicyText, PaymentText, ChannelText, DerivationText, RoomTypeText string
}

// Parents are the plans the form's plan may derive from: every plan but itself.
func (v ratePlansView) Parents() []string {
	var out []string
	for _, p := range v.Plans {
		if p.Code != v.Form.Code {
			out = append(out, p.Code)
		}
	}
	return out
}

func (c *Console) adminRatePlans(r *request) error {
	v, err := r.ratePlansPage(r.Param("hotelId"))
	if err != nil {
		return r.fail(err)
	}
	v.Form = planForm{Board: string(domain.BoardRoomOnly), Payment: string(domain.PayInFull), Currency: v.Currency}
	if code := r.QueryParam("edit"); code != "" {
		for _, p := range v.Plans {
			if p.Code == code {
				v.Form = planFormOf(p.RatePlan, v.Currency)
			}
		}
	}
	return r.render(http.StatusOK, "admin_rate_plans", r.text.T("rates.plansTitle", v.Site.ID), v)
}

// adminPutRatePlan creates or replaces a plan. A form the console cannot read, or the API
// refuses, comes back as typed with the reason beside its field (400), and nothing is written.
func (c *Console) adminPutRatePlan(r *request) error {
	hotelID := r.Param("hotelId")
	if err := r.Request().ParseForm(); err != nil {
		return r.badForm(err)
	}
	f := readPlanForm(r)
	body := f.body(r.text)
	if body != nil {
		var stored domain.RatePlan
		err := r.c.api.call(r.ctx(), r.who, http.MethodPut,
			"/admin/hotels/"+seg(hotelID)+"/rate-plans/"+seg(f.Code), body, "", &stored)
		if err == nil {
			r.flash(r.text.T("rates.planSaved", stored.Code, stored.Name))
			return r.Redirect(http.StatusSeeOther, Prefix+"/admin/hotels/"+seg(hotelID)+"/rate-plans#plan-"+stored.Code)
		}
		if !f.refusal(r.text, err) {
			return r.fail(err)
		}
	}
	v, err := r.ratePlansPage(hotelID)
	if err != nil {
		return r.fail(err)
	}
	v.Form = f
	return r.render(http.StatusBadRequest, "admin_rate_plans", r.text.T("rates.plansTitle", v.Site.ID), v)
}

// ratePlansPage reads the hotel and its plans.
func (r *request) ratePlansPage(hotelID string) (ratePlansView, error) {
	site, err := r.site("hotel", hotelID)
	if err != nil {
		return ratePlansView{}, err
	}
	var out struct {
		RatePlans []domain.RatePlan `json:"ratePlans"`
	}
	if err := r.c.api.call(r.ctx(), r.who, http.MethodGet, "/admin/hotels/"+seg(hotelID)+"/rate-plans", nil, "", &out); err != nil {
		return ratePlansView{}, err
	}
	v := ratePlansView{Site: site, Currency: r.hotelCurrency(site),
		Boards:    []string{string(domain.BoardRoomOnly), string(domain.BoardBreakfast), string(domain.BoardHalf), string(domain.BoardFull)},
		NoShows:   []string{domain.NoShowKeepsAll, domain.NoShowKeepsFirstNight, domain.NoShowKeepsPercent},
		Payments:  []string{string(domain.PayInFull), string(domain.PayDeposit), string(domain.PayAtHotel)},
		Roundings: []string{string(domain.RoundNearest), string(domain.RoundDown), string(domain.RoundUp)},
		Early:     []string{domain.EarlyDepartureNone, domain.EarlyDepartureAll, domain.EarlyDepartureAllButFirst}}
	for _, p := range out.RatePlans {
		v.Plans = append(v.Plans, describePlan(r.text, p, v.Currency))
	}
	return v, nil
}

// hotelCurrency is the currency of the hotel's first room type's rates over the next month, for
// the amounts of derived plans (minor units in the API); "" when none is set.
func (r *request) hotelCurrency(site db.SiteSummary) string {
	if len(site.Resources) == 0 {
		return ""
	}
	loc, err := time.LoadLocation(site.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	today := domain.DateOf(r.c.cfg.Now(), loc)
	var out struct {
		Nights []domain.PlanNight `json:"nights"`
	}
	path := q("/admin/hotels/"+seg(site.ID)+"/rate-plans/"+domain.DefaultRatePlan+"/room-types/"+seg(site.Resources[0].ID)+"/prices",
		"from", today.String(), "to", today.AddDays(31).String())
	if r.c.api.call(r.ctx(), r.who, http.MethodGet, path, nil, "", &out) != nil {
		return ""
	}
	for _, n := range out.Nights {
		if n.Currency != "" {
			return n.Currency
		}
	}
	return ""
}

// describePlan says each of a plan's terms as a sentence of t.
func describePlan(t catalogue, p domain.RatePlan, currency string) planRow {
	row := planRow{RatePlan: p, RoomTypeText: strings.Join(p.RoomTypes, ", ")}
	if len(p.RoomTypes) == 0 {
		row.RoomTypeText = t.T("rates.everyRoomType")
	}
	switch pol := p.Policy; {
	case pol == nil:
		row.PolicyText = t.T("rates.policy.hotel")
	case pol.NonRefundable:
		row.PolicyText = t.T("rates.policy.nonRefundable")
	default:
		fee := t.T("admin.feePercent", pol.FeePercent)
		if pol.FeeFixed > 0 {
			fee = formatMoney(pol.FeeFixed, pol.FeeCurrency)
		}
		row.PolicyText = t.T("rates.policy.terms", pol.FreeUntilHours, fee, pol.NoRefundHours)
	}
	if pol := p.Policy; pol != nil && pol.NoShow == domain.NoShowKeepsFirstNight {
		row.PolicyText += " " + t.T("rates.noShowKeepsFirstNight")
	} else if pol != nil && pol.NoShow == domain.NoShowKeepsPercent {
		row.PolicyText += " " + t.T("rates.noShowKeepsPercent", pol.NoShowPercent)
	}
	switch p.Payment.Kind {
	case domain.PayDeposit:
		days := 0
		if p.Payment.BalanceDueDays != nil {
			days = *p.Payment.BalanceDueDays
		}
		row.PaymentText = t.T("rates.payment.depositTerms", p.Payment.DepositPercent, days)
	default:
		row.PaymentText = t.T("rates.payment." + string(p.Payment.Kind))
	}
	switch {
	case len(p.Channels) == 0:
		row.ChannelText = t.T("rates.channels.direct")
	case len(p.Channels) == 1 && p.Channels[0] == domain.AnyChannel:
		row.ChannelText = t.T("rates.channels.every")
	default:
		row.ChannelText = strings.Join(p.Channels, ", ")
	}
	row.DerivationText = derivationText(t, p, currency)
	return row
}

// derivationText says how a plan is priced: the room type's rate, its own rates, or its parent's
// adjusted and rounded.
func derivationText(t catalogue, p domain.RatePlan, currency string) string {
	d := p.DerivedFrom
	switch {
	case p.Default:
		return t.T("rates.derived.default")
	case d == nil:
		return t.T("rates.derived.own")
	}
	by := d.Percent + "%"
	if d.Amount != nil {
		by = formatAmount(*d.Amount, currency)
		if *d.Amount >= 0 {
			by = "+" + by
		}
		by = strings.TrimSpace(currency + " " + by)
	} else if !strings.HasPrefix(by, "-") && !strings.HasPrefix(by, "+") {
		by = "+" + by
	}
	s := t.T("rates.derived.from", d.Parent, by)
	if d.Rounding.Mode != "" || d.Rounding.Step > 1 {
		step := int64(1)
		if d.Rounding.Step > 0 {
			step = d.Rounding.Step
		}
		s += " " + t.T("rates.derived.rounded", t.T("rates.rounding."+cmpOr(string(d.Rounding.Mode), string(domain.RoundNearest))),
			formatAmount(step, currency))
	}
	return s
}
