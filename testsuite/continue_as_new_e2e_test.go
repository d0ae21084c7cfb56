package testsuite_test

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/api"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// updateCap is the dedicated server's cap on the updates one run may accept (2,000 by default),
// low enough for a test to pass it; the server suggests a new run at half of it.
const updateCap = 10

func cappedTemporal(t *testing.T) client.Client {
	return testsuite.DedicatedTemporal(t,
		"--dynamic-config-value", fmt.Sprintf("history.maxTotalUpdates=%d", updateCap),
		"--dynamic-config-value", "history.maxTotalUpdates.suggestContinueAsNewThreshold=0.5")
}

// TestOperatorsStillActPastTheUpdateCap: finance retries a stuck refund three times the number
// of updates one run may accept; every retry is answered, the workflow continues as new on the
// way, and once the provider takes refunds the booking is refunded once. Its control shows the
// cap is real on this server: a workflow that never continues as new refuses the update past
// it.
func TestOperatorsStillActPastTheUpdateCap(t *testing.T) {
	t.Parallel()
	tc := cappedTemporal(t)
	provider := decliningProvider()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider, Temporal: tc})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-cap", "double", stay, 1)
	id, total := holdRoom(t, sys, "h-cap", "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_cap", "pi_cap")
	res := cancel(t, sys, sys.Customer("guest"), id)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool { return stuckState(t, sys, id) }, 30*time.Second, 100*time.Millisecond, "the refund is stuck")

	finance := sys.As(t, domain.Principal{Subject: "ana@finance", Roles: []domain.Role{domain.RoleFinance}})
	retry := "/api/v1/staff/bookings/" + id + "/refund/retry"
	for i := range 3 * updateCap {
		res := finance.Do(t, http.MethodPost, retry, nil, map[string]any{"reason": fmt.Sprintf("try %d", i+1)})
		require.Equal(t, http.StatusOK, res.Status, "retry %d: %s", i+1, res.Raw)
		require.Eventually(t, func() bool { return stuckState(t, sys, id) }, 30*time.Second, 50*time.Millisecond,
			"retry %d: stuck again", i+1)
	}
	provider.SetAnswer(nil) // the provider takes refunds again
	res = finance.Do(t, http.MethodPost, retry, nil, map[string]any{"reason": "balance topped up"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitStatus(t, sys, id, "REFUNDED")

	// At least one run per half cap of the 3 caps' worth of retries.
	runs := workflowRuns(t, tc, id, 3*updateCap/(updateCap/2))
	var succeeded int
	require.NoError(t, sys.DB.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM refunds WHERE booking_id = $1 AND status = 'succeeded'`, id).Scan(&succeeded))
	assert.Equal(t, 1, succeeded, "refunded once")
	var audited int
	require.NoError(t, sys.DB.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM audit_log WHERE booking_id = $1 AND action = 'retry-refund'`, id).Scan(&audited))
	assert.Equal(t, 3*updateCap+1, audited, "every retry audited")
	checkInvariants(t, sys)
	testsuite.ReplayAndRecordRun(t, tc, id, runs[0], "refund-stuck-continued-as-new-first-run")
	testsuite.ReplayAndRecord(t, tc, id, "refund-stuck-continued-as-new-last-run")

	t.Run("control: a workflow that never continues as new is capped", func(t *testing.T) {
		queue := "cap-control-" + sys.ID
		w := sdkworker.New(tc, queue, sdkworker.Options{})
		w.RegisterWorkflowWithOptions(acceptsUpdatesForever, workflow.RegisterOptions{Name: "AcceptsUpdatesForever"})
		require.NoError(t, w.Start())
		defer w.Stop()
		ctx := context.Background()
		run, err := tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "cap-control-" + sys.ID, TaskQueue: queue},
			"AcceptsUpdatesForever")
		require.NoError(t, err)
		defer func() { _ = tc.TerminateWorkflow(ctx, run.GetID(), "", "test over") }()
		accepted := 0
		for range 3 * updateCap {
			h, err := tc.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: run.GetID(), UpdateName: "bump",
				WaitForStage: client.WorkflowUpdateStageCompleted})
			if err == nil {
				err = h.Get(ctx, nil)
			}
			if err != nil {
				t.Logf("update %d refused: %v", accepted+1, err)
				assert.True(t, api.WorkflowBusy(err), "the API answers 503 workflow_busy to this refusal")
				break
			}
			accepted++
		}
		assert.Equal(t, updateCap, accepted, "the server refuses updates past its cap")
	})
}

func acceptsUpdatesForever(ctx workflow.Context) error {
	if err := workflow.SetUpdateHandler(ctx, "bump", func(workflow.Context) error { return nil }); err != nil {
		return err
	}
	return workflow.Await(ctx, func() bool { return false })
}

// workflowRuns returns the run ids of a workflow id, oldest first, once there are at least
// atLeast (visibility lags a little).
func workflowRuns(t *testing.T, tc client.Client, id string, atLeast int) []string {
	t.Helper()
	var runs []string
	require.Eventually(t, func() bool {
		res, err := tc.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
			Query: fmt.Sprintf("WorkflowId = %q", id)})
		if err != nil {
			return false
		}
		execs := res.Executions
		sort.Slice(execs, func(i, j int) bool { return execs[i].StartTime.AsTime().Before(execs[j].StartTime.AsTime()) })
		runs = runs[:0]
		for _, e := range execs {
			runs = append(runs, e.Execution.GetRunId())
		}
		return len(runs) >= atLeast
	}, 10*time.Second, 200*time.Millisecond, "the workflow continued as new on the way: %d runs", len(runs))
	return runs
}
