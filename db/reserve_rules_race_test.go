package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// A sale rule applies from the moment it is answered: a rule write and the reservations at its
// hotel are serialised on the room types' rows (the write takes them FOR UPDATE, a reservation
// its own FOR KEY SHARE with its booking row, through the foreign key, and reads the rules
// after). These tests stop a reservation in
// flight, with the nights locked by another transaction, on both reservation paths.

// lockWaiters counts the backends of the test's database waiting for a lock.
func lockWaiters(t *testing.T, d *testsuite.Database) int {
	var waiting int
	require.NoError(t, d.Pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting))
	return waiting
}

// waitForLockWaiters waits until n backends of the test's database wait for a lock.
func waitForLockWaiters(t *testing.T, d *testsuite.Database, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return lockWaiters(t, d) >= n }, 5*time.Second, 5*time.Millisecond,
		"%d transactions waiting for a lock", n)
}

// nightsLocked locks a hotel's nights in a transaction of its own, as a slow sale would, and
// returns the function that lets them go.
func nightsLocked(t *testing.T, d *testsuite.Database, hotel string) (release func()) {
	t.Helper()
	ctx := context.Background()
	tx, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `SELECT 1 FROM inventory i JOIN resources r ON r.id = i.resource_id
		WHERE r.hotel_id = $1 AND r.code = 'double' FOR UPDATE OF i`, hotel)
	require.NoError(t, err)
	return func() { _ = tx.Rollback(ctx) }
}

// inFlight starts a hold of the stay at hotel while its nights are locked, and waits until it
// waits for them: it has written its booking row and judged the rules.
func inFlight(t *testing.T, d *testsuite.Database, hotel, customer string) (release func(), result <-chan domain.Booking) {
	t.Helper()
	release = nightsLocked(t, d, hotel)
	t.Cleanup(release)
	done := make(chan domain.Booking, 1)
	go func() {
		p := holdParams(customer, "k", stay3, 1)
		p.Request.HotelID = hotel
		b, err := d.Store.Reserve(context.Background(), p)
		assert.NoError(t, err)
		done <- b
	}()
	waitForLockWaiters(t, d, 1)
	return release, done
}

var stopSellDec11 = domain.SaleRule{Kind: domain.RuleStopSell, From: dec10.AddDays(1), To: dec10.AddDays(2), Reason: "event",
	SetBy: "tester"}

// TestAStopSellAnsweredWhileAHoldIsInFlightIsNotOvertakenByIt: the stop-sell's write waits for
// the hold in flight, so it is answered after the hold committed; the hold never commits on the
// closed nights after the stop-sell was answered. A hold after the answer is refused.
func TestAStopSellAnsweredWhileAHoldIsInFlightIsNotOvertakenByIt(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	twinHotels(t, d, func(h string) { d.SetInventory(t, h, "double", dec10, dec13, 5) })
	writeWaitsForTheHoldInFlight(t, d, "stop-sell (event)", func(hotel string) chan time.Time {
		answered := make(chan time.Time, 1)
		go func() {
			rule := stopSellDec11
			rule.HotelID = hotel
			_, err := d.Store.CreateSaleRules(context.Background(), []domain.SaleRule{rule})
			assert.NoError(t, err)
			answered <- time.Now()
		}()
		return answered
	})
}

// writeWaitsForTheHoldInFlight starts a hold of stay3 at "fast" and "full" while their nights are
// locked, then write, which closes Dec 11 in the background and sends when it was answered: the
// write must not be answered while the hold is in flight if the hold then commits on the closed
// night, and a hold after the answer is refused with refusal.
func writeWaitsForTheHoldInFlight(t *testing.T, d *testsuite.Database, refusal string, write func(hotel string) chan time.Time) {
	t.Helper()
	ctx := context.Background()
	for _, hotel := range []string{"fast", "full"} {
		release, held := inFlight(t, d, hotel, "c-"+hotel)
		answered := write(hotel)
		// The rule write either answers (the race) or waits behind the hold.
		var early bool
		require.Eventually(t, func() bool {
			select {
			case at := <-answered:
				early = true
				answered <- at
				return true
			default:
				return lockWaiters(t, d) >= 2
			}
		}, 5*time.Second, 5*time.Millisecond)
		// Taken before the hold may go on: a rule write waiting behind it answers after this. (The
		// moment the hold's caller sees its answer is no bound: the rule may answer first.)
		releasedAt := time.Now()
		release()
		b := <-held
		assert.False(t, early && b.Status == domain.StatusHold,
			"%s: the write was answered while the hold was in flight, and the hold then committed on its nights", hotel)
		if !early {
			assert.True(t, (<-answered).After(releasedAt), "%s: answered after the hold went on", hotel)
		}

		p := holdParams("c2-"+hotel, "k", stay3, 1)
		p.Request.HotelID = hotel
		after, err := d.Store.Reserve(ctx, p)
		require.NoError(t, err)
		assert.Equal(t, domain.StatusRejected, after.Status, "%s: a hold after the answer is refused", hotel)
		assert.Contains(t, after.Refusal, refusal)
	}
	d.AssertInventoryMatchesBookings(t)
}

