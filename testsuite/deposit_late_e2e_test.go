package testsuite_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// TestTheRestOfADeskDepositPaidOnlineGoesBackWholeAndIsTakenAtTheDesk: the guest opened the
// checkout for the whole price, then the desk took a cash deposit: it confirms the hold (issue
// 39), owing the rest at the desk. The hold's time passes: nothing expires, nothing goes back,
// the room stays sold. The guest then completes the checkout for the rest: a second payment for
// a confirmed booking, given back whole (the checkout no longer offers it). The desk takes the
// rest by card, and the booking owes nothing.
//
// Before issue 39 the deposit left the booking on hold, and the rest paid online as the hold ran
// out was a late payment that kept the booking (commit db6d8db): that race cannot happen now.
func TestTheRestOfADeskDepositPaidOnlineGoesBackWholeAndIsTakenAtTheDesk(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{HoldTTL: 3 * time.Second})
	stay := stayFromNow(20, 2)
	openRooms(t, sys, "h-late-rest", "double", stay, 1)
	id, total := holdRoom(t, sys, "h-late-rest", "k1", stay, 1)
	guest := sys.Guest(t, sys.Customer("guest"))
	res := guest.Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	pi := res.Body["paymentId"].(string)

	desk := deskOf(t, sys, []string{"h-late-rest"}, nil)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("deposit"),
		map[string]any{"amount": 5000, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Equal(t, "CONFIRMED", res.Body["status"], "the deposit confirms the hold")

	keptPastItsHold(t, sys, id, "h-late-rest", stay, 0)
	res = guest.Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	assert.Equal(t, http.StatusConflict, res.Status, "the rest is due at the desk, not online: %s", res.Raw)

	res = sys.Webhook(t, testsuite.PaymentEvent("evt_rest_"+sys.ID, pi, id, total-5000, "EUR"), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = $1 AND amount = $2 AND status = 'succeeded'`,
			pi, total-5000) == 1
	}, 20*time.Second, 50*time.Millisecond, "the rest paid online goes back whole")
	assert.Equal(t, "CONFIRMED", dbStatus(t, sys, id))
	m := moneyOf(t, sys, id)
	assert.Equal(t, float64(5000), m["paid"], "the deposit is kept")
	assert.Equal(t, float64(total-5000), m["due"], "the rest is still due")

	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("rest"),
		map[string]any{"amount": total - 5000, "currency": "EUR", "method": "card_terminal"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "CONFIRMED", res.Body["status"])
	m = moneyOf(t, sys, id)
	assert.Equal(t, float64(total), m["paid"], "the deposit and the rest")
	assert.Equal(t, float64(0), m["due"])
	assert.Equal(t, 0, roomsLeft(t, sys, "h-late-rest", "double", stay))
	checkInvariants(t, sys)
}
