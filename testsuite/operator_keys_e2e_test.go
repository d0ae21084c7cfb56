package testsuite_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// An operator's retry sent with an Idempotency-Key takes the key in the booking's key space: sent
// again once the refund is stuck anew, it is answered 200 and sends nothing; a resolution under
// its key is 422; a resolution under a key of its own ends the refund.
func TestAnOperatorsActionUnderAKeyIsTakenOnce(t *testing.T) {
	t.Parallel()
	provider := decliningProvider()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-op-keys", "double", stay, 1)
	id, total := holdRoom(t, sys, "h-op-keys", "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_op_keys", "pi_op_keys")
	require.Equal(t, http.StatusOK, cancel(t, sys, sys.Customer("guest"), id).Status)
	require.Eventually(t, func() bool { return len(provider.Requests()) == 3 && stuckState(t, sys, id) },
		30*time.Second, 100*time.Millisecond, "the refund is stuck")
	finance := sys.As(t, domain.Principal{Subject: "ana@finance", Roles: []domain.Role{domain.RoleFinance}})
	act := func(action, key string) testsuite.Response {
		return finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refund/"+action,
			map[string]string{"Idempotency-Key": key}, map[string]any{"reason": action + " it"})
	}

	res := act("retry", "op-1")
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool { return len(provider.Requests()) == 6 && stuckState(t, sys, id) },
		30*time.Second, 100*time.Millisecond, "the retry retried, and is stuck again")
	res = act("retry", "op-1")
	require.Equal(t, http.StatusOK, res.Status, "the same retry again: %s", res.Raw)
	assert.Equal(t, true, res.Body["replayed"], res.Raw)
	assert.Equal(t, true, res.Body["stuck"], "as its workflow says now: %s", res.Raw)
	res = act("resolve", "op-1")
	require.Equal(t, http.StatusUnprocessableEntity, res.Status, res.Raw)
	time.Sleep(2 * time.Second)
	assert.Len(t, provider.Requests(), 6, "the repeated retry sent nothing")
	assert.True(t, stuckState(t, sys, id), "and took nothing: the refund waits for an operator")

	res = act("resolve", "op-2")
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitStatus(t, sys, id, "REFUNDED")
	entries := sys.Admin(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/audit", nil).Body["entries"].([]any)
	assert.Len(t, entries, 2, "the retry and the resolution, not the retry sent again")
}
