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

// Tests from the adversarial review of issue 21 (staff money): each states a rule the code breaks.

// TestAnEarlyDeparturesRefundIsAudited: every money action is audited (who, when, why, the
// amounts before and after). The desk's cancel of a begun stay at a hotel whose policy gives all
// nights not stayed back refunds three nights through the saga, but the staff cancel's audit
// entry says only {statusAfter: CONFIRMED}, and the workflow's refund writes none: the amount,
// and the money before and after, are in no audit entry.
func TestAnEarlyDeparturesRefundIsAudited(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(0, 4)
	night := testsuite.TestRate.Amount
	openRooms(t, sys, "h-audit-all", "double", stay, 1)
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/h-audit-all/cancellation-policy",
		map[string]any{"earlyDeparture": domain.EarlyDepartureAll})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	id, total := holdRoom(t, sys, "h-audit-all", "k-audit", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_audit", "pi_audit")

	desk := sys.As(t, domain.Principal{Subject: "desk", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-audit-all"}})
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/cancel", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND status = 'succeeded' AND amount = $2`,
			id, 3*night) == 1
	}, 20*time.Second, 50*time.Millisecond, "the three nights were refunded")

	entries, _ := sys.Admin(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/audit", nil).Body["entries"].([]any)
	var audited bool
	for _, e := range entries {
		details, _ := e.(map[string]any)["details"].(map[string]any)
		if e.(map[string]any)["actor"] == "desk" && details != nil && details["amount"] == float64(3*night) {
			audited = true
		}
	}
	assert.True(t, audited, "the early departure's refund of %d by desk is audited: %v", 3*night, entries)
}
