package testsuite_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// One key space for the commands that move a booking's money (issue 34, defect 2): a key is the
// booking's once, whatever command first used it, and the database decides.

// paidStay is a guest's three nights at hotel (300.00 EUR), paid through the provider and
// CONFIRMED, with finance to steer its money.
func paidStay(t *testing.T, sys *testsuite.System, hotel string) (id string, total int64, finance testsuite.Caller) {
	t.Helper()
	stay := stayFromNow(20, 3)
	openRooms(t, sys, hotel, "double", stay, 2)
	id, total = holdRoom(t, sys, hotel, "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_"+hotel+"_"+sys.ID, "pi_"+hotel+"_"+sys.ID)
	return id, total, sys.As(t, domain.Principal{Subject: "fin-" + sys.ID, Roles: []domain.Role{domain.RoleFinance}})
}

// cancelWithRefund is a refund that cancels the booking with amount back (releaseUnits).
func cancelWithRefund(amount int64) map[string]any {
	return map[string]any{"amount": amount, "currency": "EUR", "reason": "the guest cancels", "releaseUnits": true}
}

// refundedRows is what the refunds of booking id made or under way add up to.
func refundedRows(t *testing.T, sys *testsuite.System, id string) int {
	t.Helper()
	return count(t, sys, `SELECT COALESCE(sum(amount), 0)::int FROM refunds WHERE booking_id = $1 AND status <> 'failed'`, id)
}

// TestAGoodwillRefundsKeySentAgainToCancelWithARefundIsRefused is defect 2: 50.00 goodwill under
// key K, then K again with releaseUnits and 200.00. Before, the booking was cancelled and 250.00
// went back; now the key is spent (422), the booking stays CONFIRMED and only 50.00 went back.
func TestAGoodwillRefundsKeySentAgainToCancelWithARefundIsRefused(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	id, total, finance := paidStay(t, sys, "h-onekey")
	refunds := "/api/v1/staff/bookings/" + id + "/refunds"

	res := finance.Do(t, http.MethodPost, refunds, keyed("K"),
		map[string]any{"amount": 5000, "currency": "EUR", "reason": "the lift was out of order"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitRefunded(t, sys, id, 5000)

	res = finance.Do(t, http.MethodPost, refunds, keyed("K"), cancelWithRefund(20000))
	assert.Equal(t, http.StatusUnprocessableEntity, res.Status, "the goodwill refund's key, sent to cancel: %s", res.Raw)
	assert.Equal(t, "CONFIRMED", bookingStatus(t, sys, id), "the booking keeps its units")
	time.Sleep(time.Second) // a refund the cancel started would be recorded by now
	assert.Equal(t, 5000, refundedRows(t, sys, id), "only the goodwill refund went back")
	assert.Equal(t, float64(total-5000), staffView(t, sys, id).Body["paid"])

	res = finance.Do(t, http.MethodPost, refunds, keyed("K"),
		map[string]any{"amount": 5000, "currency": "EUR", "reason": "the lift was out of order"})
	assert.Equal(t, http.StatusOK, res.Status, "the goodwill refund retried under its key: %s", res.Raw)
	assert.Equal(t, 5000, refundedRows(t, sys, id), "given once")
	checkInvariants(t, sys)
}

// TestACancelWithARefundRetriedUnderItsKeyWithAnotherAmountIsRefused: a cancel with 200.00 back
// under key C; the same request again answers as the first did (200, given once), and C with
// 250.00 is another request (422), where it answered 200 before.
func TestACancelWithARefundRetriedUnderItsKeyWithAnotherAmountIsRefused(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	id, _, finance := paidStay(t, sys, "h-cancelkey")
	refunds := "/api/v1/staff/bookings/" + id + "/refunds"

	res := finance.Do(t, http.MethodPost, refunds, keyed("C"), cancelWithRefund(20000))
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitRefunded(t, sys, id, 20000)
	awaitStatus(t, sys, id, "REFUNDED")

	res = finance.Do(t, http.MethodPost, refunds, keyed("C"), cancelWithRefund(20000))
	assert.Equal(t, http.StatusOK, res.Status, "the same cancel again: %s", res.Raw)
	res = finance.Do(t, http.MethodPost, refunds, keyed("C"), cancelWithRefund(25000))
	assert.Equal(t, http.StatusUnprocessableEntity, res.Status, "another amount under the cancel's key: %s", res.Raw)
	res = finance.Do(t, http.MethodPost, refunds, keyed("C"),
		map[string]any{"amount": 1000, "currency": "EUR", "reason": "goodwill"})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Status, "a goodwill refund under the cancel's key: %s", res.Raw)
	assert.Equal(t, 20000, refundedRows(t, sys, id), "given once")
	checkInvariants(t, sys)
}

// TestACancelWithARefundRetriedAfterItsWorkflowClosedIsAnsweredByTheDatabase: once the booking's
// workflow has closed, the cancel's key is still the booking's: the same request answers 200 with
// the booking as it is, another amount under it 422, and a new cancel 409 as before.
func TestACancelWithARefundRetriedAfterItsWorkflowClosedIsAnsweredByTheDatabase(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{LateWindow: time.Second})
	id, _, finance := paidStay(t, sys, "h-closedkey")
	refunds := "/api/v1/staff/bookings/" + id + "/refunds"
	res := finance.Do(t, http.MethodPost, refunds, keyed("C"), cancelWithRefund(20000))
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitStatus(t, sys, id, "REFUNDED")
	require.Eventually(t, func() bool {
		d, err := sys.Temporal.DescribeWorkflow(context.Background(), id, "")
		return err == nil && d.RawResponse.GetWorkflowExecutionInfo().GetCloseTime() != nil
	}, 30*time.Second, 100*time.Millisecond, "the booking's workflow closes")

	res = finance.Do(t, http.MethodPost, refunds, keyed("C"), cancelWithRefund(20000))
	require.Equal(t, http.StatusOK, res.Status, "the same cancel again: %s", res.Raw)
	assert.Equal(t, "REFUNDED", res.Body["status"])
	res = finance.Do(t, http.MethodPost, refunds, keyed("C"), cancelWithRefund(25000))
	assert.Equal(t, http.StatusUnprocessableEntity, res.Status, "another amount under the cancel's key: %s", res.Raw)
	res = finance.Do(t, http.MethodPost, refunds, keyed("D"), cancelWithRefund(1000))
	assert.Equal(t, http.StatusConflict, res.Status, "a new cancel of a closed booking: %s", res.Raw)
	assert.Equal(t, 20000, refundedRows(t, sys, id), "given once")
	checkInvariants(t, sys)
}

