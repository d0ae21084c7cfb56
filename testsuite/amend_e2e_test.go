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

// amend asks for an amendment of a booking as its customer, under key.
func amend(t *testing.T, sys *testsuite.System, id, key string, change map[string]any) testsuite.Response {
	t.Helper()
	return sys.Guest(t, sys.Customer("guest")).Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/amendments",
		map[string]string{"Idempotency-Key": key}, change)
}

// amendment is the amendment of an amendment answer.
func amendment(t *testing.T, res testsuite.Response) map[string]any {
	t.Helper()
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	return res.Body["amendment"].(map[string]any)
}

// amendments lists a booking's amendments as staff see them.
func amendments(t *testing.T, sys *testsuite.System, id string) []any {
	t.Helper()
	res := sys.Admin(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/amendments", nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	return res.Body["amendments"].([]any)
}

func TestAnAmendedHoldTakesTheAddedNightKeepsItsExpiryAndIsPaidAtItsNewPrice(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(30, 3)
	longer := domain.Stay{CheckIn: stay.CheckIn, CheckOut: stay.CheckOut.AddDays(1)}
	openRooms(t, sys, "h-amend-hold", "double", longer, 1) // one room: the nights it holds are sold out to anyone else
	id, total := holdRoom(t, sys, "h-amend-hold", "k1", stay, 1)
	expires := staffView(t, sys, id).Body["expiresAt"]

	quote := sys.Guest(t, sys.Customer("guest")).Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/amendments/quote", nil,
		map[string]any{"checkOut": longer.CheckOut})
	q := amendment(t, quote)
	assert.Equal(t, "QUOTE", q["status"])
	assert.EqualValues(t, 10000, q["difference"], "one more night at 100.00")
	assert.Equal(t, 1, roomsLeft(t, sys, "h-amend-hold", "double", domain.Stay{CheckIn: stay.CheckOut, CheckOut: longer.CheckOut}),
		"a quote takes nothing")

	res := amend(t, sys, id, "a1", map[string]any{"checkOut": longer.CheckOut})
	a := amendment(t, res)
	assert.Equal(t, "APPLIED", a["status"])
	assert.EqualValues(t, 10000, a["difference"])
	b := res.Body["booking"].(map[string]any)
	assert.Equal(t, longer.CheckOut.String(), b["checkOut"])
	assert.EqualValues(t, total+10000, b["price"].(map[string]any)["total"])
	assert.Equal(t, expires, b["expiresAt"], "an amendment does not extend the hold")
	assert.Equal(t, 0, roomsLeft(t, sys, "h-amend-hold", "double", longer))
	assert.Equal(t, res.Raw, amend(t, sys, id, "a1", map[string]any{"checkOut": longer.CheckOut}).Raw, "a retry has the same outcome")
	again := amend(t, sys, id, "a1", map[string]any{"checkOut": stay.CheckOut})
	assert.Equal(t, http.StatusUnprocessableEntity, again.Status, again.Raw)
	assert.Len(t, amendments(t, sys, id), 1)

	// The old price no longer pays the booking; the new one does.
	payAndConfirm(t, sys, id, total+10000, "evt_new_price", "pi_new_price")
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "amend-hold-extend-then-paid")
}

