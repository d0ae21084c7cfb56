package testsuite_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// moneyOf reads a booking's money as staff see it: paid, refunded, refunding, due.
func moneyOf(t *testing.T, sys *testsuite.System, id string) map[string]any {
	t.Helper()
	res := staffView(t, sys, id)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	return res.Body["money"].(map[string]any)
}

// awaitRefunded waits until refund succeeded rows of the booking add up to want.
func awaitRefunded(t *testing.T, sys *testsuite.System, id string, want int64) {
	t.Helper()
	require.Eventually(t, func() bool {
		return moneyOf(t, sys, id)["refunded"] == float64(want)
	}, 20*time.Second, 50*time.Millisecond, "booking %s never had %d refunded (money %v)", id, want, moneyOf(t, sys, id))
}

// keyed is the Idempotency-Key header.
func keyed(key string) map[string]string { return map[string]string{"Idempotency-Key": key} }

// deskOf is a front desk of the hotels and venues named.
func deskOf(t *testing.T, sys *testsuite.System, hotels, venues []string) testsuite.Caller {
	return sys.As(t, domain.Principal{Subject: "desk-" + sys.ID, Roles: []domain.Role{domain.RoleFrontDesk},
		Hotels: hotels, Venues: venues})
}

// TestADeskCashDepositThenACardBalanceAtTheDeskThenAPartialCardRefund: the desk takes a cash
// deposit on a hold, which confirms it (issue 39) owing the rest at the desk; the checkout no
// longer asks for it, and the desk takes the rest on its card terminal. Finance's partial refund
// is drawn on the card payment, the newest, at the desk by its method (never through the
// provider), where it waits until the desk hands it over. The booking stays CONFIRMED and its
// money adds up. (Before issue 39 the rest was
// paid online: the story recorded as staff-money-deposit-card-refund.)
func TestADeskCashDepositThenACardBalanceAtTheDeskThenAPartialCardRefund(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(20, 3)
	openRooms(t, sys, "h-desk", "double", stay, 2)
	id, total := holdRoom(t, sys, "h-desk", "k1", stay, 1)
	desk := deskOf(t, sys, []string{"h-desk"}, nil)

	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("deposit"),
		map[string]any{"amount": 10000, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "CONFIRMED", res.Body["status"], "a deposit confirms the hold")
	assert.Equal(t, float64(total-10000), res.Body["money"].(map[string]any)["due"])
	again := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("deposit"),
		map[string]any{"amount": 10000, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, again.Status, again.Raw)
	assert.Equal(t, float64(10000), again.Body["paid"], "the same key takes the deposit once")
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("deposit"),
		map[string]any{"amount": 9000, "currency": "EUR", "method": "cash"})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Status, "the key reused for another payment: %s", res.Raw)

	guest := sys.Guest(t, sys.Customer("guest"))
	res = guest.Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	assert.Equal(t, http.StatusConflict, res.Status, "the rest is due at the desk, not online: %s", res.Raw)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("rest"),
		map[string]any{"amount": total - 10000, "currency": "EUR", "method": "card_terminal"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "CONFIRMED", res.Body["status"])
	m := moneyOf(t, sys, id)
	assert.Equal(t, float64(total), m["paid"])
	assert.Equal(t, float64(0), m["due"])

	finance := sys.As(t, domain.Principal{Subject: "fin-" + sys.ID, Roles: []domain.Role{domain.RoleFinance}})
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("goodwill-1"),
		map[string]any{"amount": 5000, "currency": "EUR", "reason": "the air conditioning broke"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "CONFIRMED", res.Body["status"], "a refund that keeps the units keeps the booking")
	handOverAtTheDesk(t, desk, id)
	awaitRefunded(t, sys, id, 5000)
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND method = 'card_terminal'
		AND status = 'succeeded' AND amount = 5000 AND provider_refund_id IS NULL AND recorded_by = $2`, id, "desk-"+sys.ID),
		"drawn on the card, at the desk, handed over by the desk")

	// More than the booking keeps is refused, and nothing is written.
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("too-much"),
		map[string]any{"amount": total, "currency": "EUR", "reason": "everything"})
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM staff_refunds WHERE booking_id = $1`, id))
	assert.Equal(t, float64(total-5000), staffView(t, sys, id).Body["paid"])

	testsuite.ReplayAndRecord(t, sys.Temporal, id, "staff-money-desk-deposit-confirms-card-refund")
	entries := sys.Admin(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/audit", nil).Body["entries"].([]any)
	var actions []any
	for _, e := range entries {
		actions = append(actions, e.(map[string]any)["action"])
	}
	assert.Contains(t, actions, "money-desk-payment")
	assert.Contains(t, actions, "money-refund")
	checkInvariants(t, sys)
}

