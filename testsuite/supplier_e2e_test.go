package testsuite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/suppliers"
	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/testsuite/suppliersim"
	"github.com/bookflow/bookflow/workflows"
)

// supplierWorld is a System with a simulated supplier, one of its hotels, a channel and an agent
// whose webhook the test listens on.
type supplierWorld struct {
	sys        *testsuite.System
	sim        *suppliersim.Sim
	simURL     string
	supplierID string
	pushSecret string
	hotel      string
	stay       domain.Stay
	agent      testsuite.Caller
	webhook    *agentWebhook
}

const agentSecret = "agent-webhook-secret-0123456789"

// newSupplierWorld sets up a supplier in mode whose hotel has 10 doubles on the stay's nights,
// here (direct_procure) and at the supplier.
func newSupplierWorld(t *testing.T, mode string, opts testsuite.SystemOptions) *supplierWorld {
	t.Helper()
	sys := testsuite.NewSystem(t, opts)
	w := &supplierWorld{sys: sys, sim: suppliersim.New(), supplierID: "sim-" + sys.ID, pushSecret: "push-secret-" + sys.ID,
		hotel: "supplied-" + sys.ID, stay: stayFromNow(20, 3), webhook: &agentWebhook{}}
	simSrv := httptest.NewServer(w.sim.Handler())
	t.Cleanup(simSrv.Close)
	w.simURL = simSrv.URL
	hookSrv := httptest.NewServer(w.webhook)
	t.Cleanup(hookSrv.Close)

	admin := func(method, path string, body any) {
		t.Helper()
		res := sys.Admin(t, method, path, body)
		require.Equal(t, http.StatusOK, res.Status, "%s %s: %s", method, path, res.Raw)
	}
	admin(http.MethodPut, "/api/v1/admin/suppliers/"+w.supplierID, map[string]any{"name": "Simulated", "mode": mode,
		"endpoint": w.simURL, "pushSecret": w.pushSecret})
	ten := 10
	w.sim.SetStock(w.hotel, "double", w.stay.CheckIn.AddDays(-5), w.stay.CheckOut.AddDays(5), &ten, 12000, "EUR")
	admin(http.MethodPut, "/api/v1/admin/hotels/"+w.hotel+"/supplier", map[string]any{"supplierId": w.supplierID})
	if mode == "direct_procure" {
		openRooms(t, sys, w.hotel, "double", w.stay, 10)
	} else {
		// A direct_connect supplier's room types come with its stock reports; no stock is kept.
		require.NoError(t, suppliersim.Push(context.Background(), sys.URL, w.supplierID, w.pushSecret,
			w.sim.Report(w.hotel, w.stay.CheckIn, w.stay.CheckOut)))
	}
	admin(http.MethodPut, "/api/v1/admin/channels/wholesale", map[string]any{"name": "Wholesale"})
	admin(http.MethodPut, "/api/v1/admin/agents/lena", map[string]any{"channelId": "wholesale", "name": "Lena Travel",
		"webhookUrl": hookSrv.URL, "webhookSecret": agentSecret})
	w.agent = sys.As(t, domain.Principal{Subject: "lena-user", Roles: []domain.Role{domain.RoleAgent}, Agent: "lena", Channel: "wholesale"})
	return w
}

// book asks for a hold as the agent.
func (w *supplierWorld) book(t *testing.T, key string, qty int) testsuite.Response {
	t.Helper()
	return w.agent.Do(t, http.MethodPost, "/api/v1/agent/bookings", map[string]string{"Idempotency-Key": key},
		map[string]any{"hotelId": w.hotel, "roomTypeId": "double", "checkIn": w.stay.CheckIn, "checkOut": w.stay.CheckOut,
			"quantity": qty})
}

// notified waits until the agent was notified of event for the booking, through the API and
// its webhook.
func (w *supplierWorld) notified(t *testing.T, id, event string) {
	t.Helper()
	require.Eventually(t, func() bool {
		res := w.agent.Do(t, http.MethodGet, "/api/v1/agent/notifications", nil, nil)
		for _, n := range res.Body["notifications"].([]any) {
			m := n.(map[string]any)
			if m["bookingId"] == id && m["event"] == event && m["deliveredAt"] != nil {
				return w.webhook.got(id, event)
			}
		}
		return false
	}, 60*time.Second, 100*time.Millisecond, "agent never notified of %s for %s", event, id)
}

