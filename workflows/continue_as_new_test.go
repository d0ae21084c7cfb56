package workflows_test

import (
	"context"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// suggestContinueAsNew makes the server's suggestion arrive at a time after the start.
func (s *BookingSuite) suggestContinueAsNew(after time.Duration) {
	s.env.RegisterDelayedCallback(func() { s.env.SetContinueAsNewSuggested(true) }, after)
}

// continuedWith returns the input the workflow continued as new with.
func (s *BookingSuite) continuedWith() workflows.BookingInput {
	s.Require().True(s.env.IsWorkflowCompleted())
	var can *workflow.ContinueAsNewError
	s.Require().ErrorAs(s.env.GetWorkflowError(), &can, "the workflow continued as new")
	s.Equal(workflows.BookingWorkflowName, can.WorkflowType.Name)
	var next workflows.BookingInput
	s.Require().NoError(converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	s.Require().NotNil(next.Resume)
	return next
}

// resolveByHand has finance resolve the stuck refunds at a time after the start; the answer's
// error lands where it points.
func (s *BookingSuite) resolveByHand(after time.Duration) *error {
	var err error
	s.update(after, workflows.UpdateResolveRefund, &workflows.BookingState{}, &err,
		workflows.OperatorAction{Actor: "ana@finance", Reason: "refunded by bank transfer"})
	return &err
}

// nextRun starts a fresh environment for the run that continues the workflow.
func (s *BookingSuite) nextRun() { s.SetupTest() }

func (s *BookingSuite) TestAConfirmedStayContinuesAsNewAndCanStillBeCancelled() {
	s.expectHold()
	var confirmed []domain.Payment
	s.expectConfirmPaid(&confirmed)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	s.suggestContinueAsNew(time.Hour)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	next := s.continuedWith()
	s.Equal(domain.StatusConfirmed, next.Resume.State.Booking.Status)
	s.Equal([]string{"pi_1"}, next.Resume.Seen)
	s.Empty(next.Resume.Sagas)
	s.Equal(s.input.Request, next.Request, "the request goes on: a repeated hold is still compared with it")

	// The next run takes up the confirmed stay: no reservation again, a duplicate of the payment
	// is still recognised, and the guest can cancel.
	s.nextRun()
	var started []activities.StartRefundInput
	s.expectRefundBooking(30000, &started)
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	var cancelled workflows.BookingState
	var cancelErr error
	s.update(2*time.Minute, workflows.UpdateCancel, &cancelled, &cancelErr)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, next)

	s.NoError(cancelErr)
	s.Equal(domain.StatusRefunding, cancelled.Booking.Status)
	s.Equal(domain.StatusRefunded, s.result().Booking.Status)
	s.Require().Len(refunds.inputs, 1, "the duplicate payment event was not refunded: the next run knew it")
	s.Equal(int64(30000), refunds.inputs[0].Amount)
}

func (s *BookingSuite) TestAStuckRefundIsHandedOverAndAnOperatorRetriesItInTheNextRun() {
	r := s.paidThenCancelled(30000, activities.RefundFailed, activities.RefundFailed, activities.RefundFailed)
	s.suggestContinueAsNew(2 * time.Hour)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	next := s.continuedWith()
	s.Len(r.refunds.inputs, 3)
	s.True(next.Resume.State.Stuck)
	s.Equal(domain.StatusRefunding, next.Resume.State.Booking.Status)
	s.Require().Len(next.Resume.Sagas, 1, "the stuck refund is handed over")
	saga := next.Resume.Sagas[0]
	s.True(saga.InRefund)
	s.Equal(4, saga.Attempt, "three attempts were declined: the next is a new one")
	s.Contains(saga.Waiting, "stuck after 3 failures")

	s.nextRun()
	stuck := s.queryState(time.Minute)
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	done := s.stored(domain.StatusRefunded)
	done.PaymentID, done.Paid, done.RefundDue = "pi_1", 30000, 30000
	s.env.OnActivity(s.acts.FinishRefund, mock.Anything, s.input.BookingID).Return(done, nil).Once()
	var retried workflows.BookingState
	var retryErr error
	// At once: an action arriving in the next run's first task still finds the saga.
	s.update(0, workflows.UpdateRetryRefund, &retried, &retryErr, workflows.OperatorAction{Actor: "ops", Reason: "card fixed"})

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, next)

	s.False(stuck.Stuck, "retried at once, the next run was stuck only until then")
	s.NoError(retryErr, "the operator's retry reaches the saga in the next run")
	s.False(retried.Stuck)
	s.Equal(domain.StatusRefunded, s.result().Booking.Status)
	s.Require().Len(refunds.inputs, 1)
	s.Equal(s.input.BookingID+"/refund/4", refunds.inputs[0].Key, "it goes on from the attempt it stopped at")
	s.Equal(int64(30000), refunds.inputs[0].Amount)
}

