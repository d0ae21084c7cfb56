package db_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// subscribed is a database with a subscriber of events.
func subscribed(t *testing.T, events ...string) (*testsuite.Database, context.Context) {
	t.Helper()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	_, _, err := d.Store.PutEventSubscriber(ctx, db.EventSubscriber{ID: "crm", URL: "http://127.0.0.1:1/x", Events: events}, "whsec_x")
	require.NoError(t, err)
	return d, ctx
}

// heldEvents counts the booking.held deliveries queued for booking.
func heldEvents(t *testing.T, d *testsuite.Database, booking string) int {
	t.Helper()
	var n int
	require.NoError(t, d.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM event_deliveries WHERE booking_id = $1 AND type = 'booking.held'`, booking).Scan(&n))
	return n
}

// A reservation refused for its nights is inserted as HOLD and moved to REJECTED in one
// transaction: it was never held, and integrators hear nothing of it.
func TestARejectedReservationIsNotToldAsHeld(t *testing.T) {
	t.Parallel()
	d, ctx := subscribed(t, "booking.held")
	d.SetInventory(t, "h1", "double", dec10, dec10.AddDays(1), 3)
	d.SetInventory(t, "h1", "double", dec10.AddDays(2), dec13, 3) // the 11th is not on sale

	p := holdParams("c1", "k1", stay3, 1)
	b, err := d.Store.Reserve(ctx, p)
	require.NoError(t, err)
	require.EqualValues(t, "REJECTED", b.Status)
	assert.Zero(t, heldEvents(t, d, p.BookingID), "booking.held queued for a rejected reservation")
}

// A booking a batch undoes "as if never written" (00027, step 2b) tells nothing; its caller's
// retry, which holds it, tells booking.held once.
func TestABookingABatchUndidIsToldOnceHeld(t *testing.T) {
	t.Parallel()
	d, ctx := subscribed(t, "booking.held")
	d.SetInventory(t, "h1", "double", dec10, dec10.AddDays(4), 5)
	tx, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck
	_, err = tx.Exec(ctx, `SELECT 1 FROM inventory WHERE unit_start = $1 FOR UPDATE`, dec13.Time())
	require.NoError(t, err)

	ps := []db.ReserveParams{holdParams("c1", "k", stay3, 1), holdParams("c2", "k", nightsFrom(dec10.AddDays(2), 2), 1)}
	store := batchStore(d, 300*time.Millisecond)
	_, errs := inOneBatch(t, store, []context.Context{ctx, ctx}, ps)
	require.NoError(t, errs[0])
	require.Error(t, errs[1])
	_, err = d.Store.GetBooking(ctx, ps[1].BookingID)
	require.Error(t, err, "no booking left behind")
	require.NoError(t, tx.Rollback(ctx))
	assert.Equal(t, 1, heldEvents(t, d, ps[0].BookingID))
	assert.Zero(t, heldEvents(t, d, ps[1].BookingID), "booking.held queued for a booking that was undone")
	// The caller's retry (reserveDirect, as a lock timeout in a batch sends it) holds it.
	b, err := d.Store.Reserve(ctx, ps[1])
	require.NoError(t, err)
	require.EqualValues(t, "HOLD", b.Status)
	assert.Equal(t, 1, heldEvents(t, d, ps[1].BookingID), "one hold, one booking.held")
}

// A paid booking checked in and then cancelled (a venue order, which has no early departure)
// moves COMPLETED -> REFUNDING: booking.cancelled, as for an unpaid one's COMPLETED -> CANCELLED.
func TestACheckedInPaidBookingCancelledIsTold(t *testing.T) {
	t.Parallel()
	d, ctx := subscribed(t, "booking.cancelled")
	d.SetInventory(t, "h1", "double", dec10, dec13, 3)
	b, err := d.Store.Reserve(ctx, holdParams("c1", "k1", stay3, 1))
	require.NoError(t, err)
	b, err = d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_r2", Amount: b.Price.Total, Currency: b.Price.Currency})
	require.NoError(t, err)
	_, err = d.Store.CheckIn(ctx, b.ID)
	require.NoError(t, err)
	b, err = d.Store.StartRefund(ctx, b.ID, nil, func(b domain.Booking) (int64, error) { return b.Paid, nil })
	require.NoError(t, err)
	require.EqualValues(t, "REFUNDING", b.Status)
	var n int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM event_deliveries WHERE booking_id = $1
		AND type = 'booking.cancelled'`, b.ID).Scan(&n))
	assert.Equal(t, 1, n, "the cancellation of a checked-in paid booking is not told")
}

// agentNotified is a database with an agent whose webhook is a subscriber, and one notification
// of it queued for delivery.
func agentNotified(t *testing.T) (*testsuite.Database, db.Agent, db.AgentNotification) {
	t.Helper()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	require.NoError(t, d.Store.PutChannel(ctx, db.Channel{ID: "A"}))
	agent := db.Agent{ID: "agent-r2", ChannelID: "A", WebhookURL: "http://127.0.0.1:1/hook", WebhookSecret: "0123456789abcdef"}
	require.NoError(t, d.Store.PutAgent(ctx, agent))
	n, err := d.Store.RecordAgentNotification(ctx, db.AgentNotification{AgentID: agent.ID, BookingID: "bk_r2",
		Event: "confirmed", Detail: "confirmed by the supplier"})
	require.NoError(t, err)
	require.NoError(t, d.Store.QueueAgentNotification(ctx, n))
	return d, agent, n
}

