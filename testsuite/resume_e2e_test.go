package testsuite_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// confirmedThenTerminated is a paid, confirmed stay whose workflow an operator terminated: a
// cancel then finds nothing to carry it out.
func confirmedThenTerminated(t *testing.T, sys *testsuite.System, hotel string) string {
	t.Helper()
	stay := stayFromNow(30, 2)
	openRooms(t, sys, hotel, "double", stay, 1)
	id, total := holdRoom(t, sys, hotel, "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_"+hotel, "pi_"+hotel)
	require.NoError(t, sys.Temporal.TerminateWorkflow(context.Background(), id, "", "an operator's mistake"))
	res := cancel(t, sys, sys.Customer("guest"), id)
	require.Equal(t, http.StatusConflict, res.Status, "nothing cancels it: %s", res.Raw)
	return id
}

// TestFinanceResumesAConfirmedBookingWhoseWorkflowIsGone: finance resumes it, audited, and the
// guest's cancel then refunds it as before.
func TestFinanceResumesAConfirmedBookingWhoseWorkflowIsGone(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	id := confirmedThenTerminated(t, sys, "h-resume")
	finance := sys.As(t, domain.Principal{Subject: "fin", Roles: []domain.Role{domain.RoleFinance}})
	desk := sys.As(t, domain.Principal{Subject: "desk", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-resume"}})

	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/resume", nil, map[string]any{"reason": "terminated by mistake"})
	assert.Equal(t, http.StatusForbidden, res.Status, "an operator action: %s", res.Raw)
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/resume", nil, map[string]any{})
	assert.Equal(t, http.StatusBadRequest, res.Status, "a reason is required: %s", res.Raw)
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/resume", nil, map[string]any{"reason": "terminated by mistake"})
	require.Equal(t, http.StatusAccepted, res.Status, res.Raw)
	assert.Equal(t, "CONFIRMED", res.Body["status"])
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/resume", nil, map[string]any{"reason": "again"})
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Equal(t, "workflow_running", res.ErrorCode())

	res = cancel(t, sys, sys.Customer("guest"), id)
	require.Equal(t, http.StatusOK, res.Status, "the resumed workflow cancels it: %s", res.Raw)
	awaitStatus(t, sys, id, "REFUNDED")
	actors := map[string]any{}
	for _, c := range sys.Admin(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/history", nil).Body["changes"].([]any) {
		actors[c.(map[string]any)["to"].(string)] = c.(map[string]any)["actor"]
	}
	assert.Equal(t, map[string]any{"HOLD": sys.Customer("guest"), "CONFIRMED": "system:payment",
		"REFUNDING": sys.Customer("guest"), "REFUNDED": "system:refund"}, actors, "who made each change")
	entries := sys.Admin(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/audit", nil).Body["entries"].([]any)
	require.Len(t, entries, 1)
	assert.Equal(t, "fin", entries[0].(map[string]any)["actor"])
	assert.Equal(t, "resume-booking", entries[0].(map[string]any)["action"])
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "confirmed-resumed-cancelled")
}

// TestTheCheckerResumesAConfirmedBookingWhoseWorkflowWasTerminated: reported without repairs,
// resumed with them, audited, and clean after.
func TestTheCheckerResumesAConfirmedBookingWhoseWorkflowWasTerminated(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	id := confirmedThenTerminated(t, sys, "h-resume-checker")

	var report domain.CheckReport
	require.Eventually(t, func() bool { // Temporal's visibility lists the ended run shortly after
		report = runChecks(t, sys, activities.CheckInput{})
		return len(report.Findings) > 0
	}, time.Minute, 200*time.Millisecond, "the checker finds the terminated workflow")
	require.Len(t, report.Findings, 1, "%+v", report.Findings)
	assert.Equal(t, domain.CheckNoWorkflow, report.Findings[0].Check)
	assert.Contains(t, report.Findings[0].Detail, "/resume")
	assert.Empty(t, report.Findings[0].Repaired)

	report = runChecks(t, sys, activities.CheckInput{Repair: true})
	require.Len(t, report.Findings, 1, "%+v", report.Findings)
	assert.Contains(t, report.Findings[0].Repaired, "resumed")
	assert.Empty(t, runChecks(t, sys, activities.CheckInput{Repair: true}).Findings, "repaired once, clean after")
	res := cancel(t, sys, sys.Customer("guest"), id)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitStatus(t, sys, id, "REFUNDED")
	entries := sys.Admin(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/audit", nil).Body["entries"].([]any)
	require.Len(t, entries, 1)
	assert.Equal(t, activities.CheckerActor, entries[0].(map[string]any)["actor"])
}

// TestAResumedBookingWhoseWorkflowEndedIsNotResumedAgain: once the resumed run has ended as any
// booking's does (the stay over, the late window passed), the checker leaves it alone.
func TestAResumedBookingWhoseWorkflowEndedIsNotResumedAgain(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{LateWindow: time.Second})
	id := confirmedThenTerminated(t, sys, "h-resume-ended")
	_, err := sys.DB.Pool.Exec(context.Background(),
		`UPDATE bookings SET unit_from = unit_from - interval '60 days', unit_to = unit_to - interval '60 days' WHERE id = $1`, id)
	require.NoError(t, err) // the stay is over: a resumed run ends at once
	finance := sys.As(t, domain.Principal{Subject: "fin", Roles: []domain.Role{domain.RoleFinance}})
	res := finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/resume", nil, map[string]any{"reason": "terminated by mistake"})
	require.Equal(t, http.StatusAccepted, res.Status, res.Raw)
	require.Eventually(t, func() bool {
		d, err := sys.Temporal.DescribeWorkflow(context.Background(), id, "")
		return err == nil && d.RawResponse.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	}, 30*time.Second, 200*time.Millisecond)
	for _, f := range runChecks(t, sys, activities.CheckInput{Repair: true}).Findings {
		assert.NotEqual(t, domain.CheckNoWorkflow, f.Check, "resumed again: %+v", f)
	}
}

// TestAConfirmedBookingFlaggedStuckWhoseWorkflowWasTerminatedIsFound: a confirmed booking whose
// second payment's refund waits for an operator (BookingStatus says PAYMENT_STUCK) is found by
// the database's status, not the workflow's attribute.
func TestAConfirmedBookingFlaggedStuckWhoseWorkflowWasTerminatedIsFound(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: decliningProvider(), RefundBackoff: 50 * time.Millisecond})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-resume-stuck", "double", stay, 1)
	id, total := holdRoom(t, sys, "h-resume-stuck", "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_1", "pi_1")
	res := sys.Webhook(t, testsuite.PaymentEvent("evt_2", "pi_2", id, total, "EUR"), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool { return stuckState(t, sys, id) }, 30*time.Second, 100*time.Millisecond)
	require.Equal(t, "CONFIRMED", bookingStatus(t, sys, id))
	require.NoError(t, sys.Temporal.TerminateWorkflow(context.Background(), id, "", "an operator's mistake"))
	var report domain.CheckReport
	require.Eventually(t, func() bool {
		report = runChecks(t, sys, activities.CheckInput{})
		for _, f := range report.Findings {
			if f.BookingID == id && f.Check == domain.CheckNoWorkflow {
				return true
			}
		}
		return false
	}, time.Minute, 250*time.Millisecond, "the checker reports the CONFIRMED booking with no workflow")
}
