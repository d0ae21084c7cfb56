package workflows_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"github.com/stretchr/testify/suite"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// BookingSuite drives the booking workflow with time skipping: a 10-minute hold takes
// milliseconds. Activities are mocked; the database behaviour behind them is tested in db/ and
// end to end in testsuite/.
type BookingSuite struct {
	suite.Suite
	testsuite.WorkflowTestSuite
	env   *testsuite.TestWorkflowEnvironment
	acts  *activities.Bookings
	money *activities.Refunds
	start time.Time
	input workflows.BookingInput

	released []activities.ReleaseInput
	releasAt []time.Duration // time since start of each release
	// resolvedRefunds are the refunds operators resolved as made by hand, as recorded.
	resolvedRefunds []activities.ResolvedRefund
	stuckEvents     []activities.PaymentStuck
	// ledgerDraws are the parts the ledger drew for a refund, by its ref (db.CancelRefundRef,
	// db.AmendmentRefundRef): none unless a test says, the booking's payment alone.
	ledgerDraws map[string][]domain.Payment
}

func TestBookingWorkflow(t *testing.T) { suite.Run(t, new(BookingSuite)) }

func (s *BookingSuite) SetupTest() {
	s.env = s.NewTestWorkflowEnvironment()
	s.env.RegisterWorkflowWithOptions(workflows.BookingWorkflow, workflow.RegisterOptions{Name: workflows.BookingWorkflowName})
	s.env.RegisterActivity(s.acts)
	s.env.RegisterActivity(s.money)
	// A cancel of a confirmed booking first asks whether the stay has begun at the hotel; in
	// these tests it has not, unless a test says otherwise.
	s.env.OnActivity(s.acts.DepartEarly, mock.Anything, mock.Anything).Return(activities.DepartEarlyOutput{}, nil).Maybe()
	// A refund an operator resolves is recorded (the tests that care look at what was recorded).
	s.resolvedRefunds = nil
	s.env.OnActivity(s.money.RecordResolvedRefund, mock.Anything, mock.Anything).Return(
		func(_ context.Context, r activities.ResolvedRefund) error {
			s.resolvedRefunds = append(s.resolvedRefunds, r)
			return nil
		}).Maybe()
	// A refund handed to an operator is told to integrators (booking.payment_stuck).
	s.stuckEvents = nil
	s.env.OnActivity(s.money.RecordPaymentStuck, mock.Anything, mock.Anything).Return(
		func(_ context.Context, p activities.PaymentStuck) error {
			s.stuckEvents = append(s.stuckEvents, p)
			return nil
		}).Maybe()
	s.ledgerDraws = map[string][]domain.Payment{}
	s.env.OnActivity(s.acts.RefundParts, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.RefundPartsInput) ([]domain.Payment, error) {
			return s.ledgerDraws[in.Ref], nil
		}).Maybe()
	s.start = s.env.Now()
	s.released, s.releasAt = nil, nil
	req := domain.HoldRequest{CustomerID: "c1", HotelID: "h1", RoomTypeID: "double",
		Stay: domain.Stay{CheckIn: domain.NewDate(2030, 12, 10), CheckOut: domain.NewDate(2030, 12, 13)}, Quantity: 1}
	s.input = workflows.BookingInput{BookingID: domain.BookingID([]byte("workflow-tests"), "c1", "c1", "k1"), IdempotencyKey: "k1",
		Request: req, HoldTTL: 10 * time.Minute, LateWindow: time.Hour, MaxRefundAttempts: 3, RefundBackoff: time.Minute}
}

// price is the snapshot every stored booking in these tests carries: 3 nights at 100.00 EUR.
var price = domain.Price{Currency: "EUR", Total: 30000, Nights: []domain.NightRate{
	{Date: domain.NewDate(2030, 12, 10), Amount: 10000}, {Date: domain.NewDate(2030, 12, 11), Amount: 10000},
	{Date: domain.NewDate(2030, 12, 12), Amount: 10000}}}

func (s *BookingSuite) AfterTest(_, _ string) { s.env.AssertExpectations(s.T()) }

