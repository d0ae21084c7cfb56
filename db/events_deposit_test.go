package db_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// statusEvents lists the types of the events queued for booking, in order.
func statusEvents(t *testing.T, d *testsuite.Database, booking string) []string {
	t.Helper()
	rows, err := d.Pool.Query(context.Background(), `SELECT type FROM event_deliveries WHERE booking_id = $1 ORDER BY id`, booking)
	require.NoError(t, err)
	types, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return types
}

// depositHeld is a hold the desk took a cash deposit of 5000 for.
func depositHeld(t *testing.T, d *testsuite.Database, customer string) domain.Booking {
	t.Helper()
	b := hold(t, d, customer, stay3, 1)
	b, err := d.Store.TakeDeskDepositKeepingTheHold(context.Background(), db.DeskPayment{BookingID: b.ID, Key: "deposit", Amount: 5000,
		Currency: "EUR", Method: domain.MethodCash, TakenBy: "desk-1"})
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, b.Status)
	return b
}

// refundWhole gives the booking's deposit back, as the booking workflow's refund saga does after
// it took the booking REFUNDING for actor.
func refundWhole(t *testing.T, d *testsuite.Database, b domain.Booking, actor string) {
	t.Helper()
	ctx := db.WithActor(context.Background(), actor)
	b, err := d.Store.StartRefund(ctx, b.ID, nil, func(b domain.Booking) (int64, error) { return b.Paid, nil })
	require.NoError(t, err)
	require.Equal(t, domain.StatusRefunding, b.Status)
	a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: b.ID + "/refund/1", BookingID: b.ID,
		PaymentID: b.PaymentID, Amount: b.RefundDue, Currency: "EUR", Reason: "the deposit goes back"})
	require.NoError(t, err)
	require.Equal(t, "pending", a.Status, "the desk's refund waits for someone to hand it over")
	_, err = d.Store.HandOverRefund(ctx, db.HandOver{BookingID: b.ID, RefundID: a.ID, By: "desk-1"})
	require.NoError(t, err)
	_, err = d.Store.FinishRefund(ctx, b.ID)
	require.NoError(t, err)
}

// A hold the desk took a deposit for, whose hold runs out, moves HOLD -> REFUNDING by the hold
// timer: integrators hear booking.expired, then booking.refunded for the deposit given back,
// never booking.cancelled. A deposit hold someone cancels is still booking.cancelled.
func TestAnExpiredDepositHoldIsToldAsExpiredThenRefunded(t *testing.T) {
	t.Parallel()
	d, _ := subscribed(t, "booking.held", "booking.cancelled", "booking.expired", "booking.refunded")
	d.SetInventory(t, "h1", "double", dec10, dec13, 3)

	expired := depositHeld(t, d, "c1")
	refundWhole(t, d, expired, db.ActorHoldTimer)
	assert.Equal(t, []string{"booking.held", "booking.expired", "booking.refunded"}, statusEvents(t, d, expired.ID))

	cancelled := depositHeld(t, d, "c2")
	refundWhole(t, d, cancelled, "staff-1")
	assert.Equal(t, []string{"booking.held", "booking.cancelled", "booking.refunded"}, statusEvents(t, d, cancelled.ID))
}
