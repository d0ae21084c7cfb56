package workflows

import (
	"errors"
	"slices"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
)

// reserve runs the reservation and records its outcome: a hold, a refusal stored REJECTED, a
// refusal with nothing written (the hold limit, an active order for the slot), or, past its
// time bound, an abandoned reservation.
func (b *booking) reserve(ctx workflow.Context) error {
	defer func() { b.reserved = true }()
	var stored domain.Booking
	in := activities.ReserveInput{
		BookingID: b.in.BookingID, IdempotencyKey: b.in.IdempotencyKey, Request: b.in.Request, Order: b.in.Order,
		CreatedBy: b.in.CreatedBy, MaxActiveHolds: b.in.MaxActiveHolds, HoldTTL: b.in.HoldTTL,
		ChannelID: b.in.ChannelID, AgentID: b.in.AgentID, SupplierID: b.in.SupplierID,
	}
	err := b.startReserve(ctx, in).Get(ctx, &stored)
	var appErr *temporal.ApplicationError
	refusal := errors.As(err, &appErr) && slices.Contains([]string{activities.ErrTypeTooManyHolds,
		activities.ErrTypeAlreadyOrdered, activities.ErrTypeUnavailable, activities.ErrTypeInvalid}, appErr.Type())
	switch {
	case refusal && (appErr.Type() == activities.ErrTypeTooManyHolds || appErr.Type() == activities.ErrTypeAlreadyOrdered):
		// Nothing was written: the hold update answers with the refusal.
		b.logger.Info("Reservation refused", "reason", appErr.Message())
		b.count(ctx, MetricHoldRefusals, map[string]string{"reason": appErr.Type()})
		b.refused = temporal.NewApplicationError(appErr.Message(), appErr.Type())
		b.state.Reason = appErr.Message()
		return nil
	case refusal:
		b.state.Booking.Status = domain.StatusRejected
		b.state.Reason = appErr.Message()
		b.logger.Info("Reservation refused", "reason", appErr.Message())
		return b.publish(ctx)
	case err != nil && b.in.ReserveTimeout > 0:
		// Out of time (the server ended the attempts with a timeout, or with the last failure
		// when no retry fits in the bound): end the reservation, whatever it reached, rather than
		// let a hold commit later for nobody. The hold update answers that nothing is held.
		b.logger.Warn("Reservation did not complete in time; abandoning it", "timeout", b.in.ReserveTimeout, "error", err)
		if err := workflow.ExecuteActivity(dbActivity(ctx), bookings.AbandonReservation, in).Get(ctx, &stored); err != nil {
			return err
		}
		b.state.Booking = stored
		b.state.Reason = "the reservation did not complete in time; nothing is held"
		b.refused = temporal.NewApplicationError(b.state.Reason, ErrTypeReservationAbandoned)
		return b.publish(ctx)
	case err != nil:
		return err
	}
	b.state.Booking = stored
	b.logger.Info("Rooms held", "expiresAt", stored.ExpiresAt, "price", stored.Price.Total, "currency", stored.Price.Currency)
	return b.publish(ctx)
}

// startReserve starts the reservation. Asked to (b.in.ReserveLocally), it runs as a local
// activity: the reservation is one short idempotent transaction, and run by the worker that
// holds the workflow task it answers the hold in that task, without the round trips of an
// activity task through the server. A supplier's hotel keeps the activity: the supplier may be
// asked over the network. The version marker keeps a workflow that a worker of the previous
// release started (ignoring the field) on the activity when a newer worker replays it; a lean
// booking (lean.go) is marked at a later version of the same change.
func (b *booking) startReserve(ctx workflow.Context, in activities.ReserveInput) workflow.Future {
	if !b.in.ReserveLocally || b.in.SupplierID != "" || (!b.lean &&
		workflow.GetVersion(ctx, versionLocalReserve, workflow.DefaultVersion, paymentsInOrderVersion) == workflow.DefaultVersion &&
		!workflow.GetInfo(ctx).WorkflowStartTime.Before(localReserveMarkedSince)) {
		return workflow.ExecuteActivity(reserveActivity(ctx, b.in.ReserveTimeout), bookings.Reserve, in)
	}
	opts := workflow.LocalActivityOptions{StartToCloseTimeout: dbStepTimeout, RetryPolicy: dbRetryPolicy()}
	if b.in.ReserveTimeout > 0 {
		// A local activity's bound counts from the workflow task that runs it, and would start
		// again when another worker takes the task over after a failure: count it from the
		// workflow's start instead, as the API's wait does.
		left := b.in.ReserveTimeout - workflow.Now(ctx).Sub(workflow.GetInfo(ctx).WorkflowStartTime)
		if left <= 0 {
			f, settle := workflow.NewFuture(ctx)
			settle.SetError(temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE, nil))
			return f
		}
		opts.ScheduleToCloseTimeout = left
		opts.StartToCloseTimeout = min(opts.StartToCloseTimeout, left)
	}
	return workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, opts), bookings.Reserve, in)
}

// versionLocalReserve marks workflows whose reservation may run as a local activity.
const versionLocalReserve = "local-reserve"

// localReserveMarkedSince is when the local reservation got its version marker: the builds
// before it (fe5c147 up to 795a2d7, never released) ran the local activity unmarked, so a
// workflow they started replays it. One started since without the marker was started for a
// worker that predates the local activity (an API upgraded first), and keeps the activity.
var localReserveMarkedSince = time.Date(2026, 11, 30, 10, 45, 55, 0, time.UTC)

// reserveActivity bounds the reservation, retries included, by timeout (none when zero).
func reserveActivity(ctx workflow.Context, timeout time.Duration) workflow.Context {
	ctx = dbActivity(ctx)
	if timeout <= 0 {
		return ctx
	}
	opts := workflow.GetActivityOptions(ctx)
	opts.ScheduleToCloseTimeout = timeout
	opts.StartToCloseTimeout = min(opts.StartToCloseTimeout, timeout)
	return workflow.WithActivityOptions(ctx, opts)
}
