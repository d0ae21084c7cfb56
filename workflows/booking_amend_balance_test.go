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

// fourNights is the stay after oneMoreNight, paid 300.00 by pi_1 and 100.00 by pi_balance, as
// SettleAmendment leaves it.
func (s *BookingSuite) fourNights(status domain.Status) domain.Booking {
	b := s.stored(status)
	b.CheckOut, b.PaymentID, b.Paid = oneMoreNight.CheckOut, "pi_1", 40000
	b.Price = domain.Price{Currency: "EUR", Total: 40000, Nights: append(append([]domain.NightRate{}, price.Nights...),
		domain.NightRate{Date: domain.NewDate(2030, 12, 13), Amount: 10000})}
	return b
}

// balancePaidThenCancelled scripts a booking paid by pi_1, amended up by a night whose balance
// pi_balance pays, then cancelled at 4:00 with all of it refundable, which the ledger draws on
// pi_balance, then pi_1. FinishRefund is expected once.
func (s *BookingSuite) balancePaidThenCancelled() {
	var confirmed []domain.Payment
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	pending := s.expectBalanceDue(2 * time.Minute)
	s.env.OnActivity(s.acts.SettleAmendment, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.SettleAmendmentInput) (activities.AmendOutcome, error) {
			a := pending
			a.Status, a.BalancePaymentID = domain.AmendmentApplied, in.Payment.ID
			return activities.AmendOutcome{Amendment: a, Booking: s.fourNights(domain.StatusConfirmed)}, nil
		}).Once()
	refunding := s.fourNights(domain.StatusRefunding)
	refunding.RefundDue = 40000
	s.env.OnActivity(s.acts.StartRefund, mock.Anything, mock.Anything).Return(refunding, nil).Once()
	s.ledgerDraws[db.CancelRefundRef(s.input.BookingID)] = []domain.Payment{{ID: "pi_balance", Amount: 10000, Currency: "EUR"},
		{ID: "pi_1", Amount: 30000, Currency: "EUR"}} // as the ledger draws it, newest kept first
	var answer workflows.AmendAnswer
	var answerErr, cancelErr error
	var cancelled workflows.BookingState
	s.amendAt(2*time.Minute, "a1", oneMoreNight, &answer, &answerErr)
	s.signal(3*time.Minute, workflows.SignalPayment, s.balancePaid("pi_balance", 10000, pending.ID))
	s.update(4*time.Minute, workflows.UpdateCancel, &cancelled, &cancelErr)
}

// expectFinishRefund makes FinishRefund mark the four nights REFUNDED, once.
func (s *BookingSuite) expectFinishRefund() {
	done := s.fourNights(domain.StatusRefunded)
	done.RefundDue = 40000
	s.env.OnActivity(s.acts.FinishRefund, mock.Anything, s.input.BookingID).Return(done, nil).Once()
}

// TestARefundOfTheBalancePaymentStuckAndHandedOverStillRefundsTheRestAndFinishes: a cancel's
// refund is drawn on pi_balance, then pi_1. The refund of pi_balance is declined until it is
// stuck; the run continues as new. What is handed over is the part's own saga (kind "part"),
// not the booking's refund: in the next run an operator's retry refunds pi_balance and the saga
// ends there. pi_1's 300.00 is never given back and FinishRefund never runs: the booking stays
// REFUNDING for good.
func (s *BookingSuite) TestARefundOfTheBalancePaymentStuckAndHandedOverStillRefundsTheRestAndFinishes() {
	s.balancePaidThenCancelled()
	var first refundLog
	s.expectRefunds(&first, activities.RefundFailed) // every attempt is declined in this run
	s.suggestContinueAsNew(2 * time.Hour)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	next := s.continuedWith()
	s.Require().Len(next.Resume.Sagas, 1, "the stuck refund is handed over")
	s.Equal(map[string]int64{"pi_balance": 30000}, refundedFrom(&first), "three declined attempts of pi_balance's 100.00")

	s.nextRun()
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	s.expectFinishRefund()
	var retried workflows.BookingState
	var retryErr error
	s.update(0, workflows.UpdateRetryRefund, &retried, &retryErr, workflows.OperatorAction{Actor: "ops", Reason: "card fixed"})

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, next)

	s.NoError(retryErr)
	s.Equal(map[string]int64{"pi_balance": 10000, "pi_1": 30000}, refundedFrom(&refunds),
		"the retry goes on with the rest of the booking's refund (handed over: kind %q)", next.Resume.Sagas[0].Kind)
	st := s.queryStateNow()
	s.Equal(domain.StatusRefunded, st.Booking.Status, "the booking's refund finishes")
}

