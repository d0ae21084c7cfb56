package workflows_test

import (
	"context"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// TestABookingExcusedThenMovedCanStillBeANoShow (review of issue 39): at its deadline one of the
// booking's slots is closed, so it is excused, as issue 39 asks; the desk then moves it (the
// amendment the closure's refusal offers) to a slot that is open, with a new no-show deadline.
// Nobody comes to the new slot: past its deadline it is a no-show. The workflow's excused flag
// outlives the move, so the new deadline is never watched.
func (s *BookingSuite) TestABookingExcusedThenMovedCanStillBeANoShow() {
	s.input.NoShowAt = s.start.Add(48 * time.Hour)
	var confirmed []domain.Payment
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	kept := s.stored(domain.StatusConfirmed)
	kept.PaymentID, kept.Paid = "pi_1", 30000
	s.env.OnActivity(s.acts.MarkNoShowUnlessClosed, mock.Anything, s.input.BookingID).Return(
		activities.NoShowOutput{Booking: kept, SlotClosed: true}, nil).Once()
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	moved := domain.Amendment{ID: 9, BookingID: s.input.BookingID, Status: domain.AmendmentApplied, Currency: "EUR"}
	s.env.OnActivity(s.acts.Amend, mock.Anything, mock.Anything).Return(activities.AmendOutcome{Amendment: moved,
		Booking: kept, NoShowAt: s.start.Add(96 * time.Hour)}, nil).Once()
	var answer workflows.AmendAnswer
	var answerErr error
	s.amendAt(50*time.Hour, "move", domain.Change{CheckOut: domain.NewDate(2030, 12, 12)}, &answer, &answerErr)
	noShow := s.stored(domain.StatusNoShow)
	noShow.PaymentID, noShow.Paid = "pi_1", 30000
	var secondAt time.Duration
	s.env.OnActivity(s.acts.MarkNoShowUnlessClosed, mock.Anything, s.input.BookingID).Return(
		func(context.Context, string) (activities.NoShowOutput, error) {
			secondAt = s.env.Now().Sub(s.start)
			return activities.NoShowOutput{Booking: noShow}, nil
		}).Maybe()

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(answerErr)
	s.Equal(domain.AmendmentApplied, answer.Amendment.Status)
	s.Equal(96*time.Hour, secondAt, "the moved booking's new deadline is watched")
	s.Equal(domain.StatusNoShow, s.result().Booking.Status)
}
