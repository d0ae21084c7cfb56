package telemetry

import (
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo-contrib/echoprometheus"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
)

// Registry holds every metric /metrics serves. It is not Prometheus's default registry, so
// what a library registers there on its own stays out.
var Registry = prometheus.NewRegistry()

var factory = promauto.With(Registry)

func init() {
	Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
}

// The metrics the API and the relay count themselves. Those about bookings come from the booking
// workflow through Temporal's metrics handler (workflows/metrics.go), which counts nothing twice
// when a workflow replays; those read off PostgreSQL and Temporal at scrape time are the worker's
// (worker.StateMetrics).
var (
	// GateRefusals counts holds refused before any workflow starts: sold out by the cache,
	// busy (the gate could not vouch either way), or over the hotel's hold rate.
	GateRefusals = factory.NewCounterVec(prometheus.CounterOpts{
		Name: "bookflow_gate_refusals_total",
		Help: "Holds refused by the API before starting a workflow, by reason (sold_out, busy, rate_limited) and hotel.",
	}, []string{"reason", "hotel"})
	// PaymentWebhooks counts the provider's webhook deliveries by event type and what became of
	// them: delivered (to the booking), duplicate, unprocessable (kept for finance), unsupported.
	PaymentWebhooks = factory.NewCounterVec(prometheus.CounterOpts{
		Name: "bookflow_payment_webhooks_total",
		Help: "Payment-provider webhooks accepted, by event type and outcome (delivered, duplicate, unprocessable, unsupported).",
	}, []string{"type", "outcome"})
	// RelayLag is how long a change took from its commit to the availability cache.
	RelayLag = factory.NewHistogram(prometheus.HistogramOpts{
		Name:    "bookflow_outbox_relay_lag_seconds",
		Help:    "Time from an inventory change's commit to the relay writing it to the availability cache.",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
	})
)

var httpMetrics = sync.OnceValue(func() echo.MiddlewareFunc {
	return echoprometheus.NewMiddlewareWithConfig(echoprometheus.MiddlewareConfig{
		Namespace: "bookflow", Subsystem: "http", Registerer: Registry,
		// Route patterns, not raw paths, label the requests; an unknown path is one label,
		// whatever was asked for, and so is the Host header a client sends.
		DoNotUseRequestPathFor404: true,
		LabelFuncs: map[string]echoprometheus.LabelValueFunc{
			"host":   func(echo.Context, error) string { return "" },
			"method": func(c echo.Context, _ error) string { return knownMethod(c.Request().Method) },
		},
	})
})

// knownMethod is the method label: a made-up method (any token is one to Go's server) is OTHER,
// so clients cannot mint series.
func knownMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodOptions:
		return m
	}
	return "OTHER"
}

// HTTPMetrics is the Echo middleware counting requests and timing them by route, method and
// status (bookflow_http_requests_total, bookflow_http_request_duration_seconds, ...). Every Echo built in
// the process shares it. It reads the status from the response, so it goes before the middleware
// that answers errors (api's request logger).
func HTTPMetrics() echo.MiddlewareFunc { return httpMetrics() }

var temporalMetrics = sync.OnceValues(func() (client.MetricsHandler, error) {
	exporter, err := otelprom.New(otelprom.WithRegisterer(Registry), otelprom.WithoutScopeInfo(),
		otelprom.WithoutTargetInfo(), otelprom.WithAggregationSelector(secondsBuckets))
	if err != nil {
		return nil, err
	}
	// No cap on label sets: the workflows' counters are per hotel or venue, whose ids an admin
	// creates, and OpenTelemetry's default cap (2,000) would fold a large catalogue's into one
	// unlabelled series.
	meter := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter), sdkmetric.WithCardinalityLimit(0)).
		Meter("temporal-sdk-go")
	return temporalotel.NewMetricsHandler(temporalotel.MetricsHandlerOptions{Meter: meter,
		UseMonotonicCounters: true,
		OnError:              func(err error) { slog.Warn("Temporal metric not recorded", "err", err) }}), nil
})

// secondsBuckets gives the SDK's latencies, recorded in seconds, buckets from a millisecond to a
// minute (OpenTelemetry's default buckets start at 5 and would put them all in the first).
func secondsBuckets(kind sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	if kind == sdkmetric.InstrumentKindHistogram {
		return sdkmetric.AggregationExplicitBucketHistogram{
			Boundaries: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}}
	}
	return sdkmetric.DefaultAggregationSelector(kind)
}

// TemporalMetrics is the metrics handler for Temporal clients and workers (client.Options): the
// SDK's own metrics (temporal_*: requests, polls, task latencies, slots) and those the workflows
// count (bookflow_bookings_total, ...), exported through OpenTelemetry into Registry.
func TemporalMetrics() (client.MetricsHandler, error) { return temporalMetrics() }

// Handler serves Registry in Prometheus's text format.
func Handler() http.Handler {
	// A read that fails leaves its series out; it does not fail the whole scrape. Scrapes at
	// once are few: some series are read from PostgreSQL and Temporal.
	return promhttp.HandlerFor(Registry, promhttp.HandlerOpts{Registry: Registry, ErrorLog: slogPrinter{},
		ErrorHandling: promhttp.ContinueOnError, MaxRequestsInFlight: 4})
}

// MetricsServer returns the server for /metrics on addr: a listener of its own, so the metrics
// are not on the public API's address. Beside it, /healthz answers while the process runs
// (liveness) and, when ready is given, /readyz answers it (the worker's readiness; the API has
// its own on its address).
func MetricsServer(addr string, ready *Readiness) *http.Server {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", Handler())
	// A liveness probe without a scrape's reads (the worker's container healthcheck).
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	if ready != nil {
		mux.Handle("GET /readyz", ready)
	}
	return &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 30 * time.Second}
}

// slogPrinter reports promhttp's errors (a collector that failed) through slog.
type slogPrinter struct{}

func (slogPrinter) Println(v ...any) { slog.Warn("metrics", "err", v) }