// TestAGoodwillRefundOfADeskPaymentIsMadeAtTheDesk: a booking paid in cash at the desk gets part
// of it back in cash: recorded at once, never sent to the provider; it stays CONFIRMED.
func TestAGoodwillRefundOfADeskPaymentIsMadeAtTheDesk(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(20, 2)
	openRooms(t, sys, "h-cash", "double", stay, 2)
	id, total := holdRoom(t, sys, "h-cash", "k1", stay, 1)
	desk := deskOf(t, sys, []string{"h-cash"}, nil)
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("all"),
		map[string]any{"amount": total, "currency": "EUR", "method": "card_terminal"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "CONFIRMED", res.Body["status"], "paid in full at the desk")

	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("half-night"),
		map[string]any{"amount": 5000, "currency": "EUR", "reason": "half a night back: noisy room"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "CONFIRMED", res.Body["status"])
	awaitRefunded(t, sys, id, 5000)
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND method = 'card_terminal'
		AND status = 'succeeded' AND provider_refund_id IS NULL AND recorded_by = $2`, id, "desk-"+sys.ID),
		"refunded at the desk, by the payment's method, by the desk that gave it")
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("half-night"),
		map[string]any{"amount": 5000, "currency": "EUR", "reason": "half a night back: noisy room"})
	require.Equal(t, http.StatusOK, res.Status, "a retry under the key: %s", res.Raw)
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1`, id), "refunded once")
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "staff-money-desk-refund")
	checkInvariants(t, sys)
}