// queryStateNow queries the state of the workflow as it ended (or stands).
func (s *BookingSuite) queryStateNow() workflows.BookingState {
	var st workflows.BookingState
	v, err := s.env.QueryWorkflow(workflows.QueryState)
	s.Require().NoError(err)
	s.Require().NoError(v.Get(&st))
	return st
}

// TestARefundDrawnOnTwoPaymentsRetriedByAnOperatorDoesNotRefundTheFirstPartAgainUnderANewKey (passes:
// a check of what is right):
// the refund of pi_balance succeeds; pi_1's is declined until stuck. An operator retries: the
// saga runs refundBooking again, which asks pi_balance again. It must be under the key that
// already succeeded (the provider answers it from its record), never a new request.
func (s *BookingSuite) TestARefundDrawnOnTwoPaymentsRetriedByAnOperatorDoesNotRefundTheFirstPartAgainUnderANewKey() {
	s.balancePaidThenCancelled()
	s.expectFinishRefund()
	var refunds refundLog
	s.env.OnActivity(s.money.RequestRefund, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.RefundInput) (activities.RefundOutcome, error) {
			refunds.inputs = append(refunds.inputs, in)
			status := activities.RefundSucceeded
			if in.PaymentID == "pi_1" && s.env.Now().Sub(s.start) < time.Hour {
				status = activities.RefundFailed
			}
			return activities.RefundOutcome{Status: status, ProviderRefundID: "re_" + in.Key, Error: "declined"}, nil
		})
	var retried workflows.BookingState
	var retryErr error
	s.update(2*time.Hour, workflows.UpdateRetryRefund, &retried, &retryErr, workflows.OperatorAction{Actor: "ops", Reason: "card fixed"})

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(retryErr)
	keys := map[string]bool{}
	for _, in := range refunds.inputs {
		if in.PaymentID == "pi_balance" {
			keys[in.Key] = true
		}
	}
	s.Len(keys, 1, "pi_balance was refunded once, under one key: %v", keys)
	s.Equal(domain.StatusRefunded, s.result().Booking.Status)
}

// TestARecoveredRefundOfABookingWithABalancePaymentRefundsNoPaymentBeyondItsAmount: the
// booking's workflow is gone while it is REFUNDING 400.00, paid 300.00 by pi_1 and 100.00 by
// pi_balance. RecoverRefund knows only the booking's first payment: it asks pi_1 for 400.00,
// more than the provider can refund of it, and pi_balance is never refunded.
func (s *BookingSuite) TestARecoveredRefundOfABookingWithABalancePaymentRefundsNoPaymentBeyondItsAmount() {
	checks := &activities.Checks{}
	s.env.RegisterWorkflowWithOptions(workflows.RecoverRefundWorkflow, workflow.RegisterOptions{Name: workflows.RecoverRefundWorkflowName})
	s.env.RegisterActivity(checks)
	refunding := s.fourNights(domain.StatusRefunding)
	refunding.RefundDue = 40000
	s.env.OnActivity(checks.LoadRefund, mock.Anything, s.input.BookingID).Return(
		activities.RefundToResume{Booking: refunding, Currency: "EUR", FirstAttempt: 1,
			Kept: []domain.Payment{{ID: "pi_1", Amount: 30000, Currency: "EUR"}, {ID: "pi_balance", Amount: 10000, Currency: "EUR"}}},
		nil).Once() // as LoadRefund finds them (db.Store.AmendmentState)
	s.expectFinishRefund()
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)

	s.env.ExecuteWorkflow(workflows.RecoverRefundWorkflowName, s.input.BookingID)

	by := refundedFrom(&refunds)
	s.LessOrEqual(by["pi_1"], int64(30000), "pi_1 was a payment of 300.00: refunds asked of it %v", by)
	s.Equal(int64(40000), by["pi_1"]+by["pi_balance"])
}