func TestAPaidBookingAmendedUpHoldsTheAddedNightUntilItsBalanceIsPaid(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(30, 3)
	longer := domain.Stay{CheckIn: stay.CheckIn, CheckOut: stay.CheckOut.AddDays(1)}
	added := domain.Stay{CheckIn: stay.CheckOut, CheckOut: longer.CheckOut}
	openRooms(t, sys, "h-amend-up", "double", longer, 1)
	id, total := holdRoom(t, sys, "h-amend-up", "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_first", "pi_first")

	a := amendment(t, amend(t, sys, id, "a1", map[string]any{"checkOut": longer.CheckOut}))
	assert.Equal(t, "BALANCE_DUE", a["status"])
	assert.EqualValues(t, 10000, a["difference"])
	b := staffView(t, sys, id).Body
	assert.EqualValues(t, 10000, b["balanceDue"], "the booking shows the balance due")
	assert.Equal(t, stay.CheckOut.String(), b["checkOut"], "the booking keeps its stay until the balance is paid")
	assert.Equal(t, 0, roomsLeft(t, sys, "h-amend-up", "double", added), "the added night is held for the guest")
	require.Eventually(t, func() bool { return workflowsWithStatus(t, sys, "h-amend-up", "BALANCE_DUE") == 1 },
		10*time.Second, 100*time.Millisecond, "operators find the booking waiting for its balance")
	busy := amend(t, sys, id, "a2", map[string]any{"quantity": 2})
	assert.Equal(t, "balance_due", busy.ErrorCode(), busy.Raw)

	// A second payment of the whole price is a duplicate and goes back; the balance is taken.
	res := sys.Webhook(t, testsuite.PaymentEvent("evt_dup", "pi_dup", id, total, "EUR"), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = sys.Webhook(t, testsuite.PaymentEvent("evt_balance", "pi_balance", id, 10000, "EUR"), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool { return staffView(t, sys, id).Body["checkOut"] == longer.CheckOut.String() },
		20*time.Second, 50*time.Millisecond)
	b = staffView(t, sys, id).Body
	assert.Equal(t, "CONFIRMED", b["status"])
	assert.EqualValues(t, total+10000, b["paid"], "paid once in total: the price and the balance")
	assert.Nil(t, b["balanceDue"])
	list := amendments(t, sys, id)
	require.Len(t, list, 1)
	assert.Equal(t, "APPLIED", list[0].(map[string]any)["status"])
	assert.Equal(t, "pi_balance", list[0].(map[string]any)["balancePaymentId"])
	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = 'pi_dup' AND status = 'succeeded'`) == 1
	}, 20*time.Second, 50*time.Millisecond, "the duplicate is refunded")
	assert.Equal(t, 0, count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id IN ('pi_first', 'pi_balance')`))
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "amend-paid-up-balance-paid")
}

func TestAnUnpaidBalanceLapsesAndLeavesTheBookingExactlyAsItWas(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{HoldTTL: 3 * time.Second})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-amend-lapse", "double", stay, 2)
	openRooms(t, sys, "h-amend-lapse", "suite", stay, 1)
	id, total := holdRoom(t, sys, "h-amend-lapse", "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_first", "pi_first")
	before := staffView(t, sys, id).Body

	// Two rooms instead of one: the second is held beside the first until the window ends.
	a := amendment(t, amend(t, sys, id, "a1", map[string]any{"quantity": 2}))
	assert.Equal(t, "BALANCE_DUE", a["status"])
	assert.Equal(t, 0, roomsLeft(t, sys, "h-amend-lapse", "double", stay))
	require.Eventually(t, func() bool {
		list := amendments(t, sys, id)
		return len(list) == 1 && list[0].(map[string]any)["status"] == "LAPSED"
	}, 20*time.Second, 100*time.Millisecond)
	after := staffView(t, sys, id).Body
	for _, field := range []string{"status", "quantity", "checkIn", "checkOut", "price", "paid"} {
		assert.Equal(t, before[field], after[field], field)
	}
	assert.Equal(t, 1, roomsLeft(t, sys, "h-amend-lapse", "double", stay), "the added room went back")
	// A balance paid after the window does not pay for anything: it goes back.
	res := sys.Webhook(t, testsuite.PaymentEvent("evt_late_balance", "pi_late_balance", id, int64(a["difference"].(float64)), "EUR"), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = 'pi_late_balance' AND status = 'succeeded'`) == 1
	}, 20*time.Second, 50*time.Millisecond)
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "amend-paid-up-balance-lapsed")
}

func TestAPaidBookingAmendedDownIsRefundedTheDifferenceByItsPolicy(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(30, 3)
	openRooms(t, sys, "h-amend-down", "double", stay, 1)
	id, total := holdRoom(t, sys, "h-amend-down", "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_first", "pi_first")

	shorter := domain.Stay{CheckIn: stay.CheckIn, CheckOut: stay.CheckOut.AddDays(-1)}
	res := sys.As(t, domain.Principal{Subject: "desk-1", Roles: []domain.Role{domain.RoleFrontDesk},
		Hotels: []string{"h-amend-down"}}).Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/amendments",
		map[string]string{"Idempotency-Key": "a1"}, map[string]any{"checkOut": shorter.CheckOut})
	a := amendment(t, res)
	assert.Equal(t, "APPLIED", a["status"])
	assert.EqualValues(t, -10000, a["difference"])
	assert.EqualValues(t, 10000, a["refund"], "inside free cancellation: the whole difference goes back")
	assert.Equal(t, "desk-1", a["actor"])
	assert.Equal(t, 1, roomsLeft(t, sys, "h-amend-down", "double", domain.Stay{CheckIn: shorter.CheckOut, CheckOut: stay.CheckOut}))
	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = 'pi_first' AND amount = 10000 AND status = 'succeeded'`) == 1
	}, 20*time.Second, 50*time.Millisecond)
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = 'pi_first' AND recorded_by = 'desk-1'`),
		"the amendment's refund names the desk that made it (issue 39)")
	b := staffView(t, sys, id).Body
	assert.Equal(t, "CONFIRMED", b["status"])
	assert.EqualValues(t, total-10000, b["paid"])
	checkInvariants(t, sys)

	// Cancelled later, it gives back what it keeps, never what the amendment already returned.
	require.Equal(t, http.StatusOK, cancel(t, sys, sys.Customer("guest"), id).Status)
	awaitStatus(t, sys, id, "REFUNDED")
	assert.Equal(t, 2, count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = 'pi_first' AND status = 'succeeded'`))
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "amend-paid-down-refunded-then-cancelled")
}

