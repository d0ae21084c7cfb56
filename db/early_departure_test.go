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

// TestDepartEarlyRefundsTheNightsNotStayedByTheBookingsPolicy: two rooms for four nights from 10
// December (the 11th at 150.00 a room, the others at 100.00), paid, left after the first night.
// The three nights not stayed give back what the policy the booking was held under says, however
// the hotel's policy changed since; asked again before the refund is recorded (a lost answer),
// the same; once it is recorded, nothing.
func TestDepartEarlyRefundsTheNightsNotStayedByTheBookingsPolicy(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	stay4 := domain.Stay{CheckIn: dec10, CheckOut: dec10.AddDays(4)}
	for _, c := range []struct {
		hotel, policy string
		refund        int64
	}{
		{"h-none", domain.EarlyDepartureNone, 0},
		{"h-all", domain.EarlyDepartureAll, 2 * (15000 + 10000 + 10000)},
		{"h-but-first", domain.EarlyDepartureAllButFirst, 2 * (10000 + 10000)},
	} {
		d.SetInventory(t, c.hotel, "double", stay4.CheckIn, stay4.CheckOut, 2)
		_, err := d.Store.SetRates(ctx, c.hotel, "double", dec10.AddDays(1), dec10.AddDays(2),
			domain.Money{Amount: 15000, Currency: "EUR"}, false)
		require.NoError(t, err)
		require.NoError(t, d.Store.SetCancellationPolicy(ctx, c.hotel, domain.CancellationPolicy{EarlyDeparture: c.policy}))
		params := holdParams("c1", c.hotel, stay4, 2)
		params.Request.HotelID = c.hotel
		b, err := d.Store.Reserve(ctx, params)
		require.NoError(t, err)
		require.Equal(t, domain.StatusHold, b.Status, c.hotel)
		require.NoError(t, d.Store.SetCancellationPolicy(ctx, c.hotel, domain.CancellationPolicy{EarlyDeparture: domain.EarlyDepartureAll}),
			"a policy set after the hold is not the booking's")
		recordPayment(t, d, b.ID, "pi_"+c.hotel, b.Price.Total)
		b, err = d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_" + c.hotel, Amount: b.Price.Total, Currency: "EUR"})
		require.NoError(t, err)
		require.Equal(t, int64(2*45000), b.Paid)

		firstNight := dec10.Time().Add(20 * time.Hour)
		left, err := d.Store.DepartEarly(ctx, b.ID, firstNight)
		require.NoError(t, err)
		assert.True(t, left.Begun, c.hotel)
		assert.Equal(t, 3, left.Nights, c.hotel)
		assert.Equal(t, c.refund, left.Refund, c.hotel)
		assert.Equal(t, b.Paid, left.Booking.Paid, "%s: the refund is the workflow's to make", c.hotel)
		assert.Equal(t, []int{2, 0, 0, 0}, d.Reserved(t, c.hotel, "double", stay4))

		again, err := d.Store.DepartEarly(ctx, b.ID, firstNight.Add(time.Hour))
		require.NoError(t, err)
		assert.Equal(t, left, again, "%s: asked again the same day before the refund is recorded", c.hotel)
		if c.refund == 0 {
			continue
		}
		_, _, err = d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, db.EarlyDepartureKey(left.Booking.CheckOut)),
			BookingID: b.ID, Kind: db.RefundEarlyDeparture, Amount: c.refund, Currency: "EUR", Reason: "left early", Actor: "desk",
			Parts: []domain.Payment{{ID: "pi_" + c.hotel, Amount: c.refund, Currency: "EUR"}}})
		require.NoError(t, err)
		again, err = d.Store.DepartEarly(ctx, b.ID, firstNight.Add(time.Hour))
		require.NoError(t, err)
		assert.True(t, again.Begun)
		assert.Zero(t, again.Refund, "%s: refunded already", c.hotel)
	}
	d.AssertInventoryMatchesBookings(t)
}
