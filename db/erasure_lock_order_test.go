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

// waitForLockWait waits until a statement matching like waits for a lock.
func waitForLockWait(t *testing.T, d *testsuite.Database, like string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var n int
		require.NoError(t, d.Pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1`, like).Scan(&n))
		if n > 0 {
			return
		}
	}
	t.Fatalf("no statement like %q waits for a lock", like)
}

// An erasure of a customer whose booking's agent notification is being sent while it runs (a
// retry, a redelivery: the booking has ended, its delivery has not). The event sender records
// the attempt in one statement that locks the delivery, then the notification
// (db.RecordDeliveryAttempt). The erasure scrubbed the notification, then locked the booking's
// deliveries: the other order, and one of the two was killed as a deadlock. Here the erasure is
// held between the two (an audit entry of the booking locked by another transaction) while the
// sender records its attempt. The erasure now takes the deliveries first, as the sender does.
func TestAnErasureAndTheEventSenderTakeAnAgentsDeliveryInTheSameOrder(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec14, 5)
	const cust = "cust-lock-order"
	b := paidBooking(t, d, cust, nights(dec10, 1), 1, 0)
	inThePast(t, d, b.ID)
	require.NoError(t, d.Store.PutChannel(ctx, db.Channel{ID: "A"}))
	agent := db.Agent{ID: "agent-lo", ChannelID: "A", WebhookURL: "http://127.0.0.1:1/hook", WebhookSecret: "0123456789abcdef"}
	require.NoError(t, d.Store.PutAgent(ctx, agent))
	n, err := d.Store.RecordAgentNotification(ctx, db.AgentNotification{AgentID: agent.ID, BookingID: b.ID,
		Event: "confirmed", Detail: "confirmed for " + cust})
	require.NoError(t, err)
	require.NoError(t, d.Store.QueueAgentNotification(ctx, n))
	due, err := d.Store.ClaimEventDeliveries(ctx, "agent."+agent.ID, 16, time.Minute)
	require.NoError(t, err)
	require.Len(t, due, 1)
	require.NoError(t, d.Store.Audit(ctx, db.AuditEntry{Actor: "desk-1", Action: "note", BookingID: b.ID, Reason: "rang"}))

	// The erasure waits at the booking's audit entry, after the tables scrubbed before it.
	blocker, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = blocker.Rollback(ctx) }()
	_, err = blocker.Exec(ctx, `SELECT 1 FROM audit_log WHERE booking_id = $1 FOR UPDATE`, b.ID)
	require.NoError(t, err)
	erased := make(chan error, 1)
	go func() {
		_, err := d.Store.EraseCustomer(ctx, eraseReq(cust, "the customer asked"))
		erased <- err
	}()
	waitForLockWait(t, d, "%FROM audit_log%")

	// The sender records its attempt meanwhile: done, or waiting for what the erasure holds.
	recorded := make(chan error, 1)
	go func() {
		recorded <- d.Store.RecordDeliveryAttempt(ctx, due[0].ID, db.DeliveryAttempt{Status: 200}, time.Minute, time.Hour)
	}()
	select {
	case err := <-recorded:
		recorded <- err
	case <-time.After(time.Second):
		waitForLockWait(t, d, "%UPDATE agent_notifications n%")
	}

	require.NoError(t, blocker.Rollback(ctx))
	assert.NoError(t, <-erased, "the erasure")
	assert.NoError(t, <-recorded, "the sender's record of its attempt")
	assert.Equal(t, 1, count(t, d, `SELECT count(*) FROM customer_erasures`))
	got, err := d.Store.EventDelivery(ctx, due[0].ID)
	require.NoError(t, err)
	assert.Equal(t, "delivered", got.Status)
	assert.NotContains(t, string(got.Payload), cust)
}
