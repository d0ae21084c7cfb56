package workflows_test

import (
	"context"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// TestAPendingAmendmentIsHandedOverAndLapsesInTheNextRun: a run that continues as new while an
// amendment waits for its balance hands it over; the next run lapses it when its window ends.
func (s *BookingSuite) TestAPendingAmendmentIsHandedOverAndLapsesInTheNextRun() {
	var confirmed []domain.Payment
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	pending := s.expectBalanceDue(2 * time.Minute)
	var answer workflows.AmendAnswer
	var answerErr error
	s.amendAt(2*time.Minute, "a1", oneMoreNight, &answer, &answerErr)
	s.suggestContinueAsNew(3 * time.Minute)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	next := s.continuedWith()
	s.Require().NotNil(next.Resume.State.Pending)
	s.Equal(pending.ID, next.Resume.State.Pending.ID)

	s.nextRun()
	var lapsed int
	s.env.OnActivity(s.acts.LapseAmendment, mock.Anything, mock.Anything).Return(
		func(context.Context, activities.LapseAmendmentInput) (activities.AmendOutcome, error) {
			lapsed++
			b := s.stored(domain.StatusConfirmed)
			b.PaymentID, b.Paid = "pi_1", 30000
			return activities.AmendOutcome{Booking: b}, nil
		}).Once()
	after := s.queryState(20 * time.Minute)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, next)

	s.Equal(1, lapsed)
	s.Nil(after.Pending)
}
