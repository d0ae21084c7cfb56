package testsuite_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// TestAHoldPastItsBalanceDateIsAskedItsWholePrice: a deposit plan's hold whose balance date
// passes while it is held is no longer confirmed by its deposit (the workflow gives a deposit
// back then, 7277b57): the checkout asks for its whole price, not for a deposit it will refuse.
func TestAHoldPastItsBalanceDateIsAskedItsWholePrice(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	balanceDueIn(t, sys, "3 seconds")
	id := depositPlanHold(t, sys, "h-dep-past", "dep-past", stayFromNow(40, 2))
	time.Sleep(4 * time.Second) // the balance date passes; the hold has minutes left
	require.Equal(t, "HOLD", bookingStatus(t, sys, id))
	got := staffView(t, sys, id)
	assert.Nil(t, got.Body["depositDue"], "a hold past its balance date asks no deposit: %s", got.Raw)
	guest := sys.Guest(t, sys.Customer("guest"))
	res := guest.Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, float64(18000), res.Body["amount"], "the checkout asks for the whole price")
	pay := res.Body["paymentId"].(string)
	amount := int64(res.Body["amount"].(float64))
	require.Equal(t, http.StatusOK, sys.Webhook(t, testsuite.PaymentEvent("evt_past", pay, id, amount, "EUR"), time.Now()).Status)
	time.Sleep(3 * time.Second)
	assert.Equal(t, "CONFIRMED", bookingStatus(t, sys, id), "what the checkout asked for confirms the hold")
	assert.Zero(t, count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = $1`, pay), "nothing the checkout asked for goes back")
}
