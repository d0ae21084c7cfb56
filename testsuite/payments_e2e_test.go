package testsuite_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/workflows"
)

// holdRoom opens one room type and holds quantity rooms of it for the stay, returning the
// booking id and its price.
func holdRoom(t *testing.T, sys *testsuite.System, hotel, key string, stay domain.Stay, qty int) (string, int64) {
	t.Helper()
	res := hold(t, sys, key, holdBody(sys.Customer("guest"), hotel, "double", stay, qty))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	price := res.Body["price"].(map[string]any)
	return res.Body["id"].(string), int64(price["total"].(float64))
}

func bookingStatus(t *testing.T, sys *testsuite.System, id string) string {
	t.Helper()
	s, _ := staffView(t, sys, id).Body["status"].(string)
	return s
}

func awaitStatus(t *testing.T, sys *testsuite.System, id, want string) {
	t.Helper()
	require.Eventually(t, func() bool { return bookingStatus(t, sys, id) == want }, 20*time.Second, 50*time.Millisecond,
		"booking %s never became %s (is %s)", id, want, bookingStatus(t, sys, id))
}

func count(t *testing.T, sys *testsuite.System, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, sys.DB.Pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

// payAndConfirm pays a held booking's price through a signed webhook and waits for CONFIRMED.
func payAndConfirm(t *testing.T, sys *testsuite.System, id string, total int64, eventID, paymentID string) {
	t.Helper()
	res := sys.Webhook(t, testsuite.PaymentEvent(eventID, paymentID, id, total, "EUR"), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitStatus(t, sys, id, "CONFIRMED")
}

// checkInvariants runs after every money scenario: inventory matches the bookings holding it,
// and money received less money refunded is what the bookings keep.
func checkInvariants(t *testing.T, sys *testsuite.System) {
	t.Helper()
	sys.DB.AssertInventoryMatchesBookings(t)
	sys.DB.AssertMoneyBalances(t)
}

func TestWebhookPaymentConfirmsTheHold(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(30, 3)
	openRooms(t, sys, "h-pay", "double", stay, 2)
	id, total := holdRoom(t, sys, "h-pay", "k1", stay, 1)
	assert.Equal(t, int64(30000), total, "3 nights at 100.00 EUR")

	// The checkout asks for the payment, the guest completes it, the provider reports it.
	guest := sys.Guest(t, sys.Customer("guest"))
	res := guest.Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, float64(total), res.Body["amount"])
	assert.Equal(t, "EUR", res.Body["currency"])
	assert.NotEmpty(t, res.Body["clientSecret"])
	pi := res.Body["paymentId"].(string)
	again := guest.Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	assert.Equal(t, pi, again.Body["paymentId"], "asking again returns the same payment")

	res = sys.Webhook(t, testsuite.PaymentEvent("evt_1", pi, id, total, "EUR"), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)

	awaitStatus(t, sys, id, "CONFIRMED")
	got := staffView(t, sys, id)
	assert.Equal(t, pi, got.Body["paymentId"])
	res = guest.Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	assert.Equal(t, http.StatusConflict, res.Status, "a paid booking is not paid again: %s", res.Raw)
	assert.Equal(t, float64(30000), got.Body["paid"])
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM payment_events WHERE event_id = 'evt_1' AND payload->>'id' = 'evt_1'`),
		"the raw payload is kept for audit")
	checkInvariants(t, sys)
}

func TestSameEventDeliveredFiveTimesConcurrentlyConfirmsOnce(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-dup", "double", stay, 2)
	id, total := holdRoom(t, sys, "h-dup", "k1", stay, 1)
	payload := testsuite.PaymentEvent("evt_dup", "pi_dup", id, total, "EUR")

	var wg sync.WaitGroup
	statuses := make([]int, 5)
	for i := range 5 {
		wg.Go(func() { statuses[i] = sys.Webhook(t, payload, time.Now()).Status })
	}
	wg.Wait()

	assert.Equal(t, []int{200, 200, 200, 200, 200}, statuses)
	awaitStatus(t, sys, id, "CONFIRMED")
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM payments`), "one payment record")
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM payment_events`), "one event record")
	assert.Equal(t, 0, count(t, sys, `SELECT count(*) FROM refunds`), "a duplicate is not mistaken for a second payment")
	res := sys.Webhook(t, payload, time.Now())
	assert.Equal(t, true, res.Body["duplicate"], "a later redelivery is acknowledged as a duplicate: %s", res.Raw)
	checkInvariants(t, sys)
}

func TestBadWebhookSignaturesAreRejectedAndWriteNothing(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-sig", "double", stay, 2)
	id, total := holdRoom(t, sys, "h-sig", "k1", stay, 1)
	payload := testsuite.PaymentEvent("evt_bad", "pi_bad", id, total, "EUR")
	url := "/api/v1/webhooks/payments"

	cases := map[string]map[string]string{
		"no signature":     nil,
		"wrong secret":     {"Stripe-Signature": payments.SignWebhook(payload, "whsec_wrong", time.Now())},
		"replayed old one": {"Stripe-Signature": payments.SignWebhook(payload, sys.WebhookSecret, time.Now().Add(-10*time.Minute))},
		"garbage":          {"Stripe-Signature": "t=1,v1=00"},
	}
	for name, headers := range cases {
		res := sys.Do(t, http.MethodPost, url, headers, string(payload))
		assert.Equal(t, http.StatusBadRequest, res.Status, "%s: %s", name, res.Raw)
		assert.NotEmpty(t, res.ErrorCode(), name)
	}
	tampered := strings.Replace(string(payload), fmt.Sprintf(`"amount":%d`, total), `"amount":1`, 1)
	require.NotEqual(t, string(payload), tampered)
	res := sys.Do(t, http.MethodPost, url, map[string]string{"Stripe-Signature": payments.SignWebhook(payload, sys.WebhookSecret, time.Now())}, tampered)
	assert.Equal(t, http.StatusBadRequest, res.Status, "a body changed after signing: %s", res.Raw)

	assert.Equal(t, 0, count(t, sys, `SELECT count(*) FROM payment_events`))
	assert.Equal(t, 0, count(t, sys, `SELECT count(*) FROM payments`))
	assert.Equal(t, "HOLD", bookingStatus(t, sys, id))
}

func TestCancellationRefundsByTheHotelsPolicy(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	far, near := stayFromNow(30, 2), stayFromNow(1, 2)
	openRooms(t, sys, "h-policy", "double", domain.Stay{CheckIn: near.CheckIn, CheckOut: far.CheckOut}, 5)
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/h-policy/cancellation-policy",
		map[string]any{"freeUntilHours": 72, "feePercent": 25})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)

	for _, c := range []struct {
		key        string
		stay       domain.Stay
		wantRefund int64
	}{
		{"inside-free-window", far, 20000},   // 30 days ahead: everything back
		{"outside-free-window", near, 15000}, // check-in within 72 hours: 25% fee kept
	} {
		id, total := holdRoom(t, sys, "h-policy", c.key, c.stay, 1)
		payAndConfirm(t, sys, id, total, "evt_"+c.key, "pi_"+c.key)

		res := cancel(t, sys, sys.Customer("guest"), id)
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
		assert.Contains(t, []any{"REFUNDING", "REFUNDED"}, res.Body["status"], "a paid booking is refunded, not just cancelled")
		awaitStatus(t, sys, id, "REFUNDED")
		got := staffView(t, sys, id)
		assert.Equal(t, float64(c.wantRefund), got.Body["refundDue"], c.key)
		assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND status = 'succeeded' AND amount = $2`,
			id, c.wantRefund), c.key)
	}
	assert.Equal(t, 5, roomsLeft(t, sys, "h-policy", "double", far), "cancelled nights are back on sale")
	checkInvariants(t, sys)
}

