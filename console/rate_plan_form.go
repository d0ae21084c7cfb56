package console

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/bookflow/bookflow/domain"
)

// planForm is the rate plan form as the admin typed it. A refused form comes back as typed, with
// each field's error beside it (Errors, by field name, in the page's language), so nothing typed
// is lost.
type planForm struct {
	Code, Name, Board, Includes                               string
	RoomTypes                                                 []string
	NonRefundable                                             bool
	FreeUntilHours, FeePercent, NoRefundHours, EarlyDeparture string
	NoShow, NoShowPercent                                     string
	Payment, DepositPercent, BalanceDueDays                   string
	Channels                                                  string
	Parent, Percent, Amount, Currency, Rounding, Step         string
	// Editing is an existing plan's form: its code is fixed.
	Editing bool
	Errors  map[string]string
	// Refused is why the API refused the plan when no field is to blame.
	Refused string
}

// Default is whether the form is the default plan's, whose price, policy, payment and channels
// are the hotel's: only its name, board and inclusions are its own.
func (f planForm) Default() bool { return f.Code == domain.DefaultRatePlan }

// Sells reports whether the form ticks room type id.
func (f planForm) Sells(id string) bool {
	for _, t := range f.RoomTypes {
		if t == id {
			return true
		}
	}
	return false
}

// readPlanForm reads the posted plan form.
func readPlanForm(r *request) planForm {
	v := func(name string) string { return strings.TrimSpace(r.FormValue(name)) }
	f := planForm{Code: v("code"), Name: v("name"), Board: v("board"), Includes: v("includes"),
		RoomTypes: r.Request().Form["roomTypes"], NonRefundable: v("nonRefundable") != "",
		FreeUntilHours: v("freeUntilHours"), FeePercent: v("feePercent"), NoRefundHours: v("noRefundHours"),
		EarlyDeparture: v("earlyDeparture"), NoShow: v("noShow"), NoShowPercent: v("noShowPercent"),
		Payment: v("payment"), DepositPercent: v("depositPercent"), BalanceDueDays: v("balanceDueDays"),
		Channels: v("channels"), Parent: v("parent"), Percent: v("percent"), Amount: v("amount"),
		Currency: strings.ToUpper(v("currency")), Rounding: v("rounding"), Step: v("step"), Editing: v("editing") != ""}
	return f
}

// planFormOf is the form filled with a stored plan, to edit it; currency is the one its amounts
// are shown in.
func planFormOf(p domain.RatePlan, currency string) planForm {
	f := planForm{Code: p.Code, Name: p.Name, Board: string(p.Board), Includes: p.Includes, RoomTypes: p.RoomTypes,
		Payment: string(p.Payment.Kind), Channels: strings.Join(p.Channels, ", "), Currency: currency, Editing: true}
	if p.Payment.DepositPercent > 0 {
		f.DepositPercent = strconv.Itoa(p.Payment.DepositPercent)
	}
	if p.Payment.BalanceDueDays != nil {
		f.BalanceDueDays = strconv.Itoa(*p.Payment.BalanceDueDays)
	}
	if pol := p.Policy; pol != nil {
		f.NonRefundable, f.EarlyDeparture, f.NoShow = pol.NonRefundable, pol.EarlyDeparture, pol.NoShow
		if !pol.NonRefundable {
			f.FreeUntilHours, f.FeePercent = strconv.Itoa(pol.FreeUntilHours), strconv.Itoa(pol.FeePercent)
			f.NoRefundHours = strconv.Itoa(pol.NoRefundHours)
		}
		if pol.NoShowPercent > 0 {
			f.NoShowPercent = strconv.Itoa(pol.NoShowPercent)
		}
	}
	if d := p.DerivedFrom; d != nil {
		f.Parent, f.Percent, f.Rounding = d.Parent, d.Percent, string(d.Rounding.Mode)
		if d.Amount != nil {
			f.Amount = formatAmount(*d.Amount, currency)
		}
		if d.Rounding.Step > 0 {
			f.Step = formatAmount(d.Rounding.Step, currency)
		}
	}
	return f
}

