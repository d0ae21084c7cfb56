package workflows_test

import (
	"context"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// earlyDeparture is what leftEarly records.
type earlyDeparture struct {
	refunds  refundLog
	recorded []db.StaffRefund
	departed workflows.BookingState
	err      error
}

// leftEarly scripts a guest who paid their three nights (10-12 December) at 1:00 and leaves after
// the first one: the desk's cancel at 30:00 is an early departure, and the database answers with
// the refund the booking's policy (earlyDeparture) gives for the two nights not stayed. refused
// (nil: none) is the database's answer to recording the refund.
func (s *BookingSuite) leftEarly(policy string, refused error) *earlyDeparture {
	// A fresh environment: the suite's answers that no stay has begun.
	s.env = s.NewTestWorkflowEnvironment()
	s.env.RegisterWorkflowWithOptions(workflows.BookingWorkflow, workflow.RegisterOptions{Name: workflows.BookingWorkflowName})
	s.env.RegisterActivity(s.acts)
	s.env.RegisterActivity(s.money)
	s.start = s.env.Now()
	r := &earlyDeparture{}
	var confirmed []domain.Payment
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	left := s.stored(domain.StatusConfirmed)
	left.PaymentID, left.Paid = "pi_1", 30000
	left.CancellationPolicy.EarlyDeparture = policy
	checkOut := left.CheckIn.AddDays(1)
	refund := left.CancellationPolicy.EarlyDepartureRefund(left.Price, checkOut, left.CheckOut, left.Paid)
	left.CheckOut = checkOut
	if refund > 0 && refused == nil {
		s.expectRefunds(&r.refunds, activities.RefundSucceeded) // a refund the policy does not give would fail
	}
	s.env.OnActivity(s.acts.DepartEarly, mock.Anything, mock.Anything).Return(
		activities.DepartEarlyOutput{Begun: true, Booking: left, Nights: 2, Refund: refund}, nil).Once()
	s.env.OnActivity(s.acts.StartStaffRefund, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in db.StaffRefund) (activities.StaffRefundOutcome, error) {
			r.recorded = append(r.recorded, in)
			if refused != nil {
				return activities.StaffRefundOutcome{}, refused
			}
			after := left
			after.Paid -= in.Amount
			return activities.StaffRefundOutcome{Refund: s.drawnByTheDatabase(in, after), Booking: after}, nil
		}).Maybe()
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	s.update(30*time.Hour, workflows.UpdateCancel, &r.departed, &r.err, "desk")

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.Require().NoError(r.err)
	s.Equal(domain.StatusConfirmed, r.departed.Booking.Status, "an early departure keeps the booking")
	s.Equal(checkOut, r.departed.Booking.CheckOut)
	return r
}

// TestAnEarlyDepartureByAPolicyOfNoneRefundsNothing: the payment stays whole.
func (s *BookingSuite) TestAnEarlyDepartureByAPolicyOfNoneRefundsNothing() {
	r := s.leftEarly(domain.EarlyDepartureNone, nil)
	s.Empty(r.recorded)
	s.Empty(r.refunds.inputs)
	s.Equal(int64(30000), s.result().Booking.Paid)
}

// TestAnEarlyDepartureByAPolicyOfAllRefundsTheNightsNotStayed: the two nights not stayed go back
// through the refund saga, on the booking's payment (the database's draw), as one refund of the
// departure.
func (s *BookingSuite) TestAnEarlyDepartureByAPolicyOfAllRefundsTheNightsNotStayed() {
	r := s.leftEarly(domain.EarlyDepartureAll, nil)
	s.Require().Len(r.recorded, 1)
	got := r.recorded[0]
	s.Equal(db.StaffRefund{ID: db.StaffRefundID(s.input.BookingID, "early-departure@2030-12-11"), BookingID: s.input.BookingID,
		Kind: db.RefundEarlyDeparture, Amount: 20000, Currency: "EUR", Reason: "the guest left early: 2 nights not stayed",
		Actor: "desk"}, got, "asked without parts: the database draws them where the ledger says the booking keeps")
	s.Require().Len(r.refunds.inputs, 1)
	s.Equal("pi_1", r.refunds.inputs[0].PaymentID)
	s.Equal(int64(20000), r.refunds.inputs[0].Amount)
	s.Contains(r.refunds.inputs[0].Key, "early-departure@2030-12-11")
	st := s.result()
	s.Equal(domain.StatusConfirmed, st.Booking.Status)
	s.Equal(int64(10000), st.Booking.Paid, "the booking keeps the night stayed")
}

// TestAnEarlyDepartureByAPolicyOfAllButFirstKeepsOneNight: of the two nights not stayed, the
// first is kept.
func (s *BookingSuite) TestAnEarlyDepartureByAPolicyOfAllButFirstKeepsOneNight() {
	r := s.leftEarly(domain.EarlyDepartureAllButFirst, nil)
	s.Require().Len(r.recorded, 1)
	s.Equal(int64(10000), r.recorded[0].Amount)
	s.Require().Len(r.refunds.inputs, 1)
	s.Equal(int64(10000), r.refunds.inputs[0].Amount)
	s.Equal(int64(20000), s.result().Booking.Paid)
}

// TestAnEarlyDepartureWhoseRefundTheDatabaseRefusesStands: the guest has left; a refund the
// database will not record is logged, nothing is sent to the provider, and the booking goes on.
func (s *BookingSuite) TestAnEarlyDepartureWhoseRefundTheDatabaseRefusesStands() {
	r := s.leftEarly(domain.EarlyDepartureAll, temporal.NewNonRetryableApplicationError("booking keeps less",
		activities.ErrTypeConflict, nil))
	s.Len(r.recorded, 1)
	s.Empty(r.refunds.inputs)
	st := s.result()
	s.Equal(domain.StatusConfirmed, st.Booking.Status)
	s.Equal(int64(30000), st.Booking.Paid)
}
