package telemetry

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
)

// TracingEnabled says whether traces are exported: when the environment names an OTLP endpoint,
// or asks for them on the console (OTEL_TRACES_EXPORTER=console, to look at them without a
// collector), as the OpenTelemetry specification's variables do. OTEL_TRACES_EXPORTER=none
// turns them off whatever else is set.
func TracingEnabled() bool {
	switch os.Getenv("OTEL_TRACES_EXPORTER") {
	case "none":
		return false
	case "console":
		return true
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// StartTracing installs the process's tracer provider and the W3C trace-context propagator.
// Spans are exported over OTLP (http/protobuf, or gRPC when OTEL_EXPORTER_OTLP_PROTOCOL says
// grpc; the exporter reads the other OTEL_EXPORTER_OTLP_* variables itself), or written to
// stderr for OTEL_TRACES_EXPORTER=console, when TracingEnabled;
// otherwise nothing is recorded and the instrumentation costs next to nothing. service names
// the process (OTEL_SERVICE_NAME wins). The function returned flushes and stops the exporter.
func StartTracing(ctx context.Context, service string) (stop func(context.Context) error, err error) {
	// W3C trace context only: a caller's baggage is not taken in, so it never reaches a
	// workflow's headers (and its history).
	otel.SetTextMapPropagator(propagation.TraceContext{})
	switch e := os.Getenv("OTEL_TRACES_EXPORTER"); e {
	case "", "otlp", "console", "none":
	default:
		return nil, fmt.Errorf("OTEL_TRACES_EXPORTER=%q: want otlp, console or none", e)
	}
	if !TracingEnabled() {
		return func(context.Context) error { return nil }, nil
	}
	var exporter sdktrace.SpanExporter
	protocol := cmp.Or(os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"), os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL"))
	switch {
	case os.Getenv("OTEL_TRACES_EXPORTER") == "console":
		exporter, err = stdouttrace.New(stdouttrace.WithWriter(os.Stderr))
	case protocol == "" || protocol == "http/protobuf":
		exporter, err = otlptracehttp.New(ctx)
	case protocol == "grpc":
		exporter, err = otlptracegrpc.New(ctx)
	default:
		return nil, fmt.Errorf("OTLP protocol %q (OTEL_EXPORTER_OTLP_PROTOCOL): want http/protobuf or grpc", protocol)
	}
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	// Later detectors win: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES over our default.
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", service)),
		resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil {
		return nil, err
	}
	provider := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))
	otel.SetTracerProvider(provider)
	return provider.Shutdown, nil
}

// TemporalTracing is the interceptor that carries a trace through Temporal: the client's
// start, update and signal calls, the updates and signals a workflow handles, and each activity
// (local ones included), with the span context (and no baggage) in the Temporal headers. It
// uses the global tracer provider, and puts the trace id on the workflow's and activities'
// loggers. Install it only when TracingEnabled: it writes a header on every start, update,
// signal and activity.
//
// A workflow started with a span in its header (every start through our client) gets no span
// of its own: see startSpan.
func TemporalTracing() (interceptor.Interceptor, error) {
	return temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{DisableBaggage: true,
		TextMapPropagator: propagation.TraceContext{}, SpanStarter: startSpan})
}

// startSpan starts the interceptor's spans, but for a workflow's RunWorkflow span when its
// start carried a span: that one would last as long as the workflow (weeks, for a stay) and be
// exported only when it ends, or never if its worker dies, leaving every activity span under it
// pointing to a parent no backend receives. Instead the start's span stands for the workflow
// (a non-recording span with its context), so the workflow's activities are its children, each
// exported with a parent that already was. It is the same on every replay (it comes from the
// history), and continue-as-new hands it to the next run. A workflow started without one (by a
// schedule: short runs) keeps its RunWorkflow span.
func startSpan(ctx context.Context, t trace.Tracer, name string, opts ...trace.SpanStartOption) trace.Span {
	if strings.HasPrefix(name, "RunWorkflow:") {
		if start := trace.SpanFromContext(ctx); start.SpanContext().IsValid() {
			return start
		}
	}
	_, span := t.Start(ctx, name, opts...)
	return span
}

// TraceID returns the trace id of the span in ctx, or "" when there is none.
func TraceID(ctx context.Context) string {
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		return sc.TraceID().String()
	}
	return ""
}
