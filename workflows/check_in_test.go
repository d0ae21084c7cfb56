package workflows_test

import (
	"context"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// TestNobodyCheckedInIsANoShowAtTheDeadline: confirmed and never checked in, the booking is a
// no-show when its deadline passes, not before; the workflow then closes after its late window.
func (s *BookingSuite) TestNobodyCheckedInIsANoShowAtTheDeadline() {
	s.input.NoShowAt = s.start.Add(48 * time.Hour)
	s.expectHold()
	s.env.OnActivity(s.acts.Confirm, mock.Anything, mock.Anything).Return(s.stored(domain.StatusConfirmed), nil).Once()
	var noShowAt time.Duration
	s.env.OnActivity(s.acts.MarkNoShowUnlessClosed, mock.Anything, s.input.BookingID).Return(func(_ context.Context, _ string) (activities.NoShowOutput, error) {
		noShowAt = s.env.Now().Sub(s.start)
		return activities.NoShowOutput{Booking: s.stored(domain.StatusNoShow)}, nil
	}).Once()
	var confirmed workflows.BookingState
	var err error
	s.update(time.Minute, workflows.UpdateConfirm, &confirmed, &err)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(err)
	s.Equal(domain.StatusNoShow, s.result().Booking.Status)
	s.Equal(48*time.Hour, noShowAt, "at the deadline")
}

// TestACheckedInBookingIsNeverANoShow: checked in before the deadline, the booking is COMPLETED
// and stays so; a second check-in is rejected by the validator (it would change nothing).
func (s *BookingSuite) TestACheckedInBookingIsNeverANoShow() {
	s.input.NoShowAt = s.start.Add(48 * time.Hour)
	s.expectHold()
	s.env.OnActivity(s.acts.Confirm, mock.Anything, mock.Anything).Return(s.stored(domain.StatusConfirmed), nil).Once()
	s.env.OnActivity(s.acts.CheckIn, mock.Anything, s.input.BookingID, mock.Anything).Return(s.stored(domain.StatusCompleted), nil).Once()
	var confirmed, checkedIn, again workflows.BookingState
	var err1, err2, err3 error
	s.update(time.Minute, workflows.UpdateConfirm, &confirmed, &err1)
	s.update(30*time.Hour, workflows.UpdateCheckIn, &checkedIn, &err2)
	s.update(31*time.Hour, workflows.UpdateCheckIn, &again, &err3)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(err1)
	s.NoError(err2)
	s.Equal(domain.StatusCompleted, checkedIn.Booking.Status)
	s.ErrorContains(err3, "only a confirmed booking is checked in")
	s.Equal(domain.StatusCompleted, s.result().Booking.Status)
}

// TestAnEarlyDepartureIsNeverANoShow: a guest who left early stayed; the no-show deadline that
// follows changes nothing.
func (s *BookingSuite) TestAnEarlyDepartureIsNeverANoShow() {
	// A fresh environment: the suite's answers that no stay has begun.
	s.env = s.NewTestWorkflowEnvironment()
	s.env.RegisterWorkflowWithOptions(workflows.BookingWorkflow, workflow.RegisterOptions{Name: workflows.BookingWorkflowName})
	s.env.RegisterActivity(s.acts)
	s.env.RegisterActivity(s.money)
	s.start = s.env.Now()
	s.input.NoShowAt = s.start.Add(48 * time.Hour)
	s.expectHold()
	s.env.OnActivity(s.acts.Confirm, mock.Anything, mock.Anything).Return(s.stored(domain.StatusConfirmed), nil).Once()
	s.env.OnActivity(s.acts.DepartEarly, mock.Anything, mock.Anything).Return(
		activities.DepartEarlyOutput{Begun: true, Booking: s.stored(domain.StatusConfirmed)}, nil).Once()
	var confirmed, departed workflows.BookingState
	var err1, err2 error
	s.update(time.Minute, workflows.UpdateConfirm, &confirmed, &err1)
	s.update(30*time.Hour, workflows.UpdateCancel, &departed, &err2)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(err1)
	s.NoError(err2)
	s.Equal(domain.StatusConfirmed, s.result().Booking.Status, "no NoShow activity ran (the mock would fail it)")
}

// TestWithoutADeadlineThereIsNoNoShow: a booking started before no-shows existed (no deadline)
// stays CONFIRMED to the end of its stay.
func (s *BookingSuite) TestWithoutADeadlineThereIsNoNoShow() {
	s.expectHold()
	s.env.OnActivity(s.acts.Confirm, mock.Anything, mock.Anything).Return(s.stored(domain.StatusConfirmed), nil).Once()
	var confirmed workflows.BookingState
	var err error
	s.update(time.Minute, workflows.UpdateConfirm, &confirmed, &err)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(err)
	s.Equal(domain.StatusConfirmed, s.result().Booking.Status)
}