// TestANoShowIsRefundedInPart: staff refund part of a NO_SHOW order; it stays NO_SHOW.
func TestANoShowIsRefundedInPart(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{NoShowAfter: 3 * time.Second})
	day := domain.DateOf(time.Now(), time.UTC).AddDays(5)
	openVenue(t, sys, "v-part", day, 24)
	res := placeOrder(t, sys, "v-part", sys.Customer("guest"), "o1", hourLine("court-1", day, 9, 1, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	noShow := res.Body["id"].(string)
	payAndConfirm(t, sys, noShow, 2000, "evt_ns_"+sys.ID, "pi_ns_"+sys.ID)
	awaitStatus(t, sys, noShow, "NO_SHOW")

	res = sys.As(t, domain.Principal{Subject: "fin-" + sys.ID, Roles: []domain.Role{domain.RoleFinance}}).Do(t,
		http.MethodPost, "/api/v1/staff/bookings/"+noShow+"/refunds", keyed("ns-part"),
		map[string]any{"amount": 500, "currency": "EUR", "reason": "a quarter back: the guest was ill"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "NO_SHOW", res.Body["status"])
	awaitRefunded(t, sys, noShow, 500)
	checkInvariants(t, sys)
}

// TestACheckedInOrderIsRefundedInPartKeepingItsSlot: a COMPLETED order's slot is in use, so its
// refund keeps it; giving its units back is refused.
func TestACheckedInOrderIsRefundedInPartKeepingItsSlot(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/venues/v-part", map[string]any{"timeZone": "UTC"})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	res = sys.Admin(t, http.MethodPut, "/api/v1/admin/venues/v-part/resources/court-1", map[string]any{"kind": "exclusive_slot"})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	next := time.Now().UTC().Truncate(time.Hour).Add(time.Hour)
	closes := next.Add(time.Hour).Format("15:04")
	if closes == "00:00" {
		closes = "24:00"
	}
	res = sys.Admin(t, http.MethodPost, "/api/v1/admin/venues/v-part/resources/court-1/schedule", map[string]any{
		"from": domain.DateOf(next, time.UTC), "to": domain.DateOf(next, time.UTC).AddDays(1), "opens": next.Format("15:04"),
		"closes": closes, "slotMinutes": 60, "price": map[string]any{"amount": 2000, "currency": "EUR"}})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = placeOrder(t, sys, "v-part", sys.Customer("guest"), "o2", map[string]any{"resourceId": "court-1", "start": next,
		"end": next.Add(time.Hour), "quantity": 1})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	played := res.Body["id"].(string)
	payAndConfirm(t, sys, played, 2000, "evt_in_"+sys.ID, "pi_in_"+sys.ID)
	desk := deskOf(t, sys, nil, []string{"v-part"})
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+played+"/check-in", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+played+"/refunds", keyed("lights"),
		map[string]any{"amount": 1000, "currency": "EUR", "reason": "the floodlights failed for half the hour"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "COMPLETED", res.Body["status"])
	awaitRefunded(t, sys, played, 1000)
	res = placeOrder(t, sys, "v-part", sys.Customer("other"), "o3", map[string]any{"resourceId": "court-1", "start": next,
		"end": next.Add(time.Hour), "quantity": 1})
	assert.Equal(t, http.StatusConflict, res.Status, "the checked-in slot stays taken: %s", res.Raw)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+played+"/refunds", keyed("all"),
		map[string]any{"amount": 1000, "currency": "EUR", "reason": "x", "releaseUnits": true})
	assert.Equal(t, http.StatusConflict, res.Status, "a checked-in order's units are in use: %s", res.Raw)
	testsuite.ReplayAndRecord(t, sys.Temporal, played, "staff-money-checked-in-order-refund")
	checkInvariants(t, sys)
}

// TestRolesOnStaffMoney: a front desk of hotel A cannot touch hotel B's money; finance refunds
// but does not set prices or take desk payments; a customer does none of it.
func TestRolesOnStaffMoney(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(20, 2)
	openRooms(t, sys, "h-roles-b", "double", stay, 2)
	id, _ := holdRoom(t, sys, "h-roles-b", "k1", stay, 1)
	deskA := deskOf(t, sys, []string{"h-roles-a"}, nil)
	finance := sys.As(t, domain.Principal{Subject: "fin-" + sys.ID, Roles: []domain.Role{domain.RoleFinance}})
	guest := sys.Guest(t, sys.Customer("guest"))
	pay := map[string]any{"amount": 1000, "currency": "EUR", "method": "cash"}
	price := map[string]any{"total": 1000, "currency": "EUR", "reason": "regular guest"}
	refund := map[string]any{"amount": 1000, "currency": "EUR", "reason": "goodwill"}
	for _, c := range []struct {
		who    testsuite.Caller
		method string
		path   string
		body   map[string]any
		want   int
	}{
		{deskA, http.MethodPost, "/desk-payments", pay, http.StatusForbidden},
		{deskA, http.MethodPut, "/price", price, http.StatusForbidden},
		{deskA, http.MethodPost, "/refunds", refund, http.StatusForbidden},
		{finance, http.MethodPut, "/price", price, http.StatusForbidden},
		{finance, http.MethodPost, "/desk-payments", pay, http.StatusForbidden},
		{guest, http.MethodPost, "/desk-payments", pay, http.StatusForbidden},
		{guest, http.MethodPut, "/price", price, http.StatusForbidden},
		{guest, http.MethodPost, "/refunds", refund, http.StatusForbidden},
	} {
		res := c.who.Do(t, c.method, "/api/v1/staff/bookings/"+id+c.path, keyed("k"), c.body)
		assert.Equal(t, c.want, res.Status, "%s %s: %s", c.method, c.path, res.Raw)
	}
	res := finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("k"), refund)
	assert.Equal(t, http.StatusConflict, res.Status, "finance may refund, but a hold has nothing to refund: %s", res.Raw)
	assert.Zero(t, count(t, sys, `SELECT count(*) FROM payments WHERE booking_id = $1`, id), "nothing was written")
	assert.Zero(t, count(t, sys, `SELECT count(*) FROM price_changes WHERE booking_id = $1`, id))
}