// TestAHoldStartedWhileAStopSellIsBeingWrittenSeesIt: a hold that begins while a rule write is
// open at its hotel waits for it and is judged by the rule (on the one-round-trip path, the rule
// it did not see when it chose that path sends it down the full path).
func TestAHoldStartedWhileAStopSellIsBeingWrittenSeesIt(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	twinHotels(t, d, func(h string) { d.SetInventory(t, h, "double", dec10, dec13, 5) })
	ctx := context.Background()
	for _, hotel := range []string{"fast", "full"} {
		write, err := d.Pool.Begin(ctx)
		require.NoError(t, err)
		t.Cleanup(func() { _ = write.Rollback(ctx) })
		lockHotelAndStopSell(t, write, hotel)
		done := make(chan domain.Booking, 1)
		go func() {
			p := holdParams("c-"+hotel, "k", stay3, 1)
			p.Request.HotelID = hotel
			b, err := d.Store.Reserve(ctx, p)
			assert.NoError(t, err)
			done <- b
		}()
		// The hold waits for the rule write (or, unguarded, it is already done).
		require.Eventually(t, func() bool { return len(done) > 0 || lockWaiters(t, d) >= 1 }, 5*time.Second, 5*time.Millisecond)
		require.NoError(t, write.Commit(ctx))
		b := <-done
		assert.Equal(t, domain.StatusRejected, b.Status, "%s: the hold waited for the rule and was judged by it", hotel)
		assert.Contains(t, b.Refusal, "stop-sell (event)", hotel)
	}
	d.AssertInventoryMatchesBookings(t)
}

// lockHotelAndStopSell writes a stop-sell over the night of Dec 11 at hotel in tx as
// CreateSaleRules does: the hotel's sale lock first.
func lockHotelAndStopSell(t *testing.T, tx pgx.Tx, hotel string) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, db.LockSaleRules(ctx, tx, hotel))
	_, err := tx.Exec(ctx, `INSERT INTO sale_rules (kind, hotel_id, from_date, to_date, reason, set_by)
		VALUES ('stop_sell', $1, $2, $3, 'event', 'tester')`, hotel, dec10.AddDays(1).Time(), dec10.AddDays(2).Time())
	require.NoError(t, err)
}

// TestControlARuleWrittenWithoutTheHotelsLockIsOvertakenByAHoldInFlight is the control: the same
// stop-sell written without the hotel's lock is answered (committed) while the hold waits, and
// the hold then commits on the nights it closes. This is the race the lock closes.
func TestControlARuleWrittenWithoutTheHotelsLockIsOvertakenByAHoldInFlight(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	// Unbatched: the batch writer's 50 ms lock wait would send the hold back to run again, and a
	// machine slow to write the rule and let the nights go makes that rerun see the rule.
	d.Store.SetBatching(false)
	twinHotels(t, d, func(h string) { d.SetInventory(t, h, "double", dec10, dec13, 5) })
	ctx := context.Background()
	for _, hotel := range []string{"fast", "full"} {
		release, held := inFlight(t, d, hotel, "c-"+hotel)
		_, err := d.Pool.Exec(ctx, `INSERT INTO sale_rules (kind, hotel_id, from_date, to_date, reason, set_by)
			VALUES ('stop_sell', $1, $2, $3, 'event', 'tester')`, hotel, dec10.AddDays(1).Time(), dec10.AddDays(2).Time())
		require.NoError(t, err, "answered at once")
		release()
		b := <-held
		assert.Equal(t, domain.StatusHold, b.Status, "%s: the hold in flight committed after the stop-sell was answered", hotel)
		assert.Equal(t, []int{1, 1, 1}, d.Reserved(t, hotel, "double", stay3))
	}
}
