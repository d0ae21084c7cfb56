package domain_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
)

// TestAPolicyRefundJudgesAStayFromItsLocalCheckInAndAnOrderFromItsStart: a stay checking in on
// 3 June 2030 in Budapest (UTC+2) starts at midnight there, 22:00 UTC the day before, and its
// hours are the hotel's; an order's start is its first line's, 10:00 there, not midnight of
// that line's UTC date.
func TestAPolicyRefundJudgesAStayFromItsLocalCheckInAndAnOrderFromItsStart(t *testing.T) {
	budapest, err := time.LoadLocation("Europe/Budapest")
	require.NoError(t, err)
	day := domain.NewDate(2030, 6, 3)
	stay := domain.Booking{ID: "stay", TimeZone: "Europe/Budapest", Stay: domain.Stay{CheckIn: day, CheckOut: day.AddDays(2)},
		CancellationPolicy: domain.CancellationPolicy{FreeUntilHours: 48, FeePercent: 50, NoRefundHours: 24}}
	for _, c := range []struct {
		at   time.Time
		want int64
	}{
		{time.Date(2030, 5, 31, 23, 59, 0, 0, budapest), 10000}, // free, on the hotel's clock
		{time.Date(2030, 6, 1, 0, 0, 0, 0, budapest), 5000},     // 48 hours before: the fee
		{time.Date(2030, 6, 1, 23, 0, 0, 0, time.UTC), 0},       // 01:00 at the hotel, 23 hours before
		{time.Date(2030, 6, 3, 8, 0, 0, 0, budapest), 0},        // the stay has begun
	} {
		got, err := stay.PolicyRefund(10000, "EUR", c.at)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, "stay at %s", c.at)
		assert.Equal(t, stay.CancellationPolicy.Refund(10000, "EUR", day, budapest, c.at), got, "as a cancel of the stay")
	}

	line := domain.OrderLine{ResourceID: "rackets", Start: time.Date(2030, 6, 3, 10, 0, 0, 0, budapest), Quantity: 2}
	line.End = line.Start.Add(time.Hour)
	order := domain.Booking{ID: "order", VenueID: "v1", TimeZone: "Europe/Budapest", Stay: domain.Stay{CheckIn: domain.DateOf(line.Start, time.UTC)},
		Price:              domain.Price{Currency: "EUR", Total: 4000, Lines: []domain.LinePrice{{OrderLine: line, UnitPrice: 2000, Total: 4000}}},
		CancellationPolicy: domain.CancellationPolicy{FreeUntilHours: 24}}
	for _, c := range []struct {
		at   time.Time
		want int64
	}{
		{time.Date(2030, 6, 3, 8, 0, 0, 0, budapest), 4000},
		{line.Start.Add(-time.Second), 4000},
		{line.Start, 0},
	} {
		got, err := order.PolicyRefund(4000, "EUR", c.at)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, "order at %s", c.at)
	}
}