// TestAPriceSetByHandIsWhatTheCheckoutPays: the desk lowers a hold's price with a reason; the
// checkout's payment is for the new price, a payment of the old one is refunded as a mismatch,
// and one of the new price confirms.
func TestAPriceSetByHandIsWhatTheCheckoutPays(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(20, 2)
	openRooms(t, sys, "h-price", "double", stay, 2)
	id, total := holdRoom(t, sys, "h-price", "k1", stay, 1)
	desk := deskOf(t, sys, []string{"h-price"}, nil)
	for _, bad := range []map[string]any{
		{"total": -1, "currency": "EUR", "reason": "x"},
		{"total": 100, "currency": "USD", "reason": "x"},
		{"total": 100, "currency": "EUR", "reason": ""},
	} {
		res := desk.Do(t, http.MethodPut, "/api/v1/staff/bookings/"+id+"/price", nil, bad)
		assert.Equal(t, http.StatusBadRequest, res.Status, "%v: %s", bad, res.Raw)
	}
	res := desk.Do(t, http.MethodPut, "/api/v1/staff/bookings/"+id+"/price", nil,
		map[string]any{"total": total - 4000, "currency": "EUR", "reason": "a regular guest's rate"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, float64(total-4000), res.Body["price"].(map[string]any)["total"])
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM price_changes WHERE booking_id = $1 AND before = $2 AND after = $3`,
		id, total, total-4000))

	guest := sys.Guest(t, sys.Customer("guest"))
	res = guest.Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, float64(total-4000), res.Body["amount"], "the checkout follows the new price")
	res = sys.Webhook(t, testsuite.PaymentEvent("evt_old_"+sys.ID, "pi_old_"+sys.ID, id, total, "EUR"), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = $1 AND status = 'succeeded'`, "pi_old_"+sys.ID) == 1
	}, 20*time.Second, 50*time.Millisecond, "a payment of the old price is refunded")
	assert.Equal(t, "HOLD", bookingStatus(t, sys, id))
	payAndConfirm(t, sys, id, total-4000, "evt_new_"+sys.ID, "pi_new_"+sys.ID)
	res = desk.Do(t, http.MethodPut, "/api/v1/staff/bookings/"+id+"/price", nil,
		map[string]any{"total": 1, "currency": "EUR", "reason": "too late"})
	assert.Equal(t, http.StatusConflict, res.Status, "a paid booking's price is not set by hand: %s", res.Raw)
	checkInvariants(t, sys)
}