func TestLatePaymentRetakesFreeNightsOrIsRefunded(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{HoldTTL: time.Second})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-late", "double", stay, 1)

	// The nights are still free when the payment arrives: taken again, confirmed.
	free, total := holdRoom(t, sys, "h-late", "free", stay, 1)
	awaitStatus(t, sys, free, "EXPIRED")
	require.Equal(t, http.StatusOK, sys.Webhook(t, testsuite.PaymentEvent("evt_free", "pi_free", free, total, "EUR"), time.Now()).Status)
	awaitStatus(t, sys, free, "CONFIRMED")
	assert.Equal(t, 0, roomsLeft(t, sys, "h-late", "double", stay))
	res := cancel(t, sys, sys.Customer("guest"), free)
	require.Equal(t, http.StatusOK, res.Status, "a cancel right after the late payment confirmed is not lost: %s", res.Raw)
	awaitStatus(t, sys, free, "REFUNDED")

	// The nights were sold to someone else meanwhile: the whole payment goes back.
	sold, total := holdRoom(t, sys, "h-late", "sold", stay, 1)
	awaitStatus(t, sys, sold, "EXPIRED")
	other := hold(t, sys, "other", holdBody(sys.Customer("other"), "h-late", "double", stay, 1))
	require.Equal(t, http.StatusCreated, other.Status, other.Raw)
	require.Equal(t, http.StatusOK, sys.Webhook(t, testsuite.PaymentEvent("evt_sold", "pi_sold", sold, total, "EUR"), time.Now()).Status)
	awaitStatus(t, sys, sold, "REFUNDED")
	got := staffView(t, sys, sold)
	assert.Equal(t, float64(total), got.Body["refundDue"])
	assert.Equal(t, "HOLD", bookingStatus(t, sys, other.Body["id"].(string)), "the other guest keeps the room")
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, free, "late-payment-retaken-then-cancelled")
	testsuite.ReplayAndRecord(t, sys.Temporal, sold, "late-payment-refunded")
}

