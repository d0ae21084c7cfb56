package workflows_test

import (
	"context"
	"sync"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// paid returns a successful payment event of amount EUR with payment id pi.
func (s *BookingSuite) paid(pi string, amount int64) domain.PaymentEvent {
	return domain.PaymentEvent{EventID: "evt_" + pi, Type: "payment_intent.succeeded", BookingID: s.input.BookingID,
		PaymentID: pi, Succeeded: true, Amount: amount, Currency: "EUR"}
}

func (s *BookingSuite) signal(after time.Duration, name string, ev domain.PaymentEvent) {
	s.env.RegisterDelayedCallback(func() { s.env.SignalWorkflow(name, ev) }, after)
}

// expectConfirmPaid makes Confirm succeed and records the payments it confirmed with.
func (s *BookingSuite) expectConfirmPaid(confirmed *[]domain.Payment) {
	s.env.OnActivity(s.acts.Confirm, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.ConfirmInput) (domain.Booking, error) {
			*confirmed = append(*confirmed, *in.Payment)
			b := s.stored(domain.StatusConfirmed)
			b.PaymentID, b.Paid = in.Payment.ID, in.Payment.Amount
			return b, nil
		})
}

// refundLog records every refund attempt and answers with the outcomes given, in order.
type refundLog struct {
	mu     sync.Mutex // refund sagas run side by side: their attempts may be logged at once
	inputs []activities.RefundInput
	at     []time.Duration
}

func (s *BookingSuite) expectRefunds(log *refundLog, outcomes ...string) {
	s.env.OnActivity(s.money.RequestRefund, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.RefundInput) (activities.RefundOutcome, error) {
			log.mu.Lock()
			defer log.mu.Unlock()
			log.inputs = append(log.inputs, in)
			log.at = append(log.at, s.env.Now().Sub(s.start))
			status := outcomes[min(len(log.inputs), len(outcomes))-1]
			return activities.RefundOutcome{Status: status, ProviderRefundID: "re_" + in.Key, Error: "card issuer declined"}, nil
		})
}

// expectRefundBooking makes StartRefund mark the booking REFUNDING with refundDue, and
// FinishRefund mark it REFUNDED.
func (s *BookingSuite) expectRefundBooking(refundDue int64, started *[]activities.StartRefundInput) {
	b := s.stored(domain.StatusRefunding)
	b.PaymentID, b.Paid, b.RefundDue = "pi_1", 30000, refundDue
	s.env.OnActivity(s.acts.StartRefund, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.StartRefundInput) (domain.Booking, error) {
			*started = append(*started, in)
			return b, nil
		}).Once()
	done := b
	done.Status = domain.StatusRefunded
	s.env.OnActivity(s.acts.FinishRefund, mock.Anything, s.input.BookingID).Return(done, nil).Once()
}

// queryState queries the workflow's state at a time after the start, into the result.
func (s *BookingSuite) queryState(after time.Duration) *workflows.BookingState {
	st := &workflows.BookingState{}
	s.env.RegisterDelayedCallback(func() {
		v, err := s.env.QueryWorkflow(workflows.QueryState)
		s.Require().NoError(err)
		s.Require().NoError(v.Get(st))
	}, after)
	return st
}

// paidCancel is what paidThenCancelled records.
type paidCancel struct {
	refunds   refundLog
	started   []activities.StartRefundInput
	confirmed []domain.Payment
	cancelled workflows.BookingState
	cancelErr error
}

// paidThenCancelled scripts the common story of the refund tests: a hold, paid at 1:00, cancelled
// by the guest at 2:00 with refundDue left by the policy; the refund attempts answer outcomes.
func (s *BookingSuite) paidThenCancelled(refundDue int64, outcomes ...string) *paidCancel {
	r := &paidCancel{}
	s.expectHold()
	s.expectConfirmPaid(&r.confirmed)
	s.expectRefundBooking(refundDue, &r.started)
	s.expectRefunds(&r.refunds, outcomes...)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	s.update(2*time.Minute, workflows.UpdateCancel, &r.cancelled, &r.cancelErr)
	return r
}

func (s *BookingSuite) TestPaymentAt9m59ConfirmsWithThePayment() {
	s.expectHold()
	var confirmed []domain.Payment
	s.expectConfirmPaid(&confirmed)
	s.signal(9*time.Minute+59*time.Second, workflows.SignalPayment, s.paid("pi_1", 30000))

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	st := s.result()
	s.Equal(domain.StatusConfirmed, st.Booking.Status)
	s.Equal([]domain.Payment{{ID: "pi_1", Amount: 30000, Currency: "EUR"}}, confirmed)
}

