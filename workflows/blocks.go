package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
)

var blockSteps *activities.Blocks

// ReleaseBlocksWorkflow gives back to sale the rooms group blocks hold past their cut-off (its
// schedule starts it every minute; docs/groups-and-blocks.md). It returns the nights released.
func ReleaseBlocksWorkflow(ctx workflow.Context) (int, error) {
	var n int
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	}), blockSteps.ReleaseDueBlocks).Get(ctx, &n)
	return n, err
}