func TestRefundThroughStripeMock(t *testing.T) {
	t.Parallel()
	base := testsuite.StartStripeMock(t)
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: payments.NewStripe("sk_test_bookflow", base)})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-stripe", "double", stay, 1)
	id, total := holdRoom(t, sys, "h-stripe", "k1", stay, 1)
	res := sys.Guest(t, sys.Customer("guest")).Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.True(t, strings.HasPrefix(res.Body["paymentId"].(string), "pi_"), "a payment intent from the Stripe API: %s", res.Raw)
	assert.NotEmpty(t, res.Body["clientSecret"])
	payAndConfirm(t, sys, id, total, "evt_s", "pi_s")

	res = cancel(t, sys, sys.Customer("guest"), id)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitStatus(t, sys, id, "REFUNDED")
	var providerID string
	require.NoError(t, sys.DB.Pool.QueryRow(context.Background(),
		`SELECT provider_refund_id FROM refunds WHERE booking_id = $1 AND status = 'succeeded'`, id).Scan(&providerID))
	assert.True(t, strings.HasPrefix(providerID, "re_"), "the refund id came from the Stripe API: %s", providerID)
}

// TestListingPaymentsThroughStripeMock: the reconciliation's listing is a request Stripe's API
// takes (stripe-mock validates it against Stripe's OpenAPI description); only succeeded
// payments come back.
func TestListingPaymentsThroughStripeMock(t *testing.T) {
	t.Parallel()
	stripe := payments.NewStripe("sk_test_bookflow", testsuite.StartStripeMock(t))
	listed, err := stripe.SucceededPayments(context.Background(), time.Now().Add(-72*time.Hour))
	require.NoError(t, err)
	for _, p := range listed {
		assert.True(t, strings.HasPrefix(p.ID, "pi_"), "%+v", p)
	}
}

