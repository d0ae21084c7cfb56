package testsuite_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/testsuite/suppliersim"
)

// confirmedThenCancelledWhileTheSupplierIsDown are agents' confirmed bookings cancelled while
// their supplier answers nothing: the workflow gives up telling it and flags supplier_not_told.
func confirmedThenCancelledWhileTheSupplierIsDown(t *testing.T, w *supplierWorld, keys ...string) []string {
	t.Helper()
	var ids []string
	for _, key := range keys {
		res := w.book(t, key, 1)
		require.Equal(t, http.StatusCreated, res.Status, res.Raw)
		ids = append(ids, res.Body["id"].(string))
		awaitStatus(t, w.sys, ids[len(ids)-1], "CONFIRMED")
	}
	w.sim.Set(suppliersim.Behaviour{Fail: true})
	for _, id := range ids {
		res := w.agent.Do(t, http.MethodPost, "/api/v1/agent/bookings/"+id+"/cancel", nil, nil)
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
	}
	return ids
}

// findingsFor waits for the checker to report the booking (Temporal's visibility lists a
// workflow's new flag shortly after it is set).
func findingsFor(t *testing.T, sys *testsuite.System, id, check string, in activities.CheckInput) domain.Finding {
	t.Helper()
	var found domain.Finding
	require.Eventually(t, func() bool {
		for _, f := range runChecks(t, sys, in).Findings {
			if f.BookingID == id && f.Check == check {
				found = f
				return true
			}
		}
		return false
	}, time.Minute, 250*time.Millisecond, "the checker reports %s for %s", check, id)
	return found
}

// TestASupplierNeverToldIsToldAgainByAnOperatorOrTheChecker: the checker lists such bookings and,
// repairing, tells the supplier again; finance can do the same at once.
func TestASupplierNeverToldIsToldAgainByAnOperatorOrTheChecker(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_procure", testsuite.SystemOptions{SupplierTellFor: 2 * time.Second})
	finance := w.sys.As(t, domain.Principal{Subject: "fin", Roles: []domain.Role{domain.RoleFinance}})
	ids := confirmedThenCancelledWhileTheSupplierIsDown(t, w, "k1", "k2")
	byChecker, byFinance := ids[0], ids[1]

	f := findingsFor(t, w.sys, byChecker, domain.CheckSupplierNotTold, activities.CheckInput{})
	assert.Contains(t, f.Detail, "/tell-supplier")
	findingsFor(t, w.sys, byFinance, domain.CheckSupplierNotTold, activities.CheckInput{})
	assert.False(t, w.sim.Cancelled(byChecker))
	w.sim.Set(suppliersim.Behaviour{})

	res := finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+byFinance+"/tell-supplier", nil, map[string]any{"reason": "supplier back"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, true, res.Body["told"])
	assert.True(t, w.sim.Cancelled(byFinance))

	report := runChecks(t, w.sys, activities.CheckInput{Repair: true})
	require.Len(t, report.Findings, 1, "only the booking finance did not see to: %+v", report.Findings)
	assert.Equal(t, byChecker, report.Findings[0].BookingID)
	assert.Contains(t, report.Findings[0].Repaired, "telling the supplier again")
	require.Eventually(t, func() bool { return w.sim.Cancelled(byChecker) }, 20*time.Second, 50*time.Millisecond)
	require.Eventually(t, func() bool { return len(runChecks(t, w.sys, activities.CheckInput{}).Findings) == 0 },
		20*time.Second, 250*time.Millisecond, "both told: nothing is reported any more")

	live := w.book(t, "k3", 1)
	require.Equal(t, http.StatusCreated, live.Status, live.Raw)
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+live.Body["id"].(string)+"/tell-supplier", nil,
		map[string]any{"reason": "by mistake"})
	assert.Equal(t, http.StatusConflict, res.Status, "a booking that is on is not cancelled with its supplier: %s", res.Raw)
}

// TestALatePaymentDoesNotHideASupplierNeverTold: a direct sale's hold runs out while its supplier
// is down (it is never told), then the guest's payment arrives late and is refunded, which flags
// the booking for its payment instead. The booking itself still records that its supplier was
// never told, so the checker keeps listing it.
func TestALatePaymentDoesNotHideASupplierNeverTold(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_procure", testsuite.SystemOptions{SupplierTellFor: 2 * time.Second, SupplierHoldTTL: 3 * time.Second})
	w.sim.Set(suppliersim.Behaviour{Fail: true})
	res := hold(t, w.sys, "k-late", holdBody(w.sys.Customer("guest"), w.hotel, "double", w.stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	total := int64(res.Body["price"].(map[string]any)["total"].(float64))
	awaitStatus(t, w.sys, id, "EXPIRED")
	findingsFor(t, w.sys, id, domain.CheckSupplierNotTold, activities.CheckInput{})
	pay := w.sys.Webhook(t, testsuite.PaymentEvent("evt_late", "pi_late", id, total, "EUR"), time.Now())
	require.Equal(t, http.StatusOK, pay.Status, pay.Raw)
	awaitStatus(t, w.sys, id, "REFUNDED")
	require.False(t, w.sim.Cancelled(id))
	findingsFor(t, w.sys, id, domain.CheckSupplierNotTold, activities.CheckInput{})
}

// TestACustomerIsNotShownTheSuppliersWords: a direct sale its supplier refuses is REJECTED with
// the supplier's reason for staff, and a fixed sentence for the customer.
func TestACustomerIsNotShownTheSuppliersWords(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_procure", testsuite.SystemOptions{})
	w.sim.Set(suppliersim.Behaviour{Reject: true})
	guest := w.sys.Customer("guest")
	res := hold(t, w.sys, "k-rej", holdBody(guest, w.hotel, "double", w.stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	awaitStatus(t, w.sys, id, "REJECTED")
	got := w.sys.Guest(t, guest).Do(t, http.MethodGet, "/api/v1/bookings/"+id, nil, nil)
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	assert.NotContains(t, got.Raw, "simulated", "the supplier's words are not the customer's")
	assert.Equal(t, "the hotel could not confirm the rooms asked for", got.Body["reason"])
	assert.Contains(t, staffView(t, w.sys, id).Body["refusal"], "the supplier refused the booking", "staff read why")
}
