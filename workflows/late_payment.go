package workflows

import (
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/domain"
)

// LatePaymentWorkflow gives back a payment that arrived after its booking's workflow had closed
// (or for a booking that never existed): there is no booking left for it to pay for. A payment
// its booking kept, or already being refunded (a late redelivery of its event), is left alone.
// It runs the same refund saga as a booking, PAYMENT_STUCK and operator actions included.
func LatePaymentWorkflow(root workflow.Context, ev domain.PaymentEvent) (BookingState, error) {
	// Money on its way back is never cut short: cancelling this workflow does not reach its steps.
	ctx, _ := workflow.NewDisconnectedContext(root)
	b := &booking{in: withDefaults(BookingInput{BookingID: ev.BookingID}), reserved: true, closing: true, sagasOnly: true}
	b.state.Booking = domain.Booking{ID: ev.BookingID}
	b.logger = log.With(workflow.GetLogger(ctx), "bookingId", ev.BookingID, "paymentId", ev.PaymentID)
	b.wake = workflow.NewBufferedChannel(ctx, 1)
	b.listenForRefunds(ctx)
	if err := workflow.SetQueryHandler(ctx, QueryState, func() (BookingState, error) { return b.state, nil }); err != nil {
		return b.state, err
	}
	if err := b.setOperatorHandlers(ctx); err != nil {
		return b.state, err
	}
	var accounted bool
	if err := workflow.ExecuteActivity(dbActivity(ctx), refunds.PaymentAccountedFor, ev.PaymentID).Get(ctx, &accounted); err != nil {
		return b.state, err
	}
	if accounted {
		b.logger.Info("Payment already kept by its booking or being refunded: nothing to do")
		return b.state, nil
	}
	b.count(ctx, MetricPayments, map[string]string{"outcome": "after_close"})
	if err := b.refundExtra(ctx, ev.Payment(), IssueLatePaymentRefunded, "payment arrived after the booking had closed"); err != nil {
		return b.state, err
	}
	return b.state, b.awaitSagas(ctx)
}