// agentWebhook is the agent's webhook: it keeps the events whose signature verifies.
type agentWebhook struct {
	mu     sync.Mutex
	events []map[string]any
}

func (h *agentWebhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if suppliers.Verify(body, r.Header.Get(suppliers.SignatureHeader), agentSecret, time.Now(), time.Minute) != nil {
		http.Error(w, "bad signature", http.StatusBadRequest)
		return
	}
	var ev map[string]any
	_ = json.Unmarshal(body, &ev)
	h.mu.Lock()
	h.events = append(h.events, ev)
	h.mu.Unlock()
}

func (h *agentWebhook) detail(id, event string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, ev := range h.events {
		if ev["bookingId"] == id && ev["event"] == event {
			d, _ := ev["detail"].(string)
			return d
		}
	}
	return ""
}

func (h *agentWebhook) got(id, event string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, ev := range h.events {
		if ev["bookingId"] == id && ev["event"] == event {
			return true
		}
	}
	return false
}

func TestAgentBookingConfirmedByTheSupplierAndCancelledEverywhere(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_procure", testsuite.SystemOptions{})
	sys := w.sys

	res := w.book(t, "a1", 2)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	assert.Equal(t, "wholesale", res.Body["channelId"])
	assert.Equal(t, "lena", res.Body["agentId"])
	awaitStatus(t, sys, id, "CONFIRMED")
	view := staffView(t, sys, id)
	assert.Equal(t, "SIM-00001", view.Body["supplierRef"], "confirmed on the channel's account with the supplier's number")
	w.notified(t, id, workflows.EventConfirmed)
	assert.Equal(t, 8, roomsLeft(t, sys, w.hotel, "double", w.stay))

	// Another agent of the channel does not see it; a token for an agent that does not exist
	// gets nothing at all; the agent's own view does.
	require.Equal(t, http.StatusOK, sys.Admin(t, http.MethodPut, "/api/v1/admin/agents/mia", map[string]any{
		"channelId": "wholesale", "name": "Mia"}).Status)
	mia := sys.As(t, domain.Principal{Subject: "mia-user", Roles: []domain.Role{domain.RoleAgent}, Agent: "mia", Channel: "wholesale"})
	assert.Equal(t, http.StatusNotFound, mia.Do(t, http.MethodGet, "/api/v1/agent/bookings/"+id, nil, nil).Status)
	other := sys.As(t, domain.Principal{Subject: "x", Roles: []domain.Role{domain.RoleAgent}, Agent: "lena2", Channel: "wholesale"})
	assert.Equal(t, http.StatusForbidden, other.Do(t, http.MethodGet, "/api/v1/agent/bookings/"+id, nil, nil).Status)
	assert.Equal(t, http.StatusForbidden, other.Do(t, http.MethodPost, "/api/v1/agent/bookings", map[string]string{"Idempotency-Key": "x"},
		map[string]any{"hotelId": w.hotel, "roomTypeId": "double", "checkIn": w.stay.CheckIn, "checkOut": w.stay.CheckOut,
			"quantity": 1}).Status, "a token for an agent that does not exist sells nothing")
	assert.Equal(t, http.StatusOK, w.agent.Do(t, http.MethodGet, "/api/v1/agent/bookings/"+id, nil, nil).Status)
	list := w.agent.Do(t, http.MethodGet, "/api/v1/agent/bookings", nil, nil)
	require.Equal(t, http.StatusOK, list.Status, list.Raw)
	require.Len(t, list.Body["bookings"], 1)
	assert.Empty(t, other.Do(t, http.MethodGet, "/api/v1/agent/bookings", nil, nil).Body["bookings"], "another agent's list is its own")

	res = w.agent.Do(t, http.MethodPost, "/api/v1/agent/bookings/"+id+"/cancel", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "CANCELLED", res.Body["status"])
	require.Eventually(t, func() bool { return w.sim.Cancelled(id) }, 20*time.Second, 50*time.Millisecond, "the supplier is told")
	w.notified(t, id, workflows.EventCancelled)
	assert.Equal(t, 10, roomsLeft(t, sys, w.hotel, "double", w.stay))
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "agent-supplier-confirmed-cancelled")
}

