package workflows_test

import (
	"context"
	"errors"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
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

// balancePaid is the payment of amendment's balance, as its checkout creates it (naming it).
func (s *BookingSuite) balancePaid(pi string, amount, amendment int64) domain.PaymentEvent {
	ev := s.paid(pi, amount)
	ev.AmendmentID = amendment
	return ev
}

// refundedFrom sums the refunds asked of each payment.
func refundedFrom(log *refundLog) map[string]int64 {
	out := map[string]int64{}
	for _, in := range log.inputs {
		out[in.PaymentID] += in.Amount
	}
	return out
}

// TestAnAmendmentWhoseAnswerWasLostIsStillTakenWhenItsRetryFindsItsRecord: the Amend activity's
// first attempt commits and its answer is lost (a worker crash, a StartToClose timeout after the
// commit); the retry finds the record under the key and answers it. The workflow must still
// take the booking as amended and give the fall in price back: nobody else will.
func (s *BookingSuite) TestAnAmendmentWhoseAnswerWasLostIsStillTakenWhenItsRetryFindsItsRecord() {
	var confirmed []domain.Payment
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	shorter := s.stored(domain.StatusConfirmed)
	shorter.CheckOut, shorter.PaymentID, shorter.Paid = domain.NewDate(2030, 12, 12), "pi_1", 20000
	shorter.Price = domain.Price{Currency: "EUR", Total: 20000, Nights: price.Nights[:2]}
	a := domain.Amendment{ID: 8, BookingID: s.input.BookingID, Status: domain.AmendmentApplied, Difference: -10000,
		Refund: 10000, Currency: "EUR"}
	// The first attempt committed, then its answer was lost; the retry finds the record.
	s.env.OnActivity(s.acts.Amend, mock.Anything, mock.Anything).Return(activities.AmendOutcome{},
		errors.New("activity StartToClose timeout")).Once()
	s.env.OnActivity(s.acts.Amend, mock.Anything, mock.Anything).Return(
		activities.AmendOutcome{Amendment: a, Booking: shorter}, nil).Once()
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	var answer workflows.AmendAnswer
	var answerErr error
	s.amendAt(2*time.Minute, "a1", domain.Change{CheckOut: domain.NewDate(2030, 12, 12)}, &answer, &answerErr)
	after := s.queryState(5 * time.Minute)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(answerErr)
	s.Equal(domain.AmendmentApplied, answer.Amendment.Status)
	s.Equal(int64(20000), after.Booking.Price.Total, "the workflow holds the booking as the database amended it")
	s.Equal(domain.NewDate(2030, 12, 12), after.Booking.CheckOut)
	s.Equal(map[string]int64{"pi_1": 10000}, refundedFrom(&refunds), "the fall in price the database took off paid goes back")
}

// TestAPendingAmendmentWhoseAnswerWasLostStillLapsesWhenItsWindowEnds: as above, for a paid
// booking that costs more. The added units the database holds beside the booking's own must be
// given back when the balance is not paid, and a balance payment must be taken, not refunded.
func (s *BookingSuite) TestAPendingAmendmentWhoseAnswerWasLostStillLapsesWhenItsWindowEnds() {
	var confirmed []domain.Payment
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	a := domain.Amendment{ID: 7, BookingID: s.input.BookingID, Status: domain.AmendmentBalanceDue, Difference: 10000,
		Currency: "EUR", DueBy: s.start.Add(12 * time.Minute)}
	b := s.stored(domain.StatusConfirmed)
	b.PaymentID, b.Paid, b.BalanceDue, b.BalanceDueBy = "pi_1", 30000, 10000, a.DueBy
	s.env.OnActivity(s.acts.Amend, mock.Anything, mock.Anything).Return(activities.AmendOutcome{},
		errors.New("activity StartToClose timeout")).Once()
	s.env.OnActivity(s.acts.Amend, mock.Anything, mock.Anything).Return(
		activities.AmendOutcome{Amendment: a, Booking: b}, nil).Once()
	var lapsed int
	s.env.OnActivity(s.acts.LapseAmendment, mock.Anything, mock.Anything).Return(
		func(context.Context, activities.LapseAmendmentInput) (activities.AmendOutcome, error) {
			lapsed++
			kept := s.stored(domain.StatusConfirmed)
			kept.PaymentID, kept.Paid = "pi_1", 30000
			return activities.AmendOutcome{Booking: kept}, nil
		}).Maybe()
	var answer workflows.AmendAnswer
	var answerErr error
	s.amendAt(2*time.Minute, "a1", oneMoreNight, &answer, &answerErr)
	during := s.queryState(5 * time.Minute)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(answerErr)
	s.NotNil(during.Pending, "the workflow knows the amendment waits for its balance")
	s.Equal(1, lapsed, "the units held for the balance are given back when its window ends")
}

// TestACancelAfterABalancePaymentRefundsNoPaymentBeyondItsAmount: a booking paid 300.00 (pi_1)
// and then a balance of 100.00 (pi_balance) is cancelled with everything refundable. The
// provider refunds a payment up to its own amount: the refund cannot all be drawn on pi_1. The
// workflow gives back what the ledger drew on each (db.TestAStaffRefundIsDrawnWhereTheLedger...
// and the ledger's tests hold the draw itself).
func (s *BookingSuite) TestACancelAfterABalancePaymentRefundsNoPaymentBeyondItsAmount() {
	var confirmed []domain.Payment
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	pending := s.expectBalanceDue(2 * time.Minute)
	four := s.stored(domain.StatusConfirmed)
	four.CheckOut, four.PaymentID, four.Paid = oneMoreNight.CheckOut, "pi_1", 40000 // as SettleAmendment leaves it
	four.Price = domain.Price{Currency: "EUR", Total: 40000, Nights: append(append([]domain.NightRate{}, price.Nights...),
		domain.NightRate{Date: domain.NewDate(2030, 12, 13), Amount: 10000})}
	s.env.OnActivity(s.acts.SettleAmendment, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.SettleAmendmentInput) (activities.AmendOutcome, error) {
			a := pending
			a.Status, a.BalancePaymentID = domain.AmendmentApplied, in.Payment.ID
			return activities.AmendOutcome{Amendment: a, Booking: four}, nil
		}).Once()
	refunding := four
	refunding.Status, refunding.RefundDue = domain.StatusRefunding, 40000 // free cancellation: all of paid
	s.env.OnActivity(s.acts.StartRefund, mock.Anything, mock.Anything).Return(refunding, nil).Once()
	s.ledgerDraws[db.CancelRefundRef(s.input.BookingID)] = []domain.Payment{{ID: "pi_balance", Amount: 10000, Currency: "EUR"},
		{ID: "pi_1", Amount: 30000, Currency: "EUR"}} // as the ledger draws it, newest kept first
	done := refunding
	done.Status = domain.StatusRefunded
	s.env.OnActivity(s.acts.FinishRefund, mock.Anything, s.input.BookingID).Return(done, nil).Once()
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	var answer workflows.AmendAnswer
	var answerErr, cancelErr error
	var cancelled workflows.BookingState
	s.amendAt(2*time.Minute, "a1", oneMoreNight, &answer, &answerErr)
	s.signal(3*time.Minute, workflows.SignalPayment, s.paid("pi_balance", 10000))
	s.update(4*time.Minute, workflows.UpdateCancel, &cancelled, &cancelErr)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(answerErr)
	s.NoError(cancelErr)
	by := refundedFrom(&refunds)
	s.LessOrEqual(by["pi_1"], int64(30000), "pi_1 was a payment of 300.00: refunds asked of it %v", by)
	s.Equal(int64(40000), by["pi_1"]+by["pi_balance"], "all that was paid goes back")
}