func (s *BookingSuite) TestDuplicatePaymentSignalsConfirmOnce() {
	s.expectHold()
	var confirmed []domain.Payment
	s.expectConfirmPaid(&confirmed)
	for i := range 3 {
		s.signal(time.Minute+time.Duration(i)*time.Second, workflows.SignalPayment, s.paid("pi_1", 30000))
	}

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.Equal(domain.StatusConfirmed, s.result().Booking.Status)
	s.Len(confirmed, 1, "the same payment delivered three times confirms once and is never refunded")
}

func (s *BookingSuite) TestLatePaymentRetakesFreeNights() {
	s.expectHold()
	s.expectRelease()
	var retaken []activities.RetakeInput
	s.env.OnActivity(s.acts.Retake, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.RetakeInput) (domain.Booking, error) {
			retaken = append(retaken, in)
			b := s.stored(domain.StatusConfirmed)
			b.PaymentID, b.Paid = in.Payment.ID, in.Payment.Amount
			return b, nil
		}).Once()
	s.signal(10*time.Minute+time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	st := s.result()
	s.Equal(domain.StatusConfirmed, st.Booking.Status, "the nights were free: the late payment confirms")
	s.Require().Len(retaken, 1)
	s.Equal("pi_1", retaken[0].Payment.ID)
	s.Len(s.released, 1, "released once at expiry, taken again on payment")
}

func (s *BookingSuite) TestLatePaymentForSoldNightsIsRefunded() {
	s.expectHold()
	s.expectRelease()
	s.env.OnActivity(s.acts.Retake, mock.Anything, mock.Anything).Return(domain.Booking{},
		temporal.NewNonRetryableApplicationError("sold", activities.ErrTypeUnavailable, nil)).Once()
	var started []activities.StartRefundInput
	s.expectRefundBooking(30000, &started)
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	s.signal(10*time.Minute+time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	st := s.result()
	s.Equal(domain.StatusRefunded, st.Booking.Status)
	s.Equal(workflows.IssueLatePaymentRefunded, st.Issue)
	s.Contains(st.Reason, "sold")
	s.Require().Len(started, 1)
	s.False(started[0].ByPolicy, "a late payment is given back whole, not by the cancellation policy")
	s.Equal(&domain.Payment{ID: "pi_1", Amount: 30000, Currency: "EUR"}, started[0].Payment)
	s.Require().Len(refunds.inputs, 1)
	s.Equal(int64(30000), refunds.inputs[0].Amount)
}

func (s *BookingSuite) TestAmountMismatchIsRefundedAndFlaggedNotConfirmed() {
	s.expectHold()
	s.expectRelease() // Confirm is not expected
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_short", 100))

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	st := s.result()
	s.Equal(domain.StatusExpired, st.Booking.Status, "the hold ran on and expired")
	s.Equal(workflows.IssueAmountMismatch, st.Issue)
	s.Require().Len(refunds.inputs, 1)
	s.Equal(int64(100), refunds.inputs[0].Amount)
	s.Equal("pi_short", refunds.inputs[0].PaymentID)
}

func (s *BookingSuite) TestCancelAfterPaymentRefundsFailingTwiceThenSucceeding() {
	r := s.paidThenCancelled(24000, activities.RefundFailed, activities.RefundFailed, activities.RefundSucceeded)
	refunds := &r.refunds

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(r.cancelErr)
	s.Equal(domain.StatusRefunding, r.cancelled.Booking.Status, "the cancel update answers once the nights are released and the refund is under way")
	s.Equal(domain.StatusRefunded, s.result().Booking.Status)
	s.Require().Len(r.started, 1)
	s.Equal(activities.StartRefundInput{BookingID: s.input.BookingID, ByPolicy: true, CancelledAt: r.started[0].CancelledAt},
		r.started[0])
	s.True(s.start.Add(2*time.Minute).Equal(r.started[0].CancelledAt), "the policy judges the moment the cancel was accepted")
	s.Require().Len(refunds.inputs, 3)
	keys := map[string]bool{}
	for _, in := range refunds.inputs {
		s.Equal(int64(24000), in.Amount, "the amount the policy left due")
		keys[in.Key] = true
	}
	s.Len(keys, 3, "every attempt has its own idempotency key")
	s.Equal(time.Minute, refunds.at[1]-refunds.at[0], "first backoff")
	s.Equal(2*time.Minute, refunds.at[2]-refunds.at[1], "the backoff doubles")
}

func (s *BookingSuite) TestRefundPastTheLimitIsStuckUntilAnOperatorRetries() {
	refunds := &s.paidThenCancelled(30000, activities.RefundFailed, activities.RefundFailed, activities.RefundFailed,
		activities.RefundSucceeded).refunds

	stuck := s.queryState(2 * time.Hour)
	var retried workflows.BookingState
	var retryErr error
	s.update(3*time.Hour, workflows.UpdateRetryRefund, &retried, &retryErr, workflows.OperatorAction{Actor: "ops@hotel", Reason: "card fixed"})

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.True(stuck.Stuck, "after 3 failed attempts the booking waits for an operator")
	s.Contains(stuck.Reason, "stuck after 3 failures")
	s.NoError(retryErr)
	st := s.result()
	s.Equal(domain.StatusRefunded, st.Booking.Status)
	s.False(st.Stuck)
	s.Len(refunds.inputs, 4, "three failures, then the operator's retry succeeds")
}

func (s *BookingSuite) TestOperatorActionOnABookingThatIsNotStuckIsRejected() {
	s.expectHold()
	s.expectRelease()
	var rejected error
	s.env.RegisterDelayedCallback(func() {
		s.env.UpdateWorkflow(workflows.UpdateResolveRefund, "op-1", &testsuite.TestUpdateCallback{
			OnAccept:   func() { s.Fail("must be rejected") },
			OnReject:   func(err error) { rejected = err },
			OnComplete: func(any, error) {},
		}, workflows.OperatorAction{Actor: "ops", Reason: "why not"})
	}, time.Minute)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	var appErr *temporal.ApplicationError
	s.Require().ErrorAs(rejected, &appErr)
	s.Equal(workflows.ErrTypeNotStuck, appErr.Type())
}

func (s *BookingSuite) TestPendingRefundWaitsForTheProvidersWebhook() {
	refunds := &s.paidThenCancelled(30000, activities.RefundPending).refunds
	var recorded []activities.RefundOutcome
	s.env.OnActivity(s.money.RecordRefundOutcome, mock.Anything, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ string, out activities.RefundOutcome) error {
			recorded = append(recorded, out)
			return nil
		}).Once()
	key := s.input.BookingID + "/refund/1"
	s.signal(3*time.Minute, workflows.SignalRefund, domain.PaymentEvent{EventID: "evt_old", IsRefund: true, RefundID: "re_other", Succeeded: true})
	s.signal(4*time.Minute, workflows.SignalRefund, domain.PaymentEvent{EventID: "evt_r", IsRefund: true, RefundID: "re_" + key, Succeeded: true})

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.Equal(domain.StatusRefunded, s.result().Booking.Status)
	s.Len(refunds.inputs, 1, "a pending refund is never requested again")
	s.Equal([]activities.RefundOutcome{{Status: activities.RefundSucceeded, ProviderRefundID: "re_" + key}}, recorded)
}