// drawnByTheDatabase is staff refund r as StartStaffRefund records it: a refund asked without
// parts is drawn where the ledger drew it (ledgerDraws by its id), or on booking b's payment.
func (s *BookingSuite) drawnByTheDatabase(r db.StaffRefund, b domain.Booking) db.StaffRefund {
	if r.Parts == nil {
		r.Parts = s.ledgerDraws[r.ID]
	}
	if r.Parts == nil {
		r.Parts = []domain.Payment{{ID: b.PaymentID, Amount: r.Amount, Currency: r.Currency}}
	}
	return r
}

func (s *BookingSuite) stored(status domain.Status) domain.Booking {
	r := s.input.Request
	return domain.Booking{ID: s.input.BookingID, CustomerID: r.CustomerID, HotelID: r.HotelID,
		RoomTypeID: r.RoomTypeID, Stay: r.Stay, Quantity: r.Quantity, Status: status,
		ExpiresAt: s.start.Add(s.input.HoldTTL), Price: price}
}

// expectHold makes Reserve succeed with a hold expiring HoldTTL after the start.
func (s *BookingSuite) expectHold() {
	s.env.OnActivity(s.acts.Reserve, mock.Anything, mock.Anything).Return(s.stored(domain.StatusHold), nil).Once()
}

// expectRelease records every release and answers with the booking in the new status.
func (s *BookingSuite) expectRelease() {
	s.env.OnActivity(s.acts.Release, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.ReleaseInput) (domain.Booking, error) {
			s.released = append(s.released, in)
			s.releasAt = append(s.releasAt, s.env.Now().Sub(s.start))
			return s.stored(in.To), nil
		}).Maybe()
}

// update sends an update at a time after the start and keeps its answer.
func (s *BookingSuite) update(after time.Duration, name string, answer *workflows.BookingState, answerErr *error, args ...any) {
	s.env.RegisterDelayedCallback(func() {
		s.env.UpdateWorkflow(name, name+"-"+after.String(), &testsuite.TestUpdateCallback{
			OnAccept: func() {},
			OnReject: func(err error) { *answerErr = err },
			OnComplete: func(v any, err error) {
				if err != nil {
					*answerErr = err
					return
				}
				*answer = v.(workflows.BookingState)
			},
		}, args...)
	}, after)
}

func (s *BookingSuite) result() workflows.BookingState {
	s.Require().True(s.env.IsWorkflowCompleted())
	s.Require().NoError(s.env.GetWorkflowError())
	var st workflows.BookingState
	s.Require().NoError(s.env.GetWorkflowResult(&st))
	return st
}

func (s *BookingSuite) TestPaymentAt9m59Confirms() {
	s.expectHold()
	s.env.OnActivity(s.acts.Confirm, mock.Anything, activities.ConfirmInput{BookingID: s.input.BookingID}).Return(s.stored(domain.StatusConfirmed), nil).Once()
	s.expectRelease()
	var answer workflows.BookingState
	var answerErr error
	s.update(9*time.Minute+59*time.Second, workflows.UpdateConfirm, &answer, &answerErr)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(answerErr)
	s.Equal(domain.StatusConfirmed, answer.Booking.Status, "the confirm update answers with the outcome")
	s.Equal(domain.StatusConfirmed, s.result().Booking.Status)
	s.Empty(s.released, "a confirmed booking keeps its nights")
}

func (s *BookingSuite) TestNoPaymentExpiresAt10mAndReleases() {
	s.expectHold()
	s.expectRelease()

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.Equal(domain.StatusExpired, s.result().Booking.Status)
	s.Require().Len(s.released, 1)
	s.Equal(domain.StatusExpired, s.released[0].To)
	s.Equal(10*time.Minute, s.releasAt[0], "the release runs when the hold timer fires")
}

func (s *BookingSuite) TestALocalReservationHoldsThenExpires() {
	s.input.ReserveLocally = true
	s.expectHold()
	s.expectRelease()
	var answer workflows.BookingState
	var answerErr error
	s.update(0, workflows.UpdateHold, &answer, &answerErr, s.input.Request.Fingerprint())

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(answerErr)
	s.Equal(domain.StatusHold, answer.Booking.Status, "the hold update answers with the hold")
	s.Equal(domain.StatusExpired, s.result().Booking.Status)
	s.Require().Len(s.released, 1)
	s.Equal(10*time.Minute, s.releasAt[0])
}

