package testsuite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/suppliers"
	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/testsuite/suppliersim"
)

// stockTotals is the supplier hotel's total of doubles on each night of the stay, as stored.
func (w *supplierWorld) stockTotals(t *testing.T) []float64 {
	t.Helper()
	res := w.sys.Admin(t, http.MethodGet, fmt.Sprintf("/api/v1/admin/hotels/%s/stock?from=%s&to=%s", w.hotel, w.stay.CheckIn,
		w.stay.CheckOut), nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	var out []float64
	for _, n := range res.Body["nights"].([]any) {
		out = append(out, n.(map[string]any)["total"].(float64))
	}
	return out
}

// syncNow asks for a pull of the supplier's stock now.
func (w *supplierWorld) syncNow(t *testing.T, as testsuite.Caller) testsuite.Response {
	t.Helper()
	return as.Do(t, http.MethodPost, "/api/v1/admin/suppliers/"+w.supplierID+"/sync", nil, nil)
}

// TestAPullAnsweringAfterAPushNeverPutsOlderTotalsBack: the supplier reads its stock for a pull
// (10 rooms), then sells and pushes 4; the pull's answer arrives after the push. The older
// totals must not come back, whether the supplier stamps its reports or bookflow does.
func TestAPullAnsweringAfterAPushNeverPutsOlderTotalsBack(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_procure", testsuite.SystemOptions{})
	admin := w.sys.As(t, domain.Principal{Subject: "ops", Roles: []domain.Role{domain.RoleAdmin}})
	for round, b := range []suppliersim.Behaviour{{}, {NoReportTime: true}} {
		ten, pushed := 10, 4-round
		w.sim.SetStock(w.hotel, "double", w.stay.CheckIn, w.stay.CheckOut, &ten, 12000, "EUR")
		b.Delay = 3 * time.Second
		w.sim.Set(b)
		calls := w.sim.Calls("/stock")
		answered := make(chan testsuite.Response, 1)
		go func() { answered <- w.syncNow(t, admin) }()
		require.Eventually(t, func() bool { return w.sim.Calls("/stock") > calls }, 10*time.Second, 10*time.Millisecond,
			"the pull never asked")

		// The pull has read 10 rooms; the supplier now has 4 and pushes them.
		w.sim.SetStock(w.hotel, "double", w.stay.CheckIn, w.stay.CheckOut, &pushed, 12000, "EUR")
		push := w.sim.Report(w.hotel, w.stay.CheckIn, w.stay.CheckOut)
		if push.ReportedAt == nil { // a push always carries its time; the pull may not
			now := time.Now()
			push.ReportedAt = &now
		}
		require.NoError(t, suppliersim.Push(context.Background(), w.sys.URL, w.supplierID, w.pushSecret, push))
		assert.Equal(t, []float64{float64(pushed), float64(pushed), float64(pushed)}, w.stockTotals(t))

		res := <-answered
		require.Equal(t, http.StatusOK, res.Status, "round %d: %s", round, res.Raw)
		hotels := res.Body["hotels"].([]any)
		require.Len(t, hotels, 1, res.Raw)
		assert.Equal(t, 3.0, hotels[0].(map[string]any)["stale"], "round %d: the stay's nights were pushed since the pull read them", round)
		assert.Equal(t, []float64{float64(pushed), float64(pushed), float64(pushed)}, w.stockTotals(t),
			"round %d: the pull's older totals never come back", round)
	}
	w.sim.Set(suppliersim.Behaviour{})
	checkInvariants(t, w.sys)
}

func TestAPushIsRefusedWholeForANightWithoutARateAndWhenReplayed(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_procure", testsuite.SystemOptions{})
	sys := w.sys
	post := func(body []byte, signature string) testsuite.Response {
		return sys.Do(t, http.MethodPost, "/api/v1/suppliers/"+w.supplierID+"/stock",
			map[string]string{suppliers.SignatureHeader: signature}, json.RawMessage(body))
	}
	pushedRows := func() int {
		return count(t, sys, `SELECT count(*) FROM inventory WHERE synced_from = 'push'`)
	}

	// The second night has no rate: the whole report is refused, naming the night.
	body := []byte(fmt.Sprintf(`{"hotelId":%q,"roomTypes":[{"roomTypeId":"double","nights":[`+
		`{"date":%q,"total":5,"rate":12000,"currency":"EUR"},{"date":%q,"total":5,"currency":"EUR"}]}]}`,
		w.hotel, w.stay.CheckIn, w.stay.CheckIn.AddDays(1)))
	res := post(body, suppliers.Sign(body, w.pushSecret, time.Now()))
	require.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	assert.Contains(t, res.Body["error"].(map[string]any)["message"], "double on "+w.stay.CheckIn.AddDays(1).String())
	assert.Zero(t, pushedRows(), "nothing of a refused report is written")

	// A push without reportedAt is refused: only the supplier's time orders its retries.
	body = []byte(fmt.Sprintf(`{"hotelId":%q,"roomTypes":[{"roomTypeId":"double","nights":[`+
		`{"date":%q,"total":2,"rate":12000,"currency":"EUR"}]}]}`, w.hotel, w.stay.CheckIn))
	res = post(body, suppliers.Sign(body, w.pushSecret, time.Now()))
	require.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	assert.Contains(t, res.Body["error"].(map[string]any)["message"], "reportedAt is required")
	assert.Zero(t, pushedRows())

	// A report pushed, then a newer pull, then the push replayed: 409, and the pull's totals stay.
	body = []byte(fmt.Sprintf(`{"hotelId":%q,"reportedAt":%q,"roomTypes":[{"roomTypeId":"double","nights":[`+
		`{"date":%q,"total":2,"rate":12000,"currency":"EUR"}]}]}`, w.hotel, time.Now().UTC().Format(time.RFC3339Nano), w.stay.CheckIn))
	signature := suppliers.Sign(body, w.pushSecret, time.Now())
	res = post(body, signature)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, 2.0, w.stockTotals(t)[0])
	res = sys.Do(t, http.MethodPost, "/api/v1/admin/suppliers/"+w.supplierID+"/sync", nil, nil)
	assert.Equal(t, http.StatusUnauthorized, res.Status, res.Raw)
	supplierStaff := sys.As(t, domain.Principal{Subject: "sim-staff", Roles: []domain.Role{domain.RoleSupplier},
		Suppliers: []string{w.supplierID}})
	res = w.syncNow(t, supplierStaff)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, 10.0, w.stockTotals(t)[0], "the supplier's own staff pulled 10 rooms")

	res = post(body, signature)
	require.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Equal(t, "replayed", res.ErrorCode())
	assert.Equal(t, 10.0, w.stockTotals(t)[0], "the replay wrote nothing")
	// The same report signed anew (a supplier's retry) is a new push, but older than the pull:
	// stale, and the pull's totals stay.
	res = post(body, suppliers.Sign(body, w.pushSecret, time.Now().Add(time.Second)))
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, 1.0, res.Body["stale"], res.Raw)
	assert.Equal(t, 10.0, w.stockTotals(t)[0], "a retry of an older report never puts its totals back")

	// A pulled report is judged the same way: one night without a rate, and nothing of the
	// hotel's report is written; the sync names it.
	seven := 7
	w.sim.SetStock(w.hotel, "double", w.stay.CheckIn, w.stay.CheckOut, &seven, 12000, "EUR")
	w.sim.SetStock(w.hotel, "double", w.stay.CheckOut.AddDays(-1), w.stay.CheckOut, &seven, 0, "EUR")
	res = w.syncNow(t, supplierStaff)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	failed := res.Body["failed"].([]any)
	require.Len(t, failed, 1, res.Raw)
	assert.Contains(t, failed[0], w.hotel+": ")
	assert.Contains(t, failed[0], "double on "+w.stay.CheckOut.AddDays(-1).String()+": rate must be")
	assert.Equal(t, 10.0, w.stockTotals(t)[0], "nothing of the refused report was written")
}

