package telemetry

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/bookflow/bookflow/worker"
	"github.com/bookflow/bookflow/workflows"
)

func TestTracesAreExportedOnlyWhenTheEnvironmentAsks(t *testing.T) {
	for _, c := range []struct {
		endpoint, exporter string
		want               bool
	}{
		{"", "", false},
		{"http://collector:4318", "", true},
		{"http://collector:4318", "none", false},
		{"", "console", true},
	} {
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", c.endpoint)
		t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
		t.Setenv("OTEL_TRACES_EXPORTER", c.exporter)
		assert.Equal(t, c.want, TracingEnabled(), "endpoint %q, exporter %q", c.endpoint, c.exporter)
	}
	t.Setenv("OTEL_TRACES_EXPORTER", "zipkin")
	_, err := StartTracing(t.Context(), "test")
	assert.ErrorContains(t, err, "OTEL_TRACES_EXPORTER", "an exporter we cannot honour is refused, not ignored")
}

// A made-up HTTP method is one label value, whatever the client sends.
func TestHTTPMetricsLabelUnknownMethodsOther(t *testing.T) {
	assert.Equal(t, "POST", knownMethod("POST"))
	assert.Equal(t, "OTHER", knownMethod("AAA1"))
}

// The SDK's lines use bookflow's keys, and a booking workflow's lines name the booking.
func TestTemporalLoggerRenamesTheSDKsKeysAndNamesTheBooking(t *testing.T) {
	var buf bytes.Buffer
	logger := TemporalLogger(slog.New(slog.NewJSONHandler(&buf, nil)))
	logger.Info("Rooms held", "WorkflowID", "booking-abc", "RunID", "r1", "TraceID", "t1", "price", 100)
	var line map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &line))
	assert.Equal(t, "booking-abc", line["workflowId"])
	assert.Equal(t, "booking-abc", line["bookingId"])
	assert.Equal(t, "r1", line["runId"])
	assert.Equal(t, "t1", line["traceId"])
	assert.EqualValues(t, 100, line["price"])
	assert.NotContains(t, line, "WorkflowID")

	buf.Reset()
	logger.Info("Refund succeeded", "WorkflowID", "late-payment-pi_1", "TraceID", trace.TraceID{}, "SpanID", trace.SpanID{})
	line = nil
	require.NoError(t, json.Unmarshal(buf.Bytes(), &line))
	assert.NotContains(t, line, "bookingId", "only a booking workflow's id is a booking id")
	assert.NotContains(t, line, "traceId", "a workflow started outside a trace has no trace id, not a zero one")
}

// The dashboard and the alert rules read only metrics bookflow exports: a renamed metric breaks
// this test, not a page at night.
func TestDeployReadsOnlyMetricsBookflowExports(t *testing.T) {
	// Vectors appear in a scrape once they have a sample: make one of each.
	e := echo.New()
	e.Use(HTTPMetrics())
	e.GET("/x", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/x", nil))
	GateRefusals.WithLabelValues("sold_out", "h").Add(0)
	PaymentWebhooks.WithLabelValues("t", "delivered").Add(0)

	known := map[string]bool{}
	families, err := Registry.Gather()
	require.NoError(t, err)
	for _, f := range families {
		known[f.GetName()] = true
	}
	descs := make(chan *prometheus.Desc, 16)
	(&worker.StateMetrics{}).Describe(descs)
	close(descs)
	fqName := regexp.MustCompile(`fqName: "([^"]+)"`)
	for d := range descs {
		known[fqName.FindStringSubmatch(d.String())[1]] = true
	}
	for _, name := range []string{workflows.MetricBookings, workflows.MetricHoldRefusals,
		workflows.MetricRefundAttempts, workflows.MetricStuck, workflows.MetricPayments} {
		known[name+"_total"] = true // counted by the workflows through Temporal's handler
	}

	used := regexp.MustCompile(`\bbookflow_[a-z_]+`)
	for _, file := range []string{"../deploy/prometheus/alerts.yml", "../deploy/grafana/bookflow-dashboard.json"} {
		raw, err := os.ReadFile(file)
		require.NoError(t, err)
		names := used.FindAllString(string(raw), -1)
		require.NotEmpty(t, names, file)
		for _, name := range names {
			base := name
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if trimmed, ok := strings.CutSuffix(name, suffix); ok && known[trimmed] {
					base = trimmed
				}
			}
			assert.True(t, known[base], "%s reads %s, which bookflow does not export", file, name)
		}
	}
}
