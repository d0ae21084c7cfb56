package testsuite_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestAnEarlyDepartureIsRefundedByEachPolicy: a guest paid four nights from today through the
// provider and leaves after the first. The desk's cancel is an early departure; the three
// nights not stayed give back what the hotel's policy, as the booking was held under it, says:
// nothing, all three, or all but the first. The refund goes through the provider, and the
// booking's payments show it; the booking stays CONFIRMED.
func TestAnEarlyDepartureIsRefundedByEachPolicy(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(0, 4) // checks in today (the hotel is on UTC)
	night := testsuite.TestRate.Amount
	openRooms(t, sys, "h-left-half", "double", stay, 1)
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/h-left-half/cancellation-policy", map[string]any{"earlyDeparture": "half"})
	assert.Equal(t, http.StatusBadRequest, res.Status, "not a policy: %s", res.Raw)
	for _, c := range []struct {
		hotel, policy string
		refund        int64
	}{
		{"h-left-none", domain.EarlyDepartureNone, 0},
		{"h-left-all", domain.EarlyDepartureAll, 3 * night},
		{"h-left-first", domain.EarlyDepartureAllButFirst, 2 * night},
	} {
		openRooms(t, sys, c.hotel, "double", stay, 1)
		res = sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/"+c.hotel+"/cancellation-policy",
			map[string]any{"earlyDeparture": c.policy})
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
		assert.Equal(t, c.policy, res.Body["earlyDeparture"])
		id, total := holdRoom(t, sys, c.hotel, "k-"+c.hotel, stay, 1)
		require.Equal(t, 4*night, total)
		payAndConfirm(t, sys, id, total, "evt_"+c.hotel, "pi_"+c.hotel)

		desk := sys.As(t, domain.Principal{Subject: "desk", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{c.hotel}})
		res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/cancel", nil, nil)
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
		assert.Equal(t, "CONFIRMED", res.Body["status"], "%s: an early departure, not a cancellation", c.hotel)
		checkOut := stay.CheckIn.AddDays(1).String()
		assert.Equal(t, checkOut, res.Body["checkOut"])

		var money testsuite.Response
		require.Eventually(t, func() bool {
			money = sys.Admin(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/payments", nil)
			refunds, _ := money.Body["refunds"].([]any)
			if c.refund == 0 {
				return money.Status == http.StatusOK
			}
			return len(refunds) == 1 && refunds[0].(map[string]any)["status"] == "succeeded"
		}, 20*time.Second, 50*time.Millisecond, "%s: the refund never succeeded: %s", c.hotel, money.Raw)
		assert.Equal(t, float64(total-c.refund), money.Body["paid"], "%s: what the booking keeps", c.hotel)
		assert.Equal(t, "CONFIRMED", money.Body["status"])
		refunds, _ := money.Body["refunds"].([]any)
		if c.refund == 0 {
			assert.Empty(t, refunds, "%s: the policy gives nothing back", c.hotel)
			continue
		}
		r := refunds[0].(map[string]any)
		assert.Equal(t, float64(c.refund), r["amount"], c.hotel)
		assert.Equal(t, "pi_"+c.hotel, r["paymentId"])
		assert.Equal(t, "the guest left early: 3 nights not stayed", r["reason"])
		assert.True(t, strings.Contains(r["id"].(string), "early-departure@"+checkOut), "%s: keyed by the departure: %v", c.hotel, r["id"])
		testsuite.ReplayAndRecord(t, sys.Temporal, id, "hotel-departed-early-refunded-"+c.policy)
	}
	checkInvariants(t, sys)
}

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