// An agent whose webhook is taken away (PUT /admin/agents with webhookUrl "") has its queued
// notifications wait: none is tried against no URL, and none is parked for it.
func TestAnAgentWithoutAWebhookHasNothingSent(t *testing.T) {
	t.Parallel()
	d, agent, _ := agentNotified(t)
	ctx := context.Background()
	agent.WebhookURL, agent.WebhookSecret = "", ""
	require.NoError(t, d.Store.PutAgent(ctx, agent))

	due, err := d.Store.ClaimEventDeliveries(ctx, "agent."+agent.ID, 50, time.Minute)
	require.NoError(t, err)
	assert.Empty(t, due, "claimed for a subscriber with no URL")
	agent.WebhookURL, agent.WebhookSecret = "http://127.0.0.1:1/hook2", "0123456789abcdef"
	require.NoError(t, d.Store.PutAgent(ctx, agent))
	due, err = d.Store.ClaimEventDeliveries(ctx, "agent."+agent.ID, 50, time.Minute)
	require.NoError(t, err)
	assert.Len(t, due, 1, "sent once a webhook is back")
}

// agentWithWebhook is agentNotified with the notification's delivery claimed.
func agentWithWebhook(t *testing.T) (*testsuite.Database, db.AgentNotification, db.EventDelivery) {
	t.Helper()
	d, agent, n := agentNotified(t)
	due, err := d.Store.ClaimEventDeliveries(context.Background(), "agent."+agent.ID, 50, time.Minute)
	require.NoError(t, err)
	require.Len(t, due, 1)
	return d, n, due[0]
}

// An agent's notification is stored once, in agent_notifications: its delivery's body is read
// from it, so a change there (an erasure's scrubbing) is what the webhook receives. The payload
// the delivery also holds, for the previous release's workers (migration 00030), is the same
// body, and read by nothing.
func TestAnAgentsNotificationBodyIsReadFromTheNotification(t *testing.T) {
	t.Parallel()
	d, n, claimed := agentWithWebhook(t)
	ctx := context.Background()
	assert.JSONEq(t, `{"id": `+strconv.FormatInt(n.ID, 10)+`, "event": "confirmed", "bookingId": "bk_r2",
		"detail": "confirmed by the supplier", "at": "`+n.CreatedAt.Format(time.RFC3339Nano)+`"}`, string(claimed.Payload))
	var stored string
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT payload::text FROM event_deliveries WHERE id = $1`, claimed.ID).Scan(&stored))
	assert.JSONEq(t, string(claimed.Payload), stored, "the previous release's workers would post another body")

	_, err := d.Pool.Exec(ctx, `UPDATE event_deliveries SET payload = '{"detail": "stale"}' WHERE id = $1`, claimed.ID)
	require.NoError(t, err)
	got, err := d.Store.EventDelivery(ctx, claimed.ID)
	require.NoError(t, err)
	assert.Equal(t, string(claimed.Payload), string(got.Payload), "the body was read from the delivery's payload")

	_, err = d.Pool.Exec(ctx, `UPDATE agent_notifications SET detail = 'changed' WHERE id = $1`, n.ID)
	require.NoError(t, err)
	got, err = d.Store.EventDelivery(ctx, claimed.ID)
	require.NoError(t, err)
	assert.Contains(t, string(got.Payload), `"detail":"changed"`)
}

// A notification once delivered stays delivered: a redelivery that then fails is a failed attempt
// in the delivery log and the notification's last error, not an undelivered notification.
func TestAFailedRedeliveryLeavesTheAgentsNotificationDelivered(t *testing.T) {
	t.Parallel()
	d, n, claimed := agentWithWebhook(t)
	ctx := context.Background()
	require.NoError(t, d.Store.RecordDeliveryAttempt(ctx, claimed.ID, db.DeliveryAttempt{Status: 200}, time.Minute, time.Hour))
	_, err := d.Store.Redeliver(ctx, claimed.ID)
	require.NoError(t, err)
	require.NoError(t, d.Store.RecordDeliveryAttempt(ctx, claimed.ID,
		db.DeliveryAttempt{Status: 503, Err: errors.New("answered 503")}, time.Minute, time.Hour))

	list, err := d.Store.AgentNotifications(ctx, n.AgentID, 10)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.NotNil(t, list[0].DeliveredAt, "a failed redelivery made the notification undelivered")
	assert.Equal(t, "answered 503", list[0].LastError)
	got, err := d.Store.EventDelivery(ctx, claimed.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, got.Attempts, "the redelivery's failed attempt is logged (a redelivery counts afresh)")
	assert.Equal(t, "answered 503", got.LastError)
}
