package domain

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The restrictions channels speak (issue 35, docs/rates-and-restrictions.md), each at its edges:
// the stay just inside its dates is refused (or bounded), the one just outside is not, and the
// same stays with no rule (the control) are all sold.

var june = NewDate(2030, 6, 10)

func stayOf(checkIn Date, nights int) Stay {
	return Stay{CheckIn: checkIn, CheckOut: checkIn.AddDays(nights)}
}

// sold judges a stay by rules at hotel h1, room type dbl, booked 30 days ahead.
func sold(rules []SaleRule, stay Stay) SaleVerdict {
	return EvaluateSale(rules, SaleContext{HotelID: "h1", RoomTypeID: "dbl", Stay: stay, Today: june.AddDays(-30)})
}

func TestEachRestrictionAtItsEdges(t *testing.T) {
	// closed to arrival and departure on 10 and 11 June
	cta := SaleRule{ID: 1, Kind: RuleClosedToArrival, HotelID: "h1", From: june, To: june.AddDays(2)}
	ctd := SaleRule{ID: 2, Kind: RuleClosedToDeparture, HotelID: "h1", From: june, To: june.AddDays(2)}
	// stays with a night from 10 to 11 June take 3 to 5 nights
	through := SaleRule{ID: 3, Kind: RuleStayThrough, HotelID: "h1", From: june, To: june.AddDays(2), MinLOS: ptr(3), MaxLOS: ptr(5)}
	// arrivals on 10 and 11 June book 40 to 60 days ahead (these stays are booked 30 ahead, or 29, 31)
	advance := SaleRule{ID: 4, Kind: RuleArrivalAdvance, HotelID: "h1", From: june, To: june.AddDays(2),
		MinAdvance: ptr(40), MaxAdvance: ptr(60)}
	cases := []struct {
		name    string
		rule    SaleRule
		stay    Stay
		refused bool
	}{
		{"arriving the day before the closed dates", cta, stayOf(june.AddDays(-1), 1), false},
		{"arriving on the first closed date", cta, stayOf(june, 1), true},
		{"arriving on the last closed date", cta, stayOf(june.AddDays(1), 1), true},
		{"arriving the day after", cta, stayOf(june.AddDays(2), 1), false},
		{"staying through the closed arrival dates", cta, stayOf(june.AddDays(-1), 4), false},
		{"leaving the day before the closed dates", ctd, stayOf(june.AddDays(-2), 1), false},
		{"leaving on the first closed date", ctd, stayOf(june.AddDays(-1), 1), true},
		{"leaving on the last closed date", ctd, stayOf(june.AddDays(-1), 2), true},
		{"leaving the day after", ctd, stayOf(june.AddDays(-1), 3), false},
		{"two nights through: too short", through, stayOf(june.AddDays(-1), 2), true},
		{"three nights through", through, stayOf(june.AddDays(-1), 3), false},
		{"five nights through", through, stayOf(june.AddDays(-4), 5), false},
		{"six nights through: too long", through, stayOf(june.AddDays(-4), 6), true},
		{"two nights ending before the range", through, stayOf(june.AddDays(-2), 2), false},
		{"one night starting after the range", through, stayOf(june.AddDays(2), 1), false},
		{"one night on the range's last night", through, stayOf(june.AddDays(1), 1), true},
		{"arriving on an arrival_advance rule's first date, 30 days ahead", advance, stayOf(june, 1), true},
		{"arriving on its last date, 31 days ahead", advance, stayOf(june.AddDays(1), 1), true},
		{"arriving the day before it, 29 days ahead", advance, stayOf(june.AddDays(-1), 1), false},
		{"arriving on the day after its last date, 32 days ahead", advance, stayOf(june.AddDays(2), 1), false},
	}
	for _, c := range cases {
		v := sold([]SaleRule{c.rule}, c.stay)
		assert.Equal(t, !c.refused, v.Allowed, "%s (%s)", c.name, c.stay)
		if c.refused && assert.NotNil(t, v.Refusal, c.name) {
			assert.Equal(t, c.rule.ID, v.Refusal.Rule.ID, c.name)
		}
		assert.True(t, sold(nil, c.stay).Allowed, "control: %s with no rule", c.name)
	}
}

// TestARefusalNamesTheRestrictionAndItsDate: what explain and a refused hold say.
func TestARefusalNamesTheRestrictionAndItsDate(t *testing.T) {
	cta := SaleRule{ID: 7, Kind: RuleClosedToArrival, HotelID: "h1", From: june, To: june.AddDays(1)}
	v := sold([]SaleRule{cta}, stayOf(june, 2))
	assert.Equal(t, "sale rule 7 (closed_to_arrival): closed to arrival on 2030-06-10 (the dates [2030-06-10, 2030-06-11))",
		v.Refusal.Named())
	ctd := SaleRule{ID: 8, Kind: RuleClosedToDeparture, HotelID: "h1", From: june, To: june.AddDays(1)}
	v = sold([]SaleRule{ctd}, stayOf(june.AddDays(-2), 2))
	assert.Contains(t, v.Refusal.Named(), "closed to departure on 2030-06-10")
	through := SaleRule{ID: 9, Kind: RuleStayThrough, HotelID: "h1", From: june, To: june.AddDays(7), MinLOS: ptr(3)}
	v = sold([]SaleRule{through}, stayOf(june.AddDays(-1), 2))
	assert.Equal(t, "sale rule 9 (stay_through): stays through the night of 2030-06-10 are of at least 3 nights (this one has 2)",
		v.Refusal.Named())
	advance := SaleRule{ID: 10, Kind: RuleArrivalAdvance, HotelID: "h1", From: june, To: june.AddDays(7), MinAdvance: ptr(40),
		MaxAdvance: ptr(90)}
	v = sold([]SaleRule{advance}, stayOf(june, 1))
	assert.Equal(t, "sale rule 10 (arrival_advance): check-in on 2030-06-10 40 to 90 days ahead (this one is 30 days ahead)",
		v.Refusal.Named())
}

