package domain_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
)

// TestAPricerPricesEveryPlanFromItsRootsNights: the default plan from the room type's rate (0
// only when free), a root plan from its own rates, a derived plan through its chain; a night
// without its root's rate says so, a stay's price needs every night priced in one currency.
func TestAPricerPricesEveryPlanFromItsRootsNights(t *testing.T) {
	amount := int64(-2000)
	pricer := domain.NewPlanPricer([]domain.RatePlan{
		{Code: domain.DefaultRatePlan, Default: true, Channels: []string{domain.AnyChannel}},
		{Code: "CORP", Policy: &domain.RatePlanPolicy{}},
		{Code: "CORP-10", Policy: &domain.RatePlanPolicy{}, DerivedFrom: &domain.Derivation{Parent: "CORP", Percent: "-10",
			Rounding: domain.Rounding{Mode: domain.RoundUp, Step: 50}}},
		{Code: "CHEAP", Policy: &domain.RatePlanPolicy{}, DerivedFrom: &domain.Derivation{Parent: "BAR", Amount: &amount}},
		{Code: "ORPHAN", Policy: &domain.RatePlanPolicy{}, DerivedFrom: &domain.Derivation{Parent: "GONE", Percent: "5"}},
	})
	d, err := domain.ParseDate("2031-05-01")
	require.NoError(t, err)
	nights := []domain.NightRates{
		{Date: d, Rate: 10000, Currency: "EUR", Plans: map[string]domain.Money{"CORP": {Amount: 9999, Currency: "EUR"}}},
		{Date: d.AddDays(1), Rate: 0, Free: true, Currency: "EUR"},
		{Date: d.AddDays(2), Rate: 8000, Currency: "EUR", Plans: map[string]domain.Money{"CORP": {Amount: 5000, Currency: "USD"}}},
		{Date: d.AddDays(3), Rate: 0, Currency: "EUR", Plans: map[string]domain.Money{"CORP": {Amount: 5000, Currency: "EUR"}}},
	}
	amounts := func(code string) []any {
		t.Helper()
		priced, err := pricer.Nightly(code, nights)
		require.NoError(t, err)
		out := make([]any, len(priced))
		for i, n := range priced {
			if n.Amount == nil {
				out[i] = n.Why
			} else {
				out[i] = *n.Amount
			}
		}
		return out
	}
	closed := "no rate is set for BAR on this night: the room type is not on sale then"
	assert.Equal(t, []any{int64(10000), int64(0), int64(8000), "no rate is set for BAR on this night"}, amounts("BAR"))
	assert.Equal(t, []any{int64(9999), "no rate is set for CORP on this night", int64(5000), closed}, amounts("CORP"),
		"a plan's own rate sells no night without the room type's")
	// 9999 * 0.9 = 8999.1, up to a step of 50: 9000; 5000 * 0.9 = 4500.
	assert.Equal(t, []any{int64(9000), "no rate is set for CORP on this night", int64(4500), closed}, amounts("CORP-10"))
	cheap := amounts("CHEAP")
	assert.Equal(t, int64(8000), cheap[0])
	assert.Contains(t, cheap[1], "below zero")
	assert.Equal(t, int64(6000), cheap[2])

	_, err = pricer.Nightly("ORPHAN", nights)
	assert.ErrorIs(t, err, domain.ErrInvalid)
	_, err = pricer.Nightly("NOPE", nights)
	assert.ErrorIs(t, err, domain.ErrNotFound)

	priced, err := pricer.Nightly("BAR", nights[:2])
	require.NoError(t, err)
	price, why := domain.StayPrice(priced)
	require.NotNil(t, price, why)
	assert.Equal(t, domain.Price{Currency: "EUR", Total: 10000, Nights: []domain.NightRate{{Date: d, Amount: 10000},
		{Date: d.AddDays(1), Amount: 0}}}, *price)
	priced, _ = pricer.Nightly("CORP", []domain.NightRates{nights[0], nights[2]})
	price, why = domain.StayPrice(priced)
	assert.Nil(t, price)
	assert.Contains(t, why, "priced in USD")
	_, why = domain.StayPrice(nil)
	assert.NotEmpty(t, why)

	assert.Equal(t, []string{"BAR", "CHEAP", "CORP", "CORP-10", "ORPHAN"}, codes(pricer.Plans()), "the default plan first")

	// PriceStay, the search's pricing, is StayPrice of Nightly's nights, for every plan and stay.
	for _, code := range append(codes(pricer.Plans()), "NOPE") {
		for from := range nights {
			for to := from; to <= len(nights); to++ {
				priced, err := pricer.Nightly(code, nights[from:to])
				price := domain.Price{Nights: make([]domain.NightRate, 1, 4)} // a slab's part, used before
				why, err2 := pricer.PriceStay(code, nights[from:to], &price)
				assert.Equal(t, err, err2, code)
				if err == nil {
					want, wantWhy := domain.StayPrice(priced)
					assert.Equal(t, wantWhy, why, "%s [%d, %d)", code, from, to)
					if want != nil {
						assert.Equal(t, *want, price, "%s [%d, %d)", code, from, to)
					}
				}
			}
		}
	}
}

