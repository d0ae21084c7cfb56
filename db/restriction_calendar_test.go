package db_test

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// day is dec10 + n.
func day(n int) domain.Date { return dec10.AddDays(n) }

// spans lists a hotel's active rules of kind as "from..to=value", by date, with their ids.
func spans(t *testing.T, d *testsuite.Database, hotel string, kind domain.RuleKind) ([]string, []int64) {
	t.Helper()
	rules, err := d.Store.SaleRules(context.Background(), db.SaleRuleFilter{HotelID: hotel, Kind: kind})
	require.NoError(t, err)
	slices.SortFunc(rules, func(a, b domain.SaleRule) int {
		return cmp.Or(a.From.Time().Compare(b.From.Time()), cmp.Compare(a.RatePlan, b.RatePlan))
	})
	var out []string
	var ids []int64
	for _, r := range rules {
		v := ""
		switch {
		case r.MinLOS != nil:
			v = "=" + strconv.Itoa(*r.MinLOS)
			if r.MaxLOS != nil {
				v += "-" + strconv.Itoa(*r.MaxLOS)
			}
		case r.MinAdvance != nil:
			v = "=" + strconv.Itoa(*r.MinAdvance) + "-" + strconv.Itoa(*r.MaxAdvance)
		}
		out = append(out, offset(r.From)+".."+offset(r.To)+v+"@"+r.RatePlan)
		ids = append(ids, r.ID)
	}
	return out, ids
}

// offset is a rule's date as days from dec10, or "" for an open end.
func offset(d domain.Date) string {
	if d.IsZero() {
		return ""
	}
	return strconv.Itoa(dec10.DaysUntil(d))
}

func minStay(n int) domain.RestrictionBounds { return domain.RestrictionBounds{MinStay: intp(n)} }

func setRestrictions(t *testing.T, d *testsuite.Database, hotel string, sets ...domain.RestrictionSet) db.RestrictionsWritten {
	t.Helper()
	for _, s := range sets {
		require.NoError(t, s.Validate())
	}
	n, err := d.Store.SetRestrictions(context.Background(), hotel, "cm", sets)
	require.NoError(t, err)
	return n
}

// TestABulkWriteTrimsAndSplitsTheRulesOfItsScope: a minimum stay of 2 on [1, 10) set to 5 on
// [4, 6) leaves [1, 4) (the same rule) and [6, 10) at 2, and [4, 6) at 5; clearing it on [4, 6)
// leaves those dates without one; a rule of another scope (a plan's) is left as it was.
func TestABulkWriteTrimsAndSplitsTheRulesOfItsScope(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, day(20), 5)
	_, err := d.Store.PutRatePlan(context.Background(), flexible("NR", ""))
	require.NoError(t, err)
	first := createRule(t, d, domain.SaleRule{Kind: domain.RuleStayThrough, HotelID: "h1", From: day(1), To: day(10),
		MinLOS: intp(2)})
	createRule(t, d, domain.SaleRule{Kind: domain.RuleStayThrough, HotelID: "h1", RatePlan: "NR", From: day(1), To: day(10),
		MinLOS: intp(3)})

	n := setRestrictions(t, d, "h1", domain.RestrictionSet{From: day(4), To: day(6), RestrictionBounds: minStay(5)})
	assert.Equal(t, db.RestrictionsWritten{Written: 1, Split: 1}, n)
	got, ids := spans(t, d, "h1", domain.RuleStayThrough)
	assert.Equal(t, []string{"1..4=2@", "1..10=3@NR", "4..6=5@", "6..10=2@"}, got)
	assert.Equal(t, first.ID, ids[0], "the rule's first part keeps its id")

	// the maximum given alone keeps the minimum there; the range meets both parts and the middle
	n = setRestrictions(t, d, "h1", domain.RestrictionSet{From: day(3), To: day(7),
		RestrictionBounds: domain.RestrictionBounds{MaxStay: intp(8)}})
	assert.Equal(t, db.RestrictionsWritten{Written: 3, Trimmed: 2, Ended: 1}, n)
	got, _ = spans(t, d, "h1", domain.RuleStayThrough)
	assert.Equal(t, []string{"1..3=2@", "1..10=3@NR", "3..4=2-8@", "4..6=5-8@", "6..7=2-8@", "7..10=2@"}, got)

	n = setRestrictions(t, d, "h1", domain.RestrictionSet{From: day(4), To: day(6), Clear: []string{"minStay", "maxStay"}})
	assert.Equal(t, db.RestrictionsWritten{Ended: 1}, n)
	got, _ = spans(t, d, "h1", domain.RuleStayThrough)
	assert.Equal(t, []string{"1..3=2@", "1..10=3@NR", "3..4=2-8@", "6..7=2-8@", "7..10=2@"}, got)

	cal, err := d.Store.RestrictionCalendar(context.Background(), "h1", "double", "", day(3), day(5))
	require.NoError(t, err)
	require.Len(t, cal, 2, "every plan's row, and NR's (a rule names it)")
	assert.Equal(t, "", cal[0].RatePlan)
	assert.Equal(t, 2, *cal[0].Days[0].MinStay)
	assert.Nil(t, cal[0].Days[1].MinStay, "cleared")
	assert.Equal(t, "NR", cal[1].RatePlan)
	assert.Equal(t, 3, *cal[1].Days[1].MinStay, "NR's own")
}

