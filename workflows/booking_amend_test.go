package workflows_test

import (
	"context"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// oneMoreNight asks for a fourth night.
var oneMoreNight = domain.Change{CheckOut: domain.NewDate(2030, 12, 14)}

// amendAt sends the amend update at a time after the start and keeps its answer.
func (s *BookingSuite) amendAt(after time.Duration, key string, change domain.Change, answer *workflows.AmendAnswer, answerErr *error) {
	s.env.RegisterDelayedCallback(func() {
		s.env.UpdateWorkflow(workflows.UpdateAmend, key, &testsuite.TestUpdateCallback{
			OnAccept: func() {},
			OnReject: func(err error) { *answerErr = err },
			OnComplete: func(v any, err error) {
				*answerErr = err
				if err == nil {
					*answer = v.(workflows.AmendAnswer)
				}
			},
		}, workflows.AmendRequest{IdempotencyKey: key, Change: change, Actor: "c1"})
	}, after)
}

// expectBalanceDue makes Amend answer a pending amendment of oneMoreNight, due HoldTTL after at.
func (s *BookingSuite) expectBalanceDue(at time.Duration) domain.Amendment {
	a := domain.Amendment{ID: 7, BookingID: s.input.BookingID, Status: domain.AmendmentBalanceDue, Difference: 10000,
		Currency: "EUR", DueBy: s.start.Add(at + s.input.HoldTTL)}
	b := s.stored(domain.StatusConfirmed)
	b.PaymentID, b.Paid, b.BalanceDue = "pi_1", 30000, 10000
	s.env.OnActivity(s.acts.Amend, mock.Anything, mock.Anything).Return(activities.AmendOutcome{Amendment: a, Booking: b}, nil).Once()
	return a
}

func (s *BookingSuite) TestABalanceNotPaidLapsesWhenItsWindowEnds() {
	var confirmed []domain.Payment
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	pending := s.expectBalanceDue(2 * time.Minute)
	var lapsedAt time.Duration
	s.env.OnActivity(s.acts.LapseAmendment, mock.Anything, activities.LapseAmendmentInput{BookingID: s.input.BookingID,
		AmendmentID: pending.ID, Reason: "the balance was not paid in time"}).Return(
		func(context.Context, activities.LapseAmendmentInput) (activities.AmendOutcome, error) {
			lapsedAt = s.env.Now().Sub(s.start)
			b := s.stored(domain.StatusConfirmed)
			b.PaymentID, b.Paid = "pi_1", 30000
			return activities.AmendOutcome{Booking: b}, nil
		}).Once()
	var answer workflows.AmendAnswer
	var answerErr error
	s.amendAt(2*time.Minute, "a1", oneMoreNight, &answer, &answerErr)
	during := s.queryState(5 * time.Minute)
	after := s.queryState(13 * time.Minute)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(answerErr)
	s.Equal(domain.AmendmentBalanceDue, answer.Amendment.Status)
	s.Require().NotNil(during.Pending, "the state shows the pending amendment")
	s.Equal(int64(10000), during.Pending.Difference)
	s.Equal(12*time.Minute, lapsedAt, "the balance window is the hold's TTL from the amendment")
	s.Nil(after.Pending)
	s.Equal(domain.StatusConfirmed, after.Booking.Status)
}

func (s *BookingSuite) TestABalancePaymentAppliesTheAmendmentAndADuplicateIsRefunded() {
	var confirmed []domain.Payment
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	pending := s.expectBalanceDue(2 * time.Minute)
	var settled []activities.SettleAmendmentInput
	s.env.OnActivity(s.acts.SettleAmendment, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.SettleAmendmentInput) (activities.AmendOutcome, error) {
			settled = append(settled, in)
			b := s.stored(domain.StatusConfirmed)
			b.CheckOut, b.PaymentID, b.Paid = oneMoreNight.CheckOut, "pi_1", 40000
			a := pending
			a.Status, a.BalancePaymentID = domain.AmendmentApplied, in.Payment.ID
			return activities.AmendOutcome{Amendment: a, Booking: b}, nil
		}).Once()
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	var answer workflows.AmendAnswer
	var answerErr error
	s.amendAt(2*time.Minute, "a1", oneMoreNight, &answer, &answerErr)
	s.signal(3*time.Minute, workflows.SignalPayment, s.paid("pi_dup", 30000))
	s.signal(4*time.Minute, workflows.SignalPayment, s.paid("pi_balance", 10000))
	after := s.queryState(20 * time.Minute)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(answerErr)
	s.Require().Len(settled, 1)
	s.Equal("pi_balance", settled[0].Payment.ID)
	s.Require().Len(refunds.inputs, 1, "the second payment of the whole price is a duplicate")
	s.Equal("pi_dup", refunds.inputs[0].PaymentID)
	s.Nil(after.Pending)
	s.Equal(oneMoreNight.CheckOut, after.Booking.CheckOut)
	s.Equal(int64(40000), after.Booking.Paid)
}

func (s *BookingSuite) TestAnAmendmentThatChangesNothingIsRejectedUnrecorded() {
	s.expectHold()
	s.expectRelease()
	var answer workflows.AmendAnswer
	var answerErr error
	s.amendAt(time.Minute, "a1", domain.Change{Quantity: 1}, &answer, &answerErr)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.Require().Error(answerErr)
	s.Contains(answerErr.Error(), "changes nothing")
	s.Equal(domain.StatusExpired, s.result().Booking.Status)
}

func (s *BookingSuite) TestAResumedBookingRunsAgainTheAmendmentRefundItsLostWorkflowOwed() {
	b := s.stored(domain.StatusConfirmed)
	b.PaymentID, b.Paid = "pi_1", 20000
	in := s.input
	in.Resume = &workflows.Resume{State: workflows.BookingState{Booking: b, Reason: "resumed", LastAmendment: 7},
		Restart: []*workflows.Saga{{Step: "amendment-7", Kind: workflows.SagaPart, Reason: "the amendment lowered the price (resumed)",
			Payment: domain.Payment{ID: "pi_1", Amount: 10000, Currency: "EUR"}, FirstAttempt: 2}}}
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	after := s.queryState(time.Minute)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, in)

	s.Require().Len(refunds.inputs, 1)
	s.Equal(s.input.BookingID+"/amendment-7/2", refunds.inputs[0].Key, "from its last attempt, under its step's keys")
	s.Equal(int64(10000), refunds.inputs[0].Amount)
	s.False(after.Stuck, "it runs: nobody has to act on it")
}