func TestSyncNowIsForAdminsAndTheSuppliersStaffOfStockItPulls(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_connect", testsuite.SystemOptions{})
	other := w.sys.As(t, domain.Principal{Subject: "other-staff", Roles: []domain.Role{domain.RoleSupplier},
		Suppliers: []string{"someone-else"}})
	res := w.syncNow(t, other)
	assert.Equal(t, http.StatusForbidden, res.Status, res.Raw)
	res = w.syncNow(t, w.agent)
	assert.Equal(t, http.StatusForbidden, res.Status, res.Raw)
	admin := w.sys.As(t, domain.Principal{Subject: "ops", Roles: []domain.Role{domain.RoleAdmin}})
	res = w.syncNow(t, admin)
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Equal(t, "nothing_to_pull", res.ErrorCode(), "a direct_connect supplier keeps no stock here")
	res = admin.Do(t, http.MethodPost, "/api/v1/admin/suppliers/nobody/sync", nil, nil)
	assert.Equal(t, http.StatusNotFound, res.Status, res.Raw)
}

// TestASlowSyncAnswers202AndASecondRequestJoinsIt: a pull longer than the API waits is answered
// 202 with its workflow; asked again meanwhile, the same run answers.
func TestASlowSyncAnswers202AndASecondRequestJoinsIt(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_procure", testsuite.SystemOptions{WorkflowTimeout: time.Second})
	admin := w.sys.As(t, domain.Principal{Subject: "ops", Roles: []domain.Role{domain.RoleAdmin}})
	w.sim.Set(suppliersim.Behaviour{Delay: 3 * time.Second})
	first := w.syncNow(t, admin)
	require.Equal(t, http.StatusAccepted, first.Status, first.Raw)
	second := w.syncNow(t, admin)
	require.Equal(t, http.StatusAccepted, second.Status, second.Raw)
	assert.Equal(t, first.Body["runId"], second.Body["runId"], "one pull at a time per supplier")
	assert.Equal(t, 1, w.sim.Calls("/stock"), "the second request asked the supplier nothing")

	var pulled struct {
		Hotels []map[string]any `json:"hotels"`
	}
	run := w.sys.Temporal.GetWorkflow(context.Background(), first.Body["workflowId"].(string), first.Body["runId"].(string))
	require.NoError(t, run.Get(context.Background(), &pulled))
	require.Len(t, pulled.Hotels, 1)
	assert.Equal(t, w.hotel, pulled.Hotels[0]["hotelId"])
}
