package activities_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	sdktest "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/testsuite"
)

// TestAPaymentStuckInALaterRunOfTheWorkflowIsToldToo: saga ids and operator rounds start again
// in every run of a booking's workflow id (continued as new, resumed, a second StaffRefund run),
// so a later run's first stuck refund has the key the first run's had. Each run's wait is told
// (booking.payment_stuck queued), once: the first run's step commits and its reply is lost, and
// its retry, in the same run, queues nothing more. Each event's id is the one it was queued with.
func TestAPaymentStuckInALaterRunOfTheWorkflowIsToldToo(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	_, _, err := d.Store.PutEventSubscriber(ctx, db.EventSubscriber{ID: "crm", URL: "http://127.0.0.1:1/x",
		Events: []string{"booking.payment_stuck"}}, "whsec_x")
	require.NoError(t, err)
	acts := &activities.Refunds{Store: d.Store}

	// The step as the booking workflow runs it, whose first attempt's reply is lost after it committed.
	var attempts atomic.Int32
	tell := func(ctx context.Context, in activities.PaymentStuck) error {
		attempts.Add(1)
		if err := acts.RecordPaymentStuck(ctx, in); err != nil {
			return err
		}
		if activity.GetInfo(ctx).Attempt == 1 {
			return errors.New("the reply was lost")
		}
		return nil
	}
	// One run of the booking's workflow: saga 1 stuck in round 1, keyed as tellPaymentStuck keys it.
	run := func(ctx workflow.Context) error {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute,
			RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Millisecond, MaximumAttempts: 3}})
		key := workflow.GetInfo(ctx).WorkflowExecution.ID + "_1_1"
		return workflow.ExecuteActivity(ctx, "tell", activities.PaymentStuck{Key: key, BookingID: "booking-x",
			Step: "refund", Reason: "declined"}).Get(ctx, nil)
	}
	// Two runs, one after the other, of the workflow id booking-x.
	runs := func(ctx workflow.Context) error {
		ctx = workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: "booking-x"})
		for range 2 {
			if err := workflow.ExecuteChildWorkflow(ctx, "run").Get(ctx, nil); err != nil {
				return err
			}
		}
		return nil
	}
	var suite sdktest.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterActivityWithOptions(tell, activity.RegisterOptions{Name: "tell"})
	env.RegisterWorkflowWithOptions(run, workflow.RegisterOptions{Name: "run"})
	env.RegisterWorkflowWithOptions(runs, workflow.RegisterOptions{Name: "runs"})
	env.ExecuteWorkflow("runs")
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	require.EqualValues(t, 4, attempts.Load(), "each run's step was retried once")

	rows, err := d.Pool.Query(ctx, `SELECT event_id, payload->>'id' FROM event_deliveries
		WHERE booking_id = 'booking-x' AND type = 'booking.payment_stuck' ORDER BY id`)
	require.NoError(t, err)
	var ids []string
	for rows.Next() {
		var id, told string
		require.NoError(t, rows.Scan(&id, &told))
		assert.Equal(t, id, told, "the body's id is the event's")
		ids = append(ids, id)
	}
	require.NoError(t, rows.Err())
	require.Len(t, ids, 2, "one event for each run's wait, and none for a retry")
	assert.NotEqual(t, ids[0], ids[1])
}