func codes(plans []domain.RatePlan) []string {
	out := make([]string, len(plans))
	for i, p := range plans {
		out[i] = p.Code
	}
	return out
}

// TestAPlanIsSoldDirectAndThroughTheChannelsItNames: no channel named is direct only.
func TestAPlanIsSoldDirectAndThroughTheChannelsItNames(t *testing.T) {
	direct, some, all := domain.RatePlan{}, domain.RatePlan{Channels: []string{"wholesale"}},
		domain.RatePlan{Channels: []string{domain.AnyChannel}}
	assert.True(t, direct.SoldThrough(""))
	assert.False(t, direct.SoldThrough("wholesale"))
	assert.True(t, some.SoldThrough("wholesale"))
	assert.False(t, some.SoldThrough("retail"))
	assert.True(t, all.SoldThrough("retail"))

	terms := domain.RatePlan{Code: "BAR", Default: true}.OfferTerms(domain.CancellationPolicy{FreeUntilHours: 48})
	assert.Equal(t, 48, terms.Policy.FreeUntilHours, "the default plan's policy is the hotel's")
	assert.Equal(t, domain.NoShowKeepsAll, terms.Policy.NoShow)
}

// TestANonRefundableBookingsPolicyRefundsNothingEvenReadWithoutItsMark: the policy a
// non-refundable plan's booking keeps gives nothing back with its mark, and also read as a
// release that does not know the mark reads it (a worker of the previous release during a
// deploy, or after a rollback); the hotel's own policy, so read, would give everything back.
func TestANonRefundableBookingsPolicyRefundsNothingEvenReadWithoutItsMark(t *testing.T) {
	plan := domain.RatePlan{Code: "NR", Policy: &domain.RatePlanPolicy{CancellationPolicy: domain.CancellationPolicy{NonRefundable: true}}}
	_, kept := plan.Terms(domain.CancellationPolicy{FreeUntilHours: 48})
	checkIn, err := domain.ParseDate("2031-06-10")
	require.NoError(t, err)
	early := checkIn.Time().AddDate(0, 0, -300)
	assert.Equal(t, int64(0), kept.Refund(30000, "EUR", checkIn, time.UTC, early))
	unmarked := kept
	unmarked.NonRefundable = false
	assert.Equal(t, int64(0), unmarked.Refund(30000, "EUR", checkIn, time.UTC, early), "read without its mark")
	control := domain.CancellationPolicy{}
	assert.Equal(t, int64(30000), control.Refund(30000, "EUR", checkIn, time.UTC, early), "a policy of no hours refunds all")
}

// TestADateIsWrittenAsItAlwaysWas: the hand-written JSON of a date is json.Marshal of its
// string, for every day of a few years (leap days included) and the zero Date.
func TestADateIsWrittenAsItAlwaysWas(t *testing.T) {
	for d := domain.NewDate(1999, 12, 25); d.Before(domain.NewDate(2033, 1, 5)); d = d.AddDays(1) {
		got, err := json.Marshal(d)
		require.NoError(t, err)
		want, _ := json.Marshal(d.String())
		require.Equal(t, string(want), string(got))
	}
	got, err := json.Marshal(domain.Date{})
	require.NoError(t, err)
	assert.Equal(t, `""`, string(got))
	got, err = json.Marshal(map[domain.Date]int{domain.NewDate(2031, 2, 3): 1})
	require.NoError(t, err)
	assert.Equal(t, `{"2031-02-03":1}`, string(got), "as a map key too")
}
