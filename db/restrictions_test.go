package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestRestrictionsRefuseInTheReservationOnTheHotelsCalendar: closed to arrival, closed to
// departure, a minimum stay through a night and how far ahead some arrival dates are booked, each
// refusing a hold at its edge and naming itself, in hotels far east and far west of UTC (at any
// hour one of them is on another date than UTC, which the arrival_advance rule's edge tells apart). The
// control: a hotel with no rules sells every one of the stays.
func TestRestrictionsRefuseInTheReservationOnTheHotelsCalendar(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	for _, h := range []struct {
		id, tz string
		rules  bool
	}{{"kiritimati", "Pacific/Kiritimati", true}, {"pago", "Pacific/Pago_Pago", true}, {"control", "Pacific/Kiritimati", false}} {
		loc, err := time.LoadLocation(h.tz)
		require.NoError(t, err)
		today := domain.DateOf(time.Now(), loc)
		require.NoError(t, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: h.id, RoomTypeID: "double", TimeZone: h.tz,
			From: today, To: today.AddDays(20), TotalRooms: 50, Rate: &testsuite.TestRate}))
		if h.rules {
			createRule(t, d, domain.SaleRule{Kind: domain.RuleClosedToArrival, HotelID: h.id, From: today.AddDays(3), To: today.AddDays(4)})
			createRule(t, d, domain.SaleRule{Kind: domain.RuleClosedToDeparture, HotelID: h.id, From: today.AddDays(6), To: today.AddDays(7)})
			createRule(t, d, domain.SaleRule{Kind: domain.RuleStayThrough, HotelID: h.id, From: today.AddDays(8), To: today.AddDays(9),
				MinLOS: intp(3)})
			createRule(t, d, domain.SaleRule{Kind: domain.RuleArrivalAdvance, HotelID: h.id, From: today.AddDays(10),
				To: today.AddDays(12), MinAdvance: intp(11), MaxAdvance: intp(30)})
		}
		for _, c := range []struct {
			arrive, nights int
			refusal        string // empty: sold
		}{
			{2, 1, ""},
			{3, 1, "closed to arrival on " + today.AddDays(3).String()},
			{4, 1, ""},
			{5, 1, "closed to departure on " + today.AddDays(6).String()},
			{5, 2, ""},
			{7, 2, "stays through the night of " + today.AddDays(8).String() + " are of at least 3 nights"},
			{7, 3, ""},
			{10, 1, "check-in on " + today.AddDays(10).String() + " 11 to 30 days ahead (this one is 10 days ahead)"},
			{11, 1, ""},
		} {
			in := today.AddDays(c.arrive)
			p := holdParams("g", h.id+in.String()+"-"+string(rune('0'+c.nights)), domain.Stay{CheckIn: in, CheckOut: in.AddDays(c.nights)}, 1)
			p.Request.HotelID = h.id
			p.BookingID = domain.BookingID(idKey, "g", "g", p.IdempotencyKey)
			b, err := d.Store.Reserve(ctx, p)
			require.NoError(t, err)
			if c.refusal == "" || !h.rules {
				assert.Equal(t, domain.StatusHold, b.Status, "%s: %d nights from %s: %s", h.id, c.nights, in, b.Refusal)
				continue
			}
			assert.Equal(t, domain.StatusRejected, b.Status, "%s: %d nights from %s", h.id, c.nights, in)
			assert.Contains(t, b.Refusal, c.refusal, "%s: %d nights from %s", h.id, c.nights, in)
		}
	}
	d.AssertInventoryMatchesBookings(t)
}

// TestPastRestrictionsExpireAsStopSellsDo: a restriction whose last date is over at the hotel can
// meet no stay sold from now on; the hourly expiry marks it expired, so holds stop reading it. One
// still current of each kind is left.
func TestPastRestrictionsExpireAsStopSellsDo(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	today := domain.DateOf(time.Now(), time.UTC)
	dated := func(kind domain.RuleKind, from, to domain.Date) domain.SaleRule {
		r := domain.SaleRule{Kind: kind, HotelID: "h1", From: from, To: to}
		switch kind {
		case domain.RuleStayThrough:
			r.MinLOS = intp(2)
		case domain.RuleArrivalAdvance:
			r.MinAdvance, r.MaxAdvance = intp(1), intp(9)
		}
		return r
	}
	kinds := []domain.RuleKind{domain.RuleClosedToArrival, domain.RuleClosedToDeparture, domain.RuleStayThrough,
		domain.RuleArrivalAdvance}
	current := map[int64]bool{}
	for _, kind := range kinds {
		createRule(t, d, dated(kind, today.AddDays(-5), today))
		current[createRule(t, d, dated(kind, today, today.AddDays(1))).ID] = true
	}
	n, err := d.Store.ExpireStopSells(ctx)
	require.NoError(t, err)
	assert.Equal(t, len(kinds), n)
	active, err := d.Store.SaleRules(ctx, db.SaleRuleFilter{HotelID: "h1"})
	require.NoError(t, err)
	require.Len(t, active, len(kinds))
	for _, r := range active {
		assert.True(t, current[r.ID], "%s rule %d is current", r.Kind, r.ID)
	}
}
