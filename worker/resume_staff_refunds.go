package worker

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// A staff refund lowers what the booking keeps when it is recorded, then its parts are given
// back by the workflow that recorded it. When that workflow is lost first, the money is owed and
// nothing gives it back. A confirmed or checked-in booking is resumed (ResumeBooking takes its
// staff refunds up). Any other booking (a no-show, a stay whose workflow had closed and whose
// StaffRefund workflow was lost, a refunded one) has no phase left for its own workflow to look
// after: a run of its StaffRefund workflow gives the money back, the workflow that gives every
// staff refund once the booking's own has closed, so operators' actions, webhooks and later staff
// refunds reach it under the id they already use.

// ErrNothingOwed is the refusal to give a booking's staff refunds back when none is owed.
var ErrNothingOwed = errors.New("no staff refund of the booking is owed")

// GiveStaffRefunds starts a run of booking b's StaffRefund workflow that gives back the parts of
// its staff refunds no attempt gave back, each from where its lost saga left off (an attempt
// under way is asked again under its key), then takes the booking's staff refunds until it
// closes, as any StaffRefund run. It is started as the run a StaffRefund workflow continues as
// new into, with the parts to give (workflows.Resume: SagasOnly, StaffRefunds, Restart), so no
// workflow code changes. why is the reason the workflow shows. It fails with ErrNothingOwed, or
// ErrWorkflowRunning when the booking's own workflow or a StaffRefund run is under way (it gives
// them, or will: the next check looks again once it has closed).
func GiveStaffRefunds(ctx context.Context, c client.Client, store *db.Store, b domain.Booking, why string, opts ResumeOptions) error {
	id := domain.StaffRefundWorkflowID(b.ID)
	d, err := c.DescribeWorkflow(ctx, b.ID, "")
	var gone *serviceerror.NotFound
	switch {
	case errors.As(err, &gone):
	case err != nil:
		return err
	case d.RawResponse.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
		return fmt.Errorf("%w: booking %s", ErrWorkflowRunning, b.ID)
	}
	parts, err := store.UnfinishedStaffRefunds(ctx, b.ID)
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		return fmt.Errorf("%w: booking %s", ErrNothingOwed, b.ID)
	}
	if opts.TaskQueue == "" {
		opts.TaskQueue = workflows.TaskQueue
	}
	in := workflows.BookingInput{BookingID: b.ID, MaxRefundAttempts: opts.MaxRefundAttempts, RefundBackoff: opts.RefundBackoff,
		Resume: &workflows.Resume{State: workflows.BookingState{Booking: b, Reason: why},
			SagasOnly: true, StaffRefunds: true, Restart: staffRefundSagas(parts)}}
	_, err = c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: id, TaskQueue: opts.TaskQueue,
		WorkflowIDConflictPolicy:                 enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		WorkflowIDReusePolicy:                    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
	}, workflows.BookingWorkflowName, in)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return fmt.Errorf("%w: workflow %s", ErrWorkflowRunning, id)
	}
	return err
}

// staffRefundSagas are the sagas that give back the parts of staff refunds a lost workflow had
// not given back, each from the attempt its lost saga left off at.
func staffRefundSagas(parts []db.OwedRefund) []*workflows.Saga {
	var sagas []*workflows.Saga
	for _, r := range parts {
		sagas = append(sagas, &workflows.Saga{Step: r.Step, Kind: workflows.SagaPart, Payment: r.Payment, Reason: r.Reason,
			FirstAttempt: r.FirstAttempt, Actor: r.Actor})
	}
	return sagas
}
