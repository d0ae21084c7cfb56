package testsuite_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.temporal.io/sdk/interceptor"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/telemetry"
	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/worker"
	"github.com/bookflow/bookflow/workflows"
)

// One hold request is one trace: the HTTP handler's span, the Temporal client's call, the
// update, the reservation's activity span, and under it the reserve transaction's SQL. While the
// booking runs (held, then paid and CONFIRMED, its workflow open for weeks), every span of it
// that was exported has its parent exported too, the payment's signal in the webhook's trace
// included: no span points to a workflow span that is exported only when the workflow ends.
func TestOneHoldIsOneTraceFromHTTPToSQL(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(20, 2)
	openRooms(t, sys, "h-trace", "double", stay, 1)

	traceID, parent := testsuite.NewTrace()
	customer := sys.Customer("guest")
	res := sys.Guest(t, customer).Do(t, http.MethodPost, "/api/v1/bookings",
		map[string]string{"Idempotency-Key": "k-trace", "traceparent": parent},
		holdBody(customer, "h-trace", "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)

	var spans []sdktrace.ReadOnlySpan
	// The HTTP span ends when the answer is sent; the activity's and the workflow task's spans
	// may end just after.
	require.Eventually(t, func() bool {
		spans = testsuite.Spans(traceID)
		return findSpan(spans, "POST /api/v1/bookings") != nil && findSpan(spans, "RunActivity:Reserve") != nil
	}, 10*time.Second, 50*time.Millisecond, "spans so far: %v", names(spans))
	// The trace is the front end's: the HTTP span's parent is the span its traceparent named.
	httpSpan := findSpan(spans, "POST /api/v1/bookings")
	assert.Equal(t, parent[36:52], httpSpan.Parent().SpanID().String())
	assert.NotNil(t, findSpan(spans, "UpdateWithStartWorkflow:hold"), "the Temporal client's call is in the trace")
	assert.NotNil(t, findSpan(spans, "HandleUpdate:hold"), "the update is in the trace")
	activity := findSpan(spans, "RunActivity:Reserve")
	byID := spansByID(spans)
	var sql sdktrace.ReadOnlySpan
	for _, s := range spans {
		if isSQL(s) && under(byID, s, activity) {
			sql = s
		}
	}
	require.NotNil(t, sql, "the reservation's SQL is traced under its activity: %v", names(spans))
	for _, s := range spans {
		if isSQL(s) {
			for _, a := range s.Attributes() {
				assert.NotContains(t, a.Value.String(), customer, "SQL spans carry statements, never their arguments")
			}
		}
	}

	// The guest pays: the webhook's request is a trace of its own, holding the signal; the
	// confirmation the workflow then runs belongs to the hold's trace.
	payTrace, payParent := testsuite.NewTrace()
	payload := testsuite.PaymentEvent("evt-trace", "pi-trace", id, int64(res.Body["price"].(map[string]any)["total"].(float64)), "EUR")
	paid := sys.Do(t, http.MethodPost, "/api/v1/webhooks/payments", map[string]string{"traceparent": payParent,
		"Stripe-Signature": payments.SignWebhook(payload, sys.WebhookSecret, time.Now())}, string(payload))
	require.Equal(t, http.StatusOK, paid.Status, paid.Raw)
	awaitStatus(t, sys, id, "CONFIRMED")
	require.Eventually(t, func() bool {
		spans = testsuite.Spans(traceID)
		return findSpan(spans, "RunActivity:Confirm") != nil && findSpan(testsuite.Spans(payTrace), "HandleSignal:payment") != nil
	}, 10*time.Second, 50*time.Millisecond, "spans so far: %v", names(spans))

	for _, tr := range []struct {
		spans  []sdktrace.ReadOnlySpan
		caller string
	}{{testsuite.Spans(traceID), parent[36:52]}, {testsuite.Spans(payTrace), payParent[36:52]}} {
		byID := spansByID(tr.spans)
		for _, s := range tr.spans {
			p := s.Parent().SpanID().String()
			assert.True(t, byID[p] != nil || p == tr.caller, "%s's parent %s is not exported while the booking runs (exported: %v)",
				s.Name(), p, names(tr.spans))
		}
	}
}

// A worker that starts again finds its schedules made: bringing them up to date exports no
// CreateSchedule span failing with "already registered" (one per schedule, at every start). A
// supplier's sync schedule of its own stands for them all (the same code makes each), so tests
// running beside this one keep theirs.
func TestAWorkerRestartExportsNoScheduleErrors(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	traceID, parent := testsuite.NewTrace()
	ctx := propagation.TraceContext{}.Extract(context.Background(), propagation.MapCarrier{"traceparent": parent})
	schedules := worker.SupplierSchedules{Temporal: sys.Temporal, TaskQueue: sys.TaskQueue, Interval: time.Hour}
	sup := db.Supplier{ID: "restart-" + sys.TaskQueue, Mode: db.ModeDirectProcure, Endpoint: "http://127.0.0.1:1"}
	require.NoError(t, schedules.Ensure(ctx, sup), "the first start makes it")
	t.Cleanup(func() { _ = schedules.Ensure(context.Background(), db.Supplier{ID: sup.ID}) }) // removes it
	require.NoError(t, schedules.Ensure(ctx, sup), "a restart updates it")
	var creates int
	for _, s := range testsuite.Spans(traceID) {
		if strings.HasPrefix(s.Name(), "CreateSchedule:") {
			creates++
			assert.NotEqual(t, codes.Error, s.Status().Code, "%s failed: %s", s.Name(), s.Status().Description)
		}
	}
	assert.Equal(t, 1, creates, "the schedule is created once")
}

// The recorded histories replay with the tracing interceptor as a worker runs it (a workflow's
// start span standing for its RunWorkflow span): tracing adds no command of its own.
func TestRecordedHistoriesReplayWithTracing(t *testing.T) {
	t.Parallel()
	tracing, err := telemetry.TemporalTracing()
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join("..", "workflows", "testdata", "histories", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	keys := testsuite.RecordingPayloadKeys() // the sealed recordings' key; the others pass as they are
	for _, f := range files {
		r, err := sdkworker.NewWorkflowReplayerWithOptions(sdkworker.WorkflowReplayerOptions{
			Interceptors:  []interceptor.WorkerInterceptor{tracing},
			DataConverter: keys.DataConverter(), FailureConverter: keys.FailureConverter()})
		require.NoError(t, err)
		workflows.RegisterAll(r)
		assert.NoError(t, r.ReplayWorkflowHistoryFromJSONFile(nil, f), filepath.Base(f))
	}
}

func findSpan(spans []sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
	for _, s := range spans {
		if s.Name() == name {
			return s
		}
	}
	return nil
}

func spansByID(spans []sdktrace.ReadOnlySpan) map[string]sdktrace.ReadOnlySpan {
	byID := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byID[s.SpanContext().SpanID().String()] = s
	}
	return byID
}

// under says whether ancestor is among s's ancestors.
func under(byID map[string]sdktrace.ReadOnlySpan, s, ancestor sdktrace.ReadOnlySpan) bool {
	for p := s; p != nil; p = byID[p.Parent().SpanID().String()] {
		if p.Parent().SpanID() == ancestor.SpanContext().SpanID() {
			return true
		}
	}
	return false
}

func isSQL(s sdktrace.ReadOnlySpan) bool {
	for _, a := range s.Attributes() {
		if a.Key == "db.system.name" || a.Key == "db.system" {
			return true
		}
	}
	return false
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}
