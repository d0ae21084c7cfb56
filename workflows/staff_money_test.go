package workflows_test

import (
	"context"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// TestTwoStaffRefundsNeverShareARefundAttemptKey: a checked-in booking whose workflow has closed
// keeps 300.00 of pi_1 and 100.00 of its amendment's balance pi_balance. Staff refund 150.00
// under key "a" (drawn 100.00 on pi_balance as step staff-a, 50.00 on pi_1 as step
// staff-a-pi_1), then 50.00 under key "a-pi_1" (step staff-a-pi_1 again). Both refunds ask the
// provider under the same attempt key <booking>/staff-a-pi_1/1: BeginRefundAttempt answers the
// second with the first's record (succeeded), so 50.00 the booking no longer keeps is never
// given back.
func (s *BookingSuite) TestTwoStaffRefundsNeverShareARefundAttemptKey() {
	checks := &activities.Checks{}
	s.env.RegisterWorkflowWithOptions(workflows.StaffRefundWorkflow, workflow.RegisterOptions{Name: workflows.StaffRefundWorkflowName})
	s.env.RegisterActivity(checks)
	done := s.fourNights(domain.StatusCompleted)
	s.expectKeySpace()
	s.env.OnActivity(checks.LoadRefund, mock.Anything, s.input.BookingID).Return(
		activities.RefundToResume{Booking: done, Currency: "EUR", FirstAttempt: 1,
			Kept: []domain.Payment{{ID: "pi_1", Amount: 30000, Currency: "EUR"}, {ID: "pi_balance", Amount: 10000, Currency: "EUR"}}},
		nil).Once()
	paid := done.Paid
	s.env.OnActivity(s.acts.StartStaffRefund, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in db.StaffRefund) (activities.StaffRefundOutcome, error) {
			paid -= in.Amount
			after := done
			after.Paid = paid
			return activities.StaffRefundOutcome{Refund: s.drawnByTheDatabase(in, after), Booking: after}, nil
		})
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	errs := make([]error, 2)
	for i, r := range []struct {
		key    string
		amount int64
	}{{"a", 15000}, {"a-pi_1", 5000}} {
		s.env.RegisterDelayedCallback(func() {
			s.env.UpdateWorkflow(workflows.UpdateMoney, r.key, &testsuite.TestUpdateCallback{
				OnAccept:   func() {},
				OnReject:   func(err error) { errs[i] = err },
				OnComplete: func(_ any, err error) { errs[i] = err },
			}, workflows.MoneyRequest{Kind: workflows.MoneyRefund, Actor: "finance", Key: r.key, Amount: r.amount,
				Currency: "EUR", Reason: "goodwill"})
		}, 0)
	}

	s.env.ExecuteWorkflow(workflows.StaffRefundWorkflowName, s.input.BookingID)

	s.Require().NoError(errs[0])
	s.Require().NoError(errs[1])
	s.Equal(int64(20000), paid, "both refunds were recorded")
	keys := map[string]int{}
	for _, in := range refunds.inputs {
		keys[in.Key]++
	}
	for key, n := range keys {
		s.Equal(1, n, "refund attempt key %s was asked for %d different refunds: %v", key, n, refunds.inputs)
	}
	s.Equal(int64(20000), refundedFrom(&refunds)["pi_1"]+refundedFrom(&refunds)["pi_balance"])
}

