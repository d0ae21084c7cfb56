package workflows_test

import (
	"context"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// A refund left pending at the provider past RefundWait waits for an operator. A resolution by
// hand is refused while the provider may still give the money back (review of issue 34: the
// guest paid twice, or, declined later, the books owing for ever); the operator's retry asks the
// provider, who has given it back: the booking is refunded once, and no resolution is recorded.
func (s *BookingSuite) TestAResolutionWhileTheProviderMayStillGiveTheRefundBackIsRefused() {
	givenBackAt := 25*time.Hour + 30*time.Minute
	var refunds refundLog
	s.expectHold()
	var confirmed []domain.Payment
	s.expectConfirmPaid(&confirmed)
	var started []activities.StartRefundInput
	s.expectRefundBooking(30000, &started)
	s.env.OnActivity(s.money.RequestRefund, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.RefundInput) (activities.RefundOutcome, error) {
			refunds.inputs = append(refunds.inputs, in)
			status := activities.RefundPending
			if s.env.Now().Sub(s.start) > givenBackAt {
				status = activities.RefundSucceeded
			}
			return activities.RefundOutcome{Status: status, ProviderRefundID: "re_" + in.Key}, nil
		})
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	var cancelled, retried workflows.BookingState
	var cancelErr, resolveErr, retryErr error
	s.update(2*time.Minute, workflows.UpdateCancel, &cancelled, &cancelErr)
	stuck := s.queryState(25 * time.Hour)
	s.update(25*time.Hour, workflows.UpdateResolveRefund, new(workflows.BookingState), &resolveErr,
		workflows.OperatorAction{Actor: "ana@finance", Reason: "paid by bank transfer"})
	s.update(26*time.Hour, workflows.UpdateRetryRefund, &retried, &retryErr,
		workflows.OperatorAction{Actor: "ana@finance", Reason: "ask the provider again"})

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.True(stuck.Stuck, "pending past RefundWait: for an operator")
	var appErr *temporal.ApplicationError
	s.Require().ErrorAs(resolveErr, &appErr, "the resolution is refused")
	s.Equal(workflows.ErrTypeRefundInFlight, appErr.Type())
	s.Contains(appErr.Message(), "still pending at the provider")
	s.NoError(retryErr)
	s.Empty(s.resolvedRefunds, "no refund made by hand is recorded")
	st := s.result()
	s.Equal(domain.StatusRefunded, st.Booking.Status)
	s.NotContains(st.Reason, "resolved by")
	last := refunds.inputs[len(refunds.inputs)-1]
	s.Equal(refunds.inputs[0].Key, last.Key, "the retry asks the provider for the same attempt")
}
