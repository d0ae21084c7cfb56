package workflows

import (
	"errors"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/domain"
)

// LatePaymentWorkflow gives back a payment that arrived after its booking's workflow had closed
// (or for a booking that never existed): there is no booking left for it to pay for. It runs
// the same refund saga as a booking, PAYMENT_STUCK and operator actions included.
func LatePaymentWorkflow(ctx workflow.Context, ev domain.PaymentEvent) (BookingState, error) {
	b := &booking{in: withDefaults(BookingInput{BookingID: ev.BookingID}), reserved: true, closing: true}
	b.state.Booking = domain.Booking{ID: ev.BookingID}
	b.logger = log.With(workflow.GetLogger(ctx), "bookingId", ev.BookingID, "paymentId", ev.PaymentID)
	b.refunds = workflow.GetSignalChannel(ctx, SignalRefund)
	b.wake = workflow.NewBufferedChannel(ctx, 1)
	if err := workflow.SetQueryHandler(ctx, QueryState, func() (BookingState, error) { return b.state, nil }); err != nil {
		return b.state, err
	}
	if err := b.setOperatorHandlers(ctx); err != nil {
		return b.state, err
	}
	if err := b.refundExtra(ctx, ev.Payment(), IssueLatePaymentRefunded, "payment arrived after the booking had closed"); err != nil {
		return b.state, err
	}
	err := workflow.Await(ctx, func() bool { return b.sagas == 0 && workflow.AllHandlersFinished(ctx) })
	return b.state, errors.Join(err, b.sagaErr)
}
