package testsuite_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/testsuite"
)

// Pay-at-hotel fees (issue 35) where money was taken at the desk, or given
// back by staff, around the fee.

// TestADeskPaymentThenALateCancelKeepsWhatThePolicyKeeps: a guaranteed booking of 180.00
// with 30.00 taken at the desk is cancelled inside the 50% window: what the booking ends keeping
// (its desk money left plus the card's fee) is 90.00, charged once, and every check agrees.
func TestADeskPaymentThenALateCancelKeepsWhatThePolicyKeeps(t *testing.T) {
	t.Parallel()
	provider := &cardProvider{}
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider})
	hotel, stay := "h-rv-desk-cancel", stayFromNow(2, 2)
	id := guaranteed(t, sys, hotel, stay, map[string]any{"freeUntilHours": 72, "feePercent": 50})["id"].(string)
	desk := deskOf(t, sys, []string{hotel}, nil)
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("deposit"),
		map[string]any{"amount": 3000, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)

	res = cancel(t, sys, sys.Customer("guest"), id)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitFee(t, sys, id, domain.FeePaid)
	handOverAtTheDesk(t, desk, id) // the guest's cancel gives back 15.00 of the cash: it waits at the desk
	awaitStatus(t, sys, id, "REFUNDED")
	b := staffView(t, sys, id).Body
	fee := b["guaranteeFee"].(map[string]any)
	kept := b["paid"].(float64)
	if due, ok := b["refundDue"].(float64); ok && (b["status"] == "REFUNDING" || b["status"] == "REFUNDED") {
		kept -= due
	}
	assert.Equal(t, float64(9000), kept, "the booking keeps 50%% of 180.00 in all: %v", b)
	assert.Len(t, provider.fees(), 1, "charged once")
	t.Logf("status %v paid %v refundDue %v fee %v", b["status"], b["paid"], b["refundDue"], fee["amount"])
	found, err := sys.DB.Store.MoneyMismatches(context.Background())
	require.NoError(t, err)
	assert.Empty(t, found, "the money checker")
	unmatched, err := sys.DB.Store.UnmatchedPayments(context.Background(), 0)
	require.NoError(t, err)
	assert.Empty(t, unmatched, "every payment has a home")
	checkInvariants(t, sys)
}

// TestANoShowFeeGivenBackByFinanceLeavesTheChecksClean: a no-show's fee paid by the card,
// then given back whole by finance as goodwill: drawn on the fee's payment through the
// provider, the booking keeps nothing, and every check agrees.
func TestANoShowFeeGivenBackByFinanceLeavesTheChecksClean(t *testing.T) {
	t.Parallel()
	provider := &cardProvider{}
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider, NoShowAfter: 3 * time.Second})
	hotel := "h-rv-noshow-back"
	id := guaranteed(t, sys, hotel, stayFromNow(20, 2), map[string]any{"noShow": "first_night", "freeUntilHours": 48})["id"].(string)
	awaitStatus(t, sys, id, "NO_SHOW")
	b := awaitFee(t, sys, id, domain.FeePaid)
	feePayment := b["guaranteeFee"].(map[string]any)["paymentId"].(string)

	finance := sys.As(t, domain.Principal{Subject: "fin-" + sys.ID, Roles: []domain.Role{domain.RoleFinance}})
	res := finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("goodwill-fee"),
		map[string]any{"amount": 9000, "currency": "EUR", "reason": "the guest's flight was cancelled"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitRefunded(t, sys, id, 9000)
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND payment_id = $2
		AND status = 'succeeded' AND amount = 9000`, id, feePayment), "drawn on the fee's payment")
	assert.Equal(t, float64(0), staffView(t, sys, id).Body["paid"])
	found, err := sys.DB.Store.MoneyMismatches(context.Background())
	require.NoError(t, err)
	assert.Empty(t, found, "the money checker")
	checkInvariants(t, sys)
}

// TestFinanceRefundsALateCancelFee: docs/rates-and-restrictions.md says "Finance may refund
// a fee as any kept payment". A late cancel's fee is kept by a CANCELLED booking: finance gives it
// back (a disputed fee, a guest's good reason) through the staff refund route, drawn on the fee's
// payment, and every check agrees.
func TestFinanceRefundsALateCancelFee(t *testing.T) {
	t.Parallel()
	provider := &cardProvider{}
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider})
	hotel, stay := "h-rv-fee-back", stayFromNow(2, 2)
	id := guaranteed(t, sys, hotel, stay, map[string]any{"freeUntilHours": 72, "feePercent": 50})["id"].(string)
	res := cancel(t, sys, sys.Customer("guest"), id)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitStatus(t, sys, id, "CANCELLED")
	b := awaitFee(t, sys, id, domain.FeePaid)
	feePayment := b["guaranteeFee"].(map[string]any)["paymentId"].(string)

	finance := sys.As(t, domain.Principal{Subject: "fin-" + sys.ID, Roles: []domain.Role{domain.RoleFinance}})
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("fee-back"),
		map[string]any{"amount": 9000, "currency": "EUR", "reason": "the guest was in hospital"})
	require.Equal(t, http.StatusOK, res.Status, "finance gives the late cancel's fee back: %s", res.Raw)
	awaitRefunded(t, sys, id, 9000)
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND payment_id = $2
		AND status = 'succeeded' AND amount = 9000`, id, feePayment), "drawn on the fee's payment")
	found, err := sys.DB.Store.MoneyMismatches(context.Background())
	require.NoError(t, err)
	assert.Empty(t, found, "the money checker")
	checkInvariants(t, sys)
}

