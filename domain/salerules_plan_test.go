package domain

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Rules narrowed to a rate plan (issue 35): a plan's rule applies to that plan's sales only, a
// rule naming no plan to every plan, and a sale naming no plan is a sale of the default plan.

func soldAs(rules []SaleRule, plan string, stay Stay) SaleVerdict {
	return EvaluateSale(rules, SaleContext{HotelID: "h1", RoomTypeID: "dbl", RatePlan: plan, Stay: stay,
		Today: june.AddDays(-30)})
}

func TestAPlansRuleRefusesThatPlanOnly(t *testing.T) {
	stay := stayOf(june, 2)
	for _, kind := range []SaleRule{
		{ID: 1, Kind: RuleStopSell, Reason: "event", From: june, To: june.AddDays(1)},
		{ID: 2, Kind: RuleClosedToArrival, From: june, To: june.AddDays(1)},
		{ID: 3, Kind: RuleClosedToDeparture, From: june.AddDays(2), To: june.AddDays(3)},
		{ID: 4, Kind: RuleStayThrough, From: june, To: june.AddDays(1), MinLOS: ptr(3)},
		{ID: 5, Kind: RuleArrivalAdvance, From: june, To: june.AddDays(1), MinAdvance: ptr(40), MaxAdvance: ptr(60)},
		{ID: 6, Kind: RuleLengthOfStay, MinLOS: ptr(3)},
		{ID: 7, Kind: RuleSaleRange, From: june.AddDays(5), To: june.AddDays(9)},
		{ID: 8, Kind: RuleBookingWindow, MinAdvance: ptr(40), MaxAdvance: ptr(60)},
	} {
		r := kind
		r.HotelID, r.RatePlan = "h1", "NR"
		assert.NoError(t, r.Validate(), kind.Kind)
		assert.False(t, soldAs([]SaleRule{r}, "NR", stay).Allowed, "%s of NR refuses NR", r.Kind)
		assert.True(t, soldAs([]SaleRule{r}, "FLEX", stay).Allowed, "%s of NR leaves FLEX alone", r.Kind)
		assert.True(t, soldAs([]SaleRule{r}, "", stay).Allowed, "%s of NR leaves a sale naming no plan (BAR) alone", r.Kind)

		r.RatePlan = ""
		for _, plan := range []string{"NR", "FLEX", "", DefaultRatePlan} {
			assert.False(t, soldAs([]SaleRule{r}, plan, stay).Allowed, "%s of every plan refuses %q", r.Kind, plan)
		}
		r.RatePlan = DefaultRatePlan
		assert.False(t, soldAs([]SaleRule{r}, "", stay).Allowed, "%s of BAR refuses a sale naming no plan", r.Kind)
		assert.True(t, soldAs([]SaleRule{r}, "NR", stay).Allowed, "%s of BAR leaves NR alone", r.Kind)
	}
}

// TestAPlansRuleIsMoreSpecificThanTheHotels: a plan's length of stay replaces the hotel's for
// that plan (within the global rules a plan's is over a room type's), and a channel's is still over both.
func TestAPlansRuleIsMoreSpecificThanTheHotels(t *testing.T) {
	hotel := SaleRule{ID: 1, Kind: RuleLengthOfStay, HotelID: "h1", RoomTypeID: "dbl", MinLOS: ptr(3)}
	plan := SaleRule{ID: 2, Kind: RuleLengthOfStay, HotelID: "h1", RatePlan: "NR", MinLOS: ptr(1)}
	rules := []SaleRule{plan, hotel}
	assert.True(t, soldAs(rules, "NR", stayOf(june, 1)).Allowed, "NR's own minimum applies to NR")
	assert.False(t, soldAs(rules, "FLEX", stayOf(june, 1)).Allowed, "the room type's minimum applies to FLEX")
	channel := SaleRule{ID: 3, Kind: RuleLengthOfStay, HotelID: "h1", ChannelID: "ota", MinLOS: ptr(2), OverridesGlobal: true}
	v := EvaluateSale(append(rules, channel), SaleContext{HotelID: "h1", RoomTypeID: "dbl", RatePlan: "NR", ChannelID: "ota",
		Stay: stayOf(june, 1), Today: june.AddDays(-30)})
	assert.False(t, v.Allowed)
	assert.Equal(t, int64(3), v.Refusal.Rule.ID)
}

// TestStopSoldIsAStopSellOfEveryPlan: the stock view's stop-sell closes every sale, so a plan's
// does not count there.
func TestStopSoldIsAStopSellOfEveryPlan(t *testing.T) {
	r := SaleRule{ID: 1, Kind: RuleStopSell, HotelID: "h1", RatePlan: "NR", Reason: "event", From: june, To: june.AddDays(1)}
	assert.Nil(t, StopSold([]SaleRule{r}, "h1", "dbl", june))
	r.RatePlan = ""
	assert.NotNil(t, StopSold([]SaleRule{r}, "h1", "dbl", june))
}

func TestARulesPlanIsAnID(t *testing.T) {
	r := SaleRule{Kind: RuleClosedToArrival, HotelID: "h1", RatePlan: "bad plan", From: june, To: june.AddDays(1)}
	assert.ErrorIs(t, r.Validate(), ErrInvalid)
}
