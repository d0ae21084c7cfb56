package testsuite_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestAnAmendmentRacingACancelHasOneOutcomeTheDatabaseAgreesWith: each round, a hold is amended
// (a night more) and cancelled at once. The workflow takes one at a time: either the amendment
// first (applied, then the booking cancelled with its new nights) or the cancel first (the
// amendment then answers 409). Either way nothing stays held.
func TestAnAmendmentRacingACancelHasOneOutcomeTheDatabaseAgreesWith(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(30, 2)
	longer := domain.Stay{CheckIn: stay.CheckIn, CheckOut: stay.CheckOut.AddDays(1)}
	openRooms(t, sys, "h-amend-cancel", "double", longer, 10)
	outcomes := map[string]int{}
	for round := range 8 {
		id, _ := holdRoom(t, sys, "h-amend-cancel", fmt.Sprintf("k%d", round), stay, 1)
		var amended, cancelled testsuite.Response
		var wg sync.WaitGroup
		wg.Go(func() { amended = amend(t, sys, id, "a", map[string]any{"checkOut": longer.CheckOut}) })
		wg.Go(func() { cancelled = cancel(t, sys, sys.Customer("guest"), id) })
		wg.Wait()
		require.Equal(t, http.StatusOK, cancelled.Status, cancelled.Raw)
		switch amended.Status {
		case http.StatusOK:
			outcomes["amended, then cancelled"]++
			assert.Equal(t, "APPLIED", amended.Body["amendment"].(map[string]any)["status"])
		case http.StatusConflict:
			outcomes["cancelled, amendment refused"]++
			assert.Equal(t, "not_amendable", amended.ErrorCode(), amended.Raw)
			assert.Empty(t, amendments(t, sys, id), "a refused amendment of an ended booking writes nothing")
		default:
			t.Fatalf("amendment answered %d: %s", amended.Status, amended.Raw)
		}
		assert.Equal(t, "CANCELLED", bookingStatus(t, sys, id))
	}
	t.Logf("outcomes: %v", outcomes)
	assert.Equal(t, 10, roomsLeft(t, sys, "h-amend-cancel", "double", longer), "every night went back")
	checkInvariants(t, sys)
}

