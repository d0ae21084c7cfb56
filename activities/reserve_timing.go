package activities

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/db"
)

// slowReservation is the time past which a reservation attempt is logged at Warn: it takes
// milliseconds, and its bound (10 s) is what the API's wait leaves it.
const slowReservation = time.Second

// reportReservation logs one reservation attempt (at Warn when it took more than
// slowReservation or failed other than by a refusal, at Debug otherwise) and puts the same on
// its span: where its time went in the database (db.ReserveTimes) and, on the workflow's side,
// how late the attempt started. For a local activity ScheduledTime is when the workflow task
// scheduled it (this worker's clock) and ScheduleToCloseTimeout what was left then of the bound
// counted from the workflow's start: the bound minus it is what the workflow lost before its
// task ran (the workflow task picked up late, an Update-with-Start's first task).
func reportReservation(ctx context.Context, bookingID string, start time.Time, t db.ReserveTimes, err error) {
	took := time.Since(start)
	trips, locks := t.Summary()
	args := []any{"bookingId", bookingID, "took", took.String(), "path", t.Path,
		"queued", t.Queued.String(), "batchSize", t.BatchSize, "sentBack", t.SentBack,
		"acquire", t.Acquire.String(), "database", t.RoundTrips().String(), "lockWait", t.LockWaited().String(),
		"trips", trips, "locks", locks}
	attrs := []attribute.KeyValue{
		attribute.String("bookflow.reserve.path", t.Path),
		attribute.Int64("bookflow.reserve.took_us", took.Microseconds()),
		attribute.Int64("bookflow.reserve.queued_us", t.Queued.Microseconds()),
		attribute.Int("bookflow.reserve.batch_size", t.BatchSize),
		attribute.Bool("bookflow.reserve.sent_back", t.SentBack),
		attribute.Int64("bookflow.reserve.acquire_us", t.Acquire.Microseconds()),
		attribute.Int64("bookflow.reserve.database_us", t.RoundTrips().Microseconds()),
		attribute.Int64("bookflow.reserve.lock_wait_us", t.LockWaited().Microseconds()),
		attribute.String("bookflow.reserve.trips", trips),
		attribute.String("bookflow.reserve.locks", locks),
	}
	var logWarn, logDebug func(string, ...any)
	if activity.IsActivity(ctx) {
		info := activity.GetInfo(ctx)
		delay := info.StartedTime.Sub(info.ScheduledTime)
		args = append(args, "attempt", info.Attempt, "local", info.IsLocalActivity, "startDelay", delay.String(),
			"boundLeft", info.ScheduleToCloseTimeout.String(), "deadlineIn", info.Deadline.Sub(info.StartedTime).String())
		attrs = append(attrs, attribute.Int("bookflow.reserve.attempt", int(info.Attempt)),
			attribute.Int64("bookflow.reserve.start_delay_us", delay.Microseconds()),
			attribute.Int64("bookflow.reserve.bound_left_us", info.ScheduleToCloseTimeout.Microseconds()))
		logger := activity.GetLogger(ctx)
		logWarn, logDebug = logger.Warn, logger.Debug
	} else {
		logWarn, logDebug = slog.Default().Warn, slog.Default().Debug
	}
	log := logDebug
	if failed := err != nil && !refusal(err); failed || took > slowReservation {
		log = logWarn
	}
	if err != nil {
		args = append(args, "error", err.Error())
		attrs = append(attrs, attribute.String("bookflow.reserve.error", err.Error()))
	}
	log("Reservation timing", args...)
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetAttributes(attrs...)
	}
}

// refusal is whether err is a business answer (classify's non-retryable errors), not a failure.
func refusal(err error) bool {
	var appErr *temporal.ApplicationError
	return errors.As(err, &appErr) && appErr.NonRetryable()
}