// TestAnAmendmentDownAfterABalancePaymentRefundsNoPaymentBeyondItsAmount: paid 300.00 (pi_1),
// amended up to six nights and the balance of 300.00 paid (pi_balance), then amended down to
// one night: 500.00 goes back, more than pi_1 can give.
func (s *BookingSuite) TestAnAmendmentDownAfterABalancePaymentRefundsNoPaymentBeyondItsAmount() {
	var confirmed []domain.Payment
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	up := domain.Amendment{ID: 7, BookingID: s.input.BookingID, Status: domain.AmendmentBalanceDue, Difference: 30000,
		Currency: "EUR", DueBy: s.start.Add(12 * time.Minute)}
	pendingB := s.stored(domain.StatusConfirmed)
	pendingB.PaymentID, pendingB.Paid, pendingB.BalanceDue = "pi_1", 30000, 30000
	s.env.OnActivity(s.acts.Amend, mock.Anything, mock.MatchedBy(func(in activities.AmendInput) bool {
		return in.IdempotencyKey == "up"
	})).Return(activities.AmendOutcome{Amendment: up, Booking: pendingB}, nil).Once()
	six := s.stored(domain.StatusConfirmed)
	six.CheckOut, six.PaymentID, six.Paid = domain.NewDate(2030, 12, 16), "pi_1", 60000
	six.Price = domain.Price{Currency: "EUR", Total: 60000}
	s.env.OnActivity(s.acts.SettleAmendment, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.SettleAmendmentInput) (activities.AmendOutcome, error) {
			a := up
			a.Status, a.BalancePaymentID = domain.AmendmentApplied, in.Payment.ID
			return activities.AmendOutcome{Amendment: a, Booking: six}, nil
		}).Once()
	one := s.stored(domain.StatusConfirmed)
	one.CheckOut, one.PaymentID, one.Paid = domain.NewDate(2030, 12, 11), "pi_1", 10000
	one.Price = domain.Price{Currency: "EUR", Total: 10000, Nights: price.Nights[:1]}
	down := domain.Amendment{ID: 9, BookingID: s.input.BookingID, Status: domain.AmendmentApplied, Difference: -50000,
		Refund: 50000, Currency: "EUR"} // min(policy of the fall, paid 600.00), as db.Amend computes it
	s.ledgerDraws[db.AmendmentRefundRef(s.input.BookingID, down.ID)] = []domain.Payment{
		{ID: "pi_balance", Amount: 30000, Currency: "EUR"}, {ID: "pi_1", Amount: 20000, Currency: "EUR"}}
	s.env.OnActivity(s.acts.Amend, mock.Anything, mock.MatchedBy(func(in activities.AmendInput) bool {
		return in.IdempotencyKey == "down"
	})).Return(activities.AmendOutcome{Amendment: down, Booking: one}, nil).Once()
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	var a1, a2 workflows.AmendAnswer
	var e1, e2 error
	s.amendAt(2*time.Minute, "up", domain.Change{CheckOut: domain.NewDate(2030, 12, 16)}, &a1, &e1)
	s.signal(3*time.Minute, workflows.SignalPayment, s.balancePaid("pi_balance", 30000, up.ID))
	s.amendAt(4*time.Minute, "down", domain.Change{CheckOut: domain.NewDate(2030, 12, 11)}, &a2, &e2)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(e1)
	s.NoError(e2)
	by := refundedFrom(&refunds)
	s.LessOrEqual(by["pi_1"], int64(30000), "pi_1 was a payment of 300.00: refunds asked of it %v", by)
	s.Equal(int64(50000), by["pi_1"]+by["pi_balance"])
}

