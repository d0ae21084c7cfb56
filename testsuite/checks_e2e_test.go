package testsuite_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/worker"
	"github.com/bookflow/bookflow/workflows"
)

func runChecks(t *testing.T, sys *testsuite.System, in activities.CheckInput) domain.CheckReport {
	t.Helper()
	report, err := worker.NewChecks(sys.Temporal, sys.DB.Store, worker.ResumeOptions{TaskQueue: sys.TaskQueue}).RunChecks(context.Background(), in)
	require.NoError(t, err)
	return report
}

// TestTheCheckerReleasesAnOrphanedHold: a hold whose workflow was terminated from the UI keeps
// its night for ever. The checker finds it; with repairs it releases it, audited, and the next
// run is clean.
func TestTheCheckerReleasesAnOrphanedHold(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(12, 2)
	openRooms(t, sys, "h-orphan", "double", stay, 1)
	res := hold(t, sys, "k1", holdBody(sys.Customer("guest"), "h-orphan", "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	require.NoError(t, sys.Temporal.TerminateWorkflow(context.Background(), id, "", "an operator's mistake"))
	_, err := sys.DB.Pool.Exec(context.Background(), `UPDATE bookings SET expires_at = now() - interval '1 hour' WHERE id = $1`, id)
	require.NoError(t, err)

	report := runChecks(t, sys, activities.CheckInput{})
	require.Len(t, report.Findings, 1)
	assert.Equal(t, domain.CheckHoldPastExpiry, report.Findings[0].Check)
	assert.Contains(t, report.Findings[0].Detail, "its workflow is gone")
	assert.Empty(t, report.Findings[0].Repaired, "without repairs nothing changes")
	assert.Equal(t, 0, roomsLeft(t, sys, "h-orphan", "double", stay))

	report = runChecks(t, sys, activities.CheckInput{Repair: true})
	require.Len(t, report.Findings, 1)
	assert.Contains(t, report.Findings[0].Repaired, "released")
	assert.Equal(t, "EXPIRED", bookingStatus(t, sys, id))
	assert.Equal(t, 1, roomsLeft(t, sys, "h-orphan", "double", stay), "the night is back on sale")
	entries := sys.Admin(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/audit", nil).Body["entries"].([]any)
	require.Len(t, entries, 1)
	assert.Equal(t, activities.CheckerActor, entries[0].(map[string]any)["actor"])
	history := sys.Admin(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/history", nil).Body["changes"].([]any)
	assert.Equal(t, "system:invariant-checker", history[len(history)-1].(map[string]any)["actor"], "the history names the repair too")

	assert.Empty(t, runChecks(t, sys, activities.CheckInput{Repair: true}).Findings, "repaired once, clean after")
	res = sys.Admin(t, http.MethodGet, "/api/v1/admin/checks/latest", nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Empty(t, res.Body["findings"], "the latest report is served")
	sys.DB.AssertInventoryMatchesBookings(t)
}

// TestAnOrphanedRefundAfterFailedAttemptsIsLeftToAnOperator: a paid booking was cancelled, its
// refund failed three times, then its workflow was terminated: REFUNDING with nobody refunding.
// The refund was in trouble (perhaps settled by hand), so the checker reports it and restarts
// nothing; finance restarts it, and the recovery goes on after the failed attempts, paying once.
func TestAnOrphanedRefundAfterFailedAttemptsIsLeftToAnOperator(t *testing.T) {
	t.Parallel()
	provider := decliningProvider()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-lost-saga", "double", stay, 1)
	id, total := holdRoom(t, sys, "h-lost-saga", "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_lost", "pi_lost")
	require.Equal(t, http.StatusOK, cancel(t, sys, sys.Customer("guest"), id).Status)
	require.Eventually(t, func() bool { return stuckState(t, sys, id) }, 30*time.Second, 100*time.Millisecond)
	require.NoError(t, sys.Temporal.TerminateWorkflow(context.Background(), id, "", "an operator's mistake"))
	provider.SetAnswer(nil) // the provider takes refunds again

	report := runChecks(t, sys, activities.CheckInput{Repair: true, RefundingAge: time.Nanosecond})
	require.Len(t, report.Findings, 1, "%+v", report.Findings)
	assert.Equal(t, domain.CheckRefundingOrphan, report.Findings[0].Check)
	assert.Empty(t, report.Findings[0].Repaired, "a refund in trouble is an operator's call")
	assert.Contains(t, report.Findings[0].Detail, "/refund/recover")
	assert.Len(t, provider.Requests(), 3)

	finance := sys.As(t, domain.Principal{Subject: "fin", Roles: []domain.Role{domain.RoleFinance}})
	res := finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refund/recover", nil, map[string]any{"reason": "card fixed"})
	require.Equal(t, http.StatusAccepted, res.Status, res.Raw)
	awaitStatus(t, sys, id, "REFUNDED")
	requests := provider.Requests()
	require.Len(t, requests, 4, "three failed attempts, then one by the recovery")
	assert.Equal(t, id+"/refund/4", requests[3].IdempotencyKey, "the recovery goes on after the failed attempts")
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refund/recover", nil, map[string]any{"reason": "again"})
	assert.Equal(t, http.StatusConflict, res.Status, "nothing left to recover: %s", res.Raw)
	assert.Empty(t, runChecks(t, sys, activities.CheckInput{Repair: true, RefundingAge: time.Nanosecond}).Findings)
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, domain.RefundRecoveryID(id), "refund-recovery")
}

// TestAnOrphanedPendingRefundIsResumedByTheChecker: the refund was pending at the provider when
// the workflow was terminated. The checker restarts it by itself; the recovery looks the pending
// attempt up (never asking for it again) and finds it paid.
func TestAnOrphanedPendingRefundIsResumedByTheChecker(t *testing.T) {
	t.Parallel()
	provider := &testsuite.ScriptedProvider{}
	provider.SetAnswer(func(_ int, r payments.RefundRequest) (payments.Refund, error) {
		return payments.Refund{ID: "re_" + r.IdempotencyKey, Status: payments.RefundPending}, nil
	})
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-pending-saga", "double", stay, 1)
	id, total := holdRoom(t, sys, "h-pending-saga", "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_pend", "pi_pend")
	require.Equal(t, http.StatusOK, cancel(t, sys, sys.Customer("guest"), id).Status)
	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND status = 'pending'`, id) == 1
	}, 20*time.Second, 50*time.Millisecond)
	require.NoError(t, sys.Temporal.TerminateWorkflow(context.Background(), id, "", "an operator's mistake"))
	provider.SetLookup(func(q payments.RefundLookup) (payments.Refund, bool, error) {
		return payments.Refund{ID: q.RefundID, Status: payments.RefundSucceeded}, q.RefundID == "re_"+id+"/refund/1", nil
	})

	report := runChecks(t, sys, activities.CheckInput{Repair: true, RefundingAge: time.Nanosecond})
	require.Len(t, report.Findings, 1, "%+v", report.Findings)
	assert.Contains(t, report.Findings[0].Repaired, domain.RefundRecoveryID(id))
	awaitStatus(t, sys, id, "REFUNDED")
	assert.Len(t, provider.Requests(), 1, "the pending refund was looked up, never asked for again")
	assert.NotEmpty(t, provider.Lookups())
	checkInvariants(t, sys)
}

// TestTheCheckRunsOnAScheduleAndIsFoundByItsResult: the worker's schedule runs the checker as a
// workflow whose CheckResult search attribute operators filter on; the reconciliation has its
// daily schedule beside it.
func TestTheCheckRunsOnAScheduleAndIsFoundByItsResult(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	ctx := context.Background()
	require.NoError(t, worker.EnsureSchedules(ctx, sys.Temporal, sys.TaskQueue, workflows.ScheduleIDs{}))
	require.NoError(t, worker.EnsureSchedules(ctx, sys.Temporal, sys.TaskQueue, workflows.ScheduleIDs{}), "creating them again changes nothing")
	schedule := sys.Temporal.ScheduleClient().GetHandle(ctx, workflows.InvariantCheckScheduleID)
	reconcile := sys.Temporal.ScheduleClient().GetHandle(ctx, workflows.ReconcileScheduleID)
	t.Cleanup(func() {
		_ = schedule.Delete(context.Background())
		_ = reconcile.Delete(context.Background())
	})
	desc, err := schedule.Describe(ctx)
	require.NoError(t, err)
	assert.Equal(t, worker.CheckInterval, desc.Schedule.Spec.Intervals[0].Every)
	desc, err = reconcile.Describe(ctx)
	require.NoError(t, err)
	assert.Equal(t, worker.ReconcileInterval, desc.Schedule.Spec.Intervals[0].Every)

	require.NoError(t, schedule.Trigger(ctx, client.ScheduleTriggerOptions{}))
	require.Eventually(t, func() bool {
		res, err := sys.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: fmt.Sprintf(`WorkflowType = %q AND CheckResult = %q`, workflows.InvariantCheckWorkflowName, workflows.CheckClean)})
		return err == nil && len(res.Executions) > 0
	}, 30*time.Second, 200*time.Millisecond, "the scheduled run is found by CheckResult")
}
