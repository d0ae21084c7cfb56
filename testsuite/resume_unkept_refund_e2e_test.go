package testsuite_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestAResumedBookingGivesBackTheSecondPaymentItsLostWorkflowWasGivingBack: the guest pays a
// confirmed booking a second time; the provider declines its refund three times (the refund waits
// for an operator) and the booking's workflow is lost. The checker resumes the booking, and the
// provider would now pay: the second payment, which the booking does not keep, is given back. (It
// is not: a resumed run restarts the staff and amendment refunds its lost workflow owed, not the
// refund of a payment no booking keeps, which only its saga knew. Nothing in the resumed run waits
// for an operator, and the checker reports it an hour later as an unmatched payment. Found while
// building TestMoneyStoriesThroughTheWorkflows, whose workflowLost command leaves this state out.)
func TestAResumedBookingGivesBackTheSecondPaymentItsLostWorkflowWasGivingBack(t *testing.T) {
	t.Parallel()
	provider := decliningProvider()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-resume-extra", "double", stay, 1)
	id, total := holdRoom(t, sys, "h-resume-extra", "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_first", "pi_first")
	res := sys.Webhook(t, testsuite.PaymentEvent("evt_second", "pi_second", id, total, "EUR"), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool { return stuckState(t, sys, id) }, 30*time.Second, 100*time.Millisecond,
		"the second payment's refund waits for an operator")
	require.NoError(t, sys.Temporal.TerminateWorkflow(context.Background(), id, "", "lost"))
	provider.SetAnswer(nil) // from now on the provider pays
	require.Eventually(t, func() bool {
		_, found := findingsOf(runChecks(t, sys, activities.CheckInput{}), id)[domain.CheckNoWorkflow]
		return found
	}, time.Minute, 250*time.Millisecond, "the checker finds the booking without its workflow")
	require.Contains(t, findingsOf(runChecks(t, sys, activities.CheckInput{Repair: true}), id)[domain.CheckNoWorkflow].Repaired, "resumed")

	assert.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = 'pi_second' AND status = 'succeeded'`) == 1
	}, 20*time.Second, 100*time.Millisecond, "the second payment is never given back: %v", refundRows(t, sys, id))
	assert.Empty(t, findingsOf(runChecks(t, sys, activities.CheckInput{UnmatchedAge: time.Nanosecond}), id), "clean after")
}
