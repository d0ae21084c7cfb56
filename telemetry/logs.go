package telemetry

import (
	"log/slog"
	"strings"

	"go.temporal.io/sdk/log"

	"github.com/bookflow/bookflow/domain"
)

// temporalKeys are the keys the Temporal SDK and its tracing interceptor put on workflow and
// activity log lines, renamed to the ones bookflow's own lines use, so that one query
// (workflowId="booking-…", traceId="…") finds an API line and a worker line alike.
var temporalKeys = map[string]string{
	"WorkflowID": "workflowId", "RunID": "runId", "TraceID": "traceId", "SpanID": "spanId",
	"Namespace": "namespace", "TaskQueue": "taskQueue", "WorkflowType": "workflowType",
	"ActivityID": "activityId", "ActivityType": "activityType", "Attempt": "attempt", "WorkerID": "workerId",
}

// TemporalLogger is the Temporal SDK's logger over l, with the SDK's keys renamed (temporalKeys)
// and, on a booking workflow's lines, its booking id (the workflow's id) as bookingId: the SDK's
// own lines about a booking name it as bookflow's do.
func TemporalLogger(l *slog.Logger) log.Logger { return renamed{log.NewStructuredLogger(l)} }

type renamed struct{ next log.Logger }

func (r renamed) Debug(msg string, kv ...any) { r.next.Debug(msg, rename(kv)...) }
func (r renamed) Info(msg string, kv ...any)  { r.next.Info(msg, rename(kv)...) }
func (r renamed) Warn(msg string, kv ...any)  { r.next.Warn(msg, rename(kv)...) }
func (r renamed) Error(msg string, kv ...any) { r.next.Error(msg, rename(kv)...) }

// With keeps the renaming on the loggers the SDK derives (workflow.GetLogger, activity.GetLogger).
func (r renamed) With(kv ...any) log.Logger { return renamed{log.With(r.next, rename(kv)...)} }

func rename(kv []any) []any {
	out := make([]any, 0, len(kv)+2)
	for i := 0; i < len(kv); i += 2 {
		if i+1 == len(kv) {
			return append(out, kv[i])
		}
		k, v := kv[i], kv[i+1]
		if id, ok := v.(interface{ IsValid() bool }); ok && !id.IsValid() {
			continue // the tracing interceptor's all-zero ids of a workflow started outside any trace
		}
		if name, ok := k.(string); ok {
			if to, ok := temporalKeys[name]; ok {
				k = to
			}
			if id, ok := v.(string); ok && name == "WorkflowID" && strings.HasPrefix(id, domain.BookingIDPrefix) {
				out = append(out, "bookingId", id)
			}
		}
		out = append(out, k, v)
	}
	return out
}