func TestSupplierRejectionReleasesEverythingAndTheWorkflowEnds(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_procure", testsuite.SystemOptions{LateWindow: time.Second})
	w.sim.Set(suppliersim.Behaviour{Reject: true})

	res := w.book(t, "r1", 1)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	awaitStatus(t, w.sys, id, "REJECTED")
	assert.Equal(t, 10, roomsLeft(t, w.sys, w.hotel, "double", w.stay), "nothing stays held")
	w.notified(t, id, workflows.EventRejected)
	assert.Contains(t, w.webhook.detail(id, workflows.EventRejected), "the supplier rejected the booking")
	got := w.agent.Do(t, http.MethodGet, "/api/v1/agent/bookings/"+id, nil, nil)
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	assert.Contains(t, got.Body["refusal"], "the supplier rejected the booking", "the agent reads why")
	require.Eventually(t, func() bool { return w.sim.Cancelled(id) }, 20*time.Second, 50*time.Millisecond,
		"the supplier is told the booking is off")
	awaitClosed(t, w.sys, id)
	checkInvariants(t, w.sys)
	testsuite.ReplayAndRecord(t, w.sys.Temporal, id, "agent-supplier-rejected-told")
}

func TestSupplierThatNeverAnswersIsStuckThenExpires(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_procure", testsuite.SystemOptions{SupplierHoldTTL: 8 * time.Second,
		SupplierStuckAfter: time.Second, LateWindow: time.Second})
	w.sim.Set(suppliersim.Behaviour{Fail: true})

	res := w.book(t, "s1", 1)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	require.Eventually(t, func() bool { return workflowsWithStatus(t, w.sys, w.hotel, workflows.StatusSupplierStuck) == 1 },
		20*time.Second, 100*time.Millisecond, "operators find the booking as SUPPLIER_STUCK")
	awaitStatus(t, w.sys, id, "EXPIRED")
	assert.Equal(t, 10, roomsLeft(t, w.sys, w.hotel, "double", w.stay), "the hold's rooms are back")
	w.sim.Set(suppliersim.Behaviour{}) // back up: it is told the booking is off, in case it had confirmed
	require.Eventually(t, func() bool { return w.sim.Cancelled(id) }, 60*time.Second, 100*time.Millisecond)
	w.notified(t, id, workflows.EventSupplierTimeout)
	awaitClosed(t, w.sys, id)
	checkInvariants(t, w.sys)
	testsuite.ReplayAndRecord(t, w.sys.Temporal, id, "agent-supplier-stuck-expired")
}

func TestSlowSupplierAnsweringAfterTheHoldIsUndone(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_procure", testsuite.SystemOptions{SupplierHoldTTL: 3 * time.Second})
	w.sim.Set(suppliersim.Behaviour{Delay: 5 * time.Second})

	res := w.book(t, "slow", 1)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	awaitStatus(t, w.sys, id, "EXPIRED")
	require.Eventually(t, func() bool { return w.sim.Cancelled(id) }, 60*time.Second, 100*time.Millisecond,
		"a confirmation that may still land is cancelled")
	w.notified(t, id, workflows.EventSupplierTimeout)
	assert.Equal(t, 10, roomsLeft(t, w.sys, w.hotel, "double", w.stay))
	checkInvariants(t, w.sys)
}