// TestABookingResumedWhileItsAmendmentWaitsForItsBalanceTakesTheBalancePayment: the booking's
// workflow is gone while an amendment waits for its balance (the database holds the added night
// beside the booking's, BALANCE_DUE). ResumeBooking starts the workflow with the amendment
// waiting: the balance payment, made by the checkout for amendment 7, settles it (before
// resumeInput handed it over, the payment was refunded as a second one and the amendment never
// lapsed).
func (s *BookingSuite) TestABookingResumedWhileItsAmendmentWaitsForItsBalanceTakesTheBalancePayment() {
	b := s.stored(domain.StatusConfirmed)
	b.PaymentID, b.Paid, b.BalanceDue, b.BalanceDueBy = "pi_1", 30000, 10000, s.start.Add(10*time.Minute)
	in := s.input
	pending := &domain.Amendment{ID: 7, BookingID: b.ID, Status: domain.AmendmentBalanceDue, Difference: 10000,
		Currency: "EUR", DueBy: b.BalanceDueBy}
	in.Resume = &workflows.Resume{State: workflows.BookingState{Booking: b, Reason: "resumed", Pending: pending,
		LastAmendment: 7}} // as resumeInput builds it (worker.TestAResumedBookingKnowsItsPendingAmendmentAndItsBalancePayments)
	var settled []string
	s.env.OnActivity(s.acts.SettleAmendment, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.SettleAmendmentInput) (activities.AmendOutcome, error) {
			settled = append(settled, in.Payment.ID)
			return activities.AmendOutcome{Amendment: domain.Amendment{ID: 7, Status: domain.AmendmentApplied},
				Booking: s.fourNights(domain.StatusConfirmed)}, nil
		}).Maybe()
	var refunds refundLog
	s.env.OnActivity(s.money.RequestRefund, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.RefundInput) (activities.RefundOutcome, error) {
			refunds.inputs = append(refunds.inputs, in)
			return activities.RefundOutcome{Status: activities.RefundSucceeded}, nil
		}).Maybe()
	s.signal(time.Minute, workflows.SignalPayment, s.balancePaid("pi_balance", 10000, 7))
	after := s.queryState(2 * time.Minute)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, in)

	s.Equal([]string{"pi_balance"}, settled, "the balance payment settles the amendment the database has waiting")
	s.Empty(refunds.inputs, "the balance payment is kept")
	s.Equal(int64(40000), after.Booking.Price.Total)
}

