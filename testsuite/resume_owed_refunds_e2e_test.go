package testsuite_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/testsuite"
)

// Money a lost workflow had not given back (issue 34, defects 1 and 8): what is owed is read
// from the refunds that succeeded (an operator's resolution too), never from attempt numbers,
// and the checker finds it, whatever the booking's status.

// findingsOf are the findings of report about booking id, by check.
func findingsOf(report domain.CheckReport, id string) map[string]domain.Finding {
	out := map[string]domain.Finding{}
	for _, f := range report.Findings {
		if f.BookingID == id {
			out[f.Check] = f
		}
	}
	return out
}

// declineRefunds makes the provider decline every refund until told otherwise.
func declineRefunds(p *testsuite.ScriptedProvider) {
	p.SetAnswer(func(int, payments.RefundRequest) (payments.Refund, error) {
		return payments.Refund{}, fmt.Errorf("%w: insufficient balance", payments.ErrDeclined)
	})
}

// TestAGoodwillRefundResolvedByHandIsNotPaidAgainWhenTheCheckerResumesTheBooking: a goodwill
// refund is declined three times, an operator resolves it as made by hand (attempt 0 recorded
// succeeded), and the booking's workflow is lost. The checker resumes the booking: the resumed
// workflow asks the provider nothing (before, attempt 3 failed was read as owed, and attempt 4
// gave the 50.00 back a second time).
func TestAGoodwillRefundResolvedByHandIsNotPaidAgainWhenTheCheckerResumesTheBooking(t *testing.T) {
	t.Parallel()
	provider := decliningProvider()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider, RefundBackoff: 50 * time.Millisecond})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-resolved", "double", stay, 1)
	id, total := holdRoom(t, sys, "h-resolved", "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_resolved_"+sys.ID, "pi_resolved_"+sys.ID)
	finance := sys.As(t, domain.Principal{Subject: "fin-" + sys.ID, Roles: []domain.Role{domain.RoleFinance}})
	res := finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("goodwill"),
		map[string]any{"amount": 5000, "currency": "EUR", "reason": "the air conditioning broke"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool { return stuckState(t, sys, id) }, 30*time.Second, 100*time.Millisecond)
	require.Len(t, provider.Requests(), 3, "declined three times")
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refund/resolve", nil,
		map[string]any{"reason": "refunded by bank transfer TR-77"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitRefunded(t, sys, id, 5000)

	provider.SetAnswer(nil) // from now on the provider would pay
	require.NoError(t, sys.Temporal.TerminateWorkflow(context.Background(), id, "", "lost"))
	require.Eventually(t, func() bool {
		_, found := findingsOf(runChecks(t, sys, activities.CheckInput{}), id)[domain.CheckNoWorkflow]
		return found
	}, time.Minute, 250*time.Millisecond, "the checker finds the booking without its workflow")
	resumed := findingsOf(runChecks(t, sys, activities.CheckInput{Repair: true}), id)[domain.CheckNoWorkflow]
	require.Contains(t, resumed.Repaired, "resumed")

	assert.Never(t, func() bool { return len(provider.Requests()) > 3 }, 5*time.Second, 100*time.Millisecond,
		"the resumed workflow sent the refund resolved by hand to the provider again")
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND status = 'succeeded'`, id),
		"given back once, by hand")
	assert.Equal(t, float64(5000), moneyOf(t, sys, id)["refunded"])
	assert.Empty(t, findingsOf(runChecks(t, sys, activities.CheckInput{Repair: true}), id), "clean after")
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "goodwill-resolved-resumed")
}

// TestANoShowsStaffRefundLostWithItsWorkflowIsFoundAndGivenBack: a no-show's staff refund lowers
// what it keeps, the provider declines it, and the booking's workflow is lost. The checker
// reports the money nobody gives back (before, no check did), and finance's resume, refused for a
// no-show before, gives it back through the booking's StaffRefund workflow; clean after.
func TestANoShowsStaffRefundLostWithItsWorkflowIsFoundAndGivenBack(t *testing.T) {
	t.Parallel()
	sys, provider, id, _ := paidNoShow(t, "v-lost-refund", 10*time.Minute, func(int) bool { return false })
	declineRefunds(provider)
	finance := sys.As(t, domain.Principal{Subject: "fin-" + sys.ID, Roles: []domain.Role{domain.RoleFinance}})
	res := finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("ill"),
		map[string]any{"amount": 500, "currency": "EUR", "reason": "a quarter back: the guest was ill"})
	require.Equal(t, http.StatusOK, res.Status, "in its late window, by its own workflow: %s", res.Raw)
	assert.Equal(t, "NO_SHOW", res.Body["status"])
	require.Eventually(t, func() bool { return stuckState(t, sys, id) }, 30*time.Second, 100*time.Millisecond,
		"the provider declined it until it was stuck")
	require.NoError(t, sys.Temporal.TerminateWorkflow(context.Background(), id, "", "lost"))
	provider.SetAnswer(nil)
	declined := len(provider.Requests())

	var owed domain.Finding
	require.Eventually(t, func() bool {
		var found bool
		owed, found = findingsOf(runChecks(t, sys, activities.CheckInput{}), id)[domain.CheckRefundOwed]
		return found
	}, 20*time.Second, 250*time.Millisecond, "no check reports the 5.00 nobody gives back")
	assert.Contains(t, owed.Detail, "500 EUR")
	assert.Contains(t, owed.Detail, "/resume")
	assert.Empty(t, owed.Repaired)

	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/resume", nil, map[string]any{"reason": "its workflow was lost"})
	require.Equal(t, http.StatusAccepted, res.Status, "a no-show's owed refund is given back: %s", res.Raw)
	assert.Equal(t, domain.StaffRefundWorkflowID(id), res.Body["workflowId"])
	assert.Equal(t, "NO_SHOW", res.Body["status"])
	awaitRefunded(t, sys, id, 500)
	require.Eventually(t, func() bool { return workflowClosed(t, sys, domain.StaffRefundWorkflowID(id)) },
		20*time.Second, 100*time.Millisecond, "the StaffRefund run gives it and closes")
	assert.Len(t, provider.Requests(), declined+1, "asked once more")
	assert.Equal(t, "NO_SHOW", bookingStatus(t, sys, id))
	assert.Empty(t, findingsOf(runChecks(t, sys, activities.CheckInput{Repair: true}), id), "clean after")
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/resume", nil, map[string]any{"reason": "again"})
	assert.Equal(t, http.StatusConflict, res.Status, "nothing is owed any more: %s", res.Raw)
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, domain.StaffRefundWorkflowID(id), "no-show-staff-refund-given-back")
}

// TestTheCheckerGivesBackAStaffRefundWhoseStaffRefundWorkflowWasLost: a no-show's workflow has
// closed; the refund staff give the next day runs in its StaffRefund workflow, which is lost
// after the provider declined it. The checker gives it back, audited, in a new StaffRefund run.
func TestTheCheckerGivesBackAStaffRefundWhoseStaffRefundWorkflowWasLost(t *testing.T) {
	t.Parallel()
	sys, provider, id, _ := paidNoShow(t, "v-lost-staff-refund", time.Second, func(int) bool { return false })
	require.Eventually(t, func() bool { return workflowClosed(t, sys, id) }, 30*time.Second, 100*time.Millisecond)
	declineRefunds(provider)
	finance := sys.As(t, domain.Principal{Subject: "fin-" + sys.ID, Roles: []domain.Role{domain.RoleFinance}})
	res := finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("next-day"),
		map[string]any{"amount": 800, "currency": "EUR", "reason": "the guest was in hospital"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	staffRefund := domain.StaffRefundWorkflowID(id)
	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND status = 'failed'`, id) == 1
	}, 20*time.Second, 50*time.Millisecond, "the provider declined it")
	require.NoError(t, sys.Temporal.TerminateWorkflow(context.Background(), staffRefund, "", "lost"))
	provider.SetAnswer(nil)

	report := runChecks(t, sys, activities.CheckInput{Repair: true})
	owed, found := findingsOf(report, id)[domain.CheckRefundOwed]
	require.True(t, found, "%+v", report.Findings)
	assert.Equal(t, "given back in workflow "+staffRefund, owed.Repaired)
	awaitRefunded(t, sys, id, 800)
	require.Eventually(t, func() bool { return workflowClosed(t, sys, staffRefund) }, 20*time.Second, 100*time.Millisecond)
	assert.Len(t, provider.Requests(), 2, "declined once, then given")
	assert.Empty(t, findingsOf(runChecks(t, sys, activities.CheckInput{Repair: true}), id), "repaired once, clean after")
	entries := sys.Admin(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/audit", nil).Body["entries"].([]any)
	var actions []any
	for _, e := range entries {
		actions = append(actions, e.(map[string]any)["action"])
	}
	assert.Contains(t, actions, "give-staff-refunds")
	checkInvariants(t, sys)
}

