package testsuite_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// TestACustomerMovesTheirBookingToAnotherPlan (issue 35): a paid BAR booking moved by its
// customer to a plan at 10% off with breakfast, through the booking's workflow on the real
// Temporal server: every night re-priced, the fall given back by BAR's policy (all of it, far
// ahead), and the booking shows the plan, its terms and its policy; the amendment records both
// plans, and a retry naming the plan is the same amendment, as is a retry that adds the plan the
// booking had to a request that named none. Naming the plan the booking has is
// naming none (a change of nothing), an unknown plan is 404, and a deposit plan 409.
func TestACustomerMovesTheirBookingToAnotherPlan(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	hotel, stay := "h-replan", stayFromNow(40, 2)
	openRooms(t, sys, hotel, "double", stay, 2)
	putPlans(t, sys, hotel,
		planDef{"BB", map[string]any{"name": "Bed and breakfast", "board": "breakfast",
			"policy": map[string]any{"freeUntilHours": 72}, "derivedFrom": map[string]any{"parent": "BAR", "percent": "-10"}}},
		planDef{"DEP", map[string]any{"name": "Deposit", "policy": map[string]any{},
			"payment": map[string]any{"kind": "deposit", "depositPercent": 30, "balanceDueDays": 7}}})
	guest := sys.Guest(t, sys.Customer("guest"))
	res := hold(t, sys, "rp-1", holdBody(sys.Customer("guest"), hotel, "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	payAndConfirm(t, sys, id, 2*10000, "evt_rp", "pi_rp")
	move := func(key string, body map[string]any) testsuite.Response {
		return guest.Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/amendments", map[string]string{"Idempotency-Key": key}, body)
	}

	res = move("rp-same", map[string]any{"ratePlan": "BAR"})
	assert.Equal(t, http.StatusBadRequest, res.Status, "its own plan changes nothing: %s", res.Raw)
	res = move("rp-nope", map[string]any{"ratePlan": "NOPE"})
	assert.Equal(t, http.StatusNotFound, res.Status, res.Raw)
	res = move("rp-dep", map[string]any{"ratePlan": "DEP"})
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Contains(t, res.Raw, "deposit")

	res = move("rp-bb", map[string]any{"ratePlan": "BB"})
	a := amendment(t, res)
	assert.Equal(t, "APPLIED", a["status"], res.Raw)
	assert.EqualValues(t, -2000, a["difference"])
	assert.EqualValues(t, 2000, a["refund"], "BAR's policy gives the whole fall back this far ahead")
	assert.Equal(t, "BAR", a["before"].(map[string]any)["ratePlan"])
	assert.Equal(t, "BB", a["after"].(map[string]any)["ratePlan"])
	again := amendment(t, move("rp-bb", map[string]any{"ratePlan": "BB"}))
	assert.Equal(t, a["id"], again["id"], "a retry is the same amendment")

	got := guest.Do(t, http.MethodGet, "/api/v1/bookings/"+id, nil, nil)
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	assert.Equal(t, "BB", got.Body["ratePlan"])
	assert.Equal(t, "breakfast", got.Body["planTerms"].(map[string]any)["board"])
	assert.EqualValues(t, 72, got.Body["cancellationPolicy"].(map[string]any)["freeUntilHours"])
	price := got.Body["price"].(map[string]any)
	assert.EqualValues(t, 2*9000, price["total"])
	for _, n := range price["nights"].([]any) {
		assert.EqualValues(t, 9000, n.(map[string]any)["amount"], "every night at the plan's price")
	}
	list := amendments(t, sys, id)
	require.Len(t, list, 1)
	assert.Equal(t, "BB", list[0].(map[string]any)["after"].(map[string]any)["ratePlan"])
	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND amount = 2000 AND status = 'succeeded'`, id) == 1
	}, 20*time.Second, 50*time.Millisecond, "the fall is given back")

	// A second room waits for its balance; its retry naming the plan the booking had is the same.
	second := amendment(t, move("rp-two", map[string]any{"quantity": 2}))
	assert.Equal(t, "BALANCE_DUE", second["status"])
	assert.EqualValues(t, 2*9000, second["difference"], "the room added at the plan's price")
	retry := amendment(t, move("rp-two", map[string]any{"quantity": 2, "ratePlan": "BB"}))
	assert.Equal(t, second["id"], retry["id"])
	checkInvariants(t, sys)
}
