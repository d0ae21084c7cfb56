package domain_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
)

func TestStayIsHalfOpen(t *testing.T) {
	s := domain.Stay{CheckIn: domain.NewDate(2030, 12, 10), CheckOut: domain.NewDate(2030, 12, 13)}
	assert.Equal(t, 3, s.Nights())
	assert.Equal(t, []domain.Date{domain.NewDate(2030, 12, 10), domain.NewDate(2030, 12, 11), domain.NewDate(2030, 12, 12)},
		s.NightDates(), "the check-out date is never a night")
	across := domain.Stay{CheckIn: domain.NewDate(2030, 12, 30), CheckOut: domain.NewDate(2031, 1, 2)}
	assert.Equal(t, 3, across.Nights())
}

func TestStayValidation(t *testing.T) {
	d := domain.NewDate(2030, 3, 30) // across a DST change in Europe: still whole days
	ok := domain.Stay{CheckIn: d, CheckOut: d.AddDays(2)}
	require.NoError(t, ok.Validate(30))
	for name, s := range map[string]domain.Stay{
		"zero":     {},
		"same day": {CheckIn: d, CheckOut: d},
		"reversed": {CheckIn: d, CheckOut: d.AddDays(-1)},
		"too long": {CheckIn: d, CheckOut: d.AddDays(31)},
	} {
		assert.ErrorIs(t, s.Validate(30), domain.ErrInvalid, name)
	}
	today := domain.NewDate(2030, 1, 1)
	assert.NoError(t, domain.Stay{CheckIn: today, CheckOut: today.AddDays(1)}.ValidateWindow(today, 365))
	assert.ErrorIs(t, domain.Stay{CheckIn: today.AddDays(-1), CheckOut: today}.ValidateWindow(today, 365), domain.ErrInvalid)
	assert.ErrorIs(t, domain.Stay{CheckIn: today.AddDays(366), CheckOut: today.AddDays(367)}.ValidateWindow(today, 365), domain.ErrInvalid)
}

func TestDateJSONAndLocalToday(t *testing.T) {
	var d domain.Date
	require.NoError(t, json.Unmarshal([]byte(`"2030-02-28"`), &d))
	assert.Equal(t, "2030-02-28", d.String())
	assert.ErrorIs(t, json.Unmarshal([]byte(`"2030-02-30"`), &d), domain.ErrInvalid)
	assert.ErrorIs(t, json.Unmarshal([]byte(`20300228`), &d), domain.ErrInvalid)

	// 23:30 UTC on Dec 31 is already Jan 1 in Budapest: "today" is the hotel's.
	instant := time.Date(2030, 12, 31, 23, 30, 0, 0, time.UTC)
	bud, err := time.LoadLocation("Europe/Budapest")
	require.NoError(t, err)
	assert.Equal(t, "2031-01-01", domain.DateOf(instant, bud).String())
	assert.Equal(t, "2030-12-31", domain.DateOf(instant, time.UTC).String())
}

func TestTransitions(t *testing.T) {
	assert.ElementsMatch(t, []domain.Status{domain.StatusHold, domain.StatusConfirmed, domain.StatusCompleted},
		domain.Sources(domain.StatusCancelled))
	assert.ElementsMatch(t, []domain.Status{domain.StatusConfirmed}, domain.Sources(domain.StatusCompleted), "checked in once confirmed")
	assert.ElementsMatch(t, []domain.Status{domain.StatusConfirmed}, domain.Sources(domain.StatusNoShow))
	assert.True(t, domain.StatusCompleted.HoldsInventory(), "a checked-in guest keeps the room")
	assert.False(t, domain.StatusNoShow.HoldsInventory())
	assert.ElementsMatch(t, []domain.Status{domain.StatusHold}, domain.Sources(domain.StatusExpired))
	assert.ElementsMatch(t, []domain.Status{domain.StatusHold, domain.StatusExpired}, domain.Sources(domain.StatusConfirmed))
	assert.True(t, domain.StatusConfirmed.HoldsInventory())
	assert.False(t, domain.StatusRefunding.HoldsInventory())
}

