package activities_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestARetriedRefundIsJudgedWhenTheCancelWasAccepted: the guest cancelled inside the free window;
// the refund step runs (or is retried) after the window closed. The policy judges the moment the
// workflow accepted the cancel, so the guest gets everything back.
func TestARetriedRefundIsJudgedWhenTheCancelWasAccepted(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	checkIn := domain.DateOf(time.Now(), time.UTC).AddDays(10)
	d.SetInventory(t, "h1", "double", checkIn, checkIn.AddDays(1), 2)
	require.NoError(t, d.Store.SetCancellationPolicy(ctx, "h1", domain.CancellationPolicy{FreeUntilHours: 72, FeePercent: 50}))
	paid := func(customer string) domain.Booking {
		req := domain.HoldRequest{CustomerID: customer, HotelID: "h1", RoomTypeID: "double",
			Stay: domain.Stay{CheckIn: checkIn, CheckOut: checkIn.AddDays(1)}, Quantity: 1}
		b, err := d.Store.Reserve(ctx, db.ReserveParams{BookingID: "booking-" + customer, IdempotencyKey: "k",
			Request: req, CreatedBy: customer, HoldTTL: time.Minute})
		require.NoError(t, err)
		b, err = d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_" + customer, Amount: b.Price.Total, Currency: "EUR"})
		require.NoError(t, err)
		return b
	}
	inTheFeeWindow := checkIn.Time().Add(-time.Hour) // when the activity runs, or is retried
	acts := &activities.Bookings{Store: d.Store, Now: func() time.Time { return inTheFeeWindow }}

	b := paid("c1")
	refunded, err := acts.StartRefund(ctx, activities.StartRefundInput{BookingID: b.ID, ByPolicy: true,
		CancelledAt: time.Now()}) // accepted ten days before check-in
	require.NoError(t, err)
	assert.Equal(t, b.Price.Total, refunded.RefundDue, "judged when the cancel was accepted: inside the free window")

	// The control: judged when the activity runs, the same cancel loses half.
	b = paid("c2")
	refunded, err = acts.StartRefund(ctx, activities.StartRefundInput{BookingID: b.ID, ByPolicy: true})
	require.NoError(t, err)
	assert.Equal(t, b.Price.Total/2, refunded.RefundDue)
}
