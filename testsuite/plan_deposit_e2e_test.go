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

// depositPlanHold holds two nights at hotel under DEP (BAR -10%, 30% at booking, the rest 7 days
// before arrival): 18000, its deposit 5400.
func depositPlanHold(t *testing.T, sys *testsuite.System, hotel, key string, stay domain.Stay) string {
	t.Helper()
	openRooms(t, sys, hotel, "double", stay, 2)
	putPlans(t, sys, hotel, planDef{"DEP", map[string]any{"name": "Deposit", "policy": map[string]any{},
		"derivedFrom": map[string]any{"parent": "BAR", "percent": "-10"},
		"payment":     map[string]any{"kind": "deposit", "depositPercent": 30, "balanceDueDays": 7}}})
	body := holdBody(sys.Customer("guest"), hotel, "double", stay, 1)
	body["ratePlan"] = "DEP"
	res := hold(t, sys, key, body)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	assert.Equal(t, float64(18000), res.Body["price"].(map[string]any)["total"])
	assert.Equal(t, float64(5400), res.Body["depositDue"], res.Raw)
	return res.Body["id"].(string)
}

// balanceDueIn makes every deposit hold reserved from now on keep a balance date the given
// interval ahead (a PostgreSQL interval, '3 seconds'), as one held just before the date's
// midnight would: the database and the workflow read the same date.
func balanceDueIn(t *testing.T, sys *testsuite.System, in string) {
	t.Helper()
	_, err := sys.DB.Pool.Exec(context.Background(), `CREATE FUNCTION soon_due() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN NEW.balance_due_at := now() + interval '`+in+`'; RETURN NEW; END $$;
		CREATE TRIGGER soon_due BEFORE UPDATE OF balance_due_at ON bookings FOR EACH ROW
			WHEN (OLD.balance_due_at IS NULL AND NEW.balance_due_at IS NOT NULL) EXECUTE FUNCTION soon_due()`)
	require.NoError(t, err)
}

// awaitPaid waits until the booking's paid is want.
func awaitPaid(t *testing.T, sys *testsuite.System, id string, want float64) testsuite.Response {
	t.Helper()
	var got testsuite.Response
	require.Eventually(t, func() bool {
		got = staffView(t, sys, id)
		return got.Body["paid"] == want
	}, 20*time.Second, 50*time.Millisecond, "booking %s never had %v paid", id, want)
	return got
}

// TestADepositConfirmsTheBookingAndTheBalanceIsPaidOnline: the checkout's payment for a deposit
// plan's hold is its deposit; paid, the booking is CONFIRMED owing the rest by its date; the
// checkout's next payment is the rest, and paid, the booking owes nothing. The rest's event
// delivered again changes nothing; a second payment of the rest is given back.
func TestADepositConfirmsTheBookingAndTheBalanceIsPaidOnline(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(40, 2)
	id := depositPlanHold(t, sys, "h-dep", "dep-1", stay)
	guest := sys.Guest(t, sys.Customer("guest"))
	res := guest.Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, float64(5400), res.Body["amount"], "the checkout takes the deposit")
	deposit := res.Body["paymentId"].(string)
	require.Equal(t, http.StatusOK, sys.Webhook(t, testsuite.PaymentEvent("evt_dep", deposit, id, 5400, "EUR"), time.Now()).Status)
	awaitStatus(t, sys, id, "CONFIRMED")
	got := staffView(t, sys, id)
	assert.Equal(t, float64(5400), got.Body["paid"])
	assert.Equal(t, float64(12600), got.Body["money"].(map[string]any)["due"], got.Raw)
	due := stay.CheckIn.AddDays(-7).In(time.UTC).Format(time.RFC3339)
	assert.Equal(t, due, got.Body["planBalanceDueAt"], got.Raw)

	res = guest.Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, float64(12600), res.Body["amount"], "the checkout's next payment is the rest")
	assert.Equal(t, due, res.Body["expiresAt"])
	rest := res.Body["paymentId"].(string)
	require.Equal(t, http.StatusOK, sys.Webhook(t, testsuite.PaymentEvent("evt_rest", rest, id, 12600, "EUR"), time.Now()).Status)
	got = awaitPaid(t, sys, id, 18000)
	assert.Equal(t, "CONFIRMED", got.Body["status"])
	assert.Equal(t, float64(0), got.Body["money"].(map[string]any)["due"], got.Raw)
	require.Equal(t, http.StatusOK, sys.Webhook(t, testsuite.PaymentEvent("evt_rest_again", rest, id, 12600, "EUR"), time.Now()).Status)
	require.Equal(t, http.StatusOK, sys.Webhook(t, testsuite.PaymentEvent("evt_second", "pi_second", id, 12600, "EUR"), time.Now()).Status)
	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = 'pi_second' AND status = 'succeeded'`) == 1
	}, 20*time.Second, 50*time.Millisecond, "a second payment of the rest is given back")
	assert.Equal(t, float64(18000), staffView(t, sys, id).Body["paid"], "the rest's event again changed nothing")
	res = guest.Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	assert.Equal(t, http.StatusConflict, res.Status, "nothing is owed: %s", res.Raw)
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "plan-deposit-balance-paid")
}

// TestABalanceNotPaidByItsDateCancelsTheBookingByItsPolicy: a deposit booking whose balance date
// comes (set a few seconds ahead in the database, where the workflow reads it back with the
// confirmation) unpaid is cancelled, judged at that date by its policy (refundable: the deposit
// goes back), and its nights are on sale again.
func TestABalanceNotPaidByItsDateCancelsTheBookingByItsPolicy(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(40, 2)
	id := depositPlanHold(t, sys, "h-dep-lapse", "dep-2", stay)
	_, err := sys.DB.Pool.Exec(context.Background(), `UPDATE bookings SET balance_due_at = now() + interval '3 seconds' WHERE id = $1`, id)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, sys.Webhook(t, testsuite.PaymentEvent("evt_dep2", "pi_dep2", id, 5400, "EUR"), time.Now()).Status)
	awaitStatus(t, sys, id, "CONFIRMED")
	require.Eventually(t, func() bool { return bookingStatus(t, sys, id) == "REFUNDED" }, 30*time.Second, 100*time.Millisecond,
		"the balance lapsed (is %s)", bookingStatus(t, sys, id))
	got := staffView(t, sys, id)
	assert.Equal(t, float64(5400), got.Body["refundDue"], got.Raw)
	assert.Equal(t, 2, roomsLeft(t, sys, "h-dep-lapse", "double", stay), "the nights are back on sale")
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM booking_changes WHERE booking_id = $1 AND actor = 'system:plan-balance'`, id))
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "plan-deposit-balance-lapsed")
}