func TestStuckRefundOperatorRetryAndAuditLog(t *testing.T) {
	t.Parallel()
	provider := decliningProvider()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-stuck", "double", stay, 1)
	id, total := holdRoom(t, sys, "h-stuck", "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_st", "pi_st")
	res := cancel(t, sys, sys.Customer("guest"), id)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)

	finance := sys.As(t, domain.Principal{Subject: "ana@finance", Roles: []domain.Role{domain.RoleFinance}})
	var listed []any
	require.Eventually(t, func() bool {
		res := finance.Do(t, http.MethodGet, "/api/v1/staff/bookings/stuck", nil, nil)
		listed, _ = res.Body["bookings"].([]any)
		for _, b := range listed {
			if b.(map[string]any)["workflowId"] == id {
				return true
			}
		}
		return false
	}, 90*time.Second, 200*time.Millisecond, "the booking shows up as PAYMENT_STUCK") // three attempts' backoffs, under a loaded run
	assert.Len(t, provider.Requests(), 3, "three attempts before it is stuck")

	retry := "/api/v1/staff/bookings/" + id + "/refund/retry"
	res = finance.Do(t, http.MethodPost, retry, nil, map[string]any{})
	assert.Equal(t, http.StatusBadRequest, res.Status, "an operator action must say why: %s", res.Raw)
	desk := sys.As(t, domain.Principal{Subject: "desk", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-stuck"}})
	res = desk.Do(t, http.MethodPost, retry, nil, map[string]any{"reason": "balance topped up"})
	assert.Equal(t, http.StatusForbidden, res.Status, "refund actions are finance's: %s", res.Raw)

	provider.SetAnswer(nil) // the provider accepts refunds again
	res = finance.Do(t, http.MethodPost, retry, map[string]string{"X-Actor": "someone-else"}, map[string]any{"reason": "balance topped up"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitStatus(t, sys, id, "REFUNDED")

	res = finance.Do(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/audit", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	entries := res.Body["entries"].([]any)
	require.Len(t, entries, 1)
	e := entries[0].(map[string]any)
	assert.Equal(t, "ana@finance", e["actor"], "the audit log records the token's subject, never a header")
	assert.Equal(t, "retry-refund", e["action"])
	assert.Equal(t, "balance topped up", e["reason"])
	assert.NotEmpty(t, e["at"])

	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refund/resolve", nil, map[string]any{"reason": "again"})
	assert.Equal(t, http.StatusConflict, res.Status, "nothing is stuck any more: %s", res.Raw)
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "refund-stuck-operator-retry")
}

func TestPaymentRacingTheExpiryHasOneOutcomeTheDatabaseAgreesWith(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{HoldTTL: time.Second})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-race", "double", stay, 8)

	var wg sync.WaitGroup
	ids := make([]string, 8)
	for i := range 8 {
		id, total := holdRoom(t, sys, "h-race", fmt.Sprintf("k%d", i), stay, 1)
		ids[i] = id
		wg.Go(func() {
			// Payments land from 0.8 s to 1.15 s after the hold: before, at and after expiry.
			time.Sleep(800*time.Millisecond + time.Duration(i)*50*time.Millisecond)
			payload := testsuite.PaymentEvent(fmt.Sprintf("evt_%d", i), fmt.Sprintf("pi_%d", i), id, total, "EUR")
			assert.Equal(t, http.StatusOK, sys.Webhook(t, payload, time.Now()).Status)
		})
	}
	wg.Wait()

	for _, id := range ids {
		// The nights stayed free, so every payment ends in a confirmed booking: directly, or by
		// taking the nights again after the expiry won the race.
		awaitStatus(t, sys, id, "CONFIRMED")
		// The database commits first; the workflow learns the outcome when the activity's answer
		// reaches it.
		var st struct{ Booking domain.Booking }
		assert.Eventually(t, func() bool {
			v, err := sys.Temporal.QueryWorkflow(context.Background(), id, "", "state")
			return err == nil && v.Get(&st) == nil && st.Booking.Status == domain.StatusConfirmed
		}, 10*time.Second, 50*time.Millisecond, "the workflow and the database agree on %s: %s", id, st.Booking.Status)
	}
	assert.Equal(t, 0, count(t, sys, `SELECT count(*) FROM refunds`))
	checkInvariants(t, sys)
}

func TestPaymentForAClosedOrUnknownBookingIsRefunded(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	id := "booking-nobody" + sys.ID
	pi := "pi_orphan_" + sys.ID // provider payment ids are unique; the LatePayment workflow id derives from it
	payload := testsuite.PaymentEvent("evt_orphan", pi, id, 5000, "EUR")

	require.Equal(t, http.StatusOK, sys.Webhook(t, payload, time.Now()).Status)

	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = $1 AND status = 'succeeded' AND amount = 5000`, pi) == 1
	}, 20*time.Second, 50*time.Millisecond, "money without a booking goes back")
	require.Equal(t, http.StatusOK, sys.Webhook(t, testsuite.PaymentEvent("evt_orphan_2", pi, id, 5000, "EUR"), time.Now()).Status)
	time.Sleep(300 * time.Millisecond)
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = $1`, pi), "refunded once, however often it is reported")
	sys.DB.AssertMoneyBalances(t)
	testsuite.ReplayAndRecord(t, sys.Temporal, workflows.LatePaymentIDPrefix+pi, "late-payment-workflow")
}

