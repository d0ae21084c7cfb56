package worker

import (
	"context"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/workflows"
)

// StartTellSupplier starts telling a booking's supplier again that the booking is off (one
// TellSupplier workflow per booking at a time; a later retry starts a new one).
func StartTellSupplier(ctx context.Context, c client.Client, taskQueue, bookingID string) (client.WorkflowRun, error) {
	if taskQueue == "" {
		taskQueue = workflows.TaskQueue
	}
	return c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: workflows.TellSupplierID(bookingID), TaskQueue: taskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
	}, workflows.TellSupplierWorkflowName, bookingID)
}
