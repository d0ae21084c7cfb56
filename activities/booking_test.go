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

// TestEveryStateChangeNamesItsActor: the history names who or what made each change: the
// creator for a hold or a refused one, the hold timer for an expiry, a payment, a late payment,
// the refund, the no-show deadline, and the person the workflow names for a cancel or a desk
// confirmation. A step the workflow names nobody for stays unnamed.
func TestEveryStateChangeNamesItsActor(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	checkIn := domain.DateOf(time.Now(), time.UTC).AddDays(10)
	d.SetInventory(t, "h1", "double", checkIn, checkIn.AddDays(1), 10)
	acts := &activities.Bookings{Store: d.Store}
	held := func(customer string, nights int) domain.Booking {
		req := domain.HoldRequest{CustomerID: customer, HotelID: "h1", RoomTypeID: "double",
			Stay: domain.Stay{CheckIn: checkIn, CheckOut: checkIn.AddDays(nights)}, Quantity: 1}
		b, err := d.Store.Reserve(ctx, db.ReserveParams{BookingID: "booking-" + customer, IdempotencyKey: "k",
			Request: req, CreatedBy: customer, HoldTTL: time.Hour})
		require.NoError(t, err)
		return b
	}
	actors := func(b domain.Booking) []string {
		changes, _, err := d.Store.BookingHistory(ctx, b.ID)
		require.NoError(t, err)
		var out []string
		for _, c := range changes {
			out = append(out, string(c.To)+" by "+c.Actor)
		}
		return out
	}
	pay := func(b domain.Booking) *domain.Payment {
		return &domain.Payment{ID: "pi_" + b.CustomerID, Amount: b.Price.Total, Currency: "EUR"}
	}

	expired := held("c1", 1)
	_, err := acts.Release(ctx, activities.ReleaseInput{BookingID: expired.ID, To: domain.StatusExpired})
	require.NoError(t, err)
	_, err = acts.Retake(ctx, activities.RetakeInput{BookingID: expired.ID, Payment: *pay(expired)})
	require.NoError(t, err)
	assert.Equal(t, []string{"HOLD by c1", "EXPIRED by system:hold-timer", "CONFIRMED by system:late-payment"}, actors(expired))

	refunded := held("c2", 1)
	_, err = acts.Confirm(ctx, activities.ConfirmInput{BookingID: refunded.ID, Payment: pay(refunded)})
	require.NoError(t, err)
	_, err = acts.StartRefund(ctx, activities.StartRefundInput{BookingID: refunded.ID, ByPolicy: true, Actor: "c2"})
	require.NoError(t, err)
	_, err = acts.FinishRefund(ctx, refunded.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"HOLD by c2", "CONFIRMED by system:payment", "REFUNDING by c2", "REFUNDED by system:refund"},
		actors(refunded))

	noShow := held("c3", 1)
	_, err = acts.Confirm(ctx, activities.ConfirmInput{BookingID: noShow.ID, Actor: "desk-anna"})
	require.NoError(t, err)
	_, err = acts.NoShow(ctx, noShow.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"HOLD by c3", "CONFIRMED by desk-anna", "NO_SHOW by system:no-show"}, actors(noShow))

	cancelled := held("c4", 1)
	_, err = acts.Release(ctx, activities.ReleaseInput{BookingID: cancelled.ID, To: domain.StatusCancelled, Actor: "agent-user"})
	require.NoError(t, err)
	unnamed := held("c5", 1)
	_, err = acts.Confirm(ctx, activities.ConfirmInput{BookingID: unnamed.ID})
	require.NoError(t, err)
	refused := held("c6", 3) // the second and third nights are not on sale
	require.Equal(t, domain.StatusRejected, refused.Status)
	assert.Equal(t, []string{"HOLD by c4", "CANCELLED by agent-user"}, actors(cancelled))
	assert.Equal(t, []string{"HOLD by c5", "CONFIRMED by "}, actors(unnamed))
	assert.Contains(t, actors(refused), "REJECTED by c6", "a refusal is its request's")
}
