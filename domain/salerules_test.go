package domain

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ptr[T any](v T) *T { return &v }

var (
	today = NewDate(2027, 3, 1)
	// aStay is a 3-night stay 10 days ahead.
	aStay = Stay{CheckIn: today.AddDays(10), CheckOut: today.AddDays(13)}
)

func sale(channel, agent string, stay Stay) SaleContext {
	return SaleContext{HotelID: "h1", RoomTypeID: "dbl", ChannelID: channel, AgentID: agent, Stay: stay, Today: today}
}

func refusedBy(t *testing.T, v SaleVerdict) SaleRule {
	t.Helper()
	require.False(t, v.Allowed, "the stay should be refused: %+v", v.Findings)
	require.NotNil(t, v.Refusal)
	return v.Refusal.Rule
}

func TestStopSellByHotelClosesEveryChannelAndByChannelOnlyItsOwn(t *testing.T) {
	byHotel := SaleRule{ID: 1, Kind: RuleStopSell, HotelID: "h1", From: aStay.CheckIn.AddDays(2), To: aStay.CheckOut, Reason: "event"}
	byChannel := SaleRule{ID: 2, Kind: RuleStopSell, HotelID: "h1", ChannelID: "A", From: aStay.CheckIn, To: aStay.CheckIn.AddDays(1), Reason: "full"}
	byRoomType := SaleRule{ID: 3, Kind: RuleStopSell, HotelID: "h1", RoomTypeID: "twn", From: aStay.CheckIn, To: aStay.CheckOut, Reason: "maintenance"}

	for _, c := range []SaleContext{sale("", "", aStay), sale("A", "", aStay), sale("B", "", aStay)} {
		assert.Equal(t, int64(1), refusedBy(t, EvaluateSale([]SaleRule{byHotel}, c)).ID, "the hotel's stop-sell closes channel %q", c.ChannelID)
	}
	assert.Equal(t, int64(2), refusedBy(t, EvaluateSale([]SaleRule{byChannel}, sale("A", "", aStay))).ID)
	assert.True(t, EvaluateSale([]SaleRule{byChannel}, sale("B", "", aStay)).Allowed, "channel A's stop-sell leaves B open")
	assert.True(t, EvaluateSale([]SaleRule{byChannel}, sale("", "", aStay)).Allowed, "and direct sales")
	assert.True(t, EvaluateSale([]SaleRule{byRoomType}, sale("", "", aStay)).Allowed, "another room type's stop-sell")

	// Half-open: a stop-sell from the check-out date on, or ending on the check-in date, closes no night.
	after := SaleRule{ID: 4, Kind: RuleStopSell, HotelID: "h1", From: aStay.CheckOut, To: aStay.CheckOut.AddDays(5), Reason: "other"}
	before := SaleRule{ID: 5, Kind: RuleStopSell, HotelID: "h1", From: aStay.CheckIn.AddDays(-5), To: aStay.CheckIn, Reason: "other"}
	assert.True(t, EvaluateSale([]SaleRule{after, before}, sale("", "", aStay)).Allowed)
	// Another hotel's rules never apply.
	other := byHotel
	other.HotelID = "h2"
	assert.True(t, EvaluateSale([]SaleRule{other}, sale("", "", aStay)).Allowed)
}

func TestBookingWindowEdgesInDays(t *testing.T) {
	window := SaleRule{ID: 1, Kind: RuleBookingWindow, HotelID: "h1", MinAdvance: ptr(2), MaxAdvance: ptr(30)}
	stayAt := func(ahead int) Stay { return Stay{CheckIn: today.AddDays(ahead), CheckOut: today.AddDays(ahead + 1)} }
	for ahead, ok := range map[int]bool{1: false, 2: true, 30: true, 31: false} {
		assert.Equal(t, ok, EvaluateSale([]SaleRule{window}, sale("", "", stayAt(ahead))).Allowed, "%d days ahead", ahead)
	}
	// Channels get 1..365 by default; direct sales no window at all.
	assert.False(t, EvaluateSale(nil, sale("A", "", stayAt(0))).Allowed, "same day through a channel")
	assert.True(t, EvaluateSale(nil, sale("A", "", stayAt(1))).Allowed)
	assert.True(t, EvaluateSale(nil, sale("A", "", stayAt(365))).Allowed)
	v := EvaluateSale(nil, sale("", "ag1", stayAt(366)))
	assert.True(t, refusedBy(t, v).ID == 0 && v.Refusal.Default, "the default window refuses 366 days ahead for an agent")
	assert.True(t, EvaluateSale(nil, sale("", "", stayAt(0))).Allowed, "direct sales have no default window")
}

