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

// TestReviewANoShowsCashRefundWaitsAtTheDeskEndToEnd (review of 4fe2372): the desk takes a
// booking's whole price (3 nights, 300.00) in cash; its plan keeps the first night of a
// no-show. Nobody checks in: the workflow gives 200.00 back. The commit says a no-show's refund
// of desk money waits at the desk, pending, until someone hands it over; but the no-show's
// refund saga carries the actor system:no-show (refundKeeping's startSaga, Actor: req.Actor),
// so the cash is recorded as handed over at once, succeeded, "by" system:no-show, while it is
// still in the drawer and no guest ever came.
func TestReviewANoShowsCashRefundWaitsAtTheDeskEndToEnd(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{NoShowAfter: 3 * time.Second})
	stay := stayFromNow(20, 3)
	const hotel = "h-rv-ns"
	openRooms(t, sys, hotel, "double", stay, 1)
	putPlans(t, sys, hotel, planDef{"FIRST", map[string]any{"name": "Flexible", "policy": map[string]any{"noShow": "first_night"}}})
	for i := range 3 {
		night := stay.CheckIn.AddDays(i)
		res := sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/"+hotel+"/rate-plans/FIRST/room-types/double/rates",
			map[string]any{"from": night, "to": night.AddDays(1), "rate": 10000, "currency": "EUR"})
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
	}
	body := holdBody(sys.Customer("guest"), hotel, "double", stay, 1)
	body["ratePlan"] = "FIRST"
	res := hold(t, sys, "k-rv-ns", body)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	desk := deskOf(t, sys, []string{hotel}, nil)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("all"),
		map[string]any{"amount": 30000, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitStatus(t, sys, id, "NO_SHOW")

	var r map[string]any
	require.Eventually(t, func() bool {
		refunds, _ := desk.Do(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/payments", nil, nil).Body["refunds"].([]any)
		if len(refunds) == 1 {
			r = refunds[0].(map[string]any)
		}
		return r != nil
	}, 30*time.Second, 100*time.Millisecond, "the no-show's refund is asked")
	assert.Equal(t, []any{float64(20000), domain.MethodCash, "pending", nil}, []any{r["amount"], r["method"], r["status"], r["recordedBy"]},
		"the no-show's cash refund waits at the desk, named by nobody: %v", r)
}