func TestACustomerAmendsOnlyUntilFreeCancellationEnds(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(2, 2)
	openRooms(t, sys, "h-amend-closed", "double", domain.Stay{CheckIn: stay.CheckIn, CheckOut: stay.CheckOut.AddDays(1)}, 2)
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/h-amend-closed/cancellation-policy",
		map[string]any{"freeUntilHours": 96, "feePercent": 25})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	id, total := holdRoom(t, sys, "h-amend-closed", "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_first", "pi_first")

	res = amend(t, sys, id, "a1", map[string]any{"checkOut": stay.CheckOut.AddDays(1)})
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Equal(t, "amendment_closed", res.ErrorCode())
	assert.Empty(t, amendments(t, sys, id), "nothing was written")
	noop := amend(t, sys, id, "a2", map[string]any{"checkOut": stay.CheckOut})
	assert.Equal(t, http.StatusBadRequest, noop.Status, noop.Raw)
}

// TestAnAgentAmendsItsOwnBookingOnItsChannelAndIsNotified: a booking confirmed on the channel's
// account (no provider payment) changes at once, takes from the channel's allocation first, and
// the agent hears of it.
func TestAnAgentAmendsItsOwnBookingOnItsChannelAndIsNotified(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_procure", testsuite.SystemOptions{})
	hotel := "own-" + w.sys.ID
	stay := stayFromNow(15, 2)
	openRooms(t, w.sys, hotel, "double", stay, 4)
	res := w.sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/"+hotel+"/room-types/double/allocations",
		map[string]any{"channelId": "wholesale", "from": stay.CheckIn, "to": stay.CheckOut, "allotted": 2})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = w.agent.Do(t, http.MethodPost, "/api/v1/agent/bookings", map[string]string{"Idempotency-Key": "own1"},
		map[string]any{"hotelId": hotel, "roomTypeId": "double", "checkIn": stay.CheckIn, "checkOut": stay.CheckOut, "quantity": 1})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	awaitStatus(t, w.sys, id, "CONFIRMED")

	res = w.agent.Do(t, http.MethodPost, "/api/v1/agent/bookings/"+id+"/amendments", map[string]string{"Idempotency-Key": "a1"},
		map[string]any{"quantity": 2})
	a := amendment(t, res)
	assert.Equal(t, "APPLIED", a["status"], "confirmed on account: no balance waits")
	assert.EqualValues(t, 2, res.Body["booking"].(map[string]any)["quantity"])
	assert.Equal(t, 2, count(t, w.sys, `SELECT COALESCE(min(used), 0) FROM allocations WHERE channel_id = 'wholesale'`),
		"both rooms come from the channel's allocation")
	w.notified(t, id, "amended")
	list := w.agent.Do(t, http.MethodGet, "/api/v1/agent/bookings/"+id+"/amendments", nil, nil)
	require.Equal(t, http.StatusOK, list.Status, list.Raw)
	assert.Len(t, list.Body["amendments"], 1)
	other := sys2Guest(t, w.sys).Do(t, http.MethodGet, "/api/v1/bookings/"+id+"/amendments", nil, nil)
	assert.Equal(t, http.StatusNotFound, other.Status, "nobody else's")
	checkInvariants(t, w.sys)
	testsuite.ReplayAndRecord(t, w.sys.Temporal, id, "amend-agent-on-account")
}

// sys2Guest is a customer with no booking of the system.
func sys2Guest(t *testing.T, sys *testsuite.System) testsuite.Caller {
	return sys.Guest(t, sys.Customer("stranger"))
}
