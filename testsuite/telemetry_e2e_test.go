package testsuite_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/api"
	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/worker"
)

// A hold that is paid then cancelled and refunded, a hold that expires, a hold refused for want
// of rooms and one refused at the customer's hold limit move the counters an operator's
// dashboard reads. Not parallel: the webhook, request and refusal counters are per process, so
// no other test may move them meanwhile.
func TestMetricsCountHoldsPaymentsAndExpiries(t *testing.T) {
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{HoldTTL: 2 * time.Second,
		HoldLimits: api.HoldLimits{MaxActive: 1}})
	stay := stayFromNow(20, 2)
	openRooms(t, sys, "h-metrics", "double", stay, 2)
	queue := map[string]string{"task_queue": sys.TaskQueue, "hotel": "h-metrics"}
	with := func(k, v string) map[string]string {
		m := map[string]string{k: v}
		for k, v := range queue {
			m[k] = v
		}
		return m
	}
	before := testsuite.Metrics(t)

	paid, total := holdRoom(t, sys, "h-metrics", "k-paid", stay, 1)
	payAndConfirm(t, sys, paid, total, "evt-metrics", "pi-metrics")
	expiring, _ := holdRoom(t, sys, "h-metrics", "k-expire", stay, 1)
	res := hold(t, sys, "k-limit", holdBody(sys.Customer("guest"), "h-metrics", "double", stay, 1))
	require.Equal(t, http.StatusTooManyRequests, res.Status, "the guest holds one unpaid booking: %s", res.Raw)
	res = hold(t, sys, "k-refused", holdBody(sys.Customer("other"), "h-metrics", "double", stay, 1))
	require.Equal(t, http.StatusConflict, res.Status, "both rooms are taken: %s", res.Raw)
	res = sys.Guest(t, sys.Customer("guest")).Do(t, http.MethodPost, "/api/v1/bookings/"+paid+"/cancel", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitStatus(t, sys, paid, "REFUNDED")
	awaitStatus(t, sys, expiring, "EXPIRED")

	delta := func(name string, labels map[string]string) float64 {
		return testsuite.MetricValue(testsuite.Metrics(t), name, labels) - testsuite.MetricValue(before, name, labels)
	}
	// Counted by the workflows: a workflow's counts reach the handler when its task completes.
	require.Eventually(t, func() bool { return delta("bookflow_bookings_total", with("status", "EXPIRED")) == 1 },
		10*time.Second, 50*time.Millisecond)
	assert.Equal(t, 2.0, delta("bookflow_bookings_total", with("status", "HOLD")), "holds created")
	assert.Equal(t, 1.0, delta("bookflow_bookings_total", with("status", "CONFIRMED")))
	assert.Equal(t, 1.0, delta("bookflow_bookings_total", with("status", "REJECTED")))
	assert.Equal(t, 1.0, delta("bookflow_bookings_total", with("status", "REFUNDING")), "a paid cancel refunds")
	assert.Equal(t, 1.0, delta("bookflow_bookings_total", with("status", "REFUNDED")))
	assert.Equal(t, 0.0, delta("bookflow_bookings_total", with("status", "CANCELLED")))
	assert.Equal(t, 1.0, delta("bookflow_payments_total", with("outcome", "pays_hold")))
	assert.Equal(t, 1.0, delta("bookflow_refund_attempts_total", with("outcome", "succeeded")))
	assert.Equal(t, 1.0, delta("bookflow_gate_refusals_total", map[string]string{"reason": "too_many_holds"}))
	// Counted by the API.
	assert.Equal(t, 1.0, delta("bookflow_payment_webhooks_total",
		map[string]string{"type": "payment_intent.succeeded", "outcome": "delivered"}))
	assert.Equal(t, 2.0, delta("bookflow_http_requests_total",
		map[string]string{"url": "/api/v1/bookings", "method": "POST", "code": "201"}))
	assert.Equal(t, 1.0, delta("bookflow_http_requests_total",
		map[string]string{"url": "/api/v1/bookings", "method": "POST", "code": "409"}))
	assert.Equal(t, 1.0, delta("bookflow_http_requests_total",
		map[string]string{"url": "/api/v1/bookings", "method": "POST", "code": "429"}))
	// The SDK's own metrics come through the same handler.
	assert.Positive(t, delta("temporal_workflow_task_execution_latency_seconds", map[string]string{"task_queue": sys.TaskQueue}))

	// Read at scrape time from the system's database and Temporal.
	reg := prometheus.NewRegistry()
	reg.MustRegister(&worker.StateMetrics{Store: sys.DB.Store, Temporal: sys.Temporal, Cached: true})
	families, err := reg.Gather()
	require.NoError(t, err)
	names := map[string]bool{}
	for _, f := range families {
		names[f.GetName()] = true
	}
	for _, name := range []string{"bookflow_stuck_bookings", "bookflow_outbox_backlog", "bookflow_outbox_oldest_age_seconds"} {
		assert.True(t, names[name], "%s is reported", name)
	}
}

// Every line the API and the worker log (Info and up, the default level) while a booking is held, paid for, cancelled and
// refunded is JSON; the lines about the booking name it, its workflow and its trace; and none
// holds a bearer token, the webhook secret, its signature or the admin token.
func TestLogsNameTheBookingAndHoldNoSecrets(t *testing.T) {
	t.Parallel()
	var logs testsuite.SyncBuffer
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{
		Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	stay := stayFromNow(20, 2)
	openRooms(t, sys, "h-logs", "double", stay, 1)

	_, parent := testsuite.NewTrace()
	customer := sys.Customer("guest")
	guest := sys.Guest(t, customer)
	res := guest.Do(t, http.MethodPost, "/api/v1/bookings",
		map[string]string{"Idempotency-Key": "k-logs", "traceparent": parent}, holdBody(customer, "h-logs", "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	total := int64(res.Body["price"].(map[string]any)["total"].(float64))
	payAndConfirm(t, sys, id, total, "evt-logs", "pi-logs")
	res = guest.Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/cancel", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitStatus(t, sys, id, "REFUNDED")

	out := logs.String()
	for _, secret := range []string{guest.Token, sys.AdminToken, sys.WebhookSecret, string(sys.JWTSecret), "Bearer ", "Stripe-Signature", "v1="} {
		assert.NotContains(t, out, secret, "a secret reached the logs")
	}
	var aboutIt int
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var entry map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &entry), "not a JSON line: %s", line)
		if !strings.Contains(line, id) {
			continue
		}
		aboutIt++
		assert.Equal(t, id, entry["bookingId"], "a line about the booking names it: %s", line)
		assert.Equal(t, id, entry["workflowId"], "and its workflow: %s", line)
		assert.NotEmpty(t, entry["traceId"], "and its trace: %s", line)
	}
	assert.GreaterOrEqual(t, aboutIt, 4, "the API's and the workflow's lines about the booking:\n%s", out)
}
