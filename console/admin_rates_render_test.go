package console

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// renderPage draws page in lang with data, as render does.
func renderPage(t *testing.T, page, lang string, data any) string {
	t.Helper()
	p, err := parsePages()
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, p.byName[page].ExecuteTemplate(&buf, "layout.html", view{T: catalogueFor(lang), CSRF: "tok",
		Languages: languageNames, Data: data}))
	return buf.String()
}

// labelled checks the page's markup as the console promises it: every field a person fills has
// a label naming it, and every table header a scope.
func labelled(t *testing.T, page string) {
	t.Helper()
	fields := regexp.MustCompile(`<(input|select|textarea)\b[^>]*>`).FindAllString(page, -1)
	require.NotEmpty(t, fields)
	for _, f := range fields {
		if strings.Contains(f, `type="hidden"`) {
			continue
		}
		id := regexp.MustCompile(`\bid="([^"]+)"`).FindStringSubmatch(f)
		if assert.NotNil(t, id, "a field without an id: %s", f) {
			assert.Contains(t, page, `for="`+id[1]+`"`, "no label for %s", f)
		}
	}
	for _, th := range regexp.MustCompile(`<th\b[^>]*>`).FindAllString(page, -1) {
		assert.Contains(t, th, "scope=", "a table header without a scope")
	}
}

var siteWithRooms = db.SiteSummary{Kind: "hotel", ID: "inn", TimeZone: "UTC",
	Resources: []db.ResourceSummary{{ID: "double"}, {ID: "twin"}}}

// The grid's page draws its rows and cells, and a refused form comes back as typed with the error
// beside its field, the field marked invalid and described by it, in both languages.
func TestTheRestrictionsPageDrawsTheGridAndKeepsARefusedForm(t *testing.T) {
	w := windowOf("", "", date(t, "2027-03-01"))
	two := 2
	grid := buildGrid([]db.RestrictionRow{{RoomTypeID: "double", RatePlan: "BAR", Days: []domain.RestrictionDay{
		{Date: w.From, ClosedToArrival: true, RestrictionBounds: domain.RestrictionBounds{MinStay: &two}}}}}, w)
	v := restrictionsView{Site: siteWithRooms, Window: w, Plan: "BAR", Plans: []string{"BAR", "NR"}, Grid: grid,
		Kinds: restrictionKinds, Weekdays: []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"},
		Form: restrictionForm{From: "2027-03-01", To: "2027-03-04", Kind: "minStay", Value: "two",
			RoomTypes: []string{"twin"}, Plan: "NR", Errors: map[string]string{"value": "Give a whole number of nights or days."}}}
	for _, lang := range []string{"en", "zh-Hans"} {
		page := renderPage(t, "admin_restrictions", lang, v)
		labelled(t, page)
		assert.Contains(t, page, `id="cell-double-BAR-2027-03-01" class="cell-restricted" data-marks="closedToArrival minStay"`)
		assert.Contains(t, page, catalogueFor(lang).T("rates.mark.minStay", "2"))
		assert.Contains(t, page, `id="r-value" name="value" inputmode="numeric" size="6" value="two" aria-invalid="true" aria-describedby="err-value"`)
		assert.Contains(t, page, `<span class="field-error" id="err-value" role="alert">Give a whole number`)
		assert.Contains(t, page, `value="twin" checked`, "the room type ticked stays ticked")
		assert.Contains(t, page, `<option value="NR" selected>NR</option>`)
	}
}

// The plans page lists each plan's terms as sentences, and its form keeps what was typed.
func TestThePlansPageListsThePlansAndKeepsARefusedForm(t *testing.T) {
	days := 7
	plans := []domain.RatePlan{
		{Code: "BAR", Name: "Best available", Default: true, Board: domain.BoardRoomOnly, Channels: []string{"*"},
			Payment: domain.PaymentRule{Kind: domain.PayInFull}},
		{Code: "NR", Name: "Non-refundable", Board: domain.BoardBreakfast, RoomTypes: []string{"double"},
			Policy:      &domain.RatePlanPolicy{CancellationPolicy: domain.CancellationPolicy{NonRefundable: true}},
			Payment:     domain.PaymentRule{Kind: domain.PayDeposit, DepositPercent: 30, BalanceDueDays: &days},
			DerivedFrom: &domain.Derivation{Parent: "BAR", Percent: "-10", Rounding: domain.Rounding{Mode: domain.RoundNearest, Step: 100}}},
	}
	en := catalogueFor("en")
	v := ratePlansView{Site: siteWithRooms, Currency: "EUR", Boards: []string{"room_only", "breakfast"},
		NoShows: []string{"all"}, Payments: []string{"full", "deposit"}, Roundings: []string{"nearest"}, Early: []string{"none"},
		Form: planForm{Code: "CORP", Name: "Corporate", Parent: "BAR", Percent: "abc", Currency: "EUR",
			Errors: map[string]string{"percent": en.T("rates.err.percent")}}}
	for _, p := range plans {
		v.Plans = append(v.Plans, describePlan(en, p, v.Currency))
	}
	assert.Equal(t, "From BAR, -10% (rounded to the nearest to 1.00)", v.Plans[1].DerivationText)
	assert.Equal(t, "A deposit of 30%, the rest 7 days before arrival", v.Plans[1].PaymentText)
	assert.Equal(t, "Non-refundable", v.Plans[1].PolicyText)
	assert.Equal(t, "The room type's rate", v.Plans[0].DerivationText)
	page := renderPage(t, "admin_rate_plans", "en", v)
	labelled(t, page)
	assert.Contains(t, page, `id="plan-percent" name="percent" inputmode="decimal" value="abc" aria-invalid="true" aria-describedby="err-percent"`)
	assert.Contains(t, page, `id="err-percent"`)
	assert.Contains(t, page, `value="CORP"`, "the code typed stays")
	assert.Contains(t, page, `<option value="BAR" selected>BAR</option>`, "and the parent picked")
	minus := int64(-1500)
	assert.Equal(t, "From BAR, EUR -15.00", derivationText(en, domain.RatePlan{Code: "X",
		DerivedFrom: &domain.Derivation{Parent: "BAR", Amount: &minus}}, "EUR"))
}
