package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/testsuite"
)

// A booking's workflow lingers for LATE_WINDOW after every settled end (workflows.booking.run's
// default branch: not HOLD, not a stay in progress, no refund saga): a no-show too, whose late or
// second payment is refunded (refundExtra) under the customer's id, exactly like a REFUNDED
// booking's, which the erasure does wait for.
func TestAnErasureWaitsForANoShowsLateWindow(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec14, 5)
	const cust = "cust-noshow-late"
	b := paidBooking(t, d, cust, nights(dec10, 1), 1, 0)
	_, err := d.Store.NoShow(ctx, b.ID)
	require.NoError(t, err)
	require.Equal(t, "NO_SHOW", string(booking(t, d, b.ID).Status))

	req := eraseReq(cust, "asked")
	req.LateWindow = time.Hour
	_, err = d.Store.EraseCustomer(ctx, req)
	var refused *db.OpenBookingsError
	require.True(t, errors.As(err, &refused), "a no-show marked a moment ago was erased while its workflow "+
		"still waits for a late payment: %v", err)
	assert.Equal(t, map[string]string{b.ID: "awaiting_late_payment"}, refused.Open)
}

// A confirmed stay lingers for LATE_WINDOW after it ends (stay sets stayOver at its end, then
// linger): a stay that ended a moment ago is still in play for the erasure. Its end is the
// workflow's (BookingInput.ends: the day after check-out, at midnight UTC), whenever it was
// confirmed.
func TestAnErasureWaitsForAStayThatJustEnded(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec14, 5)
	const cust = "cust-stay-ended"
	b := paidBooking(t, d, cust, nights(dec10, 1), 1, 0)
	// The stay ended at today's midnight (UTC): its workflow lingers until then + LATE_WINDOW.
	_, err := d.Pool.Exec(ctx, `UPDATE bookings SET unit_from = (now() AT TIME ZONE 'UTC')::date - 1,
		unit_to = (now() AT TIME ZONE 'UTC')::date, time_zone = 'UTC' WHERE id = $1`, b.ID)
	require.NoError(t, err)

	req := eraseReq(cust, "asked")
	req.LateWindow = 48 * time.Hour
	_, err = d.Store.EraseCustomer(ctx, req)
	var refused *db.OpenBookingsError
	require.True(t, errors.As(err, &refused), "a stay that ended hours ago (LATE_WINDOW 48h) was erased while "+
		"its workflow still waits for a late payment: %v", err)
	assert.Equal(t, map[string]string{b.ID: "awaiting_late_payment"}, refused.Open)

	// Confirmed long ago: the workflow counts from the stay's end, the day after check-out at
	// midnight UTC, not from the confirmation.
	_, err = d.Pool.Exec(ctx, `UPDATE booking_changes SET at = at - interval '10 days' WHERE booking_id = $1`, b.ID)
	require.NoError(t, err)
	_, err = d.Store.EraseCustomer(ctx, req)
	require.True(t, errors.As(err, &refused), "a stay whose workflow is still in it was erased: %v", err)
	assert.Equal(t, map[string]string{b.ID: "awaiting_late_payment"}, refused.Open)
	short := req
	short.LateWindow = time.Millisecond
	_, err = d.Store.EraseCustomer(ctx, short)
	require.True(t, errors.As(err, &refused), "the workflow's stay lasts until the day after check-out: %v", err)

	// Past that end and LATE_WINDOW (and its margin), the workflow is done: the erasure goes ahead.
	_, err = d.Pool.Exec(ctx, `UPDATE bookings SET unit_from = unit_from - interval '4 days',
		unit_to = unit_to - interval '4 days' WHERE id = $1`, b.ID)
	require.NoError(t, err)
	_, err = d.Store.EraseCustomer(ctx, req)
	require.NoError(t, err)
}