func (s *BookingSuite) TestCancelDuringHoldReleases() {
	s.expectHold()
	s.expectRelease()
	var answer workflows.BookingState
	var answerErr error
	s.update(3*time.Minute, workflows.UpdateCancel, &answer, &answerErr, "guest-c1")

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(answerErr)
	s.Equal(domain.StatusCancelled, answer.Booking.Status)
	s.Equal(domain.StatusCancelled, s.result().Booking.Status)
	s.Equal([]activities.ReleaseInput{{BookingID: s.input.BookingID, To: domain.StatusCancelled, Actor: "guest-c1"}}, s.released,
		"released for the caller who asked, named in the booking's history")
	s.Equal(3*time.Minute, s.releasAt[0])
}

func (s *BookingSuite) TestRefusedReservationEndsRejected() {
	s.env.OnActivity(s.acts.Reserve, mock.Anything, mock.Anything).Return(domain.Booking{},
		temporal.NewNonRetryableApplicationError("not enough rooms", activities.ErrTypeUnavailable, nil)).Once()
	var answer workflows.BookingState
	var answerErr error
	s.update(0, workflows.UpdateHold, &answer, &answerErr, s.input.Request.Fingerprint())

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(answerErr)
	s.Equal(domain.StatusRejected, answer.Booking.Status, "the hold update learns the refusal")
	st := s.result()
	s.Equal(domain.StatusRejected, st.Booking.Status)
	s.Contains(st.Reason, "not enough rooms")
}

func (s *BookingSuite) TestAReservationSlowerThanTheAPIWaitsIsAbandoned() {
	for name, failure := range map[string]error{
		// The server ends the activity when its schedule-to-close bound passes (the test
		// environment does not enforce that bound on a slow mock, so the mock answers as the
		// server would)...
		"timed out": temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE, nil),
		// ...or with the last failure, when no further retry fits in the bound.
		"failing fast": errors.New("canceling statement due to lock timeout"),
	} {
		for _, local := range []bool{false, true} {
			s.Run(fmt.Sprintf("%s, local activity %v", name, local), func() {
				s.SetupTest()
				s.input.ReserveTimeout, s.input.ReserveLocally = 10*time.Second, local
				s.env.OnActivity(s.acts.Reserve, mock.Anything, mock.Anything).Return(domain.Booking{}, failure)
				var abandoned []activities.ReserveInput
				s.env.OnActivity(s.acts.AbandonReservation, mock.Anything, mock.Anything).Return(
					func(_ context.Context, in activities.ReserveInput) (domain.Booking, error) {
						abandoned = append(abandoned, in)
						return s.stored(domain.StatusRejected), nil
					}).Once()
				var answerErr error
				s.update(0, workflows.UpdateHold, &workflows.BookingState{}, &answerErr, s.input.Request.Fingerprint())

				s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

				var appErr *temporal.ApplicationError
				s.Require().ErrorAs(answerErr, &appErr, "the hold update says nothing is held")
				s.Equal(workflows.ErrTypeReservationAbandoned, appErr.Type())
				s.Require().Len(abandoned, 1, "the reservation is ended, not left to commit later")
				s.Equal(domain.StatusRejected, s.result().Booking.Status, "and the workflow closes")
			})
		}
	}
}

func (s *BookingSuite) TestRefusedAtTheHoldLimitClosesWithoutABooking() {
	s.env.OnActivity(s.acts.Reserve, mock.Anything, mock.Anything).Return(domain.Booking{},
		temporal.NewNonRetryableApplicationError("customer already has 5 unexpired holds", activities.ErrTypeTooManyHolds, nil)).Once()
	var answer workflows.BookingState
	var answerErr error
	s.update(0, workflows.UpdateHold, &answer, &answerErr, s.input.Request.Fingerprint())

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	var appErr *temporal.ApplicationError
	s.Require().ErrorAs(answerErr, &appErr, "the hold update answers with the refusal")
	s.Equal(workflows.ErrTypeTooManyHolds, appErr.Type())
	s.NoError(s.env.GetWorkflowError(), "a refusal is not a failure")
	st := s.result()
	s.Empty(st.Booking.Status, "nothing was held")
	s.Contains(st.Reason, "unexpired holds")
	s.Less(s.env.Now().Sub(s.start), time.Minute, "nothing to wait for: it closes at once")
}

