package workflows

import (
	"time"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
)

// Check results, in the CheckResult search attribute of an invariant check workflow.
const (
	CheckClean    = "CLEAN"
	CheckFindings = "FINDINGS"
)

// InvariantCheckWorkflow runs the invariant checker once (the hourly schedule starts it) and
// shows its result in the CheckResult search attribute, so operators find the runs that found
// something in the Temporal UI (CheckResult="FINDINGS"); the report is its result and the
// latest is served at GET /api/v1/admin/checks/latest.
func InvariantCheckWorkflow(ctx workflow.Context, in activities.CheckInput) (domain.CheckReport, error) {
	var report domain.CheckReport
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	}), checks.RunChecks, in).Get(ctx, &report)
	if err != nil {
		return report, err
	}
	result := CheckClean
	if len(report.Findings) > 0 {
		result = CheckFindings
	}
	return report, workflow.UpsertTypedSearchAttributes(ctx, SearchCheckResult.ValueSet(result))
}

// RecoverRefundWorkflow finishes the refund of a REFUNDING booking whose own workflow is gone
// (terminated, failed, reset): the invariant checker starts it, with id
// domain.RefundRecoveryID. It runs the booking's refund saga again from the lost saga's last
// attempt (of the part it was at, when the refund is drawn on several payments): resumed under
// its key when its outcome is open or known good (found in the refunds table, never paid twice),
// or followed by a new one when it failed. PAYMENT_STUCK and operator actions work as in a
// booking.
func RecoverRefundWorkflow(root workflow.Context, bookingID string) (BookingState, error) {
	ctx, b, err := sagasOnly(root, bookingID)
	if err != nil {
		return b.state, err
	}
	var found activities.RefundToResume
	if err := workflow.ExecuteActivity(dbActivity(ctx), checks.LoadRefund, bookingID).Get(ctx, &found); err != nil {
		return b.state, err
	}
	b.state.Booking, b.state.Kept = found.Booking, found.Kept
	b.counted = found.Booking.Status // counted by the booking's own workflow
	if found.Booking.Status != domain.StatusRefunding {
		b.logger.Info("Nothing to recover", "status", found.Booking.Status)
		return b.state, workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
	}
	const reason = "refund resumed: the booking's workflow had gone"
	b.state.Reason = reason
	if err := b.publish(ctx); err != nil {
		return b.state, err
	}
	saga := &Saga{Step: "refund", Kind: sagaRefund, Booking: found.Booking, Currency: found.Currency,
		Reason: reason, FirstAttempt: found.FirstAttempt}
	if found.Parts != nil && b.takes(ctx, versionRecoveredParts) {
		// Drawn on several payments: it goes on with the part it was lost at, not from the first.
		saga.Parts, saga.Part = found.Parts, found.Part
	}
	b.startSaga(ctx, saga, nil)
	return b.state, b.awaitSagas(ctx)
}

// versionRecoveredParts marks the recoveries that go on with the parts of the refund as the
// database records them (before, a refund drawn on several payments started again from its first
// part, with the attempt number of the booking's payment's step).
const versionRecoveredParts = "recovered-refund-parts"

// sagasOnly sets up a workflow that runs refund sagas for a booking it does not look after (a
// recovery's, the staff refunds' once the booking's workflow closed): its state query and the
// operators' actions. Money on its way back is never cut short: cancelling the workflow does not
// reach its steps, which run in the context returned.
func sagasOnly(root workflow.Context, bookingID string) (workflow.Context, *booking, error) {
	ctx, _ := workflow.NewDisconnectedContext(root)
	b := &booking{in: withDefaults(BookingInput{BookingID: bookingID}), reserved: true, closing: true, sagasOnly: true}
	b.state.Booking = domain.Booking{ID: bookingID}
	b.logger = log.With(workflow.GetLogger(ctx), "bookingId", bookingID)
	b.wake = workflow.NewBufferedChannel(ctx, 1)
	b.listenForRefunds(ctx)
	if err := workflow.SetQueryHandler(ctx, QueryState, func() (BookingState, error) { return b.state, nil }); err != nil {
		return ctx, b, err
	}
	return ctx, b, b.setOperatorHandlers(ctx)
}

// ReconcilePaymentsWorkflow runs the payment reconciliation once (the daily schedule starts it):
// every payment the provider took is recorded and delivered, so its booking keeps it or it is
// refunded. The report is its result; what it recovered is in the audit log.
func ReconcilePaymentsWorkflow(ctx workflow.Context, in activities.ReconcileInput) (activities.ReconcileReport, error) {
	var report activities.ReconcileReport
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 2 * time.Hour,
		HeartbeatTimeout:    2 * time.Minute, // it beats once per payment listed
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Minute, MaximumAttempts: 5},
	}), reconciliation.Reconcile, in).Get(ctx, &report)
	return report, err
}

// The activities, by reference.
var (
	checks         *activities.Checks
	reconciliation *activities.Reconciliation
)