func (s *BookingSuite) TestNoHandOverWhileARefundIsUnderWay() {
	// Suggested during the saga's backoff: the run waits until the refund is done.
	r := s.paidThenCancelled(30000, activities.RefundFailed, activities.RefundFailed, activities.RefundSucceeded)
	s.suggestContinueAsNew(2*time.Minute + 30*time.Second)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	next := s.continuedWith()
	s.Len(r.refunds.inputs, 3, "every attempt ran in this run")
	s.Equal(domain.StatusRefunded, next.Resume.State.Booking.Status)
	s.Empty(next.Resume.Sagas)
}

func (s *BookingSuite) TestAnEndedBookingHandsOverWhatIsLeftOfItsLateWindow() {
	s.expectHold()
	s.expectRelease()
	s.suggestContinueAsNew(30 * time.Minute) // expired at 10:00, listening for late payments until 1:10:00

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	next := s.continuedWith()
	s.Equal(domain.StatusExpired, next.Resume.State.Booking.Status)
	s.True(s.start.Add(70*time.Minute).Equal(next.Resume.LingerUntil), "the late window ends where it did")

	s.nextRun()
	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, next)

	s.Equal(domain.StatusExpired, s.result().Booking.Status)
	s.WithinDuration(next.Resume.LingerUntil, s.env.Now(), time.Second, "the next run closes when the window ends, not a window later")
}

func (s *BookingSuite) TestALatePaymentsStuckRefundContinuesAndClosesOnceResolved() {
	s.env.RegisterWorkflowWithOptions(workflows.LatePaymentWorkflow, workflow.RegisterOptions{Name: workflows.LatePaymentWorkflowName})
	s.env.OnActivity(s.money.PaymentAccountedFor, mock.Anything, "pi_late").Return(false, nil).Once()
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundFailed)
	s.suggestContinueAsNew(2 * time.Hour)

	s.env.ExecuteWorkflow(workflows.LatePaymentWorkflowName, s.paid("pi_late", 30000))

	next := s.continuedWith()
	s.True(next.Resume.SagasOnly)
	s.Require().Len(next.Resume.Sagas, 1)
	s.Equal("extra-pi_late", next.Resume.Sagas[0].Step)

	s.nextRun()
	resolveErr := s.resolveByHand(time.Minute)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, next)

	s.NoError(*resolveErr)
	st := s.result()
	s.Contains(st.Reason, "resolved by ana@finance")
}

func (s *BookingSuite) TestAPaymentRefundedInOneRunIsNotRefundedAgainInTheNext() {
	s.expectHold()
	var confirmed []domain.Payment
	s.expectConfirmPaid(&confirmed)
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	s.signal(2*time.Minute, workflows.SignalPayment, s.paid("pi_2", 30000)) // a second payment: given back
	s.suggestContinueAsNew(time.Hour)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	next := s.continuedWith()
	s.Len(refunds.inputs, 1)
	s.Equal([]string{"pi_1", "pi_2"}, next.Resume.Seen)

	s.nextRun()
	refunded := 0
	s.env.OnActivity(s.money.RequestRefund, mock.Anything, mock.Anything).Return(
		func(context.Context, activities.RefundInput) (activities.RefundOutcome, error) {
			refunded++
			return activities.RefundOutcome{Status: activities.RefundSucceeded}, nil
		}).Maybe()
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_2", 30000)) // its event delivered again
	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, next)

	s.Equal(domain.StatusConfirmed, s.result().Booking.Status)
	s.Zero(refunded, "nothing refunded in the next run")
}