func TestRedeliveryAfterTheWorkflowClosedDoesNotRefundTwice(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{HoldTTL: time.Second, LateWindow: 2 * time.Second})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-redeliver", "double", stay, 1)
	id, total := holdRoom(t, sys, "h-redeliver", "k1", stay, 1)
	awaitStatus(t, sys, id, "EXPIRED")
	// Someone else takes the room, then the first guest's payment arrives: refunded in full.
	require.Equal(t, http.StatusCreated, hold(t, sys, "k2", holdBody(sys.Customer("other"), "h-redeliver", "double", stay, 1)).Status)
	pi := "pi_redeliver_" + sys.ID
	require.Equal(t, http.StatusOK, sys.Webhook(t, testsuite.PaymentEvent("evt_a_"+sys.ID, pi, id, total, "EUR"), time.Now()).Status)
	awaitStatus(t, sys, id, "REFUNDED")

	// The booking's workflow closes after its late window; the provider then reports the same
	// payment again under a new event id.
	require.Eventually(t, func() bool {
		desc, err := sys.Temporal.DescribeWorkflow(context.Background(), id, "")
		return err == nil && desc.WorkflowCloseTime != nil
	}, 20*time.Second, 100*time.Millisecond)
	// A retried hold request with the key finds the booking in the database.
	again := hold(t, sys, "k1", holdBody(sys.Customer("guest"), "h-redeliver", "double", stay, 1))
	assert.Equal(t, http.StatusOK, again.Status, again.Raw)
	assert.Equal(t, "REFUNDED", again.Body["status"])
	changed := hold(t, sys, "k1", holdBody(sys.Customer("guest"), "h-redeliver", "double", stay, 2))
	assert.Equal(t, http.StatusUnprocessableEntity, changed.Status, changed.Raw)
	res := sys.Webhook(t, testsuite.PaymentEvent("evt_b_"+sys.ID, pi, id, total, "EUR"), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, true, res.Body["duplicate"], "a payment delivered once is not delivered again: %s", res.Raw)
	_, err := sys.Temporal.DescribeWorkflow(context.Background(), workflows.LatePaymentIDPrefix+pi, "")
	var notFound *serviceerror.NotFound
	require.ErrorAs(t, err, &notFound, "nothing started for it")

	// Had the first delivery not been marked (the process died after handing it on), a third
	// report is delivered: the late-payment workflow finds the payment accounted for.
	_, err = sys.DB.Pool.Exec(context.Background(), `UPDATE payment_events SET delivered_at = NULL WHERE payment_id = $1`, pi)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, sys.Webhook(t, testsuite.PaymentEvent("evt_c_"+sys.ID, pi, id, total, "EUR"), time.Now()).Status)
	require.Eventually(t, func() bool {
		desc, err := sys.Temporal.DescribeWorkflow(context.Background(), workflows.LatePaymentIDPrefix+pi, "")
		return err == nil && desc.WorkflowCloseTime != nil
	}, 20*time.Second, 100*time.Millisecond, "the late-payment workflow looked at it and closed")
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = $1`, pi), "refunded once")
	checkInvariants(t, sys)
}

func TestWorkerProcessKilledMidRefundSagaIsFinishedByAnotherOnce(t *testing.T) {
	t.Parallel()
	provider := &testsuite.ScriptedProvider{}
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-kill", "double", stay, 1)
	proc := sys.StartWorkerProcess(t)
	id, total := holdRoom(t, sys, "h-kill", "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_k", "pi_k")
	res := cancel(t, sys, sys.Customer("guest"), id)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND status = 'pending'`, id) == 1
	}, 20*time.Second, 50*time.Millisecond, "the refund was requested and is pending at the provider")

	proc.Kill() // SIGKILL while the saga waits for the provider's word
	sys.StartWorker(t)
	var refundID string
	require.NoError(t, sys.DB.Pool.QueryRow(context.Background(),
		`SELECT provider_refund_id FROM refunds WHERE booking_id = $1`, id).Scan(&refundID))
	refunded := payments.EventPayload("evt_refund_k", "refund.updated", map[string]any{"id": refundID, "object": "refund",
		"amount": total, "currency": "eur", "status": "succeeded", "payment_intent": "pi_k",
		"metadata": map[string]string{"bookingId": id}}, time.Now())
	require.Equal(t, http.StatusOK, sys.Webhook(t, refunded, time.Now()).Status)

	// The new worker gets the workflow once the dead one's task times out (its sticky queue, then
	// the workflow task timeout): 10-15 s alone, more on a loaded machine, so a wider wait than
	// awaitStatus's 20 s.
	require.Eventually(t, func() bool { return bookingStatus(t, sys, id) == "REFUNDED" }, time.Minute,
		100*time.Millisecond, "booking %s never became REFUNDED (is %s)", id, bookingStatus(t, sys, id))
	assert.Empty(t, provider.Requests(), "the new worker did not ask for the refund again")
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND status = 'succeeded'`, id))
	assert.Equal(t, 1, roomsLeft(t, sys, "h-kill", "double", stay))
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "paid-cancel-pending-refund-across-worker-kill")
}

func TestSignedEventsThatCanNeverBeProcessedAreAcknowledgedAndKept(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	// Another application on the same provider account, or a checkout that forgot the booking.
	orphan := testsuite.PaymentEvent("evt_no_booking_"+sys.ID, "pi_no_booking_"+sys.ID, "", 5000, "EUR")
	for range 2 {
		res := sys.Webhook(t, orphan, time.Now())
		require.Equal(t, http.StatusOK, res.Status, "acknowledged, or the provider retries for days: %s", res.Raw)
		assert.Equal(t, false, res.Body["handled"])
		assert.Contains(t, res.Body["problem"], "no bookingId")
	}
	assert.Equal(t, 0, count(t, sys, `SELECT count(*) FROM payments`), "nothing is acted on")

	finance := sys.As(t, domain.Principal{Subject: "fin", Roles: []domain.Role{domain.RoleFinance}})
	res := finance.Do(t, http.MethodGet, "/api/v1/staff/webhooks/unprocessable", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	events := res.Body["events"].([]any)
	require.Len(t, events, 1, "kept once for an operator")
	e := events[0].(map[string]any)
	assert.Equal(t, "evt_no_booking_"+sys.ID, e["eventId"])
	assert.Equal(t, "payment_intent.succeeded", e["type"])
	assert.Equal(t, "pi_no_booking_"+sys.ID, e["payload"].(map[string]any)["data"].(map[string]any)["object"].(map[string]any)["id"],
		"the raw event is kept")

	res = sys.Do(t, http.MethodPost, "/api/v1/webhooks/payments", map[string]string{
		"Stripe-Signature": payments.SignWebhook(orphan, "whsec_someone_else", time.Now())}, string(orphan))
	assert.Equal(t, http.StatusBadRequest, res.Status, "an unsigned event is still refused, and not kept: %s", res.Raw)
}

// TestARetryAndAResolveSentTogetherKeepTheirOwnIntent: both operator actions reach the workflow
// in one workflow task (the worker is down while they are sent). Exactly one is carried out, with
// its own intent, and the audit log says which; the other is refused and can be sent again.
func TestARetryAndAResolveSentTogetherKeepTheirOwnIntent(t *testing.T) {
	t.Parallel()
	provider := decliningProvider()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-two-ops", "double", stay, 1)
	id, total := holdRoom(t, sys, "h-two-ops", "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_two", "pi_two")
	require.Equal(t, http.StatusOK, cancel(t, sys, sys.Customer("guest"), id).Status)
	require.Eventually(t, func() bool { return len(provider.Requests()) == 3 && stuckState(t, sys, id) },
		30*time.Second, 100*time.Millisecond, "the refund is stuck")

	sys.StopWorker()
	answers := map[string]testsuite.Response{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, action := range []string{"retry", "resolve"} {
		wg.Go(func() {
			res := sys.As(t, domain.Principal{Subject: action + "@finance", Roles: []domain.Role{domain.RoleFinance}}).
				Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refund/"+action, nil, map[string]any{"reason": action + " it"})
			mu.Lock()
			answers[action] = res
			mu.Unlock()
		})
	}
	time.Sleep(time.Second) // both updates wait at the server for the next workflow task
	sys.StartWorker(t)
	wg.Wait()

	var done, refused string
	for action, res := range answers {
		switch res.Status {
		case http.StatusOK:
			done = action
		case http.StatusConflict:
			assert.Equal(t, "operator_action_in_progress", res.ErrorCode(), res.Raw)
			refused = action
		default:
			t.Fatalf("%s answered %d: %s", action, res.Status, res.Raw)
		}
	}
	require.NotEmpty(t, done, "one action is carried out: %v", answers)
	require.NotEmpty(t, refused, "the other is refused, never merged into the first: %v", answers)
	entries := sys.Admin(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/audit", nil).Body["entries"].([]any)
	require.Len(t, entries, 1)
	assert.Equal(t, done+"-refund", entries[0].(map[string]any)["action"], "the audit names the action carried out")
	assert.Equal(t, done+"@finance", entries[0].(map[string]any)["actor"])
	if done == "resolve" {
		awaitStatus(t, sys, id, "REFUNDED")
		assert.Len(t, provider.Requests(), 3, "resolved by hand: no attempt after it")
	} else {
		require.Eventually(t, func() bool { return len(provider.Requests()) == 6 }, 30*time.Second, 100*time.Millisecond,
			"the retry retried")
	}
}

// decliningProvider declines every refund until told otherwise (SetAnswer(nil)).
func decliningProvider() *testsuite.ScriptedProvider {
	p := &testsuite.ScriptedProvider{}
	p.SetAnswer(func(int, payments.RefundRequest) (payments.Refund, error) {
		return payments.Refund{}, fmt.Errorf("%w: insufficient balance", payments.ErrDeclined)
	})
	return p
}

func stuckState(t *testing.T, sys *testsuite.System, id string) bool {
	t.Helper()
	v, err := sys.Temporal.QueryWorkflow(context.Background(), id, "", workflows.QueryState)
	if err != nil {
		return false
	}
	var st workflows.BookingState
	require.NoError(t, v.Get(&st))
	return st.Stuck
}

// TestAPolicyTightenedAfterBookingDoesNotApplyToIt: a booking keeps the cancellation policy and
// time zone it was held under; a booking made after the change gets the new one.
func TestAPolicyTightenedAfterBookingDoesNotApplyToIt(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-tighten", "double", stay, 2)
	before, total := holdRoom(t, sys, "h-tighten", "before", stay, 1)
	payAndConfirm(t, sys, before, total, "evt_before", "pi_before")

	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/h-tighten/cancellation-policy",
		map[string]any{"freeUntilHours": 1000, "noRefundHours": 1000}) // nothing back from now on
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	after, total2 := holdRoom(t, sys, "h-tighten", "after", stay, 1)
	payAndConfirm(t, sys, after, total2, "evt_after", "pi_after")
	got := staffView(t, sys, after).Body["cancellationPolicy"].(map[string]any)
	assert.Equal(t, float64(1000), got["noRefundHours"], "the booking shows the terms it was held under")

	for id, want := range map[string]int64{before: total, after: 0} {
		require.Equal(t, http.StatusOK, cancel(t, sys, sys.Customer("guest"), id).Status)
		awaitStatus(t, sys, id, "REFUNDED")
		assert.Equal(t, float64(want), staffView(t, sys, id).Body["refundDue"], id)
	}
	checkInvariants(t, sys)

	res = sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/h-tighten/cancellation-policy",
		map[string]any{"freeUntilHours": 24, "feeFixed": 5000})
	assert.Equal(t, http.StatusBadRequest, res.Status, "a fixed fee names its currency: %s", res.Raw)
	res = sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/h-tighten/cancellation-policy",
		map[string]any{"freeUntilHours": 24, "feeFixed": 5000, "feeCurrency": "USD"})
	assert.Equal(t, http.StatusConflict, res.Status, "the nights are priced in euros: %s", res.Raw)
	res = sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/h-tighten/cancellation-policy",
		map[string]any{"freeUntilHours": 24, "feeFixed": 5000, "feeCurrency": "EUR"})
	assert.Equal(t, http.StatusOK, res.Status, res.Raw)
}