// TestADeskPaymentsKeyIsNotARefundsKey: the desk takes a deposit under key D; a refund sent
// under D is another command (422), before the booking's state is judged.
func TestADeskPaymentsKeyIsNotARefundsKey(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(20, 2)
	openRooms(t, sys, "h-deskkey", "double", stay, 2)
	id, total := holdRoom(t, sys, "h-deskkey", "k1", stay, 1)
	desk := deskOf(t, sys, []string{"h-deskkey"}, nil)
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("D"),
		map[string]any{"amount": total, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Equal(t, "CONFIRMED", res.Body["status"])

	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("D"),
		map[string]any{"amount": 1000, "currency": "EUR", "reason": "a goodwill refund under the payment's key"})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Status, res.Raw)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("D"), cancelWithRefund(total))
	assert.Equal(t, http.StatusUnprocessableEntity, res.Status, res.Raw)
	assert.Equal(t, "CONFIRMED", bookingStatus(t, sys, id))
	assert.Zero(t, refundedRows(t, sys, id))
	checkInvariants(t, sys)
}

// TestAGoodwillRefundAndAReversalSentAgainUnderTheirKeysWithAnotherAmountAreRefused: the same key
// with another body is 422 on every money route, through the API (the store's own tests hold the
// rest): a goodwill refund of 50.00 under G sent again for 70.00, and a reversal of 10.00 of a
// desk payment under R sent again for 20.00. Each retried as it was answers 200 and moves
// nothing again.
func TestAGoodwillRefundAndAReversalSentAgainUnderTheirKeysWithAnotherAmountAreRefused(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	id, total, finance := paidStay(t, sys, "h-samekey")
	refunds := "/api/v1/staff/bookings/" + id + "/refunds"
	goodwill := func(amount int64) map[string]any {
		return map[string]any{"amount": amount, "currency": "EUR", "reason": "the lift was out of order"}
	}
	res := finance.Do(t, http.MethodPost, refunds, keyed("G"), goodwill(5000))
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitRefunded(t, sys, id, 5000)
	res = finance.Do(t, http.MethodPost, refunds, keyed("G"), goodwill(7000))
	assert.Equal(t, http.StatusUnprocessableEntity, res.Status, "the goodwill refund's key with another amount: %s", res.Raw)
	res = finance.Do(t, http.MethodPost, refunds, keyed("G"), goodwill(5000))
	assert.Equal(t, http.StatusOK, res.Status, "the goodwill refund retried as it was: %s", res.Raw)
	time.Sleep(time.Second) // a refund the refused request started would be recorded by now
	assert.Equal(t, 5000, refundedRows(t, sys, id), "given once")
	assert.Equal(t, float64(total-5000), staffView(t, sys, id).Body["paid"])

	stay := stayFromNow(20, 2)
	openRooms(t, sys, "h-samekey-desk", "double", stay, 2)
	desked, price := holdRoom(t, sys, "h-samekey-desk", "k2", stay, 1)
	desk := deskOf(t, sys, []string{"h-samekey-desk"}, nil)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+desked+"/desk-payments", keyed("D"),
		map[string]any{"amount": price, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	reversal := func(amount int64) map[string]any {
		return map[string]any{"amount": amount, "currency": "EUR", "reason": "entered twice",
			"reverses": domain.DeskPaymentID(desked, "D")}
	}
	reverses := "/api/v1/staff/bookings/" + desked + "/refunds"
	res = desk.Do(t, http.MethodPost, reverses, keyed("R"), reversal(1000))
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = desk.Do(t, http.MethodPost, reverses, keyed("R"), reversal(2000))
	assert.Equal(t, http.StatusUnprocessableEntity, res.Status, "the reversal's key with another amount: %s", res.Raw)
	res = desk.Do(t, http.MethodPost, reverses, keyed("R"), reversal(1000))
	assert.Equal(t, http.StatusOK, res.Status, "the reversal retried as it was: %s", res.Raw)
	assert.Equal(t, float64(price-1000), staffView(t, sys, desked).Body["paid"], "reversed once")
	checkInvariants(t, sys)
}