// TestAnEarlyDepartureEndsThePendingAmendmentInTheWorkflowToo: DepartEarly lapses the pending
// amendment in the database (lapseExtras); the workflow must agree, not go on showing a balance
// due (and refusing new amendments with balance_due) until the window ends.
func (s *BookingSuite) TestAnEarlyDepartureEndsThePendingAmendmentInTheWorkflowToo() {
	s.env = s.NewTestWorkflowEnvironment() // without the suite's answer that no stay has begun
	s.env.RegisterWorkflowWithOptions(workflows.BookingWorkflow, workflow.RegisterOptions{Name: workflows.BookingWorkflowName})
	s.env.RegisterActivity(s.acts)
	s.env.RegisterActivity(s.money)
	s.start = s.env.Now()
	var confirmed []domain.Payment
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	s.expectBalanceDue(2 * time.Minute)
	left := s.stored(domain.StatusCompleted)
	left.CheckOut, left.PaymentID, left.Paid = domain.NewDate(2030, 12, 11), "pi_1", 30000 // BalanceDue 0: lapsed
	s.env.OnActivity(s.acts.DepartEarly, mock.Anything, mock.Anything).Return(
		activities.DepartEarlyOutput{Begun: true, Booking: left}, nil).Once()
	s.env.OnActivity(s.acts.LapseAmendment, mock.Anything, mock.Anything).Return(
		activities.AmendOutcome{Booking: left}, nil).Maybe()
	var answer workflows.AmendAnswer
	var answerErr, cancelErr error
	var departed workflows.BookingState
	s.amendAt(2*time.Minute, "a1", oneMoreNight, &answer, &answerErr)
	s.update(3*time.Minute, workflows.UpdateCancel, &departed, &cancelErr)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(answerErr)
	s.NoError(cancelErr)
	s.Nil(departed.Pending, "the database lapsed the amendment with the departure")
}