// TestRestrictionsNarrowedToAChannelOrRoomTypeAndAddedUp: every restriction covering a sale
// applies, the hotel's and a channel's alike (none is chosen over another, as stop-sells).
func TestRestrictionsNarrowedToAChannelOrRoomTypeAndAddedUp(t *testing.T) {
	agents := SaleRule{ID: 1, Kind: RuleClosedToArrival, HotelID: "h1", ChannelID: "A", From: june, To: june.AddDays(1)}
	suites := SaleRule{ID: 2, Kind: RuleStayThrough, HotelID: "h1", RoomTypeID: "suite", From: june, To: june.AddDays(1), MinLOS: ptr(4)}
	hotel := SaleRule{ID: 3, Kind: RuleStayThrough, HotelID: "h1", From: june, To: june.AddDays(1), MinLOS: ptr(2)}
	rules := []SaleRule{agents, suites, hotel}
	direct := sold(rules, stayOf(june, 2))
	assert.True(t, direct.Allowed, "direct, a double, two nights: only the hotel's rule covers it")
	through := EvaluateSale(rules, SaleContext{HotelID: "h1", RoomTypeID: "dbl", ChannelID: "A", Stay: stayOf(june, 2),
		Today: june.AddDays(-30)})
	assert.False(t, through.Allowed)
	assert.Equal(t, int64(1), through.Refusal.Rule.ID)
	suite := EvaluateSale(rules, SaleContext{HotelID: "h1", RoomTypeID: "suite", Stay: stayOf(june, 3), Today: june.AddDays(-30)})
	assert.False(t, suite.Allowed, "the suites' four nights and the hotel's two both apply")
	assert.Equal(t, int64(2), suite.Refusal.Rule.ID)
}

// TestAnEverydayBookingWindowWrittenLaterLeavesTheArrivalDatesOwn: an arrival_advance rule is a
// dated restriction, applied beside the booking window, never hidden by a newer one.
func TestAnEverydayBookingWindowWrittenLaterLeavesTheArrivalDatesOwn(t *testing.T) {
	dated := SaleRule{ID: 1, Kind: RuleArrivalAdvance, HotelID: "h1", From: june, To: june.AddDays(30), MinAdvance: ptr(30),
		MaxAdvance: ptr(365)}
	everyday := SaleRule{ID: 2, Kind: RuleBookingWindow, HotelID: "h1", MinAdvance: ptr(0), MaxAdvance: ptr(365)}
	v := EvaluateSale([]SaleRule{dated, everyday}, SaleContext{HotelID: "h1", RoomTypeID: "dbl", Stay: stayOf(june, 1),
		Today: june.AddDays(-5)})
	assert.False(t, v.Allowed)
	assert.Equal(t, int64(1), v.Refusal.Rule.ID)
	v = EvaluateSale([]SaleRule{dated, everyday}, SaleContext{HotelID: "h1", RoomTypeID: "dbl", Stay: stayOf(june.AddDays(30), 1),
		Today: june.AddDays(25)})
	assert.True(t, v.Allowed, "an arrival after its dates: the everyday window alone")
}

func TestRestrictionsAreValidated(t *testing.T) {
	for _, r := range []SaleRule{
		{Kind: RuleClosedToArrival, HotelID: "h1", From: june},
		{Kind: RuleClosedToArrival, HotelID: "h1", From: june, To: june},
		{Kind: RuleClosedToDeparture, HotelID: "h1", To: june},
		{Kind: RuleClosedToDeparture, HotelID: "h1", From: june, To: june.AddDays(1), MinLOS: ptr(2)},
		{Kind: RuleStayThrough, HotelID: "h1", From: june, To: june.AddDays(1)},
		{Kind: RuleStayThrough, HotelID: "h1", From: june, To: june.AddDays(1), MinLOS: ptr(3), MaxLOS: ptr(2)},
		{Kind: RuleStayThrough, HotelID: "h1", From: june, To: june.AddDays(1), MinLOS: ptr(1), DiscountFrom: ptr(2), DiscountPercent: ptr(5)},
		{Kind: RuleStayThrough, HotelID: "h1", MinLOS: ptr(2)},
		{Kind: RuleClosedToArrival, HotelID: "h1", From: june, To: june.AddDays(1), Reason: "full"},
		{Kind: RuleArrivalAdvance, HotelID: "h1", From: june, MinAdvance: ptr(0), MaxAdvance: ptr(7)},
		{Kind: RuleArrivalAdvance, HotelID: "h1", From: june, To: june.AddDays(1), MinAdvance: ptr(8), MaxAdvance: ptr(7)},
		{Kind: RuleBookingWindow, HotelID: "h1", From: june, To: june.AddDays(1), MinAdvance: ptr(0), MaxAdvance: ptr(7)},
	} {
		assert.ErrorIs(t, r.Validate(), ErrInvalid, "%+v", r)
	}
	for _, r := range []SaleRule{
		{Kind: RuleClosedToArrival, HotelID: "h1", AgentID: "ag", From: june, To: june.AddDays(1)},
		{Kind: RuleStayThrough, HotelID: "h1", From: june, To: june.AddDays(1), MinLOS: ptr(1), MaxLOS: ptr(7)},
		{Kind: RuleArrivalAdvance, HotelID: "h1", From: june, To: june.AddDays(1), MinAdvance: ptr(0), MaxAdvance: ptr(7)},
	} {
		assert.NoError(t, r.Validate(), "%+v", r)
	}
}
