package worker_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/worker"
	"github.com/bookflow/bookflow/workflows"
)

// scheduleRecorder stands in for Temporal's schedule client: every schedule exists, and each
// update is recorded as the id of the workflows it starts, by schedule id.
type scheduleRecorder struct {
	client.Client // only ScheduleClient is called
	started       map[string]string
}

func (r *scheduleRecorder) ScheduleClient() client.ScheduleClient { return recordedSchedules{r: r} }

type recordedSchedules struct {
	client.ScheduleClient // only GetHandle is called
	r                     *scheduleRecorder
}

func (s recordedSchedules) GetHandle(_ context.Context, id string) client.ScheduleHandle {
	return recordedSchedule{id: id, r: s.r}
}

type recordedSchedule struct {
	client.ScheduleHandle // only Update is called
	id                    string
	r                     *scheduleRecorder
}

func (s recordedSchedule) Update(_ context.Context, o client.ScheduleUpdateOptions) error {
	u, err := o.DoUpdate(client.ScheduleUpdateInput{})
	if err != nil {
		return err
	}
	s.r.started[s.id] = u.Schedule.Action.(*client.ScheduleWorkflowAction).ID
	return nil
}

// The schedules' ids, and those of the workflows they start, are today's without a prefix (so
// a deployment's existing schedules are kept), and a deployment's prefix starts every one of
// them, so two deployments sharing a namespace keep a schedule each.
func TestAScheduleIDPrefixStartsEveryScheduleAndScheduledWorkflowID(t *testing.T) {
	ensure := func(ids workflows.ScheduleIDs) map[string]string {
		r := &scheduleRecorder{started: map[string]string{}}
		require.NoError(t, worker.EnsureSchedules(t.Context(), r, "", ids))
		require.NoError(t, worker.SupplierSchedules{Temporal: r, IDs: ids}.Ensure(t.Context(),
			db.Supplier{ID: "acme", Mode: db.ModeDirectProcure, Endpoint: "http://127.0.0.1:1"}))
		return r.started
	}
	assert.Equal(t, map[string]string{
		"bookflow-invariant-check":    "invariant-check",
		"bookflow-reconcile-payments": "reconcile-payments",
		"bookflow-expire-stop-sells":  "expire-stop-sells",
		"bookflow-release-blocks":     "release-blocks",
		"bookflow-supplier-sync-acme": "supplier-sync-acme",
	}, ensure(workflows.ScheduleIDs{}), "no prefix: the ids as they always were")
	assert.Equal(t, map[string]string{
		"eu-bookflow-invariant-check":    "eu-invariant-check",
		"eu-bookflow-reconcile-payments": "eu-reconcile-payments",
		"eu-bookflow-expire-stop-sells":  "eu-expire-stop-sells",
		"eu-bookflow-release-blocks":     "eu-release-blocks",
		"eu-bookflow-supplier-sync-acme": "eu-supplier-sync-acme",
	}, ensure(workflows.ScheduleIDs{Prefix: "eu-"}))

	_, syncNow := workflows.ScheduleIDs{Prefix: "eu-"}.SupplierSync("acme")
	assert.Equal(t, "eu-supplier-sync-acme", syncNow, "a sync now joins the deployment's own scheduled pull")
}