// body is the API's plan for the form, or nil when a field cannot be read (its error is in
// f.Errors, in t's language). What the console cannot judge (a percent's form, a parent the
// hotel lacks) is the API's to refuse: see refusal.
func (f *planForm) body(t catalogue) map[string]any {
	f.Errors = map[string]string{}
	if f.Code == "" { // the code is the address written to: none is no plan
		f.Errors["code"] = t.T("rates.err.code")
		return nil
	}
	body := map[string]any{"name": f.Name, "board": f.Board, "includes": f.Includes}
	if f.Default() {
		return body
	}
	if len(f.RoomTypes) > 0 {
		body["roomTypes"] = f.RoomTypes
	}
	channels := strings.FieldsFunc(f.Channels, func(r rune) bool { return r == ',' || r == ' ' })
	if len(channels) > 0 {
		body["channels"] = channels
	}
	policy := map[string]any{}
	if f.NonRefundable {
		policy["nonRefundable"] = true
	} else {
		f.number(t, policy, "freeUntilHours", f.FreeUntilHours)
		f.number(t, policy, "feePercent", f.FeePercent)
		f.number(t, policy, "noRefundHours", f.NoRefundHours)
		if f.EarlyDeparture != "" {
			policy["earlyDeparture"] = f.EarlyDeparture
		}
	}
	if f.NoShow != "" {
		policy["noShow"] = f.NoShow
	}
	f.number(t, policy, "noShowPercent", f.NoShowPercent)
	body["policy"] = policy
	payment := map[string]any{"kind": cmpOr(f.Payment, string(domain.PayInFull))}
	f.number(t, payment, "depositPercent", f.DepositPercent)
	f.number(t, payment, "balanceDueDays", f.BalanceDueDays)
	body["payment"] = payment
	if f.Parent != "" {
		d := map[string]any{"parent": f.Parent}
		if f.Percent != "" {
			d["percent"] = f.Percent // as typed: the API reads it exactly, and says why it cannot
		}
		if n, ok := f.amount(t, "amount", f.Amount, true); ok {
			d["amount"] = n
		}
		rounding := map[string]any{}
		if f.Rounding != "" {
			rounding["mode"] = f.Rounding
		}
		if n, ok := f.amount(t, "step", f.Step, false); ok {
			rounding["step"] = n
		}
		if len(rounding) > 0 {
			d["rounding"] = rounding
		}
		body["derivedFrom"] = d
	}
	if len(f.Errors) > 0 {
		return nil
	}
	return body
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// number puts field's whole number into m, when typed.
func (f *planForm) number(t catalogue, m map[string]any, field, s string) {
	if s == "" {
		return
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		f.Errors[field] = t.T("rates.err.whole", s)
		return
	}
	m[field] = n
}

// amount reads a decimal amount of the form's currency as minor units (signed: a discount).
func (f *planForm) amount(t catalogue, field, s string, signed bool) (int64, bool) {
	if s == "" {
		return 0, false
	}
	if f.Currency == "" {
		f.Errors["currency"] = t.T("rates.err.currency")
		return 0, false
	}
	neg := signed && strings.HasPrefix(s, "-")
	digits := s
	if signed {
		digits = strings.TrimLeft(s, "+-")
	}
	n, err := parseAmount(digits, f.Currency)
	if err != nil {
		f.Errors[field] = t.T("rates.err.amount", s, f.Currency)
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// planReasons turn the API's refusals of a plan into a field and a sentence of the catalogue: the
// page shows the sentence beside the field, never the API's own text. Each pattern is pinned to
// the refusal it reads by TestAPlanRefusalIsASentenceBesideItsField.
var planReasons = []refusalReason{
	{regexp.MustCompile(`percent ".*" must be a decimal`), "percent", "rates.err.percent"},
	{regexp.MustCompile(`percent ".*" must be between`), "percent", "rates.err.percentRange"},
	{regexp.MustCompile(`sets percent or amount, exactly one`), "percent", "rates.err.percentOrAmount"},
	{regexp.MustCompile(`derivation's amount must be between`), "amount", "rates.err.amountRange"},
	{regexp.MustCompile(`rounding step`), "step", "rates.err.step"},
	{regexp.MustCompile(`rounding mode`), "rounding", "rates.err.choice"},
	{regexp.MustCompile(`its parent \S+ is not a plan`), "parent", "rates.err.parent"},
	{regexp.MustCompile(`derived from itself`), "parent", "rates.err.self"},
	{regexp.MustCompile(`in a cycle`), "parent", "rates.err.cycle"},
	{regexp.MustCompile(`derives through more than`), "parent", "rates.err.depth"},
	{regexp.MustCompile(`which its parent \S+ does not sell`), "roomTypes", "rates.err.parentSells"},
	{regexp.MustCompile(`has no room type`), "roomTypes", "rates.err.roomType"},
	{regexp.MustCompile(`which its sale rule \d+ names`), "roomTypes", "rates.err.ruleNames"},
	{regexp.MustCompile(`^[^:]*: code must be`), "code", "rates.err.code"},
	{regexp.MustCompile(`channels`), "channels", "rates.err.channels"},
	{regexp.MustCompile(`roomTypes`), "roomTypes", "rates.err.roomType"},
	{regexp.MustCompile(`name must be`), "name", "rates.err.name"},
	{regexp.MustCompile(`board is`), "board", "rates.err.choice"},
	{regexp.MustCompile(`includes is at most`), "includes", "rates.err.includes"},
	{regexp.MustCompile(`depositPercent is`), "depositPercent", "rates.err.deposit"},
	{regexp.MustCompile(`balanceDueDays \(days`), "balanceDueDays", "rates.err.balanceDays"},
	{regexp.MustCompile(`go with a deposit`), "payment", "rates.err.depositOnly"},
	{regexp.MustCompile(`noShowPercent`), "noShowPercent", "rates.err.noShowPercent"},
	{regexp.MustCompile(`feePercent must be`), "feePercent", "rates.err.feePercent"},
	{regexp.MustCompile(`noRefundHours cannot exceed`), "noRefundHours", "rates.err.noRefund"},
	{regexp.MustCompile(`hours and fees cannot be negative`), "freeUntilHours", "rates.err.negative"},
	{regexp.MustCompile(`non-refundable policy`), "nonRefundable", "rates.err.nonRefundable"},
}

// refusal puts the API's refusal of the plan beside its field, or as the form's Refused sentence
// (see refusalOf).
func (f *planForm) refusal(t catalogue, err error) bool {
	if f.Errors == nil {
		f.Errors = map[string]string{}
	}
	var ok bool
	f.Refused, ok = refusalOf(t, err, planReasons, f.Errors)
	return ok
}