// feeProcessingAtTheClose cancels a guaranteed booking of hotel late under a 50% policy with a
// provider that answers its fee as processing, and waits until its workflow closed: it answers
// the system, the hotel, the booking and the fee's pending payment.
func feeProcessingAtTheClose(t *testing.T, hotel string) (*testsuite.System, string, string, string) {
	t.Helper()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: &processingCards{}, LateWindow: 2 * time.Second})
	id := guaranteed(t, sys, hotel, stayFromNow(2, 2), map[string]any{"freeUntilHours": 72, "feePercent": 50})["id"].(string)
	res := cancel(t, sys, sys.Customer("guest"), id)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	b := awaitFee(t, sys, id, domain.FeeProcessing)
	pi := b["guaranteeFee"].(map[string]any)["pendingPaymentId"].(string)
	awaitClosed(t, sys, id)
	return sys, hotel, id, pi
}

// processingCards answers every fee as still processing (a bank transfer-like card payment).
type processingCards struct{ cardProvider }

func (p *processingCards) ChargeFee(ctx context.Context, r payments.FeeRequest) (payments.FeeCharge, error) {
	c, err := p.cardProvider.ChargeFee(ctx, r)
	c.Status = payments.FeeProcessing
	return c, err
}

// TestAProcessingFeeEndsAfterTheWorkflowClosed: the late cancel's fee is still processing
// when the booking's workflow closes; its payment_intent.succeeded then arrives: the Deliverer
// records it as the fee (paid, kept), gives nothing back, and every check agrees.
func TestAProcessingFeeEndsAfterTheWorkflowClosed(t *testing.T) {
	t.Parallel()
	sys, hotel, id, pi := feeProcessingAtTheClose(t, "h-rv-fee-late")

	res := sys.Webhook(t, payments.EventPayload("evt_fee_late_"+hotel, "payment_intent.succeeded",
		payments.FeeIntentObject(pi, id, id+"/fee@late_cancel", 9000, "EUR"), time.Now()), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	b := awaitFee(t, sys, id, domain.FeePaid)
	assert.Equal(t, float64(9000), b["paid"])
	time.Sleep(2 * time.Second)
	assert.Zero(t, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1`, id), "nothing goes back")
	found, err := sys.DB.Store.MoneyMismatches(context.Background())
	require.NoError(t, err)
	assert.Empty(t, found, "the money checker")
	unmatched, err := sys.DB.Store.UnmatchedPayments(context.Background(), 0)
	require.NoError(t, err)
	assert.Empty(t, unmatched)
	checkInvariants(t, sys)
}

// TestALateCancelFeeDoesNotTakeBackAGoodwillRefund: a guaranteed booking of 180.00 paid in
// full at the desk, then given 50.00 back by finance as goodwill (paid 130.00), is cancelled
// where the policy keeps everything. A prepaid booking in the same state ends keeping 130.00;
// the card must not be charged the goodwill back (a 50.00 "fee" off session).
func TestALateCancelFeeDoesNotTakeBackAGoodwillRefund(t *testing.T) {
	t.Parallel()
	provider := &cardProvider{}
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider})
	hotel, stay := "h-rv-goodwill", stayFromNow(2, 2)
	id := guaranteed(t, sys, hotel, stay, map[string]any{"freeUntilHours": 72, "feePercent": 100})["id"].(string)
	desk := deskOf(t, sys, []string{hotel}, nil)
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("all"),
		map[string]any{"amount": 18000, "currency": "EUR", "method": "card_terminal"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	finance := sys.As(t, domain.Principal{Subject: "fin-" + sys.ID, Roles: []domain.Role{domain.RoleFinance}})
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("goodwill"),
		map[string]any{"amount": 5000, "currency": "EUR", "reason": "noisy works next door"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	handOverAtTheDesk(t, desk, id) // finance's refund of desk money waits for the desk
	awaitRefunded(t, sys, id, 5000)

	res = sys.Admin(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/cancel", nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	time.Sleep(3 * time.Second) // a fee, if any, is charged right after the cancel
	b := staffView(t, sys, id).Body
	t.Logf("status %v paid %v refundDue %v fee %v", b["status"], b["paid"], b["refundDue"], b["guaranteeFee"])
	assert.Empty(t, provider.fees(), "the card is not charged the goodwill refund back")
	assert.NotContains(t, b, "guaranteeFee")
}

// TestAFeeDeclinedAfterTheWorkflowClosedIsFlagged: the late cancel's fee is still
// processing when the workflow closes, then its payment fails. The docs promise FEE_DECLINED for
// staff to take it up with the guest; a fee declined after the close reaches staff as the checker's
// fee_not_charged.
func TestAFeeDeclinedAfterTheWorkflowClosedIsFlagged(t *testing.T) {
	t.Parallel()
	sys, hotel, id, pi := feeProcessingAtTheClose(t, "h-rv-fee-fail")

	res := sys.Webhook(t, payments.EventPayload("evt_fee_fail_"+hotel, "payment_intent.payment_failed",
		payments.FeeIntentObject(pi, id, id+"/fee@late_cancel", 9000, "EUR"), time.Now()), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitFee(t, sys, id, domain.FeeDeclined)
	found, err := sys.DB.Store.FeesNotCharged(context.Background(), time.Hour)
	require.NoError(t, err)
	require.Len(t, found, 1, "a declined fee reaches staff: the checker's finding")
	assert.Equal(t, id, found[0].BookingID)
	assert.Equal(t, domain.CheckFeeNotCharged, found[0].Check)
}
