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
	// Offers are the settings of a waitlist offer's workflow it starts (TaskQueue when empty).
	Offers ResumeOptions
}

func (d Deliverer) offerOptions() ResumeOptions {
	o := d.Offers
	if o.TaskQueue == "" {
		o.TaskQueue = d.TaskQueue
	}
	return o
}

// Deliver signals the event to the booking's workflow. A payment whose booking workflow has
// closed (or never existed) starts a LatePayment workflow that refunds it. A refund's final word
// is recorded first, then signalled to every workflow that may run its saga (see deliverRefund).
func (d Deliverer) Deliver(ctx context.Context, ev domain.PaymentEvent) error {
	if ev.IsRefund {
		if err := d.Store.SettleRefund(ctx, ev.RefundID, ev.Succeeded, ev.Reason); err != nil {
			return err
		}
		return d.deliverRefund(ctx, ev)
	}
	err := d.Temporal.SignalWorkflow(ctx, ev.BookingID, "", workflows.SignalPayment, ev)
	if WorkflowGone(err) { // a waitlist offer paid before its workflow started gets it now
		offer, startErr := StartPendingOffer(ctx, d.Temporal, d.Store, ev.BookingID, d.offerOptions())
		if startErr != nil {
			return startErr
		}
		if offer {
			err = d.Temporal.SignalWorkflow(ctx, ev.BookingID, "", workflows.SignalPayment, ev)
		}
	}
	if !WorkflowGone(err) {
		return err
	}
	latePaymentID := workflows.LatePaymentIDPrefix + ev.PaymentID
	switch {
	case ev.Guarantee != nil:
		return nil // a card saved for a closed booking: no money moved
	case ev.FeeKey != "":
		// The fee the booking charged to its card, answered after its workflow closed.
		done, err := d.settleFee(ctx, ev)
		if err != nil || done {
			return err
		}
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

// deliverRefund signals a refund's final word to each workflow that may run its saga and runs:
// the booking's own, its StaffRefund workflow (a staff refund given after the booking's workflow
// closed), a late payment's, and a recovery's. The refund's key does not say which of them asked
// for it, and more than one may run at once (a staff refund still pending while a late payment
// is refunded, say), so each running one is told: the saga waiting for this refund ends on it,
// and the others keep it unread. None running is fine: the outcome is recorded.
func (d Deliverer) deliverRefund(ctx context.Context, ev domain.PaymentEvent) error {
	ids := []string{ev.BookingID, domain.StaffRefundWorkflowID(ev.BookingID), domain.RefundRecoveryID(ev.BookingID)}
	if ev.PaymentID != "" {
		ids = append(ids, workflows.LatePaymentIDPrefix+ev.PaymentID)
	}
	for _, id := range ids {
		if err := d.Temporal.SignalWorkflow(ctx, id, "", workflows.SignalRefund, ev); err != nil && !WorkflowGone(err) {
			return err // the provider redelivers; a workflow told twice keeps the same word
		}
	}
	return nil
}

// WorkflowGone reports whether err says the workflow does not exist or has already completed.
func WorkflowGone(err error) bool {
	var notFound *serviceerror.NotFound
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	return errors.As(err, &notFound) || errors.As(err, &started)
}

// settleFee records the provider's word on a fee charged to a guaranteed booking's card whose
// workflow closed: done, unless the payment is not the fee the booking asked (then it is a
// payment to give back, as any late one).
func (d Deliverer) settleFee(ctx context.Context, ev domain.PaymentEvent) (done bool, err error) {
	if ev.Succeeded {
		_, err = d.Store.FeePaid(ctx, ev.BookingID, ev.FeeKey, ev.Payment())
	} else {
		_, err = d.Store.FeeDeclined(ctx, ev.BookingID, ev.FeeKey, ev.Reason)
	}
	switch {
	case errors.Is(err, domain.ErrConflict) || errors.Is(err, domain.ErrNotFound):
		return !ev.Succeeded, nil
	case err != nil:
		return false, err
	}
	return true, nil
}
