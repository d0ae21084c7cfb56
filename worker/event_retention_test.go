package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/worker"
)

// Prune goes on batch after batch until every delivery past the retention is gone (2500 of them
// here, over batches of 1000), leaving the recent ones.
func TestPruneDeletesEveryOldDeliveryInBatches(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	_, _, err := d.Store.PutEventSubscriber(ctx, db.EventSubscriber{ID: "crm", URL: "http://127.0.0.1:1/x",
		Events: []string{"booking.held"}}, "whsec_x")
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `INSERT INTO event_deliveries (event_id, subscriber_id, booking_id, type, payload, status,
			delivered_at)
		SELECT 'evt_' || g, 'crm', 'bk_' || g, 'booking.held', '{}', 'delivered',
			now() - CASE WHEN g <= 2500 THEN interval '8 days' ELSE interval '6 days' END
		FROM generate_series(1, 2510) g`)
	require.NoError(t, err)

	sender := &worker.EventSender{Store: d.Store, Retention: 7 * 24 * time.Hour}
	n, err := sender.Prune(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 2500, n)
	var left int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM event_deliveries`).Scan(&left))
	assert.Equal(t, 10, left)
}
