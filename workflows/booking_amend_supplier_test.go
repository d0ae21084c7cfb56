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

// TestAnEarlyDepartureCancelsTheNewHoldOfTheSupplierAmendmentItLapses: a supplier's booking
// waits for the balance of an amendment its supplier confirmed as a new hold
// (<booking>/amendment/a1). The guest leaves early: DepartEarly lapses the amendment in the
// database, and the workflow drops it, as lapseBalance does, but nobody tells the supplier its
// new hold is off (an early departure tells the supplier nothing, and the booking is never
// cancelled): the supplier keeps a second stay for the guest.
func (s *BookingSuite) TestAnEarlyDepartureCancelsTheNewHoldOfTheSupplierAmendmentItLapses() {
	in, b, ref, cancelled := s.resumedWithSupplierBalanceDue(0)
	left := b
	left.Status, left.CheckOut, left.BalanceDue = domain.StatusCompleted, domain.NewDate(2030, 12, 11), 0
	s.env.OnActivity(s.acts.DepartEarly, mock.Anything, mock.Anything).Return(
		activities.DepartEarlyOutput{Begun: true, Booking: left}, nil).Once()
	s.env.OnActivity(s.acts.LapseAmendment, mock.Anything, mock.Anything).Return(
		activities.AmendOutcome{Booking: left}, nil).Maybe()
	var departed workflows.BookingState
	var cancelErr error
	s.update(time.Minute, workflows.UpdateCancel, &departed, &cancelErr)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, in)

	s.NoError(cancelErr)
	s.Nil(departed.Pending, "the database lapsed the amendment with the departure")
	s.Contains(*cancelled, ref, "the lapsed amendment's new hold is left at the supplier")
}

// resumedWithSupplierBalanceDue is a confirmed, paid supplier's booking whose workflow resumes
// while an amendment the supplier confirmed as a new hold (the returned ref) waits for its
// balance, due in 10 minutes; noShowAfter (0: none) is its no-show deadline. Every hold the
// workflow cancels at the supplier is logged in cancelled.
func (s *BookingSuite) resumedWithSupplierBalanceDue(noShowAfter time.Duration) (in workflows.BookingInput, b domain.Booking,
	ref string, cancelled *[]string) {
	s.env = s.NewTestWorkflowEnvironment() // without the suite's answer that no stay has begun
	s.env.RegisterWorkflowWithOptions(workflows.BookingWorkflow, workflow.RegisterOptions{Name: workflows.BookingWorkflowName})
	s.env.RegisterActivity(s.acts)
	s.env.RegisterActivity(s.money)
	sup := &activities.Suppliers{}
	s.env.RegisterActivity(sup)
	s.start = s.env.Now()

	b = s.stored(domain.StatusConfirmed)
	b.SupplierID, b.SupplierRef = "sup", "C-1"
	b.PaymentID, b.Paid, b.BalanceDue, b.BalanceDueBy = "pi_1", 30000, 10000, s.start.Add(10*time.Minute)
	in = s.input
	in.SupplierID = "sup"
	if noShowAfter > 0 {
		in.NoShowAt = s.start.Add(noShowAfter)
	}
	ref = b.ID + "/amendment/a1"
	pending := &domain.Amendment{ID: 7, BookingID: b.ID, Status: domain.AmendmentBalanceDue, Difference: 10000,
		Currency: "EUR", DueBy: b.BalanceDueBy, SupplierHoldRef: ref, SupplierConfirmation: "C-2"}
	in.Resume = &workflows.Resume{State: workflows.BookingState{Booking: b, Reason: "resumed", Pending: pending, LastAmendment: 7}}
	cancelled = &[]string{}
	s.env.OnActivity(sup.CancelSupplierHold, mock.Anything, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _, ref string) error {
			*cancelled = append(*cancelled, ref)
			return nil
		}).Maybe()
	s.env.OnActivity(sup.CancelWithSupplier, mock.Anything, mock.Anything).Return(nil).Maybe()
	return in, b, ref, cancelled
}

// TestANoShowCancelsTheNewHoldOfTheSupplierAmendmentItLapses: as above, the no-show deadline
// passes before the balance is due: MarkNoShow gives the booking's units back and lapses the
// amendment (lapsePending), the workflow drops it (publish), and a no-show tells the supplier
// nothing: its new hold stays.
func (s *BookingSuite) TestANoShowCancelsTheNewHoldOfTheSupplierAmendmentItLapses() {
	in, b, ref, cancelled := s.resumedWithSupplierBalanceDue(5 * time.Minute)
	noShow := b
	noShow.Status, noShow.BalanceDue = domain.StatusNoShow, 0
	s.env.OnActivity(s.acts.MarkNoShowUnlessClosed, mock.Anything, b.ID).Return(activities.NoShowOutput{Booking: noShow}, nil).Once()
	s.env.OnActivity(s.acts.LapseAmendment, mock.Anything, mock.Anything).Return(
		activities.AmendOutcome{Booking: noShow}, nil).Maybe()
	after := s.queryState(6 * time.Minute)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, in)

	s.Equal(domain.StatusNoShow, after.Booking.Status)
	s.Nil(after.Pending)
	s.Contains(*cancelled, ref, "the lapsed amendment's new hold is left at the supplier")
}

// TestControlABalanceLapseCancelsTheNewHoldOfTheSupplierAmendment: the same booking left alone
// until the balance lapses: lapseBalance cancels the new hold (the mocks above are wired).
func (s *BookingSuite) TestControlABalanceLapseCancelsTheNewHoldOfTheSupplierAmendment() {
	in, b, ref, cancelled := s.resumedWithSupplierBalanceDue(0)
	s.env.OnActivity(s.acts.LapseAmendment, mock.Anything, mock.Anything).Return(
		activities.AmendOutcome{Booking: b}, nil).Once()
	after := s.queryState(11 * time.Minute)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, in)

	s.Nil(after.Pending)
	s.Equal([]string{ref}, *cancelled)
}
