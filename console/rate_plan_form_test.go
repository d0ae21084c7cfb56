package console

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
)

// refused is the API's 400 for err, as the console's client reads it.
func refused(status int, err error) error { return &apiError{Status: status, Message: err.Error()} }

// TestAPlanRefusalIsASentenceBesideItsField: each refusal the domain (and the store, whose texts
// are copied here) gives a plan lands beside the field to blame as a sentence of the catalogue,
// in either language, never as the API's text.
func TestAPlanRefusalIsASentenceBesideItsField(t *testing.T) {
	valid := func() domain.RatePlan {
		return domain.RatePlan{HotelID: "h", Code: "NR", Name: "Non-refundable", Board: domain.BoardRoomOnly,
			Policy: &domain.RatePlanPolicy{}, Payment: domain.PaymentRule{Kind: domain.PayInFull}}
	}
	amount := int64(1)
	for field, change := range map[string]func(*domain.RatePlan){
		"percent": func(p *domain.RatePlan) { p.DerivedFrom = &domain.Derivation{Parent: "BAR", Percent: "abc"} },
		"amount": func(p *domain.RatePlan) {
			big := int64(1) << 40
			p.DerivedFrom = &domain.Derivation{Parent: "BAR", Amount: &big}
		},
		"step": func(p *domain.RatePlan) {
			p.DerivedFrom = &domain.Derivation{Parent: "BAR", Amount: &amount, Rounding: domain.Rounding{Step: -1}}
		},
		"parent":         func(p *domain.RatePlan) { p.DerivedFrom = &domain.Derivation{Parent: "NR", Percent: "5"} },
		"name":           func(p *domain.RatePlan) { p.Name = "" },
		"board":          func(p *domain.RatePlan) { p.Board = "all_inclusive" },
		"code":           func(p *domain.RatePlan) { p.Code = "flex rate" },
		"channels":       func(p *domain.RatePlan) { p.Channels = []string{"*", "A"} },
		"roomTypes":      func(p *domain.RatePlan) { p.RoomTypes = []string{"double", "double"} },
		"depositPercent": func(p *domain.RatePlan) { p.Payment = domain.PaymentRule{Kind: domain.PayDeposit, DepositPercent: 100} },
		"noShowPercent":  func(p *domain.RatePlan) { p.Policy.NoShow = domain.NoShowKeepsPercent },
		"feePercent":     func(p *domain.RatePlan) { p.Policy.FeePercent = 101 },
		"noRefundHours":  func(p *domain.RatePlan) { p.Policy.FreeUntilHours, p.Policy.NoRefundHours = 2, 5 },
		"nonRefundable":  func(p *domain.RatePlan) { p.Policy.NonRefundable, p.Policy.FreeUntilHours = true, 24 },
	} {
		p := valid()
		change(&p)
		err := p.Validate()
		require.ErrorIs(t, err, domain.ErrInvalid, field)
		for _, lang := range []string{"en", "zh-Hans"} {
			f := planForm{}
			require.True(t, f.refusal(catalogueFor(lang), refused(http.StatusBadRequest, err)), field)
			assert.NotEmpty(t, f.Errors[field], "%s (%s): %v went to %v", field, lang, err, f.Errors)
			assert.NotContains(t, f.Errors[field], "invalid request", "no API text")
		}
	}
	// The store's refusals (db/rate_plans.go, domain.DerivationChain), as the API says them.
	for field, msg := range map[string]string{
		"parent":    "invalid request: rate plan NR: its parent NOPE is not a plan of hotel h",
		"roomTypes": "invalid request: rate plan NR: hotel h has no room type [suite]",
	} {
		f := planForm{}
		require.True(t, f.refusal(catalogueFor("en"), refused(http.StatusBadRequest, errors.New(msg))))
		assert.NotEmpty(t, f.Errors[field], msg)
	}
	_, cycle := domain.DerivationChain("A", func(c string) (domain.Derivation, bool) {
		return domain.Derivation{Parent: map[string]string{"A": "B", "B": "A"}[c]}, true
	})
	f := planForm{}
	require.True(t, f.refusal(catalogueFor("en"), refused(http.StatusBadRequest, cycle)))
	assert.Equal(t, catalogueFor("en").T("rates.err.cycle"), f.Errors["parent"], "%v", cycle)

	f = planForm{}
	require.True(t, f.refusal(catalogueFor("en"), refused(http.StatusBadRequest, fmt.Errorf("%w: something new", domain.ErrInvalid))))
	assert.Empty(t, f.Errors)
	assert.Equal(t, catalogueFor("en").T("rates.err.refused"), f.Refused, "an unknown refusal: a sentence for the form")
	assert.False(t, f.refusal(catalogueFor("en"), refused(http.StatusServiceUnavailable, errors.New("busy"))),
		"not a refusal of the form: the error page")
}

