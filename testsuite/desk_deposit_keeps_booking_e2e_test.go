package testsuite_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// expiresAt is when the hold of booking id runs out, by the database.
func expiresAt(t *testing.T, sys *testsuite.System, id string) time.Time {
	t.Helper()
	var expires time.Time
	require.NoError(t, sys.DB.Pool.QueryRow(context.Background(), `SELECT expires_at FROM bookings WHERE id = $1`, id).Scan(&expires))
	return expires
}

// keptPastItsHold waits until the hold of booking id, which desk money confirmed, would have run
// out (its timer has fired), and checks that it did not: CONFIRMED, hotel's double with left
// rooms for stay, nothing given back.
func keptPastItsHold(t *testing.T, sys *testsuite.System, id, hotel string, stay domain.Stay, left int) {
	t.Helper()
	time.Sleep(time.Until(expiresAt(t, sys, id)) + 2*time.Second)
	assert.Equal(t, "CONFIRMED", dbStatus(t, sys, id), "nothing expires")
	assert.Equal(t, left, roomsLeft(t, sys, hotel, "double", stay), "the room stays sold")
	assert.Zero(t, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1`, id), "nothing goes back")
}

// TestADeskDepositKeepsTheBooking (issue 39, defect 1): the desk takes 50.00 in cash on a hotel
// hold. The booking is CONFIRMED at once and owes the rest at the desk (no date that lapses it);
// once the hold's time has passed it is still CONFIRMED, its room still sold, nothing refunded.
//
// The control is the other hold, held beside it with nothing paid: it expires and its room goes
// back on sale, so the wait is long enough for the hold's timer to have fired. Under the previous
// rule (db.TakeDeskPayment confirmed a hold only once it was paid whole) the deposit left the
// booking HOLD: the first assertion fails, and after the wait the booking would be EXPIRED with a
// 50.00 cash refund recorded (the workflow's expiry gives a hold's desk money back) while the
// cash is still in the drawer, and both rooms would be back on sale.
func TestADeskDepositKeepsTheBooking(t *testing.T) {
	t.Parallel()
	const ttl = 3 * time.Second
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{HoldTTL: ttl})
	stay := stayFromNow(20, 2)
	openRooms(t, sys, "h-keep", "double", stay, 2)
	id, total := holdRoom(t, sys, "h-keep", "k1", stay, 1)
	unpaid, _ := holdRoom(t, sys, "h-keep", "k2", stay, 1)
	require.Equal(t, 0, roomsLeft(t, sys, "h-keep", "double", stay))

	desk := deskOf(t, sys, []string{"h-keep"}, nil)
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("deposit"),
		map[string]any{"amount": 5000, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Equal(t, "CONFIRMED", res.Body["status"], "the desk's deposit confirms the hold: %s", res.Raw)
	assert.Equal(t, float64(total-5000), res.Body["money"].(map[string]any)["due"], "the rest is due")
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM bookings WHERE id = $1 AND balance_due_at IS NULL`, id),
		"the rest is due at the desk: no date lapses the booking")

	time.Sleep(time.Until(expiresAt(t, sys, unpaid)) + 2*time.Second) // the holds' timers have fired
	// The control: an unpaid hold does run out.
	awaitStatus(t, sys, unpaid, "EXPIRED")
	require.Eventually(t, func() bool { return roomsLeft(t, sys, "h-keep", "double", stay) == 1 },
		20*time.Second, 100*time.Millisecond, "the expired hold's room goes back on sale")

	assert.Equal(t, "CONFIRMED", dbStatus(t, sys, id), "the deposit keeps the booking")
	assert.Equal(t, "CONFIRMED", searchStatus(t, sys, id), "as the workflow published it")
	assert.True(t, workflowRunning(t, sys, id))
	assert.Equal(t, 1, roomsLeft(t, sys, "h-keep", "double", stay), "its room stays sold")
	assert.Zero(t, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1`, id), "no refund was attempted")
	m := moneyOf(t, sys, id)
	assert.Equal(t, float64(5000), m["paid"])
	assert.Equal(t, float64(0), m["refunded"])
	assert.Equal(t, float64(total-5000), m["due"], "the balance due is the rest")
	res = hold(t, sys, "k3", holdBody(sys.Customer("other"), "h-keep", "double", stay, 2))
	assert.Equal(t, http.StatusConflict, res.Status, "two rooms are not for sale: one is the deposit's: %s", res.Raw)
	checkInvariants(t, sys)
}
