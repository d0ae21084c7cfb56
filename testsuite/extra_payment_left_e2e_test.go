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

// TestADuplicatePaymentFinanceSettledInPartByHandIsRefundedWhatIsLeft (issue 34, suspicion): a
// second payment of a paid booking is refunded as a duplicate; the provider declines it three
// times (PAYMENT_STUCK), finance gives 1.00 of it back by hand, and an operator retries. The
// retry gives back what is left of the payment, not the whole of it, which the per-payment bound
// would refuse, leaving the booking stuck for an operator again.
func TestADuplicatePaymentFinanceSettledInPartByHandIsRefundedWhatIsLeft(t *testing.T) {
	t.Parallel()
	provider := decliningProvider()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-dup-by-hand", "double", stay, 1)
	id, total := holdRoom(t, sys, "h-dup-by-hand", "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_first", "pi_first")
	res := sys.Webhook(t, testsuite.PaymentEvent("evt_dup", "pi_dup", id, total, "EUR"), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool { return len(provider.Requests()) == 3 && stuckState(t, sys, id) },
		30*time.Second, 100*time.Millisecond, "the duplicate's refund is stuck")

	finance := sys.As(t, domain.Principal{Subject: "fin", Roles: []domain.Role{domain.RoleFinance}})
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/payments/pi_dup/manual-refunds", map[string]string{"Idempotency-Key": "m1"},
		map[string]any{"amount": 100, "currency": "EUR", "method": "bank_transfer", "reference": "TR-1", "reason": "the guest asked"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	provider.SetAnswer(nil) // the provider takes refunds again
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refund/retry", nil, map[string]any{"reason": "card fixed"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)

	if !assert.Eventually(t, func() bool {
		return count(t, sys, `SELECT COALESCE(sum(amount), 0) FROM refunds WHERE payment_id = 'pi_dup' AND status = 'succeeded'`) ==
			int(total)
	}, 20*time.Second, 100*time.Millisecond) {
		t.Fatalf("the duplicate is not given back in full; its attempts: %v", refundRows(t, sys, id))
	}
	requests := provider.Requests()
	require.Len(t, requests, 4, "three declines, then what is left")
	assert.Equal(t, id+"/extra-pi_dup/4", requests[3].IdempotencyKey)
	assert.Equal(t, total-100, requests[3].Amount, "what finance did not give back")
	require.Eventually(t, func() bool { return !stuckState(t, sys, id) }, 10*time.Second, 100*time.Millisecond)
	assert.Equal(t, "CONFIRMED", bookingStatus(t, sys, id))
	assert.Zero(t, count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = 'pi_first'`), "the booking keeps its payment")
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "duplicate-partly-refunded-by-hand")
}
