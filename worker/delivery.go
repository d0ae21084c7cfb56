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

// Deliverer hands payment events to the workflow that acts on them: the payment webhook and the
// daily reconciliation share it.
type Deliverer struct {
	Temporal  client.Client
	Store     *db.Store
	TaskQueue string // where late-payment workflows run; workflows.TaskQueue when empty
}

// Deliver signals the event to the booking's workflow. A payment whose booking workflow has
// closed (or never existed) starts a LatePayment workflow that refunds it. A refund's final word
// is recorded first, then signalled to whichever workflow runs its saga.
func (d Deliverer) Deliver(ctx context.Context, ev domain.PaymentEvent) error {
	signal := workflows.SignalPayment
	if ev.IsRefund {
		signal = workflows.SignalRefund
		if err := d.Store.SettleRefund(ctx, ev.RefundID, ev.Succeeded, ev.Reason); err != nil {
			return err
		}
	}
	err := d.Temporal.SignalWorkflow(ctx, ev.BookingID, "", signal, ev)
	if !WorkflowGone(err) {
		return err
	}
	latePaymentID := workflows.LatePaymentIDPrefix + ev.PaymentID
	switch {
	case ev.IsRefund:
		// The refund's saga runs in the booking's workflow, a late payment's, or a recovery's.
		for _, id := range []string{latePaymentID, domain.RefundRecoveryID(ev.BookingID)} {
			if err = d.Temporal.SignalWorkflow(ctx, id, "", signal, ev); !WorkflowGone(err) {
				return err
			}
		}
		return nil // recorded above; no workflow waits for it
	case !ev.Succeeded:
		return nil // a failed payment for a closed booking: nothing to give back
	}
	taskQueue := d.TaskQueue
	if taskQueue == "" {
		taskQueue = workflows.TaskQueue
	}
	_, err = d.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: latePaymentID, TaskQueue: taskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	}, workflows.LatePaymentWorkflowName, ev)
	if WorkflowGone(err) {
		return nil // this payment was already refunded by an earlier LatePayment workflow
	}
	if err != nil {
		return fmt.Errorf("start the refund of late payment %s: %w", ev.PaymentID, err)
	}
	return nil
}

// WorkflowGone reports whether err says the workflow does not exist or has already completed.
func WorkflowGone(err error) bool {
	var notFound *serviceerror.NotFound
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	return errors.As(err, &notFound) || errors.As(err, &started)
}
