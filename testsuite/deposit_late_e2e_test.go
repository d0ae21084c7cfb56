package testsuite_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// TestTheRestOfADepositHoldPaidAsTheHoldRunsOutKeepsTheBooking: the desk takes a cash deposit on
// a hold; the guest pays the rest online, and the webhook reaches the workflow before its hold
// timer fires, but the database's clock already has the hold expired (its expiry moved just
// before), so the confirmation is refused. The late payment rule takes the nights again: the
// booking is CONFIRMED keeping the deposit and the rest, and nothing is given back.
func TestTheRestOfADepositHoldPaidAsTheHoldRunsOutKeepsTheBooking(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(20, 2)
	openRooms(t, sys, "h-late-rest", "double", stay, 1)
	id, total := holdRoom(t, sys, "h-late-rest", "k1", stay, 1)
	desk := deskOf(t, sys, []string{"h-late-rest"}, nil)
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("deposit"),
		map[string]any{"amount": 5000, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	guest := sys.Guest(t, sys.Customer("guest"))
	res = guest.Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	pi := res.Body["paymentId"].(string)

	_, err := sys.DB.Pool.Exec(context.Background(), `UPDATE bookings SET expires_at = now() - interval '1 second' WHERE id = $1`, id)
	require.NoError(t, err)
	res = sys.Webhook(t, testsuite.PaymentEvent("evt_rest_"+sys.ID, pi, id, total-5000, "EUR"), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)

	awaitStatus(t, sys, id, "CONFIRMED")
	m := moneyOf(t, sys, id)
	assert.Equal(t, float64(total), m["paid"], "the deposit and the rest")
	assert.Equal(t, float64(0), m["due"])
	assert.Equal(t, float64(0), m["refunded"])
	assert.Equal(t, 0, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1`, id), "nothing goes back")
}