// TestARefundResolvedByHandWhoseWorkflowWasLostIsFinishedByTheChecker: a cancel's refund is
// declined three times, an operator resolves it as made by hand (recorded as attempt 0), and the
// workflow is lost before it marks the booking REFUNDED. The refund was given back, so the
// checker finishes it by itself, asking the provider nothing (before, its attempt 3 failed made
// it a refund in trouble, left for finance to restart or settle again).
func TestARefundResolvedByHandWhoseWorkflowWasLostIsFinishedByTheChecker(t *testing.T) {
	t.Parallel()
	provider := decliningProvider()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-resolved-lost", "double", stay, 1)
	id, total := holdRoom(t, sys, "h-resolved-lost", "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_resolved_lost_"+sys.ID, "pi_resolved_lost_"+sys.ID)
	require.Equal(t, http.StatusOK, cancel(t, sys, sys.Customer("guest"), id).Status)
	require.Eventually(t, func() bool { return stuckState(t, sys, id) }, 30*time.Second, 100*time.Millisecond)
	require.NoError(t, sys.Temporal.TerminateWorkflow(context.Background(), id, "", "lost"))
	// The resolution was recorded, as its saga records it, just before the workflow was lost.
	require.NoError(t, sys.DB.Store.RecordResolvedRefund(context.Background(), db.RefundAttempt{ID: id + "/refund/0", BookingID: id,
		PaymentID: "pi_resolved_lost_" + sys.ID, Amount: total, Currency: "EUR", Reason: "refunded by bank transfer TR-5",
		Reference: "refunded by bank transfer TR-5", RecordedBy: "fin-" + sys.ID}))
	provider.SetAnswer(nil)

	report := runChecks(t, sys, activities.CheckInput{Repair: true, RefundingAge: time.Nanosecond})
	orphan, found := findingsOf(report, id)[domain.CheckRefundingOrphan]
	require.True(t, found, "%+v", report.Findings)
	assert.Contains(t, orphan.Repaired, "restarted", "given back by hand: nothing for an operator to decide")
	awaitStatus(t, sys, id, "REFUNDED")
	assert.Len(t, provider.Requests(), 3, "nothing asked after the resolution")
	assert.Equal(t, float64(total), moneyOf(t, sys, id)["refunded"])
	assert.Empty(t, runChecks(t, sys, activities.CheckInput{Repair: true, RefundingAge: time.Nanosecond}).Findings)
	checkInvariants(t, sys)
}