func TestLengthOfStayEdgesAndDiscounts(t *testing.T) {
	los := SaleRule{ID: 1, Kind: RuleLengthOfStay, HotelID: "h1", MinLOS: ptr(2), MaxLOS: ptr(7),
		DiscountFrom: ptr(5), DiscountPercent: ptr(10)}
	stayOf := func(n int) Stay { return Stay{CheckIn: today.AddDays(10), CheckOut: today.AddDays(10 + n)} }
	for n, ok := range map[int]bool{1: false, 2: true, 7: true, 8: false} {
		assert.Equal(t, ok, EvaluateSale([]SaleRule{los}, sale("", "", stayOf(n))).Allowed, "%d nights", n)
	}
	assert.Nil(t, EvaluateSale([]SaleRule{los}, sale("", "", stayOf(4))).Discount, "no discount below 5 nights")
	d := EvaluateSale([]SaleRule{los}, sale("", "", stayOf(5))).Discount
	require.NotNil(t, d)
	price := Price{Currency: "EUR", Total: 50_005, Nights: []NightRate{{Amount: 10_001}, {Amount: 10_001}, {Amount: 10_001}, {Amount: 10_001}, {Amount: 10_001}}}
	got, off := d.Apply(price, 1)
	assert.Equal(t, int64(5_000), off, "10%% of each night of 10001, rounded down")
	assert.Equal(t, int64(45_005), got.Total)
	assert.Equal(t, int64(9_001), got.Nights[0].Amount)
	assert.Equal(t, int64(10_001), price.Nights[0].Amount, "the price passed in is left as it was")

	perNight := SaleRule{ID: 2, Kind: RuleLengthOfStay, HotelID: "h1", MinLOS: ptr(1), DiscountFrom: ptr(3), DiscountAmount: ptr(int64(1_500))}
	got, off = perNight.Apply(Price{Total: 8_000 + 2_000 + 8_000, Nights: []NightRate{{Amount: 8_000}, {Amount: 2_000}, {Amount: 8_000}}}, 2)
	assert.Equal(t, int64(3_000+1_998+3_000), off, "1500 per room and night for 2 rooms, never making a room's night free")
	assert.Equal(t, int64(5_000+2+5_000), got.Total)
	var sum int64
	for _, n := range got.Nights {
		sum += n.Amount
	}
	assert.Equal(t, got.Total, sum, "the nights add up to the total")

	// Effective dates: a rule for check-ins from the 15th does not apply to the 11th.
	later := SaleRule{ID: 3, Kind: RuleLengthOfStay, HotelID: "h1", MinLOS: ptr(5), From: today.AddDays(14)}
	assert.True(t, EvaluateSale([]SaleRule{later}, sale("", "", stayOf(2))).Allowed)
	assert.False(t, EvaluateSale([]SaleRule{later}, sale("", "", Stay{CheckIn: today.AddDays(14), CheckOut: today.AddDays(16)})).Allowed)
}

func TestPriorityChannelThenAgentThenGlobal(t *testing.T) {
	global := SaleRule{ID: 1, Kind: RuleSaleRange, HotelID: "h1", From: today, To: today.AddDays(100)}
	agent := SaleRule{ID: 2, Kind: RuleSaleRange, HotelID: "h1", AgentID: "ag1", From: today.AddDays(20), To: today.AddDays(200)}
	channel := SaleRule{ID: 3, Kind: RuleSaleRange, HotelID: "h1", ChannelID: "A", From: today, To: today.AddDays(15)}
	rules := []SaleRule{global, agent, channel}
	late := Stay{CheckIn: today.AddDays(150), CheckOut: today.AddDays(152)}

	// The channel's rule wins over the agent's for the agent selling through that channel...
	v := EvaluateSale(rules, sale("A", "ag1", aStay))
	assert.True(t, v.Allowed, "%+v", v.Findings)
	assert.Equal(t, []int64{3, 1}, ruleIDs(v, RuleSaleRange), "the channel's rule, narrowed by the global one")
	// ...the agent's over the global one elsewhere; without override both must allow the stay.
	assert.Equal(t, int64(2), refusedBy(t, EvaluateSale(rules, sale("B", "ag1", aStay))).ID, "the agent's range starts on day 20")
	assert.Equal(t, int64(1), refusedBy(t, EvaluateSale(rules, sale("B", "ag1", late))).ID, "the global range ends on day 100")

	agent.OverridesGlobal = true
	v = EvaluateSale([]SaleRule{global, agent}, sale("B", "ag1", late))
	assert.True(t, v.Allowed, "an overriding agent rule replaces the global range")
	assert.Equal(t, []int64{2}, ruleIDs(v, RuleSaleRange))

	// A room type's rule is more specific than the hotel's at the same level.
	roomType := SaleRule{ID: 4, Kind: RuleBookingWindow, HotelID: "h1", RoomTypeID: "dbl", MinAdvance: ptr(0), MaxAdvance: ptr(5)}
	hotel := SaleRule{ID: 5, Kind: RuleBookingWindow, HotelID: "h1", MinAdvance: ptr(0), MaxAdvance: ptr(300)}
	assert.Equal(t, int64(4), refusedBy(t, EvaluateSale([]SaleRule{roomType, hotel}, sale("", "", aStay))).ID)
}