func TestDirectConnectAsksTheSupplierAndRulesAnswerFirst(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_connect", testsuite.SystemOptions{})
	sys := w.sys
	search := func() map[string]any {
		res := w.agent.Do(t, http.MethodGet, fmt.Sprintf("/api/v1/hotels/%s/availability?checkIn=%s&checkOut=%s", w.hotel,
			w.stay.CheckIn, w.stay.CheckOut), nil, nil)
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
		return res.Body["roomTypes"].([]any)[0].(map[string]any)
	}
	room := search()
	assert.Equal(t, 1.0, room["available"], "the supplier has the room")
	assert.Equal(t, 3*12000.0, room["supplierPrice"].(map[string]any)["total"])

	res := w.book(t, "dc1", 2)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	assert.Equal(t, 2*3*12000.0, res.Body["price"].(map[string]any)["total"], "priced by the supplier's quote")
	awaitStatus(t, sys, id, "CONFIRMED")
	assert.Zero(t, count(t, sys, `SELECT count(*) FROM inventory`), "no local stock is kept or taken")

	// A stop-sell answers at once, without asking the supplier.
	res = sys.Admin(t, http.MethodPost, "/api/v1/admin/hotels/"+w.hotel+"/sale-rules", map[string]any{"kind": "stop_sell",
		"channelId": "wholesale", "from": w.stay.CheckIn, "to": w.stay.CheckOut, "reason": "full"})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	quotes := w.sim.Calls("/quotes")
	room = search()
	assert.Equal(t, 0.0, room["available"])
	assert.Contains(t, room["unavailableBecause"], "stop-sell (full)")
	res = w.book(t, "dc2", 1)
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Contains(t, res.Raw, "stop-sell")
	assert.Equal(t, quotes, w.sim.Calls("/quotes"), "the supplier was not asked")

	res = w.agent.Do(t, http.MethodPost, "/api/v1/agent/bookings/"+id+"/cancel", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool { return w.sim.Cancelled(id) }, 20*time.Second, 50*time.Millisecond)
}