// The form's numbers and amounts are read before anything is sent: a word where a number goes is
// an error beside its field, and the plan goes as the API takes it.
func TestThePlanFormIsReadIntoThePlan(t *testing.T) {
	en := catalogueFor("en")
	f := planForm{Code: "NR", Name: "Non-refundable", Board: "room_only", NonRefundable: true, Payment: "full",
		Channels: "*", Parent: "BAR", Percent: "-10", Rounding: "nearest", Step: "1.00", Currency: "EUR",
		RoomTypes: []string{"double"}}
	body := f.body(en)
	require.NotNil(t, body, f.Errors)
	assert.Equal(t, map[string]any{"name": "Non-refundable", "board": "room_only", "includes": "",
		"roomTypes": []string{"double"}, "channels": []string{"*"}, "policy": map[string]any{"nonRefundable": true},
		"payment": map[string]any{"kind": "full"},
		"derivedFrom": map[string]any{"parent": "BAR", "percent": "-10",
			"rounding": map[string]any{"mode": "nearest", "step": int64(100)}}}, body)

	f = planForm{Code: "FLEX", Name: "Flexible", FreeUntilHours: "a day", Parent: "BAR", Amount: "-15.5", Currency: "EUR"}
	assert.Nil(t, f.body(en))
	assert.Equal(t, en.T("rates.err.whole", "a day"), f.Errors["freeUntilHours"])
	f.FreeUntilHours = "24"
	body = f.body(en)
	require.NotNil(t, body, f.Errors)
	assert.Equal(t, int64(-1550), body["derivedFrom"].(map[string]any)["amount"])
	f.Currency = ""
	assert.Nil(t, f.body(en), "an amount needs its currency")
	assert.NotEmpty(t, f.Errors["currency"])

	f = planForm{Name: "No code"}
	assert.Nil(t, f.body(en))
	assert.Equal(t, en.T("rates.err.code"), f.Errors["code"], "a plan is written at its code")

	bar := planForm{Code: "BAR", Name: "Best available", Board: "breakfast", Percent: "-10", Channels: "A"}
	assert.Equal(t, map[string]any{"name": "Best available", "board": "breakfast", "includes": ""}, bar.body(en),
		"BAR's price, policy and channels are the hotel's: only its name, board and inclusions are sent")
}

// TestARestrictionRefusalIsASentenceBesideItsField: the bulk write's refusals (domain and store
// texts) land beside the field to blame.
func TestARestrictionRefusalIsASentenceBesideItsField(t *testing.T) {
	three, two, big := 3, 2, 400
	_, below := domain.RestrictionSet{RestrictionBounds: domain.RestrictionBounds{MaxStay: &two}}.Apply(
		domain.RuleStayThrough, &domain.SaleRule{MinLOS: &three}, domain.SaleRule{})
	require.Error(t, below)
	from, err := domain.ParseDate("2027-03-01")
	require.NoError(t, err)
	tooLong := domain.RestrictionSet{From: from, To: from.AddDays(1), RestrictionBounds: domain.RestrictionBounds{MinStay: &big}}.Validate()
	require.Error(t, tooLong)
	for field, err := range map[string]error{
		"value":     below,
		"value ":    tooLong,
		"ratePlan":  fmt.Errorf("%w: rate plan NR of hotel h does not sell room type suite", domain.ErrInvalid),
		"roomTypes": fmt.Errorf("item 0: %w: hotel h has no room type %q", domain.ErrNotFound, "suite"),
	} {
		f := restrictionForm{Errors: map[string]string{}}
		status := http.StatusBadRequest
		if errors.Is(err, domain.ErrNotFound) {
			status = http.StatusNotFound
		}
		require.True(t, f.refusal(catalogueFor("zh-Hans"), refused(status, err)), field)
		assert.NotEmpty(t, f.Errors[strings.TrimSpace(field)], "%s: %v", field, err)
	}
}

// The grid's form becomes one item per room type ticked; clearing a bound names it, clearing a
// closure sets it false; what cannot be read is an error beside its field.
func TestTheRestrictionFormIsReadIntoItems(t *testing.T) {
	en := catalogueFor("en")
	f := restrictionForm{From: "2027-03-01", To: "2027-03-04", Kind: "closedToArrival", RoomTypes: []string{"double", "twin"}}
	items := f.items(en, false)
	require.Len(t, items, 2, f.Errors)
	assert.Equal(t, "twin", items[1].RoomTypeID)
	assert.True(t, *items[0].ClosedToArrival)
	assert.Equal(t, "", items[0].RatePlan, "every plan")
	items = f.items(en, true)
	assert.False(t, *items[0].ClosedToArrival, "cleared")

	f = restrictionForm{From: "2027-03-01", To: "2027-03-04", Kind: "minStay", Value: "2", Plan: "NR",
		RoomTypes: []string{"double"}, Weekdays: []string{"fri", "sat"}}
	items = f.items(en, false)
	require.Len(t, items, 1, f.Errors)
	assert.Equal(t, 2, *items[0].MinStay)
	assert.Equal(t, []string{"fri", "sat"}, items[0].Weekdays)
	assert.NoError(t, items[0].Validate())
	items = f.items(en, true)
	assert.Equal(t, []string{"minStay"}, items[0].Clear)
	assert.Nil(t, items[0].MinStay)

	f = restrictionForm{From: "2027-03-04", To: "2027-03-01", Kind: "minStay", Value: "two"}
	assert.Nil(t, f.items(en, false))
	assert.Equal(t, map[string]string{"to": en.T("rates.err.toAfter"), "roomTypes": en.T("rates.err.pickRoomType"),
		"value": en.T("rates.err.value")}, f.Errors)
}
