package workflows_test

import (
	"context"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// Tests from the adversarial review of issue 21 (staff money): each states a rule the code breaks.

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
			return activities.StaffRefundOutcome{Refund: in, Booking: after}, nil
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