func TestStockPushesAreVerifiedAndPullsNeverOversell(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_procure", testsuite.SystemOptions{})
	sys := w.sys
	inventoryRows := func() int {
		return count(t, sys, `SELECT count(*) FROM inventory WHERE synced_from = 'push'`)
	}
	report := w.sim.Report(w.hotel, w.stay.CheckIn, w.stay.CheckOut.AddDays(2))
	body, err := json.Marshal(report)
	require.NoError(t, err)
	push := func(body []byte, secret string) testsuite.Response {
		return sys.Do(t, http.MethodPost, "/api/v1/suppliers/"+w.supplierID+"/stock",
			map[string]string{suppliers.SignatureHeader: suppliers.Sign(body, secret, time.Now())}, json.RawMessage(body))
	}

	res := push(body, "not-the-push-secret")
	assert.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	assert.Equal(t, "bad_signature", res.ErrorCode())
	bad := report
	bad.RoomTypes = []domain.RoomTypeStock{{RoomTypeID: "double", Nights: []domain.StockNight{{Date: w.stay.CheckIn, Rate: -5, Currency: "EUR"}}}}
	badBody, _ := json.Marshal(bad)
	res = push(badBody, w.pushSecret)
	assert.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	assert.Zero(t, inventoryRows(), "a refused push writes nothing")

	res = push(body, w.pushSecret)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, 5.0, res.Body["nights"])
	assert.Equal(t, 5, inventoryRows())

	// Sell 6 rooms here; the supplier then reports only 2 per night. A pull keeps 6, alerts.
	for i := range 3 {
		res := w.book(t, fmt.Sprintf("p%d", i), 2)
		require.Equal(t, http.StatusCreated, res.Status, res.Raw)
		awaitStatus(t, sys, res.Body["id"].(string), "CONFIRMED")
	}
	w.sim.Set(suppliersim.Behaviour{Disagree: 8}) // it reports 2 rooms a night, fewer than the 6 sold here
	run, err := sys.Temporal.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{
		ID: "supplier-sync-" + sys.ID, TaskQueue: sys.TaskQueue}, workflows.SupplierSyncWorkflowName, w.supplierID)
	require.NoError(t, err)
	var pulled activities.PullResult
	require.NoError(t, run.Get(context.Background(), &pulled))
	require.Len(t, pulled.Hotels, 1, "failed: %v", pulled.Failed)
	assert.Positive(t, pulled.Hotels[0].Conflicts)
	assert.Equal(t, 0, roomsLeft(t, sys, w.hotel, "double", w.stay), "nothing more is sold")
	res = sys.Admin(t, http.MethodGet, "/api/v1/admin/stock-alerts?hotelId="+w.hotel, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	alerts := res.Body["alerts"].([]any)
	require.NotEmpty(t, alerts)
	assert.Equal(t, "sync_conflict", alerts[0].(map[string]any)["kind"])
	res = sys.Admin(t, http.MethodGet, fmt.Sprintf("/api/v1/admin/hotels/%s/stock?from=%s&to=%s", w.hotel, w.stay.CheckIn,
		w.stay.CheckOut), nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	first := res.Body["nights"].([]any)[0].(map[string]any)
	assert.Equal(t, 6.0, first["total"], "never below the 6 sold")
	assert.Equal(t, 6.0, first["sold"])
	assert.Equal(t, "pull", first["syncedFrom"])
	checkInvariants(t, sys)
}

func TestSaleRulesThroughTheAPIWithExplainAndBatches(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(10, 2)
	for _, h := range []string{"h-r1", "h-r2"} {
		openRooms(t, sys, h, "double", stay, 5)
	}
	require.Equal(t, http.StatusOK, sys.Admin(t, http.MethodPut, "/api/v1/admin/channels/ota", map[string]any{}).Status)
	explain := func(caller testsuite.Caller, hotel, extra string) testsuite.Response {
		res := caller.Do(t, http.MethodGet, fmt.Sprintf("/api/v1/hotels/%s/availability/explain?roomTypeId=double&checkIn=%s&checkOut=%s%s",
			hotel, stay.CheckIn, stay.CheckOut, extra), nil, nil)
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
		return res
	}
	admin := sys.As(t, domain.Principal{Subject: "ops", Roles: []domain.Role{domain.RoleAdmin}})

	// One batch: a minimum stay of 3 nights for the OTA channel at both hotels.
	res := admin.Do(t, http.MethodPost, "/api/v1/admin/sale-rules/batch", nil, map[string]any{
		"rule": map[string]any{"kind": "length_of_stay", "channelId": "ota", "minLos": 3}, "hotelIds": []string{"h-r1", "h-r2"}})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	rules := res.Body["rules"].([]any)
	require.Len(t, rules, 2)
	assert.Equal(t, "ops", rules[0].(map[string]any)["setBy"])

	got := explain(admin, "h-r1", "&channelId=ota")
	assert.Equal(t, false, got.Body["available"])
	assert.Contains(t, got.Body["because"], "at least 3 nights")
	assert.Equal(t, true, explain(admin, "h-r1", "").Body["available"], "direct sales are not the channel's")

	// Ending the rule makes the stay sellable at once.
	ruleID := rules[0].(map[string]any)["id"].(float64)
	res = admin.Do(t, http.MethodDelete, fmt.Sprintf("/api/v1/admin/sale-rules/%d", int(ruleID)), nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, true, explain(admin, "h-r1", "&channelId=ota").Body["available"])

	// Bad rules are 400 and write nothing.
	for _, body := range []map[string]any{
		{"kind": "stop_sell", "from": stay.CheckIn, "to": stay.CheckIn, "reason": "full"},
		{"kind": "stop_sell", "from": stay.CheckIn, "to": stay.CheckOut, "reason": "because"},
		{"kind": "booking_window", "minAdvance": 5, "maxAdvance": 1},
		{"kind": "sale_range", "from": stay.CheckIn},
		{"kind": "length_of_stay", "minLos": 2, "id": 7},
	} {
		res := admin.Do(t, http.MethodPost, "/api/v1/admin/hotels/h-r1/sale-rules", nil, body)
		assert.Equal(t, http.StatusBadRequest, res.Status, "%v: %s", body, res.Raw)
	}
	res = admin.Do(t, http.MethodPost, "/api/v1/admin/hotels/h-r1/sale-rules", nil, map[string]any{"kind": "stop_sell",
		"channelId": "nope", "from": stay.CheckIn, "to": stay.CheckOut, "reason": "full"})
	assert.Equal(t, http.StatusNotFound, res.Status, res.Raw)
	assert.Equal(t, 2, count(t, sys, `SELECT count(*) FROM sale_rules`), "only the batch's two rules were written")

	// Supplier staff manage their own suppliers' hotels only.
	require.Equal(t, http.StatusOK, sys.Admin(t, http.MethodPut, "/api/v1/admin/suppliers/acme", map[string]any{"mode": "direct_procure"}).Status)
	require.Equal(t, http.StatusOK, sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/h-r2/supplier", map[string]any{"supplierId": "acme"}).Status)
	staff := sys.As(t, domain.Principal{Subject: "acme-staff", Roles: []domain.Role{domain.RoleSupplier}, Suppliers: []string{"acme"}})
	stopSell := map[string]any{"kind": "stop_sell", "from": stay.CheckIn, "to": stay.CheckOut, "reason": "maintenance"}
	assert.Equal(t, http.StatusCreated, staff.Do(t, http.MethodPost, "/api/v1/admin/hotels/h-r2/sale-rules", nil, stopSell).Status)
	assert.Equal(t, http.StatusForbidden, staff.Do(t, http.MethodPost, "/api/v1/admin/hotels/h-r1/sale-rules", nil, stopSell).Status)
	assert.Equal(t, 0, roomsLeft(t, sys, "h-r2", "double", stay), "the stop-sell closes every channel")
	assert.Equal(t, 5, roomsLeft(t, sys, "h-r1", "double", stay))

	// Customers do not look through a channel.
	res = sys.Guest(t, "c").Do(t, http.MethodGet, fmt.Sprintf("/api/v1/hotels/h-r1/availability?checkIn=%s&checkOut=%s&channelId=ota",
		stay.CheckIn, stay.CheckOut), nil, nil)
	assert.Equal(t, http.StatusForbidden, res.Status, res.Raw)
}

// awaitClosed waits until the booking's workflow has completed.
func awaitClosed(t *testing.T, sys *testsuite.System, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, sys.Temporal.GetWorkflow(ctx, id, "").Get(ctx, nil), "the workflow ends cleanly")
}

// TestALatePaymentForASupplierBookingIsRefunded: the supplier never confirmed, the hold ran out
// and the supplier was told the booking is off; a payment arriving afterwards is refunded, never
// used to take the rooms again.
func TestALatePaymentForASupplierBookingIsRefunded(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_procure", testsuite.SystemOptions{SupplierHoldTTL: 3 * time.Second})
	w.sim.Set(suppliersim.Behaviour{Fail: true})
	guest := w.sys.Customer("guest")
	res := hold(t, w.sys, "late", holdBody(guest, w.hotel, "double", w.stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	total := int64(res.Body["price"].(map[string]any)["total"].(float64))
	pay := w.sys.Guest(t, guest).Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	assert.Equal(t, http.StatusConflict, pay.Status, pay.Raw)
	assert.Equal(t, "supplier_pending", pay.ErrorCode(), "nobody pays before the supplier confirmed")

	awaitStatus(t, w.sys, id, "EXPIRED")
	w.sim.Set(suppliersim.Behaviour{})
	require.Eventually(t, func() bool { return w.sim.Cancelled(id) }, 60*time.Second, 100*time.Millisecond)
	res = w.sys.Webhook(t, testsuite.PaymentEvent("evt-late-"+w.sys.ID, "pi-late-"+w.sys.ID, id, total, "EUR"), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitStatus(t, w.sys, id, "REFUNDED")
	assert.Equal(t, 10, roomsLeft(t, w.sys, w.hotel, "double", w.stay), "the rooms were not taken again")
	checkInvariants(t, w.sys)
}

func TestUnlimitedStockThroughTheAPI(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(5, 2)
	path := "/api/v1/admin/hotels/h-open/room-types/double/inventory"
	res := sys.Admin(t, http.MethodPut, path, map[string]any{"from": stay.CheckIn, "to": stay.CheckOut, "totalRooms": 3,
		"unlimited": true, "rate": 100, "currency": "EUR"})
	assert.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	res = sys.Admin(t, http.MethodPut, path, map[string]any{"from": stay.CheckIn, "to": stay.CheckOut, "unlimited": true,
		"rate": 100, "currency": "EUR"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Nil(t, res.Body["totalRooms"])
	res = hold(t, sys, "u1", holdBody(sys.Customer("g"), "h-open", "double", stay, 20))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	res = sys.Guest(t, "s").Do(t, http.MethodGet, fmt.Sprintf("/api/v1/hotels/h-open/availability?checkIn=%s&checkOut=%s",
		stay.CheckIn, stay.CheckOut), nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, true, res.Body["roomTypes"].([]any)[0].(map[string]any)["unlimited"])
	checkInvariants(t, sys)
}

// TestACancelWhileTheSupplierConfirmsIsAnsweredAtOnce: the supplier takes 3 s to answer; the
// agent's cancel waits for that attempt (so the supplier hears the cancel last), is answered,
// and the supplier and agent hear of it after.
func TestACancelWhileTheSupplierConfirmsIsAnsweredAtOnce(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_procure", testsuite.SystemOptions{})
	w.sim.Set(suppliersim.Behaviour{Delay: 3 * time.Second})
	res := w.book(t, "c1", 1)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)

	confirm := w.sys.Admin(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/confirm", nil)
	assert.Equal(t, http.StatusConflict, confirm.Status, "only the supplier confirms: %s", confirm.Raw)
	res = w.agent.Do(t, http.MethodPost, "/api/v1/agent/bookings/"+id+"/cancel", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "CANCELLED", res.Body["status"])
	require.Eventually(t, func() bool { return w.sim.Cancelled(id) }, 30*time.Second, 50*time.Millisecond)
	answer, asked := w.sim.Hold(id)
	require.True(t, asked, "the hold request was let finish first")
	assert.Equal(t, "confirmed", answer.Status, "and then undone by the cancel")
	w.notified(t, id, workflows.EventCancelled)
	assert.Equal(t, 10, roomsLeft(t, w.sys, w.hotel, "double", w.stay))
	checkInvariants(t, w.sys)
	testsuite.ReplayAndRecord(t, w.sys.Temporal, id, "agent-supplier-cancelled-while-confirming")
}

// TestAgentBookingAtAHotelWithItsOwnStockIsConfirmedOnAccount: no supplier to ask; the channel
// is invoiced, so the hold is confirmed at once and the agent hears of it, and of the cancel.
func TestAgentBookingAtAHotelWithItsOwnStockIsConfirmedOnAccount(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_procure", testsuite.SystemOptions{})
	stay := stayFromNow(15, 2)
	openRooms(t, w.sys, "own-"+w.sys.ID, "double", stay, 4)
	res := w.agent.Do(t, http.MethodPost, "/api/v1/agent/bookings", map[string]string{"Idempotency-Key": "own1"},
		map[string]any{"hotelId": "own-" + w.sys.ID, "roomTypeId": "double", "checkIn": stay.CheckIn, "checkOut": stay.CheckOut, "quantity": 1})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	awaitStatus(t, w.sys, id, "CONFIRMED")
	w.notified(t, id, workflows.EventConfirmed)
	res = w.agent.Do(t, http.MethodPost, "/api/v1/agent/bookings/"+id+"/cancel", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	w.notified(t, id, workflows.EventCancelled)
	assert.Equal(t, 4, roomsLeft(t, w.sys, "own-"+w.sys.ID, "double", stay))
	// Finance sees the sale and its cancellation on the channel's account, not as desk cash.
	var today string // the day the booking was confirmed (the test may run across midnight)
	require.NoError(t, w.sys.DB.Pool.QueryRow(context.Background(), `SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD')
		FROM booking_changes WHERE booking_id = $1 AND to_status = 'CONFIRMED'`, id).Scan(&today))
	report := w.sys.Admin(t, http.MethodGet, "/api/v1/staff/reports/daily?hotelId=own-"+w.sys.ID+"&date="+today, nil)
	require.Equal(t, http.StatusOK, report.Status, report.Raw)
	totals := report.Body["report"].(map[string]any)["totals"].([]any)
	require.Len(t, totals, 1, report.Raw)
	assert.Equal(t, "account", totals[0].(map[string]any)["channel"])
	assert.Equal(t, "wholesale", totals[0].(map[string]any)["channelId"])
	assert.EqualValues(t, 0, totals[0].(map[string]any)["net"], "sold and given back the same day")
	checkInvariants(t, w.sys)
	testsuite.ReplayAndRecord(t, w.sys.Temporal, id, "agent-own-stock-on-account-cancelled")
}
