package db_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/testsuite"
)

// previousAgentEvent is the body the previous release (00029) marshalled into an agent's
// delivery (activities.agentEvent, removed with 00030).
type previousAgentEvent struct {
	ID          int64     `json:"id"`
	Event       string    `json:"event"`
	BookingID   string    `json:"bookingId"`
	Detail      string    `json:"detail"`
	At          time.Time `json:"at"`
	AmendmentID *int64    `json:"amendmentId,omitempty"`
}

// atPreviousRelease is a database at 00029 with an agent whose webhook is a subscriber and one of
// its notifications queued the way the previous release queued it (body in payload); it returns
// the delivery's id and the bytes the previous release's sender read (and signed and posted).
func atPreviousRelease(t *testing.T) (*testsuite.Database, db.AgentNotification, int64, []byte) {
	t.Helper()
	ctx := context.Background()
	d := testsuite.NewEmptyDatabase(t)
	require.NoError(t, db.MigrateTo(ctx, d.Pool, 29))
	require.NoError(t, d.Store.PutChannel(ctx, db.Channel{ID: "A"}))
	agent := db.Agent{ID: "agent-up", ChannelID: "A", WebhookURL: "http://127.0.0.1:1/hook", WebhookSecret: "0123456789abcdef"}
	require.NoError(t, d.Store.PutAgent(ctx, agent))
	n, err := d.Store.RecordAgentNotification(ctx, db.AgentNotification{AgentID: agent.ID, BookingID: "bk_up",
		Event: "confirmed", Detail: "confirmed by the supplier"})
	require.NoError(t, err)
	body, err := json.Marshal(previousAgentEvent{ID: n.ID, Event: n.Event, BookingID: n.BookingID, Detail: n.Detail,
		At: n.CreatedAt, AmendmentID: n.AmendmentID})
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, previousQueueAgentNotification, n.ID, n.AgentID, n.BookingID, n.Event, body)
	require.NoError(t, err)
	var id int64
	var sent json.RawMessage // what the previous release's scanDelivery gave its sender
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT id, payload FROM event_deliveries WHERE agent_notification_id = $1`,
		n.ID).Scan(&id, &sent))
	return d, n, id, sent
}

// An agent's notification delivered before the upgrade and redelivered after it carries the same
// JSON under the same event id: the body built from agent_notifications says what the delivery
// held. Not the same bytes: the previous release sent PostgreSQL's text of the stored jsonb, this
// one Go's (docs/integrator-events.md); the signature covers the bytes sent.
func TestAnAgentsNotificationBodyIsTheSameJSONAcrossTheUpgrade(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, _, id, before := atPreviousRelease(t)
	require.NoError(t, db.Migrate(ctx, d.Pool))
	after, err := d.Store.EventDelivery(ctx, id)
	require.NoError(t, err)
	assert.JSONEq(t, string(before), string(after.Payload), "the agent receives another body for the same event")
}

// The previous release's QueueAgentNotification.
const previousQueueAgentNotification = `INSERT INTO event_deliveries (event_id, subscriber_id, booking_id, type, payload,
		agent_notification_id)
	SELECT 'agent_notification_' || $1::bigint, s.id, $3, 'agent.' || $4, $5, $1
	FROM event_subscribers s WHERE s.agent_id = $2 AND s.url <> ''
	ON CONFLICT (subscriber_id, event_id) DO NOTHING`

// The previous release's RecordDeliveryAttempt after a failed attempt (it parks the delivery once
// past its retry window, $5), and its Redeliver.
const (
	previousFailedAttempt = `WITH d AS (UPDATE event_deliveries SET attempts = attempts + 1, last_status = $2,
		last_error = $3, next_attempt_at = now() + $4 * interval '1 microsecond',
		status = CASE WHEN now() - retry_from >= $5 * interval '1 microsecond' THEN 'parked' ELSE 'pending' END
		WHERE id = $1 AND status = 'pending' RETURNING agent_notification_id, delivered_at, last_error)
		UPDATE agent_notifications n SET delivered_at = d.delivered_at, last_error = d.last_error
		FROM d WHERE n.id = d.agent_notification_id`
	previousRedeliver = `UPDATE event_deliveries SET status = 'pending', attempts = 0,
		retry_from = now(), next_attempt_at = now(), delivered_at = NULL
		WHERE id = $1 AND status <> 'pending' RETURNING id`
)

// The old pods run on the new schema until the new ones replace them, and again after a rollback
// (docs/kubernetes.md): after 00030 the previous release's sender still finds every agent's body
// where it reads it (payload), its agent notifier queues, and its parking and redelivery work;
// what it parked is pruned in time all the same.
func TestThePreviousReleaseStillDeliversAgentNotificationsAfter00030(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, n, id, _ := atPreviousRelease(t)
	require.NoError(t, db.Migrate(ctx, d.Pool))

	// The previous release's sender reads payload and posts it, signed: an agent delivery queued
	// before the migration (still pending) must still have its body there.
	var payload json.RawMessage
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT payload FROM event_deliveries WHERE id = $1`, id).Scan(&payload))
	assert.NotEmpty(t, payload, "an old worker posts a pending agent notification with an empty body")

	// And one this release queues: its payload is the body this release sends.
	n3, err := d.Store.RecordAgentNotification(ctx, db.AgentNotification{AgentID: n.AgentID, BookingID: "bk_up3",
		Event: "cancelled", Detail: "cancelled by the guest"})
	require.NoError(t, err)
	require.NoError(t, d.Store.QueueAgentNotification(ctx, n3))
	var id3 int64
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT id, payload FROM event_deliveries WHERE agent_notification_id = $1`,
		n3.ID).Scan(&id3, &payload))
	sent, err := d.Store.EventDelivery(ctx, id3)
	require.NoError(t, err)
	assert.JSONEq(t, string(sent.Payload), string(payload), "an old worker posts another body than a new one")

	// The previous release's NotifyAgent queues a notification with its body.
	n2, err := d.Store.RecordAgentNotification(ctx, db.AgentNotification{AgentID: n.AgentID, BookingID: "bk_up2",
		Event: "confirmed", Detail: "x"})
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, previousQueueAgentNotification, n2.ID, n2.AgentID, n2.BookingID, n2.Event, []byte(`{"id":1}`))
	assert.NoError(t, err, "an old worker's NotifyAgent fails")

	// The previous release's sender parks a delivery past its retry window, an operator
	// redelivers it through an old API, and it is parked again.
	fail := func() {
		t.Helper()
		_, err := d.Pool.Exec(ctx, previousFailedAttempt, id, 500, errors.New("answered 500").Error(),
			time.Minute.Microseconds(), int64(0))
		require.NoError(t, err, "an old worker cannot park a delivery")
	}
	fail()
	require.NoError(t, d.Pool.QueryRow(ctx, previousRedeliver, id).Scan(&id), "an old API cannot redeliver")
	fail()

	// This release prunes it once the retention has passed since, and not before.
	const retention = 30 * 24 * time.Hour
	pruned, err := d.Store.PruneEventDeliveries(ctx, retention, 100)
	require.NoError(t, err)
	assert.Zero(t, pruned, "a delivery parked a moment ago was pruned")
	_, err = d.Pool.Exec(ctx, `UPDATE event_deliveries SET next_attempt_at = next_attempt_at - interval '31 days'
		WHERE id = $1`, id)
	require.NoError(t, err)
	pruned, err = d.Store.PruneEventDeliveries(ctx, retention, 100)
	require.NoError(t, err)
	assert.EqualValues(t, 1, pruned, "a delivery the previous release parked is never pruned")
}
