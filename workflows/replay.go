package workflows

import (
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Registry is what workflows are registered on: a worker, or a replayer.
type Registry interface {
	RegisterWorkflowWithOptions(w any, options workflow.RegisterOptions)
}

// RegisterAll registers every workflow under its name.
func RegisterAll(r Registry) {
	r.RegisterWorkflowWithOptions(BookingWorkflow, workflow.RegisterOptions{Name: BookingWorkflowName})
	r.RegisterWorkflowWithOptions(LatePaymentWorkflow, workflow.RegisterOptions{Name: LatePaymentWorkflowName})
	r.RegisterWorkflowWithOptions(InvariantCheckWorkflow, workflow.RegisterOptions{Name: InvariantCheckWorkflowName})
	r.RegisterWorkflowWithOptions(RecoverRefundWorkflow, workflow.RegisterOptions{Name: RecoverRefundWorkflowName})
	r.RegisterWorkflowWithOptions(StaffRefundWorkflow, workflow.RegisterOptions{Name: StaffRefundWorkflowName})
	r.RegisterWorkflowWithOptions(ReconcilePaymentsWorkflow, workflow.RegisterOptions{Name: ReconcilePaymentsWorkflowName})
	r.RegisterWorkflowWithOptions(SupplierSyncWorkflow, workflow.RegisterOptions{Name: SupplierSyncWorkflowName})
	r.RegisterWorkflowWithOptions(ExpireStopSellsWorkflow, workflow.RegisterOptions{Name: ExpireStopSellsWorkflowName})
	r.RegisterWorkflowWithOptions(TellSupplierWorkflow, workflow.RegisterOptions{Name: TellSupplierWorkflowName})
	r.RegisterWorkflowWithOptions(ReleaseBlocksWorkflow, workflow.RegisterOptions{Name: ReleaseBlocksWorkflowName})
}

// NewReplayer returns a workflow replayer with every workflow registered under its name, for
// checking recorded histories against the current code.
func NewReplayer() worker.WorkflowReplayer {
	r := worker.NewWorkflowReplayer()
	RegisterAll(r)
	return r
}

// NewReplayerOpening is NewReplayer for histories whose payloads the converters open (sealed
// ones: codec.Keys); histories never sealed replay with it too.
func NewReplayerOpening(dc converter.DataConverter, fc converter.FailureConverter) (worker.WorkflowReplayer, error) {
	r, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{DataConverter: dc, FailureConverter: fc})
	if err != nil {
		return nil, err
	}
	RegisterAll(r)
	return r, nil
}