func (s *BookingSuite) TestAPendingRefundWhoseWebhookIsLostIsLookedUp() {
	// The provider's webhook never comes; looked up after an hour, the refund has succeeded.
	refunds := &s.paidThenCancelled(30000, activities.RefundPending, activities.RefundSucceeded).refunds

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.Equal(domain.StatusRefunded, s.result().Booking.Status)
	s.Require().Len(refunds.inputs, 2, "asked once, then looked up")
	s.Equal(refunds.inputs[0].Key, refunds.inputs[1].Key, "the same attempt, looked up, never a new refund")
	s.Equal(workflows.RefundLookupEvery, refunds.at[1]-refunds.at[0])
}

func (s *BookingSuite) TestARefusedFirstRefundStepWaitsForAnOperator() {
	s.expectHold()
	var confirmed []domain.Payment
	s.expectConfirmPaid(&confirmed)
	// The database refuses to start the refund (it disagrees about the booking), then, once an
	// operator has mended the row, accepts.
	s.env.OnActivity(s.acts.StartRefund, mock.Anything, mock.Anything).Return(domain.Booking{},
		temporal.NewNonRetryableApplicationError("booking is CANCELLED and cannot be refunded", activities.ErrTypeConflict, nil)).Once()
	var started []activities.StartRefundInput
	s.expectRefundBooking(30000, &started)
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	s.update(2*time.Minute, workflows.UpdateCancel, &workflows.BookingState{}, new(error))
	stuck := s.queryState(time.Hour)
	var retryErr error
	s.update(2*time.Hour, workflows.UpdateRetryRefund, &workflows.BookingState{}, &retryErr,
		workflows.OperatorAction{Actor: "ops", Reason: "mended the row"})

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.True(stuck.Stuck, "never a silent end: PAYMENT_STUCK, for an operator")
	s.Equal(workflows.IssueRefundConflict, stuck.Issue)
	s.NoError(retryErr, "the operator's retry is accepted")
	s.Len(started, 1, "the retry ran the step again")
	s.Equal(domain.StatusRefunded, s.result().Booking.Status)
	s.Len(refunds.inputs, 1)
}