func TestEveryRuleTogetherFirstRefusalNamed(t *testing.T) {
	rules := []SaleRule{
		{ID: 1, Kind: RuleLengthOfStay, HotelID: "h1", MinLOS: ptr(4)},
		{ID: 2, Kind: RuleStopSell, HotelID: "h1", ChannelID: "A", From: aStay.CheckIn, To: aStay.CheckOut, Reason: "full"},
		{ID: 3, Kind: RuleSaleRange, HotelID: "h1", From: today, To: today.AddDays(90)},
	}
	v := EvaluateSale(rules, sale("A", "", aStay))
	assert.Equal(t, int64(2), refusedBy(t, v).ID, "the stop-sell is judged first")
	assert.Len(t, v.Findings, 4, "stop-sell, sale range, default window, length of stay: every rule that applies is listed")
	assert.Equal(t, int64(1), refusedBy(t, EvaluateSale(rules, sale("B", "", aStay))).ID)
}

func TestSaleRuleValidation(t *testing.T) {
	valid := []SaleRule{
		{Kind: RuleStopSell, HotelID: "h1", From: today, To: today.AddDays(1), Reason: "event"},
		{Kind: RuleSaleRange, HotelID: "h1", From: today, To: today},
		{Kind: RuleBookingWindow, HotelID: "h1", AgentID: "ag", MinAdvance: ptr(0), MaxAdvance: ptr(0)},
		{Kind: RuleLengthOfStay, HotelID: "h1", MinLOS: ptr(1), DiscountFrom: ptr(7), DiscountAmount: ptr(int64(100))},
	}
	for _, r := range valid {
		assert.NoError(t, r.Validate(), "%+v", r)
	}
	invalid := []SaleRule{
		{Kind: "blackout", HotelID: "h1"},
		{Kind: RuleStopSell, HotelID: "h1", From: today, To: today, Reason: "event"},
		{Kind: RuleStopSell, HotelID: "h1", From: today, To: today.AddDays(1), Reason: "because"},
		{Kind: RuleStopSell, HotelID: "h1", AgentID: "ag", From: today, To: today.AddDays(1), Reason: "full"},
		{Kind: RuleSaleRange, HotelID: "h1", From: today},
		{Kind: RuleSaleRange, HotelID: "h1", From: today, To: today.AddDays(-1)},
		{Kind: RuleSaleRange, HotelID: "h1", ChannelID: "A", AgentID: "ag", From: today, To: today},
		{Kind: RuleSaleRange, HotelID: "h1", From: today, To: today, OverridesGlobal: true},
		{Kind: RuleBookingWindow, HotelID: "h1", MinAdvance: ptr(5), MaxAdvance: ptr(4)},
		{Kind: RuleBookingWindow, HotelID: "h1", MinAdvance: ptr(-1), MaxAdvance: ptr(4)},
		{Kind: RuleLengthOfStay, HotelID: "h1", MinLOS: ptr(0)},
		{Kind: RuleLengthOfStay, HotelID: "h1", MinLOS: ptr(3), MaxLOS: ptr(2)},
		{Kind: RuleLengthOfStay, HotelID: "h1", MinLOS: ptr(1), DiscountFrom: ptr(3)},
		{Kind: RuleLengthOfStay, HotelID: "h1", MinLOS: ptr(1), DiscountFrom: ptr(3), DiscountPercent: ptr(10), DiscountAmount: ptr(int64(5))},
		{Kind: RuleLengthOfStay, HotelID: "h1", MinLOS: ptr(1), DiscountFrom: ptr(3), DiscountPercent: ptr(100)},
		{Kind: RuleStopSell, HotelID: "h1", From: today, To: today.AddDays(1), Reason: "full", MinLOS: ptr(0)},
		{Kind: RuleSaleRange, HotelID: "h1", From: today, To: today, MinAdvance: ptr(-1)},
		{Kind: RuleSaleRange, HotelID: "h1", From: today, To: today, DiscountPercent: ptr(0)},
		{Kind: RuleBookingWindow, HotelID: "h1", MinAdvance: ptr(0), MaxAdvance: ptr(1), From: today},
		{Kind: RuleBookingWindow, HotelID: "bad id", MinAdvance: ptr(0), MaxAdvance: ptr(1)},
	}
	for _, r := range invalid {
		assert.ErrorIs(t, r.Validate(), ErrInvalid, "%+v", r)
	}
}

func ruleIDs(v SaleVerdict, kind RuleKind) []int64 {
	var ids []int64
	for _, f := range v.Findings {
		if f.Rule.Kind == kind {
			ids = append(ids, f.Rule.ID)
		}
	}
	return ids
}