// TestARefundThatGivesTheUnitsBackIsInTheBookingsCurrencyAndHasAReason: a booking paid 300.00
// EUR; staff ask for a refund of 10000 "USD" with no reason that gives its units back. A refund
// that keeps the units is refused for either (the database checks both), but refundCancelling
// checks neither: the booking is cancelled and 10000 EUR go back, audited as USD with no reason.
// Once refused, the guest's own cancel at 3:00 is refunded by the policy.
func (s *BookingSuite) TestARefundThatGivesTheUnitsBackIsInTheBookingsCurrencyAndHasAReason() {
	var confirmed []domain.Payment
	var started []activities.StartRefundInput
	var refunds refundLog
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	s.expectRefundBooking(30000, &started)
	s.expectKeySpace()
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	var money, cancelled workflows.BookingState
	var moneyErr, cancelErr error
	s.update(2*time.Minute, workflows.UpdateMoney, &money, &moneyErr, workflows.MoneyRequest{Kind: workflows.MoneyRefund,
		Actor: "finance", Key: "r1", Amount: 10000, Currency: "USD", ReleaseUnits: true})
	s.update(3*time.Minute, workflows.UpdateCancel, &cancelled, &cancelErr)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.Error(moneyErr, "a refund in USD of a booking paid in EUR, with no reason")
	s.Require().Len(started, 1)
	s.Zero(started[0].Amount, "the booking was refunded by the staff request: %+v", started[0])
}

// TestADepositHoldWhoseRestArrivesAsTheHoldExpiresGivesTheDepositBack: the desk takes 100.00 of
// a 300.00 hold at 1:00; the provider's payment of the rest (pi_1, 200.00) arrives at 9:59, when
// the database's clock already says the hold ran out (Confirm refuses). confirm then releases the
// hold as if it were unpaid, which the database refuses for a hold with a deposit
// (db.Store.release requires paid = 0): the error fails the workflow, and the booking stays on
// hold with the deposit and pi_1 that nobody gives back.
func (s *BookingSuite) TestADepositHoldWhoseRestArrivesAsTheHoldExpiresGivesTheDepositBack() {
	s.expectHold()
	deposit := s.stored(domain.StatusHold)
	deposit.PaymentID, deposit.Paid = domain.DeskPaymentID(s.input.BookingID, "d1"), 10000
	s.env.OnActivity(s.acts.TakeDeskPayment, mock.Anything, mock.Anything).Return(deposit, nil).Once()
	s.env.OnActivity(s.acts.Confirm, mock.Anything, mock.Anything).Return(domain.Booking{},
		temporal.NewNonRetryableApplicationError("the hold expired", activities.ErrTypeConflict, nil)).Once()
	s.env.OnActivity(s.acts.Release, mock.Anything, mock.Anything).Return(deposit,
		temporal.NewNonRetryableApplicationError("booking is HOLD and cannot become EXPIRED", activities.ErrTypeConflict, nil)).Maybe()
	var started []activities.StartRefundInput
	var refunds refundLog
	s.env.OnActivity(s.acts.StartRefund, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.StartRefundInput) (domain.Booking, error) {
			started = append(started, in)
			b := deposit
			b.Status, b.RefundDue = domain.StatusRefunding, deposit.Paid
			return b, nil
		}).Maybe()
	s.env.OnActivity(s.acts.FinishRefund, mock.Anything, s.input.BookingID).Return(s.stored(domain.StatusRefunded), nil).Maybe()
	s.env.OnActivity(s.acts.Retake, mock.Anything, mock.Anything).Return(domain.Booking{},
		temporal.NewNonRetryableApplicationError("sold", activities.ErrTypeUnavailable, nil)).Maybe()
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	var took workflows.BookingState
	var tookErr error
	s.update(time.Minute, workflows.UpdateMoney, &took, &tookErr, workflows.MoneyRequest{Kind: workflows.MoneyDeskPayment,
		Actor: "desk", Key: "d1", Amount: 10000, Currency: "EUR", Method: domain.MethodCash})
	s.signal(9*time.Minute+59*time.Second, workflows.SignalPayment, s.paid("pi_1", 20000))

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.Require().NoError(tookErr)
	s.Require().True(s.env.IsWorkflowCompleted())
	s.NoError(s.env.GetWorkflowError(), "the workflow keeps looking after the deposit and pi_1")
	s.NotEmpty(started, "the deposit goes back")
}

