package workflows_test

import (
	"context"
	"errors"
	"reflect"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// keySpace is the booking's key space (db.MoneyCommand) in memory, by key: MoneyCommandSeen
// answers from it and StartCancelRefund claims in it, as the store does.
type keySpace map[string]db.MoneyCommand

// answer is MoneyCommandSeen's answer for c.
func (k keySpace) answer(c db.MoneyCommand) (bool, error) {
	held, ok := k[c.Key]
	switch {
	case !ok:
		return false, nil
	case held.Kind == c.Kind && reflect.DeepEqual(held.Body, c.Body):
		return true, nil
	}
	return false, temporal.NewNonRetryableApplicationError("key "+c.Key+" holds another command",
		activities.ErrTypeIdempotencyMismatch, nil)
}

// expectKeySpace answers MoneyCommandSeen from a key space the test may fill.
func (s *BookingSuite) expectKeySpace() keySpace {
	keys := keySpace{}
	s.env.OnActivity(s.acts.MoneyCommandSeen, mock.Anything, mock.Anything).Return(
		func(_ context.Context, c db.MoneyCommand) (bool, error) { return keys.answer(c) }).Maybe()
	return keys
}

// expectCancelUnderKey makes StartCancelRefund claim its key in keys and mark the booking
// REFUNDING with what staff decided (the same cancel again: the booking as it is), and
// FinishRefund mark it REFUNDED.
func (s *BookingSuite) expectCancelUnderKey(keys keySpace, started *[]activities.CancelRefundInput) {
	b := s.stored(domain.StatusRefunding)
	b.PaymentID, b.Paid = "pi_1", 30000
	s.env.OnActivity(s.acts.StartCancelRefund, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.CancelRefundInput) (domain.Booking, error) {
			if seen, err := keys.answer(in.Command); err != nil || seen {
				return b, err
			}
			keys[in.Command.Key] = in.Command
			*started = append(*started, in)
			b.RefundDue = in.Amount
			return b, nil
		}).Maybe()
	s.env.OnActivity(s.acts.FinishRefund, mock.Anything, s.input.BookingID).Return(
		func(context.Context, string) (domain.Booking, error) {
			done := b
			done.Status = domain.StatusRefunded
			return done, nil
		}).Maybe()
}

// TestACancelWithARefundUnderAnotherCommandsKeyIsRefusedBeforeTheBookingIsJudged is defect 2 in
// the workflow: a 50.00 goodwill refund spent key K; K sent again with releaseUnits and 200.00 is
// the database's refusal (422), and the booking is neither cancelled nor refunded. The same cancel
// retried under its own key C answers as the first did, and C with another amount is refused.
func (s *BookingSuite) TestACancelWithARefundUnderAnotherCommandsKeyIsRefusedBeforeTheBookingIsJudged() {
	var confirmed []domain.Payment
	var started []activities.CancelRefundInput
	var refunds refundLog
	s.expectHold()
	s.expectConfirmPaid(&confirmed)
	keys := s.expectKeySpace()
	keys["K"] = workflows.MoneyRequest{Kind: workflows.MoneyRefund, Actor: "finance", Key: "K", Amount: 5000,
		Currency: "EUR"}.Command(s.input.BookingID)
	s.expectCancelUnderKey(keys, &started)
	s.expectRefunds(&refunds, activities.RefundSucceeded)
	s.signal(time.Minute, workflows.SignalPayment, s.paid("pi_1", 30000))
	cancelWith := func(key string, amount int64) workflows.MoneyRequest {
		return workflows.MoneyRequest{Kind: workflows.MoneyRefund, Actor: "finance", Key: key, Amount: amount,
			Currency: "EUR", Reason: "the guest cancels", ReleaseUnits: true}
	}
	var spent, first, again, other workflows.BookingState
	var spentErr, firstErr, againErr, otherErr error
	s.update(2*time.Minute, workflows.UpdateMoney, &spent, &spentErr, cancelWith("K", 20000))
	s.update(3*time.Minute, workflows.UpdateMoney, &first, &firstErr, cancelWith("C", 20000))
	s.update(4*time.Minute, workflows.UpdateMoney, &again, &againErr, cancelWith("C", 20000))
	s.update(5*time.Minute, workflows.UpdateMoney, &other, &otherErr, cancelWith("C", 25000))

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	var appErr *temporal.ApplicationError
	s.Require().True(errors.As(spentErr, &appErr), "the goodwill refund's key, sent to cancel: %v", spentErr)
	s.Equal(activities.ErrTypeIdempotencyMismatch, appErr.Type())
	s.Require().NoError(firstErr)
	s.NoError(againErr, "the same cancel again: the first one's answer")
	s.Contains([]domain.Status{domain.StatusRefunding, domain.StatusRefunded}, again.Booking.Status, "the booking as it is")
	s.Require().True(errors.As(otherErr, &appErr), "another amount under the cancel's key: %v", otherErr)
	s.Equal(activities.ErrTypeIdempotencyMismatch, appErr.Type())
	s.Require().Len(started, 1, "one cancel moved money")
	s.Equal(int64(20000), started[0].Amount)
	s.Equal(int64(20000), refundedFrom(&refunds)["pi_1"], "200.00 went back, once")
}
