package domain

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func minStay(n int) RestrictionBounds { return RestrictionBounds{MinStay: ptr(n)} }

func TestARestrictionSetMergesIntoTheRuleThere(t *testing.T) {
	set := RestrictionSet{From: june, To: june.AddDays(3), RestrictionBounds: minStay(3)}
	scope := set.Scope(RuleStayThrough, "h1", "cm")
	r, err := set.Apply(RuleStayThrough, nil, scope)
	require.NoError(t, err)
	assert.Equal(t, 3, *r.MinLOS)
	assert.Nil(t, r.MaxLOS)

	old := &SaleRule{ID: 9, Kind: RuleStayThrough, HotelID: "h1", MinLOS: ptr(2), MaxLOS: ptr(7), SetBy: "x"}
	r, err = set.Apply(RuleStayThrough, old, scope)
	require.NoError(t, err)
	assert.Equal(t, []int{3, 7}, []int{*r.MinLOS, *r.MaxLOS}, "the maximum left out stays")
	assert.Equal(t, int64(0), r.ID)
	assert.Equal(t, "cm", r.SetBy)

	clear := RestrictionSet{From: june, To: june.AddDays(3), Clear: []string{"minStay"}}
	r, err = clear.Apply(RuleStayThrough, old, scope)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 7}, []int{*r.MinLOS, *r.MaxLOS})
	clear.Clear = []string{"minStay", "maxStay"}
	r, err = clear.Apply(RuleStayThrough, old, scope)
	require.NoError(t, err)
	assert.Nil(t, r, "both cleared: no rule")

	_, err = RestrictionSet{RestrictionBounds: RestrictionBounds{MaxStay: ptr(1)}}.Apply(RuleStayThrough, old, scope)
	assert.ErrorIs(t, err, ErrInvalid, "a maximum below the minimum there")

	no := false
	r, err = RestrictionSet{Closed: &no}.Apply(RuleStopSell, &SaleRule{Kind: RuleStopSell, Reason: "event"}, scope)
	require.NoError(t, err)
	assert.Nil(t, r)
	yes := true
	r, err = RestrictionSet{Closed: &yes}.Apply(RuleStopSell, nil, RestrictionSet{}.Scope(RuleStopSell, "h1", "cm"))
	require.NoError(t, err)
	assert.Equal(t, "other", r.Reason)
	r, err = RestrictionSet{RestrictionBounds: RestrictionBounds{MaxAdvance: ptr(10)}}.Apply(RuleArrivalAdvance, nil, scope)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 10}, []int{*r.MinAdvance, *r.MaxAdvance})
}

func TestARestrictionSetsShape(t *testing.T) {
	ok := RestrictionSet{From: june, To: june.AddDays(1), RestrictionBounds: minStay(2), Weekdays: []string{"fri", "sat"}}
	assert.NoError(t, ok.Validate())
	assert.Equal(t, []RuleKind{RuleStayThrough}, ok.Kinds())
	for name, s := range map[string]RestrictionSet{
		"nothing given":     {From: june, To: june.AddDays(1)},
		"no dates":          {RestrictionBounds: minStay(2)},
		"too many dates":    {From: june, To: june.AddDays(MaxRestrictionNights + 1), RestrictionBounds: minStay(2)},
		"a bad weekday":     {From: june, To: june.AddDays(1), RestrictionBounds: minStay(2), Weekdays: []string{"friday"}},
		"given and cleared": {From: june, To: june.AddDays(1), RestrictionBounds: minStay(2), Clear: []string{"minStay"}},
		"clear unknown":     {From: june, To: june.AddDays(1), Clear: []string{"closed"}},
		"a stay of 0":       {From: june, To: june.AddDays(1), RestrictionBounds: minStay(0)},
	} {
		assert.ErrorIs(t, s.Validate(), ErrInvalid, name)
	}
	assert.True(t, ok.OnDate(NewDate(2030, 6, 14)), "a Friday")
	assert.False(t, ok.OnDate(NewDate(2030, 6, 13)), "a Thursday")
}

func TestTheRestrictionCalendarShowsThePlansOwnAndEveryPlansRules(t *testing.T) {
	rules := []SaleRule{
		{ID: 1, Kind: RuleStopSell, HotelID: "h1", RatePlan: "NR", Reason: "other", From: june, To: june.AddDays(1)},
		{ID: 2, Kind: RuleStayThrough, HotelID: "h1", From: june, To: june.AddDays(2), MinLOS: ptr(2)},
		{ID: 3, Kind: RuleStayThrough, HotelID: "h1", RoomTypeID: "dbl", From: june, To: june.AddDays(1), MinLOS: ptr(3), MaxLOS: ptr(9)},
		{ID: 4, Kind: RuleLengthOfStay, HotelID: "h1", MinLOS: ptr(4)},
		{ID: 5, Kind: RuleLengthOfStay, HotelID: "h1", RatePlan: "NR", MinLOS: ptr(5), From: june.AddDays(1), To: june.AddDays(2)},
		{ID: 6, Kind: RuleClosedToArrival, HotelID: "h1", ChannelID: "ota", From: june, To: june.AddDays(2)},
	}
	nr := RestrictionCalendar(rules, "h1", "dbl", "NR", june, june.AddDays(3))
	every := RestrictionCalendar(rules, "h1", "dbl", "", june, june.AddDays(3))
	require.Len(t, nr, 3)
	assert.True(t, nr[0].Closed)
	assert.False(t, every[0].Closed)
	assert.Equal(t, []int{3, 9}, []int{*nr[0].MinStay, *nr[0].MaxStay}, "the tighter bounds of the two")
	assert.Equal(t, 2, *nr[1].MinStay)
	assert.Nil(t, nr[2].MinStay)
	assert.Equal(t, []int{4, 5, 4}, []int{*nr[0].MinStayArrival, *nr[1].MinStayArrival, *nr[2].MinStayArrival})
	assert.Equal(t, 4, *every[1].MinStayArrival)
	assert.False(t, nr[0].ClosedToArrival, "a channel's rule is not in it")
}