// TestAStaffRefundWorkflowContinuedAsNewStillTakesRefunds: a StaffRefund workflow's refund is
// stuck (the provider declined it three times) and waits for an operator when the server
// suggests a new run. It continues as new as a BookingWorkflow run with SagasOnly, which
// (resumeSagas) registers no money update: staff's next refund of the booking, which the API
// sends to the same workflow id (Update-with-Start, USE_EXISTING), is turned away as an unknown
// update.
func (s *BookingSuite) TestAStaffRefundWorkflowContinuedAsNewStillTakesRefunds() {
	checks := &activities.Checks{}
	s.env.RegisterWorkflowWithOptions(workflows.StaffRefundWorkflow, workflow.RegisterOptions{Name: workflows.StaffRefundWorkflowName})
	s.env.RegisterActivity(checks)
	done := s.stored(domain.StatusCompleted)
	done.PaymentID, done.Paid = "pi_1", 30000
	s.expectKeySpace()
	s.env.OnActivity(checks.LoadRefund, mock.Anything, s.input.BookingID).Return(
		activities.RefundToResume{Booking: done, Currency: "EUR", FirstAttempt: 1}, nil).Once()
	paid := done.Paid
	staffRefund := func(_ context.Context, in db.StaffRefund) (activities.StaffRefundOutcome, error) {
		paid -= in.Amount
		after := done
		after.Paid = paid
		return activities.StaffRefundOutcome{Refund: s.drawnByTheDatabase(in, after), Booking: after}, nil
	}
	s.env.OnActivity(s.acts.StartStaffRefund, mock.Anything, mock.Anything).Return(staffRefund)
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundFailed)
	var firstErr error
	s.env.RegisterDelayedCallback(func() {
		s.env.UpdateWorkflow(workflows.UpdateMoney, "r1", &testsuite.TestUpdateCallback{
			OnAccept: func() {}, OnReject: func(err error) { firstErr = err },
			OnComplete: func(_ any, err error) { firstErr = err },
		}, workflows.MoneyRequest{Kind: workflows.MoneyRefund, Actor: "finance", Key: "r1", Amount: 5000, Currency: "EUR", Reason: "goodwill"})
	}, 0)
	s.suggestContinueAsNew(time.Hour)

	s.env.ExecuteWorkflow(workflows.StaffRefundWorkflowName, s.input.BookingID)

	s.Require().NoError(firstErr)
	next := s.continuedWith()

	s.nextRun()
	s.expectKeySpace()
	s.env.OnActivity(s.acts.StartStaffRefund, mock.Anything, mock.Anything).Return(staffRefund).Maybe()
	var more refundLog
	s.expectRefunds(&more, activities.RefundSucceeded)
	var second workflows.BookingState
	var secondErr error
	s.update(time.Minute, workflows.UpdateMoney, &second, &secondErr, workflows.MoneyRequest{Kind: workflows.MoneyRefund,
		Actor: "finance", Key: "r2", Amount: 5000, Currency: "EUR", Reason: "goodwill"})
	s.resolveByHand(time.Hour)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, next)

	s.NoError(secondErr, "the next refund of the booking reaches the workflow that gives its refunds now")
}

