package workflows_test

import (
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// A no-show marked by hand (UpdateNoShow, issue 39): the desk takes the deadline's step early.

// checkInToday makes the suite's stay begin today (UTC, the stored bookings' time zone), so the
// desk may mark it a no-show.
func (s *BookingSuite) checkInToday() {
	today := domain.DateOf(s.start, time.UTC)
	s.input.Request.Stay = domain.Stay{CheckIn: today, CheckOut: today.AddDays(3)}
}

// TestTheDeskMarksANoShowAndTheTimerDoesNothing: marked by hand two hours in, the booking takes
// the deadline's step then (MarkNoShowUnlessClosed, once: the mock refuses a second call), with
// the deadline's refund under the same key, kind and actor; the deadline at 48:00 does nothing more.
func (s *BookingSuite) TestTheDeskMarksANoShowAndTheTimerDoesNothing() {
	s.checkInToday()
	recorded, refunds := s.scriptNoShow(&domain.PlanTerms{NoShow: domain.NoShowKeepsFirstNight}, 20000)
	var marked workflows.BookingState
	var err error
	s.update(2*time.Hour, workflows.UpdateNoShow, &marked, &err, "desk-1")

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.Require().NoError(err)
	s.Equal(domain.StatusNoShow, marked.Booking.Status)
	s.Equal("nobody checked in: the desk marked it a no-show", marked.Reason)
	s.Require().Len(*recorded, 1)
	s.Equal(db.StaffRefund{ID: db.StaffRefundID(s.input.BookingID, "no-show@"+s.input.Request.CheckIn.String()),
		BookingID: s.input.BookingID, Kind: db.RefundNoShow, Amount: 20000, Currency: "EUR",
		Reason: "nobody checked in: the rate plan keeps the first night", Actor: db.ActorNoShow}, (*recorded)[0])
	s.Require().Len(refunds.at, 1)
	s.Equal(2*time.Hour, refunds.at[0], "when the desk marked it, not at the deadline")
	st := s.result()
	s.Equal(domain.StatusNoShow, st.Booking.Status)
	s.Equal(int64(10000), st.Booking.Paid)
}

// TestANoShowByHandBeforeTheStayBeginsIsTooEarly: before the check-in date at the hotel the
// validator refuses (ErrTypeTooEarly) and nothing changes; the deadline still marks it.
func (s *BookingSuite) TestANoShowByHandBeforeTheStayBeginsIsTooEarly() {
	recorded, _ := s.scriptNoShow(&domain.PlanTerms{NoShow: domain.NoShowKeepsFirstNight}, 20000)
	var marked workflows.BookingState
	var err error
	s.update(2*time.Hour, workflows.UpdateNoShow, &marked, &err, "desk-1")

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.Require().Error(err)
	s.ErrorContains(err, "has not started")
	s.Require().Len(*recorded, 1, "the deadline's refund")
	s.Equal(domain.StatusNoShow, s.result().Booking.Status)
}

// TestACheckedInBookingIsNotMarkedANoShowByHand: the validator refuses it as changing nothing.
func (s *BookingSuite) TestACheckedInBookingIsNotMarkedANoShowByHand() {
	s.checkInToday()
	s.input.NoShowAt = s.start.Add(48 * time.Hour)
	s.expectHold()
	s.env.OnActivity(s.acts.Confirm, mock.Anything, mock.Anything).Return(s.stored(domain.StatusConfirmed), nil).Once()
	s.env.OnActivity(s.acts.CheckIn, mock.Anything, s.input.BookingID, mock.Anything).Return(s.stored(domain.StatusCompleted), nil).Once()
	var confirmed, checkedIn, marked workflows.BookingState
	var err1, err2, err3 error
	s.update(time.Minute, workflows.UpdateConfirm, &confirmed, &err1)
	s.update(time.Hour, workflows.UpdateCheckIn, &checkedIn, &err2)
	s.update(2*time.Hour, workflows.UpdateNoShow, &marked, &err3, "desk-1")

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(err1)
	s.NoError(err2)
	s.ErrorContains(err3, "only a confirmed booking nobody checked in is marked a no-show")
	s.Equal(domain.StatusCompleted, s.result().Booking.Status)
}