func (s *BookingSuite) TestARefundStepTheDatabaseRefusesWaitsForAnOperator() {
	s.expectHold()
	var confirmed []domain.Payment
	s.expectConfirmPaid(&confirmed)
	refunding := s.stored(domain.StatusRefunding)
	refunding.PaymentID, refunding.Paid, refunding.RefundDue = "pi_1", 30000, 30000
	s.env.OnActivity(s.acts.StartRefund, mock.Anything, mock.Anything).Return(refunding, nil).Once()
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	done := refunding
	done.Status = domain.StatusRefunded
	s.env.OnActivity(s.acts.FinishRefund, mock.Anything, s.input.BookingID).Return(domain.Booking{},
		temporal.NewNonRetryableApplicationError("booking is CANCELLED, not REFUNDING", activities.ErrTypeConflict, nil)).Once()
	s.env.OnActivity(s.acts.FinishRefund, mock.Anything, s.input.BookingID).Return(done, nil).Once()
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	var ignored workflows.BookingState
	var ignoredErr error
	s.update(2*time.Minute, workflows.UpdateCancel, &ignored, &ignoredErr)
	stuck := s.queryState(time.Hour)
	var retried workflows.BookingState
	var retryErr error
	s.update(2*time.Hour, workflows.UpdateRetryRefund, &retried, &retryErr, workflows.OperatorAction{Actor: "ops", Reason: "fixed the row"})

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.True(stuck.Stuck, "a refused step is flagged and waits for an operator")
	s.Equal(workflows.IssueRefundConflict, stuck.Issue)
	s.NoError(retryErr)
	s.False(retried.Stuck, "the operator's answer shows the step has moved on")
	s.Equal(domain.StatusRefunded, s.result().Booking.Status)
	s.Len(refunds.inputs, 2, "the retried saga asks again with the same key (the provider answers idempotently)")
	s.Equal(refunds.inputs[0].Key, refunds.inputs[1].Key)
}

func (s *BookingSuite) TestAStuckRefundResolvedByHandEndsTheSaga() {
	r := s.paidThenCancelled(30000, activities.RefundFailed) // every attempt fails
	var resolved workflows.BookingState
	var resolveErr error
	s.update(3*time.Hour, workflows.UpdateResolveRefund, &resolved, &resolveErr,
		workflows.OperatorAction{Actor: "ana@finance", Reason: "refunded by bank transfer"})

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(resolveErr)
	s.False(resolved.Stuck)
	st := s.result()
	s.Equal(domain.StatusRefunded, st.Booking.Status, "the booking is closed as refunded, by hand")
	s.Contains(st.Reason, "resolved by ana@finance: refunded by bank transfer")
	s.Len(r.refunds.inputs, 3, "no attempt after the operator resolved it")
	if s.Len(s.resolvedRefunds, 1, "the refund made by hand is recorded") {
		got := s.resolvedRefunds[0]
		s.Equal(s.input.BookingID+"/refund/0", got.Key)
		s.Equal(r.refunds.inputs[0].Amount, got.Amount)
		s.Equal(r.refunds.inputs[0].PaymentID, got.PaymentID)
	}
}

func (s *BookingSuite) TestARefusedStepResolvedByHandLetsTheWorkflowClose() {
	s.expectHold()
	var confirmed []domain.Payment
	s.expectConfirmPaid(&confirmed)
	refunding := s.stored(domain.StatusRefunding)
	refunding.PaymentID, refunding.Paid, refunding.RefundDue = "pi_1", 30000, 30000
	s.env.OnActivity(s.acts.StartRefund, mock.Anything, mock.Anything).Return(refunding, nil).Once()
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	s.env.OnActivity(s.acts.FinishRefund, mock.Anything, s.input.BookingID).Return(domain.Booking{},
		temporal.NewNonRetryableApplicationError("booking is CANCELLED, not REFUNDING", activities.ErrTypeConflict, nil)).Once()
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	var ignored, resolved workflows.BookingState
	var ignoredErr, resolveErr error
	s.update(2*time.Minute, workflows.UpdateCancel, &ignored, &ignoredErr)
	s.update(time.Hour, workflows.UpdateResolveRefund, &resolved, &resolveErr, workflows.OperatorAction{Actor: "ops", Reason: "fixed by hand"})

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(resolveErr)
	st := s.result() // the workflow completes: a resolved saga no longer holds it in REFUNDING
	s.Equal(workflows.IssueRefundConflict, st.Issue)
	s.Contains(st.Reason, "resolved by ops")
}