// TestABalanceSettlementTheOneOrderPerSlotIndexRefusesStillLapsesTheAmendment: a venue
// order's pending amendment moves its first line onto a slot the customer ordered meanwhile;
// SettleAmendment refuses it (db.ErrAlreadyOrdered, a conflict) and the amendment still waits in
// the database (TestAPendingOrderAmendmentCannotBeSettledOntoASlotTheCustomerOrderedMeanwhile).
// The workflow drops Pending and refunds the payment, so nothing ever lapses the amendment: its
// added units stay held beside the order's until the order ends, and the database refuses every
// later amendment with balance_due while the workflow shows none.
func (s *BookingSuite) TestABalanceSettlementTheOneOrderPerSlotIndexRefusesStillLapsesTheAmendment() {
	var confirmed []domain.Payment
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	pending := s.expectBalanceDue(2 * time.Minute)
	s.env.OnActivity(s.acts.SettleAmendment, mock.Anything, mock.Anything).Return(activities.AmendOutcome{},
		temporal.NewNonRetryableApplicationError("the customer already has an active order for this slot: amendment 7",
			activities.ErrTypeAlreadyOrdered, nil)).Once() // as activities.SettleAmendment classifies db.ErrAlreadyOrdered
	var lapsed []int64
	s.env.OnActivity(s.acts.LapseAmendment, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.LapseAmendmentInput) (activities.AmendOutcome, error) {
			lapsed = append(lapsed, in.AmendmentID)
			b := s.stored(domain.StatusConfirmed)
			b.PaymentID, b.Paid = "pi_1", 30000
			return activities.AmendOutcome{Booking: b}, nil
		}).Maybe()
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	var answer workflows.AmendAnswer
	var answerErr error
	s.amendAt(2*time.Minute, "a1", oneMoreNight, &answer, &answerErr)
	s.signal(3*time.Minute, workflows.SignalPayment, s.balancePaid("pi_balance", 10000, pending.ID))
	during := s.queryState(5 * time.Minute)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(answerErr)
	s.Equal(map[string]int64{"pi_balance": 10000}, refundedFrom(&refunds), "the refused balance goes back")
	s.Equal([]int64{pending.ID}, lapsed, "the amendment the database still has waiting is lapsed by its window; Pending during: %v", during.Pending)
}

// TestARetryOfAPendingAmendmentRacingItsFirstAttemptIsAnsweredWithIt: the client's first
// request waits on a slow Amend (its HTTP call times out) and it retries under the same key
// before the first is recorded, so the API finds no record and asks the workflow again. The
// workflow refuses the retry with balance_due (its own amendment's balance) before the database
// could answer it from the key.
func (s *BookingSuite) TestARetryOfAPendingAmendmentRacingItsFirstAttemptIsAnsweredWithIt() {
	var confirmed []domain.Payment
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	a := domain.Amendment{ID: 7, BookingID: s.input.BookingID, Status: domain.AmendmentBalanceDue, Difference: 10000,
		Currency: "EUR", DueBy: s.start.Add(12 * time.Minute)}
	b := s.stored(domain.StatusConfirmed)
	b.PaymentID, b.Paid, b.BalanceDue = "pi_1", 30000, 10000
	s.env.OnActivity(s.acts.Amend, mock.Anything, mock.Anything).After(time.Minute).Return(
		activities.AmendOutcome{Amendment: a, Booking: b}, nil) // the key's record, both times
	s.env.OnActivity(s.acts.LapseAmendment, mock.Anything, mock.Anything).Return(activities.AmendOutcome{Booking: b}, nil).Maybe()
	var first, retry workflows.AmendAnswer
	var firstErr, retryErr error
	s.amendAt(2*time.Minute, "a1", oneMoreNight, &first, &firstErr)
	s.env.RegisterDelayedCallback(func() { // another update id: the API names none, so Temporal cannot dedupe it
		s.env.UpdateWorkflow(workflows.UpdateAmend, "retry", &testsuite.TestUpdateCallback{
			OnAccept: func() {},
			OnReject: func(err error) { retryErr = err },
			OnComplete: func(v any, err error) {
				if retryErr = err; err == nil {
					retry = v.(workflows.AmendAnswer)
				}
			},
		}, workflows.AmendRequest{IdempotencyKey: "a1", Change: oneMoreNight, Actor: "c1"})
	}, 2*time.Minute+30*time.Second)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(firstErr)
	s.NoError(retryErr, "a retry under the same key is answered with its amendment (%+v)", retry.Amendment)
	s.Equal(a.ID, retry.Amendment.ID)
}
