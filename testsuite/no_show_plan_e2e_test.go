package testsuite_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// TestANoShowOfAPlanKeepingLessGivesTheRestBack: a guest pays three nights under a plan whose
// own rates differ by night (90.00, 135.00, 108.00) and keeps the first night of a no-show, and
// another three nights of 111.11 under a plan keeping 33% (109.99 of 333.33, rounded down). Nobody
// checks in by the deadline: each booking becomes NO_SHOW and the booking workflow gives back
// the rest through the provider, under the key no-show@<check-in>. The booking's payments show
// the refund and what it keeps, the ledger's sums and its no_show entry agree, and the checker
// finds nothing.
func TestANoShowOfAPlanKeepingLessGivesTheRestBack(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{NoShowAfter: 3 * time.Second})
	stay := stayFromNow(20, 3)
	for _, c := range []struct {
		hotel, plan    string
		policy         map[string]any
		nights         []int64
		kept, refund   int64
		reason, record string
	}{
		{"h-ns-first", "FIRST", map[string]any{"noShow": "first_night"}, []int64{9000, 13500, 10800}, 9000, 13500 + 10800,
			"nobody checked in: the rate plan keeps the first night", "hold-confirm-no-show-first-night"},
		{"h-ns-pct", "PCT", map[string]any{"noShow": "percent", "noShowPercent": 33}, []int64{11111, 11111, 11111}, 10999, 22334,
			"nobody checked in: the rate plan keeps 33% of the price", "hold-confirm-no-show-percent"},
	} {
		openRooms(t, sys, c.hotel, "double", stay, 1)
		putPlans(t, sys, c.hotel, planDef{c.plan, map[string]any{"name": "Flexible " + c.plan, "policy": c.policy}})
		for i, amount := range c.nights {
			night := stay.CheckIn.AddDays(i)
			res := sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/"+c.hotel+"/rate-plans/"+c.plan+"/room-types/double/rates",
				map[string]any{"from": night, "to": night.AddDays(1), "rate": amount, "currency": "EUR"})
			require.Equal(t, http.StatusOK, res.Status, res.Raw)
		}
		body := holdBody(sys.Customer("guest"), c.hotel, "double", stay, 1)
		body["ratePlan"] = c.plan
		res := hold(t, sys, "k-"+c.hotel, body)
		require.Equal(t, http.StatusCreated, res.Status, res.Raw)
		id := res.Body["id"].(string)
		total := c.kept + c.refund
		require.Equal(t, float64(total), res.Body["price"].(map[string]any)["total"], res.Raw)
		assert.Equal(t, c.policy["noShow"], res.Body["planTerms"].(map[string]any)["noShow"])
		payAndConfirm(t, sys, id, total, "evt_"+c.hotel, "pi_"+c.hotel)
		awaitStatus(t, sys, id, "NO_SHOW")

		var money testsuite.Response
		require.Eventually(t, func() bool {
			money = sys.Admin(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/payments", nil)
			refunds, _ := money.Body["refunds"].([]any)
			return len(refunds) == 1 && refunds[0].(map[string]any)["status"] == "succeeded"
		}, 20*time.Second, 50*time.Millisecond, "%s: the no-show's refund never succeeded: %s", c.hotel, money.Raw)
		assert.Equal(t, "NO_SHOW", money.Body["status"])
		assert.Equal(t, float64(c.kept), money.Body["paid"], "%s: what the booking keeps", c.hotel)
		r := money.Body["refunds"].([]any)[0].(map[string]any)
		assert.Equal(t, float64(c.refund), r["amount"], c.hotel)
		assert.Equal(t, "pi_"+c.hotel, r["paymentId"])
		assert.Equal(t, c.reason, r["reason"])
		assert.True(t, strings.Contains(r["id"].(string), "no-show@"+stay.CheckIn.String()), "%s: keyed by the no-show: %v",
			c.hotel, r["id"])
		balances := money.Body["balances"].(map[string]any)
		assert.Equal(t, float64(total), balances["paid"], "%s: what the payment brought", c.hotel)
		assert.Equal(t, float64(c.kept), balances["kept"], "%s: the ledger keeps what the plan keeps", c.hotel)
		assert.Equal(t, float64(c.refund), balances["refunded"], c.hotel)
		var asked []any
		for _, e := range money.Body["ledger"].([]any) {
			if e := e.(map[string]any); e["kind"] == "refund_asked" {
				asked = append(asked, e["cause"], e["amount"])
			}
		}
		assert.Equal(t, []any{"no_show", float64(c.refund)}, asked, "%s: one refund asked, by the no-show", c.hotel)
		testsuite.ReplayAndRecord(t, sys.Temporal, id, c.record)
	}
	found, err := sys.DB.Store.MoneyMismatches(context.Background())
	require.NoError(t, err)
	assert.Empty(t, found, "the money checker")
	checkInvariants(t, sys)
}
