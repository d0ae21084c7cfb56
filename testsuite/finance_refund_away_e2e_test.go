package testsuite_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// financeRefundLost is a booking at hotel held by a 50.00 cash deposit whose workflow was lost
// just after it recorded finance's goodwill refund of 20.00 (as the workflow records it: actor
// finance, away from the desk), under key "goodwill", before any part was asked: the system, the
// booking's id, its desk and finance's subject.
func financeRefundLost(t *testing.T, hotel string) (*testsuite.System, string, testsuite.Caller, string) {
	t.Helper()
	sys, id, desk := depositInCash(t, hotel)
	fin := "fin-" + sys.ID
	require.NoError(t, sys.Temporal.TerminateWorkflow(context.Background(), id, "", "lost"))
	_, _, err := sys.DB.Store.StartStaffRefund(context.Background(), db.StaffRefund{ID: db.StaffRefundID(id, "goodwill"),
		BookingID: id, Kind: db.RefundGoodwill, Amount: 2000, Currency: "EUR", Reason: "the lift was out", Actor: fin,
		AwayFromDesk: true})
	require.NoError(t, err)
	return sys, id, desk, fin
}

// TestFinancesRefundOfCashLostWithItsWorkflowStillWaitsAtTheDeskWhenResumed (a review of the
// first cut, which kept "away from the desk" in the request only): finance's goodwill refund of a
// cash deposit is recorded (staff_refunds, as the booking's workflow writes it: actor finance,
// away from the desk) and the workflow is lost before the part's first attempt. Finance resumes
// the booking: the resumed saga, whose Actor is the refund's actor, still waits at the desk,
// because the database decides from the refund (db.StaffRefund.AwayFromDesk), not from the saga.
//
// The control was the first cut: the cash recorded at once as handed over by finance.
func TestFinancesRefundOfCashLostWithItsWorkflowStillWaitsAtTheDeskWhenResumed(t *testing.T) {
	t.Parallel()
	sys, id, desk, fin := financeRefundLost(t, "h-fin-lost")

	finance := sys.As(t, domain.Principal{Subject: fin, Roles: []domain.Role{domain.RoleFinance}})
	res := finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/resume", nil, map[string]any{"reason": "its workflow was lost"})
	require.Equal(t, http.StatusAccepted, res.Status, res.Raw)
	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1`, id) > 0
	}, 20*time.Second, 100*time.Millisecond, "the resumed saga asks for the part")
	time.Sleep(time.Second)
	assert.Equal(t, 0, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND recorded_by = $2`, id, fin),
		"finance never handed the cash over")
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND status = 'pending' AND method = 'cash'
		AND recorded_by IS NULL`, id), "it waits at the desk, as before the workflow was lost")
	if t.Failed() {
		return
	}
	handOverAtTheDesk(t, desk, id)
	awaitRefunded(t, sys, id, 2000)
}

// TestFinancesLostRefundAskedAgainByTheDeskIsNotRecordedInFinancesName (the same review): the
// same refund under the same key, asked again by the desk after the workflow that recorded
// finance's was lost, gives back the part nobody asked for (versionLostStaffRefunds) with the
// refund's actor, finance. It waits at the desk, as finance's refund: the refund's terms are the
// first request's, whoever sends it again.
//
// The control was the first cut: the cash recorded at once as handed over by finance.
func TestFinancesLostRefundAskedAgainByTheDeskIsNotRecordedInFinancesName(t *testing.T) {
	t.Parallel()
	sys, id, desk, fin := financeRefundLost(t, "h-fin-again")

	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("goodwill"),
		map[string]any{"amount": 2000, "currency": "EUR", "reason": "the lift was out"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1`, id) > 0
	}, 20*time.Second, 100*time.Millisecond, "the lost part is given back")
	time.Sleep(time.Second)
	assert.Equal(t, 0, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND recorded_by = $2`, id, fin),
		"finance never handed the cash over")
	handOverAtTheDesk(t, desk, id)
	awaitRefunded(t, sys, id, 2000)
}

// TestFinanceGivesADeskPaymentBackByBankTransferAtOnce: a guest who paid a cash deposit has gone
// home; finance gives 20.00 back by bank transfer (method bank_transfer). Finance makes the
// transfer, so it is recorded at once in finance's name, never waiting at the desk, and the
// booking keeps its units. So is finance's refund, as it was paid, of a payment the desk took by
// bank transfer (a review found it waiting at the desk).
func TestFinanceGivesADeskPaymentBackByBankTransferAtOnce(t *testing.T) {
	t.Parallel()
	sys, id, _ := depositInCash(t, "h-fin-transfer")
	fin := "fin-" + sys.ID
	finance := sys.As(t, domain.Principal{Subject: fin, Roles: []domain.Role{domain.RoleFinance}})
	res := finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("transfer"),
		map[string]any{"amount": 2000, "currency": "EUR", "reason": "the lift was out", "method": "bank_transfer"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "CONFIRMED", res.Body["status"], res.Raw)
	awaitRefunded(t, sys, id, 2000)
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND status = 'succeeded'
		AND method = 'bank_transfer' AND recorded_by = $2 AND provider_refund_id IS NULL`, id, fin), "made by finance, at once")

	// A payment the desk took by bank transfer goes back by bank transfer, as it was paid: finance
	// makes that too, at once, though it chose no method.
	desk := deskOf(t, sys, []string{"h-fin-transfer"}, nil)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("wired"),
		map[string]any{"amount": 700, "currency": "EUR", "method": "bank_transfer"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("as-paid"),
		map[string]any{"amount": 700, "currency": "EUR", "reason": "paid twice"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitRefunded(t, sys, id, 2700)
	assert.Equal(t, 2, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND status = 'succeeded'
		AND method = 'bank_transfer' AND recorded_by = $2`, id, fin), "as it was paid, by finance, at once")
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("wire"),
		map[string]any{"amount": 100, "currency": "EUR", "reason": "x", "method": "wire"})
	assert.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	assert.Contains(t, res.Raw, "bank_transfer")
	checkInvariants(t, sys)
}