// TestAStaffRefundLostWithItsWorkflowIsGivenBackOnItsRetry: a NO_SHOW booking's workflow
// recorded a staff refund of 50.00 (r1; the booking keeps 250.00 of pi_1's 300.00) and was
// terminated before its saga asked the provider. A NO_SHOW booking is not resumed
// (worker.Resumable), RecoverRefund is only for REFUNDING bookings, and the StaffRefund workflow
// never looks for unfinished refunds (db.Store.UnfinishedStaffRefunds): staff retry r1, which
// StaffRefund takes as "recorded before: its sagas run already", and the 50.00 is never given
// back.
func (s *BookingSuite) TestAStaffRefundLostWithItsWorkflowIsGivenBackOnItsRetry() {
	checks := &activities.Checks{}
	s.env.RegisterWorkflowWithOptions(workflows.StaffRefundWorkflow, workflow.RegisterOptions{Name: workflows.StaffRefundWorkflowName})
	s.env.RegisterActivity(checks)
	noShow := s.stored(domain.StatusNoShow)
	noShow.PaymentID, noShow.Paid = "pi_1", 25000 // r1 was recorded
	s.expectKeySpace()
	s.env.OnActivity(checks.LoadRefund, mock.Anything, s.input.BookingID).Return(
		activities.RefundToResume{Booking: noShow, Currency: "EUR", FirstAttempt: 1}, nil).Once()
	r1 := db.StaffRefund{ID: db.StaffRefundID(s.input.BookingID, "r1"), BookingID: s.input.BookingID, Kind: db.RefundGoodwill,
		Amount: 5000, Currency: "EUR", Reason: "goodwill", Actor: "finance", Parts: []domain.Payment{{ID: "pi_1", Amount: 5000, Currency: "EUR"}}}
	s.env.OnActivity(s.acts.StartStaffRefund, mock.Anything, mock.Anything).Return(
		activities.StaffRefundOutcome{Refund: r1, Booking: noShow}, nil) // as first recorded
	var refunds refundLog
	s.env.OnActivity(s.money.RequestRefund, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.RefundInput) (activities.RefundOutcome, error) {
			refunds.inputs = append(refunds.inputs, in)
			return activities.RefundOutcome{Status: activities.RefundSucceeded, ProviderRefundID: "re_" + in.Key}, nil
		}).Maybe()
	var retryErr error
	s.env.RegisterDelayedCallback(func() {
		s.env.UpdateWorkflow(workflows.UpdateMoney, "retry", &testsuite.TestUpdateCallback{
			OnAccept: func() {}, OnReject: func(err error) { retryErr = err },
			OnComplete: func(_ any, err error) { retryErr = err },
		}, workflows.MoneyRequest{Kind: workflows.MoneyRefund, Actor: "finance", Key: "r1", Amount: 5000, Currency: "EUR", Reason: "goodwill"})
	}, 0)

	s.env.ExecuteWorkflow(workflows.StaffRefundWorkflowName, s.input.BookingID)

	s.Require().NoError(retryErr)
	s.Equal(int64(5000), refundedFrom(&refunds)["pi_1"], "the 50.00 the booking no longer keeps goes back")
}

// TestARefundThatGivesTheUnitsBackAnswersItsRetryUnderTheSameKey: staff refund 100.00 of a paid
// booking, giving its units back, under Idempotency-Key r1; the answer is lost and the client
// sends r1 again. A desk payment and a refund that keeps the units answer a retry with the first
// outcome; refundCancelling keyed nothing, so the retry was refused as a conflict (the booking is
// no longer CONFIRMED) and the API answered 409 for a refund that was made. The database now
// answers the key first (expectKeySpace).
func (s *BookingSuite) TestARefundThatGivesTheUnitsBackAnswersItsRetryUnderTheSameKey() {
	var confirmed []domain.Payment
	var started []activities.CancelRefundInput
	var refunds refundLog
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	s.expectCancelUnderKey(s.expectKeySpace(), &started)
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	req := workflows.MoneyRequest{Kind: workflows.MoneyRefund, Actor: "finance", Key: "r1", Amount: 10000, Currency: "EUR",
		Reason: "the guest cannot come", ReleaseUnits: true}
	var first, again workflows.BookingState
	var firstErr, againErr error
	s.update(2*time.Minute, workflows.UpdateMoney, &first, &firstErr, req)
	s.update(2*time.Minute+time.Second, workflows.UpdateMoney, &again, &againErr, req)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.Require().NoError(firstErr)
	s.NoError(againErr, "the same request under the same key: the first one's answer")
	s.Len(started, 1)
}
