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

// noShowOf scripts a booking paid 300.00 at 1:00 under terms that nobody checks in by its
// deadline at 48:00: the database marks it NO_SHOW and answers with refund, what the terms give
// back. It returns the staff refunds recorded and the refund attempts made.
func (s *BookingSuite) noShowOf(terms *domain.PlanTerms, refund int64) ([]db.StaffRefund, *refundLog) {
	recorded, refunds := s.scriptNoShow(terms, refund)
	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)
	return *recorded, refunds
}

// scriptNoShow scripts noShowOf's booking without running it: a test may add its own steps.
// The staff refunds recorded are in the slice it returns once the workflow ran.
func (s *BookingSuite) scriptNoShow(terms *domain.PlanTerms, refund int64) (*[]db.StaffRefund, *refundLog) {
	s.input.NoShowAt = s.start.Add(48 * time.Hour)
	var confirmed []domain.Payment
	var recorded []db.StaffRefund
	refunds := &refundLog{}
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	noShow := s.stored(domain.StatusNoShow)
	noShow.PaymentID, noShow.Paid, noShow.PlanTerms = "pi_1", 30000, terms
	s.env.OnActivity(s.acts.MarkNoShowUnlessClosed, mock.Anything, s.input.BookingID).Return(
		activities.NoShowOutput{Booking: noShow, Refund: refund}, nil).Once()
	s.env.OnActivity(s.acts.StartStaffRefund, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in db.StaffRefund) (activities.StaffRefundOutcome, error) {
			recorded = append(recorded, in)
			after := noShow
			after.Paid -= in.Amount
			return activities.StaffRefundOutcome{Refund: s.drawnByTheDatabase(in, after), Booking: after}, nil
		}).Maybe()
	if refund > 0 {
		s.expectRefunds(refunds, activities.RefundSucceeded)
	}
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	return &recorded, refunds
}

// TestANoShowGivesBackAllButTheFirstNight: a first_night plan's no-show gives back what the
// database computed, as one refund under no-show@<check-in> (a key no client key can be), kind
// no_show, drawn by the database, through the refund saga; the booking stays NO_SHOW and keeps the
// first night.
func (s *BookingSuite) TestANoShowGivesBackAllButTheFirstNight() {
	recorded, refunds := s.noShowOf(&domain.PlanTerms{NoShow: domain.NoShowKeepsFirstNight}, 20000)
	s.Require().Len(recorded, 1)
	s.Equal(db.StaffRefund{ID: db.StaffRefundID(s.input.BookingID, "no-show@2030-12-10"), BookingID: s.input.BookingID,
		Kind: db.RefundNoShow, Amount: 20000, Currency: "EUR", Reason: "nobody checked in: the rate plan keeps the first night",
		Actor: db.ActorNoShow}, recorded[0])
	s.Require().Len(refunds.inputs, 1)
	s.Equal("pi_1", refunds.inputs[0].PaymentID)
	s.Equal(int64(20000), refunds.inputs[0].Amount)
	s.Equal(48*time.Hour, refunds.at[0], "at the deadline")
	st := s.result()
	s.Equal(domain.StatusNoShow, st.Booking.Status)
	s.Equal(int64(10000), st.Booking.Paid)
}

// TestANoShowOfAPercentPlanSaysWhatItKept: the refund's reason names the percent kept.
func (s *BookingSuite) TestANoShowOfAPercentPlanSaysWhatItKept() {
	recorded, _ := s.noShowOf(&domain.PlanTerms{NoShow: domain.NoShowKeepsPercent, NoShowPercent: 30}, 21000)
	s.Require().Len(recorded, 1)
	s.Equal("nobody checked in: the rate plan keeps 30% of the price", recorded[0].Reason)
	s.Equal(int64(9000), s.result().Booking.Paid)
}

// TestANoShowKeepingEverythingRefundsNothing: nothing to give back, nothing recorded or sent.
func (s *BookingSuite) TestANoShowKeepingEverythingRefundsNothing() {
	recorded, refunds := s.noShowOf(nil, 0)
	s.Empty(recorded)
	s.Empty(refunds.inputs)
	st := s.result()
	s.Equal(domain.StatusNoShow, st.Booking.Status)
	s.Equal(int64(30000), st.Booking.Paid)
}

// TestABookingWhoseSlotWasClosedIsNeverANoShow: at its deadline the database finds one of the
// booking's slots closed (a court shut by rain, kept by the desk): nothing changes, nothing is
// refunded or charged, the no-show is not asked again (the mock answers once), and the booking
// stays CONFIRMED until its use is over, for the desk to move or refund.
func (s *BookingSuite) TestABookingWhoseSlotWasClosedIsNeverANoShow() {
	s.input.NoShowAt = s.start.Add(48 * time.Hour)
	var confirmed []domain.Payment
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	kept := s.stored(domain.StatusConfirmed)
	kept.PaymentID, kept.Paid = "pi_1", 30000
	s.env.OnActivity(s.acts.MarkNoShowUnlessClosed, mock.Anything, s.input.BookingID).Return(
		activities.NoShowOutput{Booking: kept, SlotClosed: true}, nil).Once()
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)
	st := s.result()
	s.Equal(domain.StatusConfirmed, st.Booking.Status)
	s.Equal(int64(30000), st.Booking.Paid)
	s.env.AssertNotCalled(s.T(), "StartStaffRefund", mock.Anything, mock.Anything)
}
