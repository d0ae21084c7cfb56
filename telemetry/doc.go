// Package telemetry is how bookflow reports on itself: Prometheus metrics served on their own
// listen address, OpenTelemetry traces exported over OTLP when an endpoint is configured, and
// the Temporal SDK's log lines under the same keys as bookflow's own (workflowId, traceId, ...),
// so one query finds an API line and a worker line alike.
package telemetry
