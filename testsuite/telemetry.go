package testsuite

import (
	"context"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/log"

	"github.com/bookflow/bookflow/telemetry"
)

// clientOptions are the options of every Temporal client the tests make: bookflow's metrics
// handler and tracing interceptor, as the commands set them, and logger.
func clientOptions(logger log.Logger) *client.Options {
	installTracing()
	metrics, err := telemetry.TemporalMetrics()
	if err != nil {
		panic(err)
	}
	tracing, err := telemetry.TemporalTracing()
	if err != nil {
		panic(err)
	}
	return &client.Options{Logger: logger, MetricsHandler: metrics, Interceptors: []interceptor.ClientInterceptor{tracing}}
}

// withOptions returns a client sharing tc's connection whose workers log to the system's logger
// and which seals payloads if the system does.
func withOptions(t testing.TB, tc client.Client, o SystemOptions) client.Client {
	t.Helper()
	logger := quietLogger()
	if o.Logger != nil {
		logger = o.Logger
	}
	opts := clientOptions(telemetry.TemporalLogger(logger))
	keys := payloadKeys(o)
	opts.DataConverter, opts.FailureConverter = keys.DataConverter(), keys.FailureConverter()
	c, err := client.NewClientFromExistingWithContext(context.Background(), tc, *opts)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// spans records the traces tests start themselves (NewTrace). Every other trace has an unsampled
// root, so the rest of the suite records nothing and keeps no spans in memory.
var (
	spans       = tracetest.NewSpanRecorder()
	tracingOnce sync.Once
)

func installTracing() {
	tracingOnce.Do(func() {
		otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans),
			sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.NeverSample()))))
		_, _ = telemetry.StartTracing(context.Background(), "bookflow-tests") // the propagator only
	})
}

// NewTrace returns a new sampled trace's id and the W3C traceparent header that makes a request
// part of it, as a front end's own tracing would.
func NewTrace() (trace.TraceID, string) {
	installTracing()
	var tid trace.TraceID
	var sid trace.SpanID
	_, _ = rand.Read(tid[:])
	_, _ = rand.Read(sid[:])
	return tid, "00-" + tid.String() + "-" + sid.String() + "-01"
}

// Spans returns the ended spans of trace id recorded so far.
func Spans(id trace.TraceID) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range spans.Ended() {
		if s.SpanContext().TraceID() == id {
			out = append(out, s)
		}
	}
	return out
}

// Metrics scrapes the process's /metrics as Prometheus would, and returns the metric families
// by name.
func Metrics(t testing.TB) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(telemetry.Handler())
	defer srv.Close()
	res, err := http.Get(srv.URL)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(res.Body)
	require.NoError(t, err)
	return families
}

// MetricValue sums the samples of counter or gauge name whose labels include every one of labels.
func MetricValue(families map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	var sum float64
	f, ok := families[name]
	if !ok {
		return 0
	}
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range labels {
			if have[k] != v {
				match = false
			}
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		case m.Histogram != nil:
			sum += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return sum
}
