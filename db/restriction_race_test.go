package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// closeDec11 is a bulk write closing the night of Dec 11 at hotel, run in the background: it
// sends the time it was answered.
func closeDec11(t *testing.T, d *testsuite.Database, hotel string) chan time.Time {
	yes := true
	answered := make(chan time.Time, 1)
	go func() {
		_, err := d.Store.SetRestrictions(context.Background(), hotel, "cm",
			[]domain.RestrictionSet{{From: dec10.AddDays(1), To: dec10.AddDays(2), Closed: &yes}})
		assert.NoError(t, err)
		answered <- time.Now()
	}()
	return answered
}

// TestABulkRestrictionAnsweredWhileAHoldIsInFlightIsNotOvertakenByIt, as the sale rules' race
// test: the bulk write waits for the hold in flight at its hotel, so the hold never commits on a
// night closed by a write already answered, and a hold after the answer is refused. Its control
// is the next test.
func TestABulkRestrictionAnsweredWhileAHoldIsInFlightIsNotOvertakenByIt(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	twinHotels(t, d, func(h string) { d.SetInventory(t, h, "double", dec10, dec13, 5) })
	writeWaitsForTheHoldInFlight(t, d, "stop-sell (other)", func(hotel string) chan time.Time { return closeDec11(t, d, hotel) })
}

// TestControlABulkRestrictionWrittenWithoutTheLockIsOvertakenByAHoldInFlight is the control: the
// same bulk write without the sale lock is answered while the hold waits, and the hold then commits
// on the night it closed. Not parallel: it changes the store's lock for its duration.
func TestControlABulkRestrictionWrittenWithoutTheLockIsOvertakenByAHoldInFlight(t *testing.T) {
	defer db.WithoutRestrictionsLock()()
	d := testsuite.NewDatabase(t)
	d.Store.SetBatching(false) // as the sale rules' control: no rerun of the hold
	twinHotels(t, d, func(h string) { d.SetInventory(t, h, "double", dec10, dec13, 5) })
	for _, hotel := range []string{"fast", "full"} {
		release, held := inFlight(t, d, hotel, "c-"+hotel)
		select {
		case <-closeDec11(t, d, hotel):
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the write without the lock waited", hotel)
		}
		release()
		b := <-held
		assert.Equal(t, domain.StatusHold, b.Status, "%s: the hold in flight committed after the close was answered", hotel)
		assert.Equal(t, []int{1, 1, 1}, d.Reserved(t, hotel, "double", stay3))
	}
}
