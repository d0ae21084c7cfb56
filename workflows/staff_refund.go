package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
)

// StaffRefundWorkflow gives back, for staff, part of what a booking keeps once its own workflow
// has closed: a guest who complains a week after checking out, a no-show's money refunded the
// next day. The API starts it with the money update (Update-with-Start, id
// domain.StaffRefundWorkflowID) when the booking's workflow is gone; while it runs, later
// refunds of the booking reach it the same way. Each refund is drawn and recorded as the
// booking's own workflow does it (the database bounds it by what the booking keeps) and given
// back through the same saga, PAYMENT_STUCK and operator actions included; the booking keeps its
// units and status. It closes once its refunds are given back.
func StaffRefundWorkflow(root workflow.Context, bookingID string) (BookingState, error) {
	ctx, b, err := sagasOnly(root, bookingID)
	if err != nil {
		return b.state, err
	}
	loaded := false
	if err := b.takeStaffRefunds(ctx, func() bool { return loaded }); err != nil {
		return b.state, err
	}
	var found activities.RefundToResume
	if err := workflow.ExecuteActivity(dbActivity(ctx), checks.LoadRefund, bookingID).Get(ctx, &found); err != nil {
		return b.state, err
	}
	b.state.Booking, b.state.Kept, loaded = found.Booking, found.Kept, true
	b.counted = found.Booking.Status // counted by the booking's own workflow
	return b.state, b.awaitSagas(ctx)
}

// takeStaffRefunds sets the money update of a StaffRefund workflow (and of the runs that continue
// it): one refund at a time, each drawing on what the last left, once loaded says the booking is
// known.
func (b *booking) takeStaffRefunds(ctx workflow.Context, loaded func() bool) error {
	b.staffRefunds = true
	one := workflow.NewMutex(ctx)
	return workflow.SetUpdateHandlerWithOptions(ctx, UpdateMoney, func(ctx workflow.Context, req MoneyRequest) (BookingState, error) {
		ctx = uncancellable(ctx)
		if err := workflow.Await(ctx, loaded); err != nil {
			return b.state, err
		}
		if err := one.Lock(ctx); err != nil {
			return b.state, err
		}
		defer one.Unlock()
		return b.state, b.refundKeeping(ctx, req, db.RefundGoodwill, req.Key) // a refusal changed nothing
	}, workflow.UpdateHandlerOptions{Validator: validateRefundAfterwards})
}

// validateRefundAfterwards admits only refunds that keep the booking's units: once its own
// workflow has closed, nothing else about the booking changes.
func validateRefundAfterwards(req MoneyRequest) error {
	if req.Kind != MoneyRefund || req.ReleaseUnits || req.Reverses != "" {
		// A reversal makes its payment due again, and nothing takes a payment once the workflow closed.
		return invalidState("the booking's workflow has closed: only a refund that keeps its units is given now")
	}
	if req.Amount <= 0 {
		return invalidMoney("the amount is more than zero")
	}
	return nil
}
