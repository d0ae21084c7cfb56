package testsuite_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestAnAdminWritesAHotelsRatePlans: the hotel's default plan BAR is there from its first room
// type; a non-refundable plan derived from it at 10% off, rounded to whole euros, reads back as
// stored; a plan that would make a cycle is a 400 naming it; a desk token may not write plans;
// and BAR takes no policy of its own.
func TestAnAdminWritesAHotelsRatePlans(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	openRooms(t, sys, "h-plans", "double", stayFromNow(20, 2), 2)
	plans := "/api/v1/admin/hotels/h-plans/rate-plans"

	res := sys.Admin(t, http.MethodGet, plans, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	list := res.Body["ratePlans"].([]any)
	require.Len(t, list, 1)
	assert.Equal(t, domain.DefaultRatePlan, list[0].(map[string]any)["code"])

	nonRefundable := map[string]any{"name": "Non-refundable", "policy": map[string]any{"nonRefundable": true, "noShow": "all"},
		"channels":    []string{"*"},
		"derivedFrom": map[string]any{"parent": "BAR", "percent": "-10", "rounding": map[string]any{"mode": "nearest", "step": 100}}}
	res = sys.Admin(t, http.MethodPut, plans+"/NR", nonRefundable)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "room_only", res.Body["board"])
	assert.Equal(t, map[string]any{"kind": "full"}, res.Body["payment"])
	res = sys.Admin(t, http.MethodGet, plans+"/NR", nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, true, res.Body["policy"].(map[string]any)["nonRefundable"])
	assert.Equal(t, map[string]any{"parent": "BAR", "percent": "-10",
		"rounding": map[string]any{"mode": "nearest", "step": float64(100)}}, res.Body["derivedFrom"])

	res = sys.Admin(t, http.MethodPut, plans+"/NR-BB", map[string]any{"name": "Non-refundable with breakfast",
		"board": "breakfast", "policy": map[string]any{}, "derivedFrom": map[string]any{"parent": "NR", "amount": 1500}})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = sys.Admin(t, http.MethodPut, plans+"/NR", map[string]any{"name": "Non-refundable", "policy": map[string]any{},
		"derivedFrom": map[string]any{"parent": "NR-BB", "percent": "5"}})
	assert.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	assert.Contains(t, res.Raw, "cycle")

	res = sys.Admin(t, http.MethodPut, plans+"/NR2", map[string]any{"name": "Half refundable",
		"policy": map[string]any{"nonRefundable": true, "freeUntilHours": 48}})
	assert.Equal(t, http.StatusBadRequest, res.Status, "non-refundable with a free window: %s", res.Raw)
	res = sys.Admin(t, http.MethodPut, plans+"/BAR", map[string]any{"name": "Best price", "policy": map[string]any{}})
	assert.Equal(t, http.StatusBadRequest, res.Status, "BAR follows the hotel's policy: %s", res.Raw)
	res = sys.Admin(t, http.MethodPut, plans+"/BAR", map[string]any{"name": "Best price", "board": "breakfast"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, []any{"*"}, res.Body["channels"])

	// a root plan's own rates, and its nights as priced
	stay := stayFromNow(20, 2)
	res = sys.Admin(t, http.MethodPut, plans+"/CORP", map[string]any{"name": "Corporate", "policy": map[string]any{}})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = sys.Admin(t, http.MethodPut, plans+"/CORP/room-types/double/rates", map[string]any{"from": stay.CheckIn,
		"to": stay.CheckOut, "rate": 9999, "currency": testsuite.TestRate.Currency})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, float64(2), res.Body["nightsUpdated"])
	res = sys.Admin(t, http.MethodPut, plans+"/NR/room-types/double/rates", map[string]any{"from": stay.CheckIn,
		"to": stay.CheckOut, "rate": 9999, "currency": testsuite.TestRate.Currency})
	assert.Equal(t, http.StatusBadRequest, res.Status, "a derived plan's price follows its parent: %s", res.Raw)
	res = sys.Admin(t, http.MethodGet, plans+"/CORP/room-types/double/prices?from="+stay.CheckIn.String()+"&to="+
		stay.CheckOut.String(), nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	nights := res.Body["nights"].([]any)
	require.Len(t, nights, 2)
	assert.Equal(t, float64(9999), nights[0].(map[string]any)["amount"])
	res = sys.Admin(t, http.MethodGet, plans+"/CORP/room-types/double/prices?from="+stay.CheckOut.String()+"&to="+
		stay.CheckIn.String(), nil)
	assert.Equal(t, http.StatusBadRequest, res.Status, "to before from: %s", res.Raw)

	desk := deskOf(t, sys, []string{"h-plans"}, nil)
	res = desk.Do(t, http.MethodPut, plans+"/DESK", nil, map[string]any{"name": "Desk special", "policy": map[string]any{}})
	assert.Equal(t, http.StatusForbidden, res.Status, res.Raw)
	res = sys.Admin(t, http.MethodGet, "/api/v1/admin/hotels/no-such-hotel/rate-plans", nil)
	assert.Equal(t, http.StatusNotFound, res.Status, res.Raw)
	res = sys.Admin(t, http.MethodGet, plans+"/NOPE", nil)
	assert.Equal(t, http.StatusNotFound, res.Status, res.Raw)
}
