package codec_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/codec"
)

// awaitPayment waits an hour for a "payment" signal as the booking workflow does: a selector on
// the channel and a timer, then ReceiveAsync.
func awaitPayment(ctx workflow.Context) (string, error) {
	got := "no payment arrived"
	ch := workflow.GetSignalChannel(ctx, "payment")
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(ch, func(c workflow.ReceiveChannel, _ bool) { c.ReceiveAsync(&got) })
	sel.AddFuture(workflow.NewTimer(ctx, time.Hour), func(workflow.Future) {})
	sel.Select(ctx)
	return got, nil
}

// runAwaitPayment signals a payment sealed by sender to a workflow whose worker has keys.
func runAwaitPayment(t *testing.T, sender, worker *codec.Keys) (string, error) {
	sealed, err := sender.DataConverter().ToPayload("pi_123 paid")
	require.NoError(t, err)
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetDataConverter(worker.DataConverter())
	env.RegisterWorkflow(awaitPayment)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow("payment", converter.NewRawValue(sealed)) // as stored, past the worker's own codec
	}, time.Minute)
	env.ExecuteWorkflow(awaitPayment)
	require.True(t, env.IsWorkflowCompleted())
	if err := env.GetWorkflowError(); err != nil {
		return "", err
	}
	var out string
	require.NoError(t, env.GetWorkflowResult(&out))
	return out, nil
}

// TestAWorkflowStopsOnAPayloadItCannotOpen: a signal sealed under a key the worker does not list
// fails the workflow task (a panic, which a real worker retries until a worker with the key takes
// it), naming the key, where the SDK would drop the signal and the booking go on unpaid. The
// control: with the key, the payment arrives.
func TestAWorkflowStopsOnAPayloadItCannotOpen(t *testing.T) {
	sender := mustKeys(t, "new:"+key(1), "new")
	got, err := runAwaitPayment(t, sender, mustKeys(t, "new:"+key(1)+",old:"+key(2), "old"))
	require.NoError(t, err)
	assert.Equal(t, "pi_123 paid", got)

	_, err = runAwaitPayment(t, sender, mustKeys(t, "old:"+key(2), "old"))
	require.Error(t, err, "the signal is not dropped")
	assert.Contains(t, err.Error(), `key "new"`)
}