func (s *BookingSuite) TestARefusedFirstRefundStepIsHandedOverAndRetriedInTheNextRun() {
	s.expectHold()
	var confirmed []domain.Payment
	s.expectConfirmPaid(&confirmed)
	s.env.OnActivity(s.acts.StartRefund, mock.Anything, mock.Anything).Return(domain.Booking{},
		temporal.NewNonRetryableApplicationError("booking is CANCELLED and cannot be refunded", activities.ErrTypeConflict, nil)).Once()
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	s.update(2*time.Minute, workflows.UpdateCancel, &workflows.BookingState{}, new(error))
	s.suggestContinueAsNew(time.Hour)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	next := s.continuedWith()
	s.Require().Len(next.Resume.Sagas, 1)
	saga := next.Resume.Sagas[0]
	s.Equal("start-refund", saga.Step)
	s.True(saga.Parked)
	s.False(saga.InRefund, "it waits after the refused step, not among refund attempts")

	s.nextRun()
	var started []activities.StartRefundInput
	s.expectRefundBooking(30000, &started)
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	var retryErr error
	s.update(time.Minute, workflows.UpdateRetryRefund, &workflows.BookingState{}, &retryErr,
		workflows.OperatorAction{Actor: "ops", Reason: "mended the row"})

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, next)

	s.NoError(retryErr)
	s.Len(started, 1, "the retry ran the refused step again")
	s.Equal(domain.StatusRefunded, s.result().Booking.Status)
	s.Require().Len(refunds.inputs, 1)
	s.Equal(s.input.BookingID+"/refund/1", refunds.inputs[0].Key)
}

func (s *BookingSuite) TestAHandedOverRefundResolvedByHandIsFinished() {
	s.paidThenCancelled(30000, activities.RefundFailed)
	s.suggestContinueAsNew(2 * time.Hour)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	next := s.continuedWith()
	s.nextRun()
	done := s.stored(domain.StatusRefunded)
	done.PaymentID, done.Paid, done.RefundDue = "pi_1", 30000, 30000
	s.env.OnActivity(s.acts.FinishRefund, mock.Anything, s.input.BookingID).Return(done, nil).Once()
	resolveErr := s.resolveByHand(time.Minute)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, next)

	s.NoError(*resolveErr)
	st := s.result()
	s.Equal(domain.StatusRefunded, st.Booking.Status, "resolved by hand: the booking is marked refunded")
	s.Contains(st.Reason, "resolved by ana@finance")
}

func (s *BookingSuite) TestAHoldHandedOverExpiresWhenItWouldHave() {
	s.expectHold()
	s.suggestContinueAsNew(time.Minute)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	next := s.continuedWith()
	s.Equal(domain.StatusHold, next.Resume.State.Booking.Status)
	s.nextRun()
	s.expectRelease()
	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, next)

	s.Equal(domain.StatusExpired, s.result().Booking.Status)
	s.Require().Len(s.releasAt, 1)
	s.InDelta(10*time.Minute, s.releasAt[0], float64(time.Second), "at the hold's own expiry, not a new hold's")
}

// TestAPendingAmendmentIsHandedOverAndLapsesInTheNextRun: a run that continues as new while an
// amendment waits for its balance hands it over; the next run lapses it when its window ends.
func (s *BookingSuite) TestAPendingAmendmentIsHandedOverAndLapsesInTheNextRun() {
	var confirmed []domain.Payment
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	pending := s.expectBalanceDue(2 * time.Minute)
	var answer workflows.AmendAnswer
	var answerErr error
	s.amendAt(2*time.Minute, "a1", oneMoreNight, &answer, &answerErr)
	s.suggestContinueAsNew(3 * time.Minute)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	next := s.continuedWith()
	s.Require().NotNil(next.Resume.State.Pending)
	s.Equal(pending.ID, next.Resume.State.Pending.ID)

	s.nextRun()
	var lapsed int
	s.env.OnActivity(s.acts.LapseAmendment, mock.Anything, mock.Anything).Return(
		func(context.Context, activities.LapseAmendmentInput) (activities.AmendOutcome, error) {
			lapsed++
			b := s.stored(domain.StatusConfirmed)
			b.PaymentID, b.Paid = "pi_1", 30000
			return activities.AmendOutcome{Booking: b}, nil
		}).Once()
	after := s.queryState(20 * time.Minute)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, next)

	s.Equal(1, lapsed)
	s.Nil(after.Pending)
}