// TestARefundAfterTheBookingsWorkflowClosed: a no-show's workflow closes after its late window;
// a refund asked the day after is given by the booking's StaffRefund workflow, bounded as
// before, and a retry under its key gives nothing again.
func TestARefundAfterTheBookingsWorkflowClosed(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{NoShowAfter: 2 * time.Second, LateWindow: time.Second})
	day := domain.DateOf(time.Now(), time.UTC).AddDays(5)
	openVenue(t, sys, "v-after", day, 24)
	res := placeOrder(t, sys, "v-after", sys.Customer("guest"), "o1", hourLine("court-1", day, 9, 1, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	payAndConfirm(t, sys, id, 2000, "evt_after_"+sys.ID, "pi_after_"+sys.ID)
	awaitStatus(t, sys, id, "NO_SHOW")
	require.Eventually(t, func() bool {
		d, err := sys.Temporal.DescribeWorkflow(context.Background(), id, "")
		return err == nil && d.RawResponse.GetWorkflowExecutionInfo().GetCloseTime() != nil
	}, 30*time.Second, 100*time.Millisecond, "the no-show's workflow closes")

	finance := sys.As(t, domain.Principal{Subject: "fin-" + sys.ID, Roles: []domain.Role{domain.RoleFinance}})
	refund := map[string]any{"amount": 800, "currency": "EUR", "reason": "the guest was in hospital"}
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("after-1"), refund)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "NO_SHOW", res.Body["status"])
	awaitRefunded(t, sys, id, 800)
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("after-1"), refund)
	require.Equal(t, http.StatusOK, res.Status, "a retry under the key: %s", res.Raw)
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("after-2"),
		map[string]any{"amount": 1201, "currency": "EUR", "reason": "more than is left"})
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("after-3"),
		map[string]any{"amount": 100, "currency": "EUR", "reason": "x", "releaseUnits": true})
	assert.Equal(t, http.StatusConflict, res.Status, "nothing but a refund that keeps the units: %s", res.Raw)
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1`, id), "refunded once")
	testsuite.ReplayAndRecord(t, sys.Temporal, domain.StaffRefundWorkflowID(id), "staff-refund-after-close")
	checkInvariants(t, sys)
}

// TestASuppliersBookingTakesNoDeskPayment: a guest's hold at a supplier's hotel, confirmed by
// the supplier, waits for the checkout's payment of the supplier's price. The desk's cash is
// refused before the workflow (409 supplier_booking, with the reason), nothing is written, and
// the hold is not confirmed.
func TestASuppliersBookingTakesNoDeskPayment(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_procure", testsuite.SystemOptions{})
	res := hold(t, w.sys, "supplied", holdBody(w.sys.Customer("guest"), w.hotel, "double", w.stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	total := int64(res.Body["price"].(map[string]any)["total"].(float64))
	require.Eventually(t, func() bool { return staffView(t, w.sys, id).Body["supplierRef"] != nil },
		20*time.Second, 50*time.Millisecond, "the supplier never confirmed the hold")

	desk := deskOf(t, w.sys, []string{w.hotel}, nil)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("cash"),
		map[string]any{"amount": total, "currency": "EUR", "method": "cash"})
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Equal(t, "supplier_booking", res.ErrorCode())
	assert.Contains(t, res.Raw, "paid through the checkout")
	assert.Equal(t, 0, count(t, w.sys, `SELECT count(*) FROM payments WHERE booking_id = $1`, id), "nothing was written")
	view := staffView(t, w.sys, id).Body
	assert.Equal(t, "HOLD", view["status"], "the desk does not confirm a supplier's hold")
	assert.Equal(t, float64(total), view["money"].(map[string]any)["due"])
	checkInvariants(t, w.sys)
}

// TestTextLimitsCountCharactersNotBytes: a desk writing in Chinese gives a reason of 300
// characters (900 bytes) and a payment note of 200 (600 bytes), within the 500 characters the
// console's fields allow and the database counts: taken. 501 characters are refused (400), and
// nothing is written. Counting bytes refused the first two.
func TestTextLimitsCountCharactersNotBytes(t *testing.T) {
	t.Parallel()
	sys, id, desk := depositInCash(t, "h-chars")
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("zh"),
		map[string]any{"amount": 1000, "currency": "EUR", "reason": strings.Repeat("空", 300)})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("zh-note"),
		map[string]any{"amount": 500, "currency": "EUR", "method": "other", "note": strings.Repeat("票", 200)})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("zh-long"),
		map[string]any{"amount": 1000, "currency": "EUR", "reason": strings.Repeat("空", 501)})
	assert.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM staff_refunds WHERE booking_id = $1`, id), "the long one wrote nothing")
}
