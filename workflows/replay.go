package workflows

import (
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// NewReplayer returns a workflow replayer with every workflow registered under its name, for
// checking recorded histories against the current code.
func NewReplayer() worker.WorkflowReplayer {
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(BookingWorkflow, workflow.RegisterOptions{Name: BookingWorkflowName})
	r.RegisterWorkflowWithOptions(LatePaymentWorkflow, workflow.RegisterOptions{Name: LatePaymentWorkflowName})
	return r
}
