package worker

import (
	"context"
	"errors"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/workflows"
)

// CheckInterval is how often the invariant checker's schedule runs it.
const CheckInterval = time.Hour

// NewChecks returns the invariant checker, starting refund recoveries, resumed bookings, staff
// refunds given back and supplier retries on resume.TaskQueue (workflows.TaskQueue when empty);
// a resumed booking runs with resume's settings, as one an operator resumes does.
func NewChecks(c client.Client, store *db.Store, resume ResumeOptions) *activities.Checks {
	if resume.TaskQueue == "" {
		resume.TaskQueue = workflows.TaskQueue
	}
	taskQueue := resume.TaskQueue
	return &activities.Checks{Store: store, Temporal: c,
		EndedActive: func(ctx context.Context) ([]string, error) { return endedActive(ctx, c) },
		TellSupplier: func(ctx context.Context, bookingID string) error {
			_, err := StartTellSupplier(ctx, c, taskQueue, bookingID)
			return err
		},
		Resume: func(ctx context.Context, b domain.Booking) error {
			err := ResumeBooking(ctx, c, store, b, "resumed by the invariant checker: its workflow was terminated or failed", resume)
			if errors.Is(err, ErrWorkflowRunning) {
				return nil // an operator resumed it since it was listed
			}
			return err
		},
		GiveStaffRefunds: func(ctx context.Context, b domain.Booking) error {
			err := GiveStaffRefunds(ctx, c, store, b, "given back by the invariant checker: the workflow giving it was lost", resume)
			if errors.Is(err, ErrNothingOwed) {
				return nil // given back since it was listed
			}
			return err
		},
		StartRecovery: func(ctx context.Context, bookingID string) error {
			_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
				ID: domain.RefundRecoveryID(bookingID), TaskQueue: taskQueue,
				WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
				// A recovery that ended while the booking is still REFUNDING (terminated, say) may
				// start again; the checker only asks when none is running.
				WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
			}, workflows.RecoverRefundWorkflowName, bookingID)
			return err
		}}
}

// BlockReleaseInterval is how often the group blocks' schedule releases what is past its cut-off:
// a night's rooms go back to sale at most this long after it.
const BlockReleaseInterval = time.Minute

// ReconcileInterval is how often the payment reconciliation's schedule runs it.
const ReconcileInterval = 24 * time.Hour

// NewReconciliation returns the payment reconciliation, delivering on taskQueue; with a provider
// that cannot list its payments, runs fail and say so.
func NewReconciliation(c client.Client, store *db.Store, provider payments.Provider, taskQueue string) *activities.Reconciliation {
	lister, _ := provider.(payments.PaymentLister)
	return &activities.Reconciliation{Store: store, Provider: lister,
		Deliver: Deliverer{Temporal: c, Store: store, TaskQueue: taskQueue}.Deliver}
}

// EnsureSchedules makes the schedules the worker keeps: the invariant checker, with repairs,
// every CheckInterval, the payment reconciliation every ReconcileInterval, and the expiry of
// past stop-sells and dated restrictions hourly, the release of group blocks past their cut-off
// every BlockReleaseInterval, on taskQueue, each named by ids (the
// deployment's prefix). It creates them, or brings existing ones up to date (a newer worker may
// run another interval or task queue); a paused schedule stays paused.
func EnsureSchedules(ctx context.Context, c client.Client, taskQueue string, ids workflows.ScheduleIDs) error {
	if taskQueue == "" {
		taskQueue = workflows.TaskQueue
	}
	checkSchedule, checkID := ids.InvariantCheck()
	reconcileSchedule, reconcileID := ids.Reconcile()
	expirySchedule, expiryID := ids.ExpireStopSells()
	blocksSchedule, blocksID := ids.ReleaseBlocks()
	return errors.Join(
		ensureSchedule(ctx, c, checkSchedule, CheckInterval, &client.ScheduleWorkflowAction{
			ID: checkID, Workflow: workflows.InvariantCheckWorkflowName, TaskQueue: taskQueue,
			Args: []any{activities.CheckInput{Repair: true}}}),
		ensureSchedule(ctx, c, reconcileSchedule, ReconcileInterval, &client.ScheduleWorkflowAction{
			ID: reconcileID, Workflow: workflows.ReconcilePaymentsWorkflowName, TaskQueue: taskQueue,
			Args: []any{activities.ReconcileInput{}}}),
		ensureSchedule(ctx, c, expirySchedule, time.Hour, &client.ScheduleWorkflowAction{
			ID: expiryID, Workflow: workflows.ExpireStopSellsWorkflowName, TaskQueue: taskQueue}),
		ensureSchedule(ctx, c, blocksSchedule, BlockReleaseInterval, &client.ScheduleWorkflowAction{
			ID: blocksID, Workflow: workflows.ReleaseBlocksWorkflowName, TaskQueue: taskQueue}),
	)
}

// ensureSchedule updates the schedule id, or creates it when there is none. Updating first
// keeps a worker's every start from failing a create per schedule (each a CreateSchedule error
// span when tracing); a worker starting beside another may still lose the create, and updates.
func ensureSchedule(ctx context.Context, c client.Client, id string, every time.Duration, action *client.ScheduleWorkflowAction) error {
	spec := client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: every}}}
	update := func() error {
		return c.ScheduleClient().GetHandle(ctx, id).Update(ctx, client.ScheduleUpdateOptions{
			DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
				s := in.Description.Schedule
				s.Spec, s.Action = &spec, action
				return &client.ScheduleUpdate{Schedule: &s}, nil
			},
		})
	}
	var notFound *serviceerror.NotFound
	if err := update(); !errors.As(err, &notFound) {
		return err
	}
	_, err := c.ScheduleClient().Create(ctx, client.ScheduleOptions{ID: id, Spec: spec,
		Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_SKIP, Action: action})
	if errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return update()
	}
	return err
}
