package testsuite_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestPartOfAPlanDepositAtTheDeskConfirmsAndThePlanBalanceIsKeptOnline: the desk takes 5,000 of
// a deposit plan's 5,400 deposit: the hold is CONFIRMED (issue 39), owing the rest by the plan's
// balance date, still ahead. The hold's time passes: nothing expires, nothing goes back, the
// room stays sold. The rest of the deposit paid online (400) is a second payment and goes back
// whole; the checkout then asks for the plan's balance, and its payment, exactly that, is kept.
//
// Before issue 39 the desk's part left the hold on hold, and the story here was the rest of the
// deposit arriving as the hold ran out (both given back): that race cannot happen now.
func TestPartOfAPlanDepositAtTheDeskConfirmsAndThePlanBalanceIsKeptOnline(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{HoldTTL: 3 * time.Second})
	stay := stayFromNow(40, 2)
	id := depositPlanHold(t, sys, "h-dep-desk", "dep-desk", stay)
	admin := sys.As(t, domain.Principal{Subject: "admin-" + sys.ID, Roles: []domain.Role{domain.RoleAdmin}})
	res := admin.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("desk-part"),
		map[string]any{"amount": 5000, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Equal(t, "CONFIRMED", res.Body["status"], res.Raw)
	due := stay.CheckIn.AddDays(-7).In(time.UTC).Format(time.RFC3339)
	got := staffView(t, sys, id)
	assert.Equal(t, due, got.Body["planBalanceDueAt"], "the rest is due by the plan's date: %s", got.Raw)
	assert.Equal(t, float64(13000), got.Body["money"].(map[string]any)["due"], got.Raw)

	keptPastItsHold(t, sys, id, "h-dep-desk", stay, 1) // one room of two

	require.Equal(t, http.StatusOK, sys.Webhook(t, testsuite.PaymentEvent("evt_rest_dep", "pi_rest_dep", id, 400, "EUR"), time.Now()).Status)
	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = 'pi_rest_dep' AND amount = 400 AND status = 'succeeded'`) == 1
	}, 20*time.Second, 100*time.Millisecond, "the rest of the deposit paid online goes back whole")

	guest := sys.Guest(t, sys.Customer("guest"))
	res = guest.Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, float64(13000), res.Body["amount"], "the checkout asks for the plan's balance")
	balance := res.Body["paymentId"].(string)
	require.Equal(t, http.StatusOK, sys.Webhook(t, testsuite.PaymentEvent("evt_bal_dep", balance, id, 13000, "EUR"), time.Now()).Status)
	got = awaitPaid(t, sys, id, 18000)
	assert.Equal(t, "CONFIRMED", got.Body["status"])
	assert.Equal(t, float64(0), got.Body["money"].(map[string]any)["due"], got.Raw)
	assert.Zero(t, count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = $1`, balance), "the balance is kept")
	checkInvariants(t, sys)
}
