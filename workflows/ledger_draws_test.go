package workflows_test

import (
	"context"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// The cancel's parts read back from the ledger add up to less than the booking's refund
// due (as a goodwill refund under the key "refund" left them before such keys were refused:
// db.TestAStaffRefundKeyNamingTheDatabasesOwnDrawsIsRefused). The saga gave back what the parts
// said, 310.00 of 400.00, and marked the booking REFUNDED (found by review). Now the whole refund
// is drawn on the booking's payment (db.PartsOrWhole), which the per-payment bound holds.
func (s *BookingSuite) TestACancelWhoseLedgerPartsDoNotAddUpIsDrawnWholeOnTheBookingsPayment() {
	var confirmed []domain.Payment
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	pending := s.expectBalanceDue(2 * time.Minute)
	four := s.stored(domain.StatusConfirmed)
	four.CheckOut, four.PaymentID, four.Paid = oneMoreNight.CheckOut, "pi_1", 40000
	four.Price = domain.Price{Currency: "EUR", Total: 40000, Nights: append(append([]domain.NightRate{}, price.Nights...),
		domain.NightRate{Date: domain.NewDate(2030, 12, 13), Amount: 10000})}
	s.env.OnActivity(s.acts.SettleAmendment, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.SettleAmendmentInput) (activities.AmendOutcome, error) {
			a := pending
			a.Status, a.BalancePaymentID = domain.AmendmentApplied, in.Payment.ID
			return activities.AmendOutcome{Amendment: a, Booking: four}, nil
		}).Once()
	refunding := four
	refunding.Status, refunding.RefundDue = domain.StatusRefunding, 40000
	s.env.OnActivity(s.acts.StartRefund, mock.Anything, mock.Anything).Return(refunding, nil).Once()
	// The goodwill refund's entry (1000 on pi_balance) read back as the cancel's, and the cancel's
	// own draw on pi_1 (its ref taken on pi_balance was dropped).
	s.ledgerDraws[db.CancelRefundRef(s.input.BookingID)] = []domain.Payment{{ID: "pi_balance", Amount: 1000, Currency: "EUR"},
		{ID: "pi_1", Amount: 30000, Currency: "EUR"}}
	done := refunding
	done.Status = domain.StatusRefunded
	s.env.OnActivity(s.acts.FinishRefund, mock.Anything, s.input.BookingID).Return(done, nil).Maybe()
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	var answer workflows.AmendAnswer
	var answerErr, cancelErr error
	var cancelled workflows.BookingState
	s.amendAt(2*time.Minute, "a1", oneMoreNight, &answer, &answerErr)
	s.signal(3*time.Minute, workflows.SignalPayment, s.paid("pi_balance", 10000))
	s.update(4*time.Minute, workflows.UpdateCancel, &cancelled, &cancelErr)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	by := refundedFrom(&refunds)
	s.Equal(map[string]int64{"pi_1": 40000}, by, "drawn whole on the booking's payment, never less quietly")
	s.Equal(domain.StatusRefunded, s.result().Booking.Status)
}