// TestAnAmendmentRacingThePaymentHasOneOutcomeTheDatabaseAgreesWith: each round, a hold is
// amended (a night more, a higher price) while the payment of its old price arrives. Payment
// first: confirmed, and the amendment of the paid booking waits for its balance. Amendment first:
// the old price no longer pays the booking, the payment goes back whole, the hold stands at its
// new price. Money received less money refunded is what the bookings keep, in every round.
func TestAnAmendmentRacingThePaymentHasOneOutcomeTheDatabaseAgreesWith(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(30, 2)
	longer := domain.Stay{CheckIn: stay.CheckIn, CheckOut: stay.CheckOut.AddDays(1)}
	openRooms(t, sys, "h-amend-pay", "double", longer, 10)
	outcomes := map[string]int{}
	for round := range 8 {
		id, total := holdRoom(t, sys, "h-amend-pay", fmt.Sprintf("k%d", round), stay, 1)
		var amended, paid testsuite.Response
		var wg sync.WaitGroup
		pi := fmt.Sprintf("pi_race_%d", round)
		wg.Go(func() { amended = amend(t, sys, id, "a", map[string]any{"checkOut": longer.CheckOut}) })
		wg.Go(func() {
			paid = sys.Webhook(t, testsuite.PaymentEvent("evt_"+pi, pi, id, total, "EUR"), time.Now())
		})
		wg.Wait()
		require.Equal(t, http.StatusOK, paid.Status, paid.Raw)
		a := amendment(t, amended)
		switch a["status"] {
		case "BALANCE_DUE":
			outcomes["paid, then amended up"]++
			awaitStatus(t, sys, id, "CONFIRMED")
			assert.EqualValues(t, 10000, staffView(t, sys, id).Body["balanceDue"])
		case "APPLIED":
			outcomes["amended, then the old price refunded"]++
			require.Eventually(t, func() bool {
				return count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = $1 AND status = 'succeeded'`, pi) == 1
			}, 20*time.Second, 50*time.Millisecond, "the payment of the old price goes back")
			b := staffView(t, sys, id).Body
			assert.Equal(t, "HOLD", b["status"])
			assert.EqualValues(t, total+10000, b["price"].(map[string]any)["total"])
		default:
			t.Fatalf("amendment %v: %s", a["status"], amended.Raw)
		}
	}
	t.Logf("outcomes: %v", outcomes)
	checkInvariants(t, sys)
}

// TestTheDailyReportCountsBalancesAndAmendmentRefundsToTheCent: a paid booking amended up and
// its balance paid, another amended down and refunded: the report's online totals are exactly the
// money that moved.
func TestTheDailyReportCountsBalancesAndAmendmentRefundsToTheCent(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(30, 3)
	openRooms(t, sys, "h-amend-report", "double", domain.Stay{CheckIn: stay.CheckIn, CheckOut: stay.CheckOut.AddDays(1)}, 4)
	up, total := holdRoom(t, sys, "h-amend-report", "up", stay, 1)
	payAndConfirm(t, sys, up, total, "evt_up", "pi_up")
	amendment(t, amend(t, sys, up, "a1", map[string]any{"checkOut": stay.CheckOut.AddDays(1)}))
	checkout := sys.Guest(t, sys.Customer("guest")).Do(t, http.MethodPost, "/api/v1/bookings/"+up+"/payment", nil, nil)
	require.Equal(t, http.StatusOK, checkout.Status, checkout.Raw)
	assert.EqualValues(t, 10000, checkout.Body["amount"], "the checkout asks for the balance")
	res := sys.Webhook(t, testsuite.PaymentEvent("evt_balance", checkout.Body["paymentId"].(string), up, 10000, "EUR"), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool { return staffView(t, sys, up).Body["checkOut"] == stay.CheckOut.AddDays(1).String() },
		20*time.Second, 50*time.Millisecond)

	down, total := holdRoom(t, sys, "h-amend-report", "down", stay, 2)
	payAndConfirm(t, sys, down, total, "evt_down", "pi_down")
	amendment(t, amend(t, sys, down, "a1", map[string]any{"quantity": 1}))
	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = 'pi_down' AND status = 'succeeded'`) == 1
	}, 20*time.Second, 50*time.Millisecond)

	var today string
	require.NoError(t, sys.DB.Pool.QueryRow(context.Background(), `SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD')`).Scan(&today))
	report := sys.Admin(t, http.MethodGet, "/api/v1/staff/reports/daily?hotelId=h-amend-report&date="+today, nil)
	require.Equal(t, http.StatusOK, report.Status, report.Raw)
	totals := report.Body["report"].(map[string]any)["totals"].([]any)
	require.Len(t, totals, 1, report.Raw)
	online := totals[0].(map[string]any)
	assert.EqualValues(t, 30000+10000+60000, online["paid"], "both prices and the balance")
	assert.EqualValues(t, 3, online["payments"])
	assert.EqualValues(t, 30000, online["refunded"], "one room of three nights given back")
	assert.EqualValues(t, 70000, online["net"])
	checkInvariants(t, sys)
}

// TestAResumedBookingKeepsItsPendingAmendmentAndRefundsEachPaymentWithinItsAmount: a booking paid,
// amended up and its balance paid, then amended up again (waiting for a second balance), loses its
// workflow. Resumed, the pending amendment still lapses at the end of its window, and a cancel
// refunds the first payment and the balance each within its own amount.
func TestAResumedBookingKeepsItsPendingAmendmentAndRefundsEachPaymentWithinItsAmount(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{HoldTTL: 5 * time.Second})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-amend-resume", "double", domain.Stay{CheckIn: stay.CheckIn, CheckOut: stay.CheckOut.AddDays(1)}, 3)
	id, total := holdRoom(t, sys, "h-amend-resume", "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_first", "pi_first")
	up := amendment(t, amend(t, sys, id, "a1", map[string]any{"checkOut": stay.CheckOut.AddDays(1)}))
	require.Equal(t, "BALANCE_DUE", up["status"])
	res := sys.Webhook(t, testsuite.BalancePaymentEvent("evt_balance", "pi_balance", id, int64(up["id"].(float64)), 10000, "EUR"),
		time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool { return staffView(t, sys, id).Body["paid"] == float64(total+10000) },
		20*time.Second, 50*time.Millisecond)
	again := amendment(t, amend(t, sys, id, "a2", map[string]any{"quantity": 2}))
	require.Equal(t, "BALANCE_DUE", again["status"])
	require.NoError(t, sys.Temporal.TerminateWorkflow(context.Background(), id, "", "an operator's mistake"))

	finance := sys.As(t, domain.Principal{Subject: "fin", Roles: []domain.Role{domain.RoleFinance}})
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/resume", nil, map[string]any{"reason": "terminated by mistake"})
	require.Equal(t, http.StatusAccepted, res.Status, res.Raw)
	require.Eventually(t, func() bool {
		list := amendments(t, sys, id)
		return len(list) == 2 && list[1].(map[string]any)["status"] == "LAPSED"
	}, 20*time.Second, 100*time.Millisecond, "the resumed workflow lapses the pending amendment when its window ends")
	assert.Equal(t, 2, roomsLeft(t, sys, "h-amend-resume", "double", stay), "the second room went back")

	require.Equal(t, http.StatusOK, cancel(t, sys, sys.Customer("guest"), id).Status)
	awaitStatus(t, sys, id, "REFUNDED")
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = 'pi_first' AND amount = $1 AND status = 'succeeded'`, total))
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = 'pi_balance' AND amount = 10000 AND status = 'succeeded'`))
	checkInvariants(t, sys)
}