func (s *BookingSuite) TestAPaymentForARefusedBookingIsRefunded() {
	s.env.OnActivity(s.acts.Reserve, mock.Anything, mock.Anything).Return(domain.Booking{},
		temporal.NewNonRetryableApplicationError("customer already has 5 unexpired holds", activities.ErrTypeTooManyHolds, nil)).Once()
	var refunded []activities.RefundInput
	s.env.OnActivity(s.money.RequestRefund, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.RefundInput) (activities.RefundOutcome, error) {
			refunded = append(refunded, in)
			return activities.RefundOutcome{Status: activities.RefundSucceeded}, nil
		}).Once()
	var answerErr error
	s.update(0, workflows.UpdateHold, &workflows.BookingState{}, &answerErr, s.input.Request.Fingerprint())
	s.env.RegisterDelayedCallback(func() {
		s.env.SignalWorkflow(workflows.SignalPayment, domain.PaymentEvent{EventID: "evt_x", PaymentID: "pi_x",
			BookingID: s.input.BookingID, Amount: 30000, Currency: "EUR", Succeeded: true})
	}, 0)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.Error(answerErr)
	s.Require().Len(refunded, 1, "money for a booking that was never held goes back, whole")
	s.Equal(int64(30000), refunded[0].Amount)
	s.Equal(workflows.IssueNoBooking, s.result().Issue)
}

func (s *BookingSuite) TestConfirmAfterExpiryDoesNotConfirm() {
	s.expectHold()
	s.expectRelease() // Confirm is not expected: calling it would fail the test
	var answer workflows.BookingState
	var answerErr error
	s.update(10*time.Minute+time.Second, workflows.UpdateConfirm, &answer, &answerErr)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.requireNoChange(answerErr, "EXPIRED") // a late confirm is rejected: the booking expired
	s.Equal(domain.StatusExpired, s.result().Booking.Status)
	s.Len(s.released, 1)
}

// requireNoChange asserts that an update was rejected by its validator as changing nothing,
// naming the status the booking is in.
func (s *BookingSuite) requireNoChange(err error, status string) {
	var appErr *temporal.ApplicationError
	s.Require().ErrorAs(err, &appErr)
	s.Equal(workflows.ErrTypeNoChange, appErr.Type())
	s.Contains(appErr.Message(), status)
}

func (s *BookingSuite) TestConfirmRefusedByDatabaseClockExpires() {
	s.expectHold()
	s.env.OnActivity(s.acts.Confirm, mock.Anything, mock.Anything).Return(domain.Booking{},
		temporal.NewNonRetryableApplicationError("hold expired", activities.ErrTypeConflict, nil)).Once()
	s.expectRelease()
	var answer workflows.BookingState
	var answerErr error
	s.update(9*time.Minute+59*time.Second, workflows.UpdateConfirm, &answer, &answerErr)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(answerErr)
	s.Equal(domain.StatusExpired, answer.Booking.Status, "the database's refusal decides: exactly one outcome")
	s.Equal([]activities.ReleaseInput{{BookingID: s.input.BookingID, To: domain.StatusExpired}}, s.released)
}

func (s *BookingSuite) TestCancelAfterConfirmationReleases() {
	s.expectHold()
	s.env.OnActivity(s.acts.Confirm, mock.Anything, mock.Anything).Return(s.stored(domain.StatusConfirmed), nil).Once()
	s.expectRelease()
	var confirmed, cancelled workflows.BookingState
	var err1, err2 error
	s.update(time.Minute, workflows.UpdateConfirm, &confirmed, &err1)
	s.update(2*time.Hour, workflows.UpdateCancel, &cancelled, &err2)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(errors.Join(err1, err2))
	s.Equal(domain.StatusConfirmed, confirmed.Booking.Status)
	s.Equal(domain.StatusCancelled, cancelled.Booking.Status)
	s.Equal([]activities.ReleaseInput{{BookingID: s.input.BookingID, To: domain.StatusCancelled}}, s.released)
}