// TestABulkWriteClosesAndOpensOnTheWeekdaysItNames: closed on Saturdays and Sundays of two weeks,
// then opened again on one Sunday; closed to arrival for a plan; a length of stay on arrival
// kept with its discount when only its minimum changes.
func TestABulkWriteClosesAndOpensOnTheWeekdaysItNames(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, day(20), 5)
	_, err := d.Store.PutRatePlan(context.Background(), flexible("NR", ""))
	require.NoError(t, err)
	yes, no := true, false
	// dec10 2030 is a Tuesday: the weekend days are day(4), day(5), day(11), day(12)
	setRestrictions(t, d, "h1", domain.RestrictionSet{RoomTypeID: "double", From: dec10, To: day(14),
		Weekdays: []string{"sat", "sun"}, Closed: &yes})
	got, _ := spans(t, d, "h1", domain.RuleStopSell)
	assert.Equal(t, []string{"4..6@", "11..13@"}, got)
	setRestrictions(t, d, "h1", domain.RestrictionSet{RoomTypeID: "double", From: day(5), To: day(6), Closed: &no},
		domain.RestrictionSet{RoomTypeID: "double", RatePlan: "NR", From: day(1), To: day(3), ClosedToArrival: &yes})
	got, _ = spans(t, d, "h1", domain.RuleStopSell)
	assert.Equal(t, []string{"4..5@", "11..13@"}, got)
	got, _ = spans(t, d, "h1", domain.RuleClosedToArrival)
	assert.Equal(t, []string{"1..3@NR"}, got)

	p := holdParams("c1", "k", domain.Stay{CheckIn: day(4), CheckOut: day(5)}, 1)
	b, err := d.Store.Reserve(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, b.Status)
	p = holdParams("c1", "k2", domain.Stay{CheckIn: day(1), CheckOut: day(2)}, 1)
	b, err = d.Store.Reserve(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusHold, b.Status, "NR's closed arrival leaves BAR's sale alone")

	pct := 10
	createRule(t, d, domain.SaleRule{Kind: domain.RuleLengthOfStay, HotelID: "h1", MinLOS: intp(2), DiscountFrom: intp(7),
		DiscountPercent: &pct})
	setRestrictions(t, d, "h1", domain.RestrictionSet{From: day(2), To: day(4),
		RestrictionBounds: domain.RestrictionBounds{MinStayArrival: intp(3)}})
	got, _ = spans(t, d, "h1", domain.RuleLengthOfStay)
	assert.Equal(t, []string{"..2=2@", "2..4=3@", "4..=2@"}, got, "open ended: before and after stay open")
	rules, err := d.Store.SaleRules(context.Background(), db.SaleRuleFilter{HotelID: "h1", Kind: domain.RuleLengthOfStay})
	require.NoError(t, err)
	require.Len(t, rules, 3)
	for _, r := range rules {
		assert.Equal(t, 10, *r.DiscountPercent, "the discount stays with every part")
	}
}

// TestABulkWriteIsAllOrNothing: an item naming a plan the hotel lacks, or setting a maximum below
// the minimum there, fails the request and writes none of the items before it.
func TestABulkWriteIsAllOrNothing(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, day(20), 5)
	createRule(t, d, domain.SaleRule{Kind: domain.RuleStayThrough, HotelID: "h1", From: day(1), To: day(10), MinLOS: intp(4)})
	yes := true
	good := domain.RestrictionSet{From: day(1), To: day(3), Closed: &yes, RestrictionBounds: minStay(2)}
	for _, c := range []struct {
		bad  domain.RestrictionSet
		want error
	}{
		{domain.RestrictionSet{RatePlan: "NOPE", From: day(1), To: day(2), Closed: &yes}, domain.ErrNotFound},
		{domain.RestrictionSet{RoomTypeID: "suite", From: day(1), To: day(2), Closed: &yes}, domain.ErrNotFound},
		{domain.RestrictionSet{From: day(5), To: day(6), RestrictionBounds: domain.RestrictionBounds{MaxStay: intp(2)}},
			domain.ErrInvalid},
	} {
		_, err := d.Store.SetRestrictions(context.Background(), "h1", "cm", []domain.RestrictionSet{good, c.bad})
		assert.ErrorIs(t, err, c.want)
		assert.Contains(t, err.Error(), "item 1")
		got, _ := spans(t, d, "h1", domain.RuleStayThrough)
		assert.Equal(t, []string{"1..10=4@"}, got, "nothing written")
		got, _ = spans(t, d, "h1", domain.RuleStopSell)
		assert.Empty(t, got)
	}
}
