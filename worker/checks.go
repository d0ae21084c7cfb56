package worker

import (
	"context"
	"errors"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// CheckInterval is how often the invariant checker's schedule runs it.
const CheckInterval = time.Hour

// NewChecks returns the invariant checker, starting refund recoveries on taskQueue
// (workflows.TaskQueue when empty).
func NewChecks(c client.Client, store *db.Store, taskQueue string) *activities.Checks {
	if taskQueue == "" {
		taskQueue = workflows.TaskQueue
	}
	return &activities.Checks{Store: store, Temporal: c, StartRecovery: func(ctx context.Context, bookingID string) error {
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

// EnsureCheckSchedule makes the schedule that runs the invariant checker, with repairs, every
// CheckInterval on taskQueue: it creates it, or brings an existing one up to date (a newer
// worker may run another interval or task queue).
func EnsureCheckSchedule(ctx context.Context, c client.Client, taskQueue string) error {
	spec := client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: CheckInterval}}}
	action := &client.ScheduleWorkflowAction{ID: "invariant-check", Workflow: workflows.InvariantCheckWorkflowName,
		TaskQueue: taskQueue, Args: []any{activities.CheckInput{Repair: true}}}
	_, err := c.ScheduleClient().Create(ctx, client.ScheduleOptions{ID: workflows.InvariantCheckScheduleID, Spec: spec,
		Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_SKIP, Action: action})
	if !errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return err
	}
	return c.ScheduleClient().GetHandle(ctx, workflows.InvariantCheckScheduleID).Update(ctx, client.ScheduleUpdateOptions{
		DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
			s := in.Description.Schedule
			s.Spec, s.Action = &spec, action
			return &client.ScheduleUpdate{Schedule: &s}, nil
		},
	})
}