// TestADuplicateOfThePriceIsRefundedEvenWhenItEqualsThePendingBalance: a booking of 300.00 paid
// by pi_1 is amended to six nights (a balance of 300.00 due). A second payment of the hold's
// price (pi_dup, from an earlier checkout of the hold) is a duplicate, as in
// TestABalancePaymentAppliesTheAmendmentAndADuplicateIsRefunded; only the payment created for
// the balance (pi_balance) pays it. Told apart by amount alone, the duplicate settles the balance
// and the real balance payment is refunded instead.
func (s *BookingSuite) TestADuplicateOfThePriceIsRefundedEvenWhenItEqualsThePendingBalance() {
	var confirmed []domain.Payment
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	up := domain.Amendment{ID: 7, BookingID: s.input.BookingID, Status: domain.AmendmentBalanceDue, Difference: 30000,
		Currency: "EUR", DueBy: s.start.Add(12 * time.Minute)}
	b := s.stored(domain.StatusConfirmed)
	b.PaymentID, b.Paid, b.BalanceDue = "pi_1", 30000, 30000
	s.env.OnActivity(s.acts.Amend, mock.Anything, mock.Anything).Return(activities.AmendOutcome{Amendment: up, Booking: b}, nil).Once()
	var settled []string
	s.env.OnActivity(s.acts.SettleAmendment, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.SettleAmendmentInput) (activities.AmendOutcome, error) {
			settled = append(settled, in.Payment.ID)
			six := s.stored(domain.StatusConfirmed)
			six.CheckOut, six.PaymentID, six.Paid = domain.NewDate(2030, 12, 16), "pi_1", 60000
			a := up
			a.Status, a.BalancePaymentID = domain.AmendmentApplied, in.Payment.ID
			return activities.AmendOutcome{Amendment: a, Booking: six}, nil
		}).Maybe()
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	var answer workflows.AmendAnswer
	var answerErr error
	s.amendAt(2*time.Minute, "a1", domain.Change{CheckOut: domain.NewDate(2030, 12, 16)}, &answer, &answerErr)
	s.signal(3*time.Minute, workflows.SignalPayment, s.paid("pi_dup", 30000))
	s.signal(4*time.Minute, workflows.SignalPayment, s.balancePaid("pi_balance", 30000, up.ID))

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(answerErr)
	s.Equal([]string{"pi_balance"}, settled, "the balance is paid by the payment made for it")
	s.Equal(map[string]int64{"pi_dup": 30000}, refundedFrom(&refunds), "the duplicate goes back")
}

// TestABalancePaidJustAfterTheOldStayEndedKeepsTheExtendedStay: on its last day a stay is
// extended by a night (a balance due within the window); the old stay's end passes while the
// balance waits, and the balance is then paid in time. The booking now runs a night longer: its
// workflow must go on until the new end, cancellable, not close as if the stay were over.
func (s *BookingSuite) TestABalancePaidJustAfterTheOldStayEndedKeepsTheExtendedStay() {
	ends := s.input.Request.CheckOut.AddDays(1).Time().Sub(s.start) // when the stay phase ends
	var confirmed []domain.Payment
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	a := domain.Amendment{ID: 7, BookingID: s.input.BookingID, Status: domain.AmendmentBalanceDue, Difference: 10000,
		Currency: "EUR", DueBy: s.start.Add(ends + 5*time.Minute)}
	b := s.stored(domain.StatusCompleted)
	b.PaymentID, b.Paid, b.BalanceDue = "pi_1", 30000, 10000
	s.env.OnActivity(s.acts.Amend, mock.Anything, mock.Anything).Return(activities.AmendOutcome{Amendment: a, Booking: b}, nil).Once()
	s.env.OnActivity(s.acts.SettleAmendment, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.SettleAmendmentInput) (activities.AmendOutcome, error) {
			four := s.stored(domain.StatusCompleted)
			four.CheckOut, four.PaymentID, four.Paid = oneMoreNight.CheckOut, "pi_1", 40000
			settled := a
			settled.Status, settled.BalancePaymentID = domain.AmendmentApplied, in.Payment.ID
			return activities.AmendOutcome{Amendment: settled, Booking: four}, nil
		}).Once()
	var started []activities.StartRefundInput
	refunding := s.stored(domain.StatusRefunding)
	refunding.PaymentID, refunding.Paid = "pi_1", 40000
	s.env.OnActivity(s.acts.StartRefund, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.StartRefundInput) (domain.Booking, error) {
			started = append(started, in)
			return refunding, nil
		}).Maybe()
	done := refunding
	done.Status = domain.StatusRefunded
	s.env.OnActivity(s.acts.FinishRefund, mock.Anything, mock.Anything).Return(done, nil).Maybe()
	var answer workflows.AmendAnswer
	var answerErr, cancelErr error
	var cancelled workflows.BookingState
	s.amendAt(ends-5*time.Minute, "a1", oneMoreNight, &answer, &answerErr)
	s.signal(ends+2*time.Minute, workflows.SignalPayment, s.paid("pi_balance", 10000))
	s.update(ends+10*time.Minute, workflows.UpdateCancel, &cancelled, &cancelErr)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(answerErr)
	s.Equal(domain.AmendmentBalanceDue, answer.Amendment.Status)
	s.NoError(cancelErr, "the extended stay has not ended: it can still be cancelled")
	s.Len(started, 1, "the cancel of the extended stay refunds it (today it is answered and does nothing: the workflow took the stay as over)")
}