func (s *BookingSuite) TestHoldUpdateRejectsAnotherRequestUnderTheSameKey() {
	s.expectHold()
	s.expectRelease()
	var rejected error
	s.env.RegisterDelayedCallback(func() {
		s.env.UpdateWorkflow(workflows.UpdateHold, "h-2", &testsuite.TestUpdateCallback{
			OnAccept:   func() { s.Fail("a different request must not be accepted") },
			OnReject:   func(err error) { rejected = err },
			OnComplete: func(any, error) {},
		}, "another-fingerprint")
	}, time.Second)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.Require().Error(rejected)
	var appErr *temporal.ApplicationError
	s.Require().ErrorAs(rejected, &appErr)
	s.Equal(workflows.ErrTypeIdempotencyMismatch, appErr.Type())
}

func (s *BookingSuite) TestQueryShowsHold() {
	s.expectHold()
	s.expectRelease()
	s.env.RegisterDelayedCallback(func() {
		v, err := s.env.QueryWorkflow(workflows.QueryState)
		s.Require().NoError(err)
		var st workflows.BookingState
		s.Require().NoError(v.Get(&st))
		s.Equal(domain.StatusHold, st.Booking.Status)
		s.WithinDuration(s.start.Add(10*time.Minute), st.Booking.ExpiresAt, 0)
	}, 5*time.Minute)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)
	s.Equal(domain.StatusExpired, s.result().Booking.Status)
}

func TestHoldUpdateFingerprintMatchesRequest(t *testing.T) {
	// The API sends Request.Fingerprint() as the hold update's argument; the same request must
	// give the same fingerprint and a changed one a different fingerprint.
	r := domain.HoldRequest{CustomerID: "c", HotelID: "h", RoomTypeID: "r", Quantity: 1,
		Stay: domain.Stay{CheckIn: domain.NewDate(2030, 1, 1), CheckOut: domain.NewDate(2030, 1, 2)}}
	r2 := r
	require.Equal(t, r.Fingerprint(), r2.Fingerprint())
	r2.Quantity = 2
	require.NotEqual(t, r.Fingerprint(), r2.Fingerprint())
}

func (s *BookingSuite) TestCancellingTheWorkflowCancelsTheBooking() {
	s.expectHold()
	s.expectRelease()
	s.env.RegisterDelayedCallback(s.env.CancelWorkflow, 5*time.Minute)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	st := s.result()
	s.Equal(domain.StatusCancelled, st.Booking.Status)
	s.Equal([]activities.ReleaseInput{{BookingID: s.input.BookingID, To: domain.StatusCancelled,
		Actor: activities.ActorOperator}}, s.released, "named as the operator's")
	s.Equal(5*time.Minute, s.releasAt[0], "released when the operator cancelled, not at expiry")
}

func (s *BookingSuite) TestCancellingTheWorkflowOfAPaidBookingRefundsIt() {
	s.expectHold()
	var confirmed []domain.Payment
	s.expectConfirmPaid(&confirmed)
	var started []activities.StartRefundInput
	s.expectRefundBooking(30000, &started)
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	s.env.RegisterDelayedCallback(s.env.CancelWorkflow, 2*time.Minute)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.Equal(domain.StatusRefunded, s.result().Booking.Status, "the refund saga ran to the end despite the cancellation")
	s.Len(refunds.inputs, 1)
}

func (s *BookingSuite) TestAStayThatIsOverIsNotCancelled() {
	s.expectHold()
	s.env.OnActivity(s.acts.Confirm, mock.Anything, mock.Anything).Return(s.stored(domain.StatusConfirmed), nil).Once()
	s.expectRelease() // must not be called
	var confirmed, cancelled workflows.BookingState
	var err1, err2 error
	s.update(time.Minute, workflows.UpdateConfirm, &confirmed, &err1)
	stayOver := s.input.Request.CheckOut.AddDays(1).Time().Sub(s.start)
	s.update(stayOver+10*time.Minute, workflows.UpdateCancel, &cancelled, &err2)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(err1)
	s.requireNoChange(err2, "CONFIRMED") // the guest stayed: nothing to cancel
	s.Empty(s.released)
}

