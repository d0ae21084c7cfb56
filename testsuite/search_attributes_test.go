package testsuite_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/worker"
)

// TestWorkerRefusesANamespaceWithoutTheSearchAttributes: a namespace without the attributes the
// workflows set (as docker-compose once had, without PaymentIssue) makes the worker refuse to
// start with the missing names; registering them from the workflows' own list mends it.
func TestWorkerRefusesANamespaceWithoutTheSearchAttributes(t *testing.T) {
	t.Parallel()
	tc := testsuite.Temporal(t)
	ctx := context.Background()
	require.NoError(t, worker.CheckSearchAttributes(ctx, tc, "default"), "the test server registers them all")

	ns := fmt.Sprintf("bookflow-sa-%d", time.Now().UnixNano())
	_, err := tc.WorkflowService().RegisterNamespace(ctx, &workflowservice.RegisterNamespaceRequest{
		Namespace: ns, WorkflowExecutionRetentionPeriod: durationpb.New(24 * time.Hour)})
	require.NoError(t, err)
	var checkErr error
	require.Eventually(t, func() bool {
		checkErr = worker.CheckSearchAttributes(ctx, tc, ns)
		return checkErr != nil && strings.Contains(checkErr.Error(), "lacks search attributes")
	}, 30*time.Second, 200*time.Millisecond, "the new namespace is known: %v", checkErr)
	for _, name := range []string{"BookingStatus", "HotelId", "CustomerId", "CheckIn", "HoldExpiresAt", "PaymentIssue"} {
		assert.Contains(t, checkErr.Error(), name)
	}
	assert.Contains(t, checkErr.Error(), "bookflow search-attributes --register", "the error says how to mend it")

	require.NoError(t, worker.RegisterSearchAttributes(ctx, tc, ns))
	require.NoError(t, worker.RegisterSearchAttributes(ctx, tc, ns), "registering again changes nothing")
	require.Eventually(t, func() bool { return worker.CheckSearchAttributes(ctx, tc, ns) == nil },
		30*time.Second, 200*time.Millisecond)
}
