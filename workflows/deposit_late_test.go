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

// depositRace is a 300.00 hold the desk took a 100.00 deposit for at 1:00, whose hold the
// database says ran out when the next confirmation reaches it (Confirm refuses). It records the
// refunds started and asked, and the retakes.
type depositRace struct {
	deposit domain.Booking
	started []activities.StartRefundInput
	refunds refundLog
	retaken []activities.RetakeInput
}

func (s *BookingSuite) depositHoldRunningOut(retake error) *depositRace {
	r := &depositRace{deposit: s.stored(domain.StatusHold)}
	r.deposit.PaymentID, r.deposit.Paid = domain.DeskPaymentID(s.input.BookingID, "d1"), 10000
	s.expectHold()
	s.env.OnActivity(s.acts.TakeDeskPayment, mock.Anything, mock.Anything).Return(r.deposit, nil).Once()
	s.env.OnActivity(s.acts.Confirm, mock.Anything, mock.Anything).Return(domain.Booking{},
		temporal.NewNonRetryableApplicationError("the hold expired", activities.ErrTypeConflict, nil)).Once()
	s.env.OnActivity(s.acts.Retake, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.RetakeInput) (domain.Booking, error) {
			r.retaken = append(r.retaken, in)
			if retake != nil {
				return domain.Booking{}, retake
			}
			b := s.stored(domain.StatusConfirmed)
			b.PaymentID, b.Paid = in.Payment.ID, r.deposit.Paid+in.Payment.Amount
			return b, nil
		}).Maybe()
	s.env.OnActivity(s.acts.StartRefund, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.StartRefundInput) (domain.Booking, error) {
			r.started = append(r.started, in)
			b := r.deposit
			b.Status, b.RefundDue = domain.StatusRefunding, r.deposit.Paid
			return b, nil
		}).Maybe()
	s.env.OnActivity(s.acts.FinishRefund, mock.Anything, s.input.BookingID).Return(
		func(context.Context, string) (domain.Booking, error) {
			b := r.deposit
			b.Status, b.RefundDue = domain.StatusRefunded, r.deposit.Paid
			return b, nil
		}).Maybe()
	s.env.OnActivity(s.money.RequestRefund, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.RefundInput) (activities.RefundOutcome, error) {
			r.refunds.mu.Lock()
			defer r.refunds.mu.Unlock()
			r.refunds.inputs = append(r.refunds.inputs, in)
			return activities.RefundOutcome{Status: activities.RefundSucceeded, ProviderRefundID: "re_" + in.Key}, nil
		}).Maybe()
	var took workflows.BookingState
	var tookErr error
	s.update(time.Minute, workflows.UpdateMoney, &took, &tookErr, workflows.MoneyRequest{Kind: workflows.MoneyDeskPayment,
		Actor: "desk", Key: "d1", Amount: 10000, Currency: "EUR", Method: domain.MethodCash})
	return r
}

// TestTheLateRestOfADepositHoldKeepsTheBooking: the provider's payment of the rest (pi_1, 200.00)
// is signalled at 9:59, but the database's clock has the hold expired when the confirmation
// reaches it. The nights may still be sold: the late payment rule takes them again and the
// booking is CONFIRMED keeping the deposit and pi_1 (paid 300.00); nothing goes back. Before
// versionDepositLate, depositExpired gave both back and the booking was lost.
func (s *BookingSuite) TestTheLateRestOfADepositHoldKeepsTheBooking() {
	r := s.depositHoldRunningOut(nil)
	s.signal(9*time.Minute+59*time.Second, workflows.SignalPayment, s.paid("pi_1", 20000))

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	st := s.result()
	s.Equal(domain.StatusConfirmed, st.Booking.Status, "the price was paid in time: the booking is kept")
	s.Equal(int64(30000), st.Booking.Paid, "the deposit and the rest")
	s.Empty(st.Issue)
	s.Require().Len(r.retaken, 1)
	s.Equal(domain.Payment{ID: "pi_1", Amount: 20000, Currency: "EUR"}, r.retaken[0].Payment)
	s.Empty(r.started, "nothing is refunded")
	s.Empty(r.refunds.inputs, "nothing is refunded")
}

// TestTheLateRestOfADepositHoldWhoseNightsMayNoLongerBeSoldGoesBack: the same race, but the
// nights may no longer be sold (Retake answers Unavailable): the deposit goes back by its method
// (the booking's refund) and pi_1 goes back whole, flagged LATE_PAYMENT_REFUNDED.
func (s *BookingSuite) TestTheLateRestOfADepositHoldWhoseNightsMayNoLongerBeSoldGoesBack() {
	r := s.depositHoldRunningOut(temporal.NewNonRetryableApplicationError("stop-sell", activities.ErrTypeUnavailable, nil))
	s.signal(9*time.Minute+59*time.Second, workflows.SignalPayment, s.paid("pi_1", 20000))

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	st := s.result()
	s.Equal(domain.StatusRefunded, st.Booking.Status)
	s.Equal(workflows.IssueLatePaymentRefunded, st.Issue)
	s.Require().Len(r.retaken, 1)
	s.Require().Len(r.started, 1)
	s.Nil(r.started[0].Payment, "the booking's refund gives back what it keeps: the deposit")
	s.False(r.started[0].ByPolicy)
	s.Equal(map[string]int64{r.deposit.PaymentID: 10000, "pi_1": 20000}, refundedFrom(&r.refunds))
}

// TestADeskConfirmationOfAnExpiredDepositHoldStillGivesTheDepositBack: staff confirm the deposit
// hold without a payment at 9:59 and the database has it expired: no payment arrived late, so
// nothing is taken again; the deposit goes back as before versionDepositLate.
func (s *BookingSuite) TestADeskConfirmationOfAnExpiredDepositHoldStillGivesTheDepositBack() {
	r := s.depositHoldRunningOut(nil)
	var answer workflows.BookingState
	var answerErr error
	s.update(9*time.Minute+59*time.Second, workflows.UpdateConfirm, &answer, &answerErr)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	st := s.result()
	s.Equal(domain.StatusRefunded, st.Booking.Status)
	s.Empty(r.retaken)
	s.Require().Len(r.started, 1)
	s.Equal(map[string]int64{r.deposit.PaymentID: 10000}, refundedFrom(&r.refunds))
}