func (s *BookingSuite) TestUpdatesThatWouldChangeNothingAreRejected() {
	s.expectHold()
	s.expectRelease()
	var errs [4]error
	s.update(time.Minute, workflows.UpdateCancel, &workflows.BookingState{}, &errs[0])
	s.update(2*time.Minute, workflows.UpdateCancel, &workflows.BookingState{}, &errs[1])
	s.update(3*time.Minute, workflows.UpdateConfirm, &workflows.BookingState{}, &errs[2])
	s.update(4*time.Minute, workflows.UpdateHold, &workflows.BookingState{}, &errs[3], s.input.Request.Fingerprint())

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(errs[0], "the first cancel cancels")
	s.requireNoChange(errs[1], "CANCELLED")
	s.requireNoChange(errs[2], "CANCELLED")
	s.requireNoChange(errs[3], "CANCELLED") // a repeated hold: the API answers from the database
	s.Len(s.released, 1)
}

// abandonedWithAPayment scripts an abandoned reservation whose hold had committed (released as
// EXPIRED) and a payment for it that is queued while the workflow closes.
func (s *BookingSuite) abandonedWithAPayment() {
	s.input.ReserveTimeout = 10 * time.Second
	s.env.OnActivity(s.acts.Reserve, mock.Anything, mock.Anything).Return(domain.Booking{},
		temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE, nil))
	s.env.OnActivity(s.acts.AbandonReservation, mock.Anything, mock.Anything).Return(s.stored(domain.StatusExpired), nil).Once()
	s.update(0, workflows.UpdateHold, &workflows.BookingState{}, new(error), s.input.Request.Fingerprint())
	s.signal(0, workflows.SignalPayment, s.paid("pi_1", 30000))
}

func (s *BookingSuite) TestALatePaymentThatRetakesAnAbandonedHoldKeepsItsWorkflow() {
	s.abandonedWithAPayment()
	s.env.OnActivity(s.acts.Retake, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.RetakeInput) (domain.Booking, error) {
			b := s.stored(domain.StatusConfirmed)
			b.PaymentID, b.Paid = in.Payment.ID, in.Payment.Amount
			return b, nil
		}).Once()
	cancelled := false
	s.env.OnActivity(s.acts.StartRefund, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.StartRefundInput) (domain.Booking, error) {
			cancelled = true
			b := s.stored(domain.StatusRefunding)
			b.PaymentID, b.Paid, b.RefundDue = "pi_1", 30000, 30000
			return b, nil
		}).Once()
	done := s.stored(domain.StatusRefunded)
	s.env.OnActivity(s.acts.FinishRefund, mock.Anything, s.input.BookingID).Return(done, nil).Once()
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	var cancelErr error
	s.update(time.Hour, workflows.UpdateCancel, &workflows.BookingState{}, &cancelErr)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(cancelErr)
	s.True(cancelled, "the confirmed booking still has a workflow to cancel it an hour later")
	s.Equal(domain.StatusRefunded, s.result().Booking.Status)
}

func (s *BookingSuite) TestARefundStartedForAnAbandonedHoldsPaymentIsFinished() {
	s.abandonedWithAPayment()
	s.env.OnActivity(s.acts.Retake, mock.Anything, mock.Anything).Return(domain.Booking{},
		temporal.NewNonRetryableApplicationError("sold", activities.ErrTypeUnavailable, nil)).Once()
	var started []activities.StartRefundInput
	s.expectRefundBooking(30000, &started)
	var refunds refundLog
	s.expectRefunds(&refunds, activities.RefundFailed, activities.RefundSucceeded)

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.Equal(domain.StatusRefunded, s.result().Booking.Status, "the refund saga runs to its end")
	s.Len(refunds.inputs, 2)
}
