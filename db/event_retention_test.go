package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/testsuite"
)

// queued queues event for booking to every subscriber of booking.held and returns its delivery id
// to "crm".
func queued(t *testing.T, d *testsuite.Database, event, booking string) int64 {
	t.Helper()
	ctx := context.Background()
	_, err := d.Pool.Exec(ctx, `SELECT queue_booking_event($1, 'booking.held', $2, '{}')`, event, booking)
	require.NoError(t, err)
	var id int64
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT id FROM event_deliveries WHERE event_id = $1 AND subscriber_id = 'crm'`,
		event).Scan(&id))
	return id
}

// settled records an attempt at delivery id: delivered when ok, otherwise failed past its retry
// window (parked); then dates it ago.
func settled(t *testing.T, d *testsuite.Database, id int64, ok bool, ago time.Duration) {
	t.Helper()
	ctx := context.Background()
	a := db.DeliveryAttempt{Status: 200}
	if !ok {
		a = db.DeliveryAttempt{Status: 500, Err: assert.AnError}
	}
	require.NoError(t, d.Store.RecordDeliveryAttempt(ctx, id, a, time.Minute, 0))
	_, err := d.Pool.Exec(ctx, `UPDATE event_deliveries SET delivered_at = delivered_at - $2 * interval '1 microsecond',
		next_attempt_at = next_attempt_at - $2 * interval '1 microsecond' WHERE id = $1`, id, ago.Microseconds())
	require.NoError(t, err)
}

func deliveryIDs(t *testing.T, d *testsuite.Database) []int64 {
	t.Helper()
	rows, err := d.Pool.Query(context.Background(), `SELECT id FROM event_deliveries WHERE subscriber_id = 'crm' ORDER BY id`)
	require.NoError(t, err)
	var ids []int64
	for rows.Next() {
		var id int64
		require.NoError(t, rows.Scan(&id))
		ids = append(ids, id)
	}
	require.NoError(t, rows.Err())
	return ids
}

// Delivered and parked deliveries go once older than the retention, a batch at a time; one still
// being retried stays, and so does a parked one a later delivery of its booking waits behind: that
// one must not become deliverable because the one before it was pruned.
func TestPruningDeletesSettledDeliveriesOnly(t *testing.T) {
	t.Parallel()
	d, ctx := subscribed(t, "booking.held")
	const retention, old = 24 * time.Hour, 25 * time.Hour

	oldDelivered := queued(t, d, "e1", "bk_a")
	settled(t, d, oldDelivered, true, old)
	newDelivered := queued(t, d, "e2", "bk_a")
	settled(t, d, newDelivered, true, time.Hour)
	oldParkedAlone := queued(t, d, "e3", "bk_b")
	settled(t, d, oldParkedAlone, false, old)
	oldParkedAhead := queued(t, d, "e4", "bk_c")
	settled(t, d, oldParkedAhead, false, old)
	waiting := queued(t, d, "e5", "bk_c") // waits behind e4, untried
	retrying := queued(t, d, "e6", "bk_d")
	require.NoError(t, d.Store.RecordDeliveryAttempt(ctx, retrying, db.DeliveryAttempt{Err: assert.AnError}, 0, time.Hour))
	_, err := d.Pool.Exec(ctx, `UPDATE event_deliveries SET created_at = now() - interval '40 days',
		retry_from = now() - interval '40 days' WHERE id IN ($1, $2)`, waiting, retrying)
	require.NoError(t, err)

	n, err := d.Store.PruneEventDeliveries(ctx, retention, 1)
	require.NoError(t, err)
	assert.EqualValues(t, 1, n, "one batch of one")
	n, err = d.Store.PruneEventDeliveries(ctx, retention, 100)
	require.NoError(t, err)
	assert.EqualValues(t, 1, n)
	assert.Equal(t, []int64{newDelivered, oldParkedAhead, waiting, retrying}, deliveryIDs(t, d))

	due, err := d.Store.ClaimEventDeliveries(ctx, "crm", 50, time.Minute)
	require.NoError(t, err)
	for _, x := range due {
		assert.NotEqual(t, waiting, x.ID, "the delivery behind a parked one was let through")
	}
	// Once the parked one is redelivered and delivered, and the one behind it too, both go in time.
	_, err = d.Store.Redeliver(ctx, oldParkedAhead)
	require.NoError(t, err)
	settled(t, d, oldParkedAhead, true, old)
	settled(t, d, waiting, true, old)
	n, err = d.Store.PruneEventDeliveries(ctx, retention, 100)
	require.NoError(t, err)
	assert.EqualValues(t, 2, n)
	assert.Equal(t, []int64{newDelivered, retrying}, deliveryIDs(t, d))
}
