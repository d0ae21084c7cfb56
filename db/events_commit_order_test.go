package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/testsuite"
)

// waitedOrDone waits until the backend pid is waiting for a lock, or idle (its transaction over),
// and says which: "lock" or "idle".
func waitedOrDone(t *testing.T, pool *pgxpool.Pool, pid uint32) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var state, wait string
		require.NoError(t, pool.QueryRow(context.Background(), `SELECT COALESCE(state, ''), COALESCE(wait_event_type, '')
			FROM pg_stat_activity WHERE pid = $1`, pid).Scan(&state, &wait))
		switch {
		case wait == "Lock":
			return "lock"
		case state == "idle":
			return "idle"
		}
	}
	t.Fatalf("backend %d neither waits for a lock nor is done", pid)
	return ""
}

// sendAll delivers, as the sender does, every delivery to "crm" it may send now, round after
// round (each round takes a booking's next only once the one before it is delivered), and
// returns their event ids in the order they went out.
func sendAll(t *testing.T, d *testsuite.Database) []string {
	t.Helper()
	ctx := context.Background()
	var sent []string
	for {
		due, err := d.Store.ClaimEventDeliveries(ctx, "crm", 16, time.Minute)
		require.NoError(t, err)
		if len(due) == 0 {
			return sent
		}
		for _, e := range due {
			sent = append(sent, e.EventID)
			require.NoError(t, d.Store.RecordDeliveryAttempt(ctx, e.ID, db.DeliveryAttempt{Status: 200}, time.Minute, time.Hour))
		}
	}
}

// Two transactions queue an event of one booking each (a refund settled by its webhook while
// another refund row is written, say), the first still open when the second would commit. The
// first's delivery has the lower id, and the sender sends a booking's deliveries in id order:
// had the second committed first, it would have been claimed and sent while the first was not
// yet visible, and the first sent after it. The booking's advisory lock (queue_booking_event, migration 00032) makes the
// second wait for the first to commit, so they go out in the order they committed. Another
// booking's events are queued meanwhile without waiting.
func TestABookingsEventsGoOutInTheOrderTheirTransactionsCommitted(t *testing.T) {
	t.Parallel()
	d, ctx := subscribed(t, "booking.refunded")
	queue := `SELECT queue_booking_event($1, 'booking.refunded', $2, '{}')`

	first, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = first.Rollback(ctx) }()
	_, err = first.Exec(ctx, queue, "evt_first", "bk_1")
	require.NoError(t, err)

	conn, err := d.Pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	pid := conn.Conn().PgConn().PID()
	second := make(chan error, 1)
	go func() {
		tx, err := conn.Begin(ctx)
		if err == nil {
			if _, err = tx.Exec(ctx, queue, "evt_second", "bk_1"); err == nil {
				err = tx.Commit(ctx)
			}
		}
		second <- err
	}()
	waitedOrDone(t, d.Pool, pid)

	// Another booking's event is queued and committed while bk_1's are in flight.
	other, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err = d.Pool.Exec(other, queue, "evt_other", "bk_2")
	require.NoError(t, err, "another booking's event waited for bk_1's")

	sent := sendAll(t, d)
	require.NoError(t, first.Commit(ctx))
	require.NoError(t, <-second)
	sent = append(sent, sendAll(t, d)...)

	var bk1 []string
	for _, e := range sent {
		if e != "evt_other" {
			bk1 = append(bk1, e)
		}
	}
	assert.Equal(t, []string{"evt_first", "evt_second"}, bk1, "bk_1's events in the order they were committed")
	assert.Contains(t, sent, "evt_other")
}
