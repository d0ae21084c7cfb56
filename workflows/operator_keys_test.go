package workflows_test

import (
	"context"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// expectOperatorKeys makes ClaimOperatorKey claim keys in a key space of its own: a key is the
// first claim's (its activity retried is fresh again); the same action from another claim is not
// fresh, another command under it is refused.
func (s *BookingSuite) expectOperatorKeys(claimed *[]activities.OperatorKeyClaim) {
	held := map[string]activities.OperatorKeyClaim{}
	s.env.OnActivity(s.acts.ClaimOperatorKey, mock.Anything, mock.Anything).Return(
		func(_ context.Context, c activities.OperatorKeyClaim) (bool, error) {
			*claimed = append(*claimed, c)
			first, ok := held[c.Command.Key]
			switch {
			case !ok:
				held[c.Command.Key] = c
				return true, nil
			case first.Command.Kind == c.Command.Kind:
				return first.Claimer == c.Claimer, nil
			}
			return false, temporal.NewNonRetryableApplicationError("key used for another command",
				activities.ErrTypeIdempotencyMismatch, nil)
		}).Maybe()
}

// An operator's action under an Idempotency-Key claims it in the booking's key space before it is
// taken: a retry under a key a resolution holds is refused (the refund stays stuck, nothing is
// sent); the same retry under its own key again, once the refund is stuck anew, is answered as the
// first and takes nothing (still stuck, no attempt sent); a resolution under a new key ends it.
func (s *BookingSuite) TestAnOperatorsKeyIsTheBookingsOnce() {
	failed := activities.RefundFailed
	refunds := &s.paidThenCancelled(30000, failed, failed, failed, failed, failed, failed).refunds
	var claimed []activities.OperatorKeyClaim
	s.expectOperatorKeys(&claimed)
	retry := func(key string) workflows.OperatorAction {
		return workflows.OperatorAction{Actor: "ops", Reason: "card fixed", Key: key}
	}
	var first, again, other workflows.BookingState
	var firstErr, againErr, otherErr, resolveErr error
	var resolved workflows.BookingState
	s.update(2*time.Hour, workflows.UpdateRetryRefund, &first, &firstErr, retry("k1"))
	s.update(4*time.Hour, workflows.UpdateRetryRefund, &again, &againErr, retry("k1"))
	stillStuck := s.queryState(4*time.Hour + time.Minute)
	s.update(5*time.Hour, workflows.UpdateResolveRefund, &other, &otherErr,
		workflows.OperatorAction{Actor: "ops", Reason: "paid by bank transfer", Key: "k1"})
	s.update(6*time.Hour, workflows.UpdateResolveRefund, &resolved, &resolveErr,
		workflows.OperatorAction{Actor: "ops", Reason: "paid by bank transfer", Key: "k2"})

	s.env.ExecuteWorkflow(workflows.BookingWorkflowName, s.input)

	s.NoError(firstErr)
	var appErr *temporal.ApplicationError
	s.Require().ErrorAs(againErr, &appErr, "the same retry again")
	s.Equal(workflows.ErrTypeActionTaken, appErr.Type())
	s.True(stillStuck.Stuck, "and takes nothing: the refund is still stuck")
	s.Require().ErrorAs(otherErr, &appErr, "a resolution under the retry's key")
	s.Equal(activities.ErrTypeIdempotencyMismatch, appErr.Type())
	s.NoError(resolveErr)
	s.Len(refunds.inputs, 6, "three attempts, the retry's three, none for the repeated retry or the refused resolution")
	s.Equal(domain.StatusRefunded, s.result().Booking.Status)
	s.Equal(db.OperatorCommand(s.input.BookingID, "k2", true, "ops"), claimed[len(claimed)-1].Command)
}