func TestBookingIDsAreKeyedHashes(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	id := domain.BookingID(key, "alice", "alice", "order-1")
	assert.Equal(t, id, domain.BookingID(key, "alice", "alice", "order-1"), "a retry finds the same booking")
	assert.Regexp(t, `^booking-[a-z2-7]{26}$`, id)
	assert.NotContains(t, id, "alice", "the id reveals nothing")
	assert.NotContains(t, id, "order", "the id reveals nothing")
	for _, other := range []string{
		domain.BookingID(key, "bob", "bob", "order-1"),      // the same key used by another customer
		domain.BookingID(key, "alice", "desk-7", "order-1"), // staff booking for alice with the same key
		domain.BookingID(key, "alice", "alice", "order-2"),
		domain.BookingID([]byte("another deployment's key........"), "alice", "alice", "order-1"),
	} {
		assert.NotEqual(t, id, other)
	}
	// The parts are length-prefixed, so moving characters between them changes the id.
	assert.NotEqual(t, domain.BookingID(key, "ab", "c", "k"), domain.BookingID(key, "a", "bc", "k"))
	assert.NoError(t, domain.ValidateIdempotencyKey("2f1c:retry-1"))
	assert.ErrorIs(t, domain.ValidateIdempotencyKey(""), domain.ErrInvalid)
}

func TestSubjects(t *testing.T) {
	for _, ok := range []string{"alice", "auth0|5f7c8ec7c33c6c004bbafe82", "ana@finance.example", "Zoë"} {
		assert.NoError(t, domain.ValidateSubject("sub", ok), ok)
	}
	for _, bad := range []string{"", "a\x00b", "tab\there", strings.Repeat("x", 256), "\xff",
		"alice\u202e", "ali\u200bce", domain.BreakGlassSubject} {
		assert.ErrorIs(t, domain.ValidateSubject("sub", bad), domain.ErrInvalid, "%q", bad)
	}
}

func TestPrincipalScope(t *testing.T) {
	desk := domain.Principal{Subject: "d1", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-a"}}
	assert.True(t, desk.CanBook("h-a") && desk.CanRead("h-a"))
	assert.False(t, desk.CanBook("h-b") || desk.CanRead("h-b"), "a front desk acts only for the hotels its token names")
	assert.True(t, desk.IsStaff())
	guest := domain.Principal{Subject: "g1", Roles: []domain.Role{domain.RoleCustomer}, Hotels: []string{"h-a"}}
	assert.False(t, guest.CanBook("h-a") || guest.CanRead("h-a"), "a customer never acts for a hotel, whatever its token says")
	assert.False(t, guest.IsStaff())
	finance := domain.Principal{Roles: []domain.Role{domain.RoleFinance}}
	assert.True(t, finance.CanRead("h-b"))
	assert.False(t, finance.CanBook("h-b"), "finance reads every hotel but books for none")
	deskAndFinance := domain.Principal{Roles: []domain.Role{domain.RoleFrontDesk, domain.RoleFinance}, Hotels: []string{"h-a"}}
	assert.False(t, deskAndFinance.CanBook("h-b"), "finance never widens a front desk's hotels")
	admin := domain.Principal{Roles: []domain.Role{domain.RoleAdmin}}
	assert.True(t, admin.CanBook("h-b") && admin.CanRead("h-b"))
	assert.False(t, domain.Role("superuser").Known())
}

func TestCancellationRefund(t *testing.T) {
	checkIn := domain.NewDate(2030, 6, 10)
	midnight := checkIn.Time() // UTC
	refund := func(p domain.CancellationPolicy, paid int64, at time.Time) int64 {
		return p.Refund(paid, "EUR", checkIn, time.UTC, at)
	}
	p := domain.CancellationPolicy{FreeUntilHours: 48, FeePercent: 20, NoRefundHours: 6}
	require.NoError(t, p.Validate())
	assert.Equal(t, int64(30000), refund(p, 30000, midnight.Add(-49*time.Hour)), "inside the free window")
	assert.Equal(t, int64(24000), refund(p, 30000, midnight.Add(-48*time.Hour)), "the free window ends at 48 h")
	assert.Equal(t, int64(24000), refund(p, 30000, midnight.Add(-47*time.Hour)), "20% fee kept")
	assert.Equal(t, int64(0), refund(p, 30000, midnight.Add(-5*time.Hour)), "after the cut-off")
	assert.Equal(t, int64(0), refund(p, 30000, midnight.Add(time.Hour)), "after check-in")
	fixed := domain.CancellationPolicy{FreeUntilHours: 24, FeeFixed: 5000, FeeCurrency: "EUR"}
	require.NoError(t, fixed.Validate())
	assert.Equal(t, int64(25000), refund(fixed, 30000, midnight.Add(-2*time.Hour)))
	assert.Equal(t, int64(0), refund(fixed, 3000, midnight.Add(-2*time.Hour)), "a fee never exceeds the payment")
	assert.Equal(t, int64(30000), fixed.Refund(30000, "USD", checkIn, time.UTC, midnight.Add(-2*time.Hour)),
		"a fixed fee in euros is never taken as dollars")
	assert.Equal(t, int64(30000), refund(domain.CancellationPolicy{}, 30000, midnight.Add(-time.Minute)),
		"the default policy refunds in full until check-in")
	assert.ErrorIs(t, domain.CancellationPolicy{FeePercent: 101}.Validate(), domain.ErrInvalid)
	assert.ErrorIs(t, domain.CancellationPolicy{FeePercent: 10, FeeFixed: 1, FeeCurrency: "EUR"}.Validate(), domain.ErrInvalid)
	assert.ErrorIs(t, domain.CancellationPolicy{FeeFixed: 500}.Validate(), domain.ErrInvalid, "a fixed fee without its currency")
	assert.ErrorIs(t, domain.CancellationPolicy{FeeCurrency: "EUR"}.Validate(), domain.ErrInvalid)
}

// TestEarlyDepartureRefund: a guest with four nights (10-13 June) leaves after the first; the
// nights from the 11th on are not stayed.
func TestEarlyDepartureRefund(t *testing.T) {
	night := func(day int, amount int64) domain.NightRate {
		return domain.NightRate{Date: domain.NewDate(2030, 6, day), Amount: amount}
	}
	price := domain.Price{Currency: "EUR", Total: 1000,
		Nights: []domain.NightRate{night(10, 100), night(13, 400), night(11, 200), night(12, 300)}} // in any order
	from, to := domain.NewDate(2030, 6, 11), domain.NewDate(2030, 6, 14)
	refund := func(policy string, paid int64) int64 {
		p := domain.CancellationPolicy{EarlyDeparture: policy}
		require.NoError(t, p.Validate())
		return p.EarlyDepartureRefund(price, from, to, paid)
	}
	assert.Equal(t, int64(0), refund("", 1000), "no policy: nothing")
	assert.Equal(t, int64(0), refund(domain.EarlyDepartureNone, 1000))
	assert.Equal(t, int64(900), refund(domain.EarlyDepartureAll, 1000), "the three nights not stayed")
	assert.Equal(t, int64(700), refund(domain.EarlyDepartureAllButFirst, 1000), "all but the 11th")
	assert.Equal(t, int64(500), refund(domain.EarlyDepartureAll, 500), "never more than the booking keeps")
	assert.Equal(t, int64(0), refund(domain.EarlyDepartureAll, 0), "nothing paid, nothing back")
	last := domain.CancellationPolicy{EarlyDeparture: domain.EarlyDepartureAllButFirst}
	assert.Equal(t, int64(0), last.EarlyDepartureRefund(price, to, to, 1000), "the last night: nothing is left")
	assert.Equal(t, int64(0), last.EarlyDepartureRefund(price, domain.NewDate(2030, 6, 13), to, 1000),
		"one night left: all but the first is nothing")
	byHand := price
	byHand.Total = 500 // set by hand at half the nights' prices
	assert.Equal(t, int64(350), last.EarlyDepartureRefund(byHand, from, to, 500), "the nights at half their prices")
	assert.ErrorIs(t, domain.CancellationPolicy{EarlyDeparture: "half"}.Validate(), domain.ErrInvalid)
}

// TestCancellationHoursCountOnTheHotelsClock: in Budapest clocks go back on 27 October 2030, so
// the 48 wall-clock hours before a check-in on the 28th are 49 real hours. 30 minutes past
// midnight on the 26th, local time, the free window has closed, though 48.5 real hours remain.
func TestCancellationHoursCountOnTheHotelsClock(t *testing.T) {
	budapest, err := time.LoadLocation("Europe/Budapest")
	require.NoError(t, err)
	p := domain.CancellationPolicy{FreeUntilHours: 48, FeePercent: 50}
	checkIn := domain.NewDate(2030, 10, 28)
	cancelAt := time.Date(2030, 10, 26, 0, 30, 0, 0, budapest)
	require.Greater(t, checkIn.In(budapest).Sub(cancelAt), 48*time.Hour, "more than 48 real hours are left")
	assert.Equal(t, int64(5000), p.Refund(10000, "EUR", checkIn, budapest, cancelAt), "the hotel's clock says the window closed")
	assert.Equal(t, int64(10000), p.Refund(10000, "EUR", checkIn, budapest, time.Date(2030, 10, 25, 23, 59, 0, 0, budapest)))
}

// TestMidnightThatDoesNotExist: in Havana clocks jump from midnight to 01:00 on 10 March 2030,
// and in Santiago on 8 September 2030. The day starts at the jump, never the evening before,
// and "until check-in" ends there.
func TestMidnightThatDoesNotExist(t *testing.T) {
	for _, c := range []struct {
		zone string
		day  domain.Date
	}{{"America/Havana", domain.NewDate(2030, 3, 10)}, {"America/Santiago", domain.NewDate(2030, 9, 8)}} {
		loc, err := time.LoadLocation(c.zone)
		require.NoError(t, err)
		start := c.day.In(loc)
		assert.Equal(t, c.day, domain.DateOf(start, loc), "%s: the day starts on itself", c.zone)
		assert.Equal(t, c.day.AddDays(-1), domain.DateOf(start.Add(-time.Second), loc), "%s: a second before is the day before", c.zone)
		noonBefore := c.day.AddDays(-1).At(12, loc)
		assert.Equal(t, int64(100), domain.CancellationPolicy{}.Refund(100, "EUR", c.day, loc, noonBefore),
			"%s: the day before check-in is still before check-in", c.zone)
		assert.Equal(t, c.day.AddDays(-2).At(0, loc), c.day.At(-48, loc), "%s: 48 wall-clock hours before", c.zone)
	}
}

func TestAPriceSetByHandKeepsItsNightsAddingUp(t *testing.T) {
	p := domain.Price{Currency: "EUR", Total: 30000, Nights: []domain.NightRate{{Amount: 10000}, {Amount: 15000}, {Amount: 5000}}}
	got := p.WithTotal(10000)
	assert.Equal(t, []int64{3333, 5000, 1667}, []int64{got.Nights[0].Amount, got.Nights[1].Amount, got.Nights[2].Amount})
	assert.Equal(t, int64(10000), got.Total)
	assert.Equal(t, int64(10000), p.Nights[0].Amount, "the price it came from is unchanged")
	free := domain.Price{Total: 0, Nights: []domain.NightRate{{}, {}}}.WithTotal(500)
	assert.Equal(t, []int64{500, 0}, []int64{free.Nights[0].Amount, free.Nights[1].Amount})
	assert.Equal(t, int64(0), p.WithTotal(0).Nights[2].Amount)
}

func TestAnEarlyDeparturesRefundComesOffTheLastNights(t *testing.T) {
	p := domain.Price{Total: 30000, Nights: []domain.NightRate{{Amount: 10000}, {Amount: 10000}, {Amount: 10000}}}
	got := p.LessLastNights(15000)
	assert.Equal(t, int64(15000), got.Total)
	assert.Equal(t, []int64{10000, 5000, 0}, []int64{got.Nights[0].Amount, got.Nights[1].Amount, got.Nights[2].Amount})
	assert.Equal(t, int64(10000), p.Nights[2].Amount, "the price it came from is unchanged")
}

// TestAPriceSetByHandScalesLargeNightsWithoutOverflow: a group stay of two nights at
// 3,000,000,000 minor units each (3 billion VND, a currency without minor units) set by hand to
// one unit less. WithTotal multiplies total by each night before dividing (6e9 x 3e9 is past
// int64), so the first night comes out negative and the last takes the rest.
func TestAPriceSetByHandScalesLargeNightsWithoutOverflow(t *testing.T) {
	p := domain.Price{Total: 6_000_000_000, Currency: "VND", Nights: []domain.NightRate{{Amount: 3_000_000_000},
		{Amount: 3_000_000_000}}}
	got := p.WithTotal(5_999_999_999)
	for i, n := range got.Nights {
		assert.GreaterOrEqual(t, n.Amount, int64(0), "night %d", i)
		assert.LessOrEqual(t, n.Amount, int64(3_000_000_000), "night %d", i)
	}
}
