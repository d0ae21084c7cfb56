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
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/testsuite"
)

// A pay-at-hotel booking end to end (issue 35): the checkout saves a card, its setup's webhook
// confirms the hold with nothing paid, and a late cancel or a no-show charges the card the fee
// its terms keep, once; the fee's own webhook is not a payment to give back.

// cardProvider is payments.Fake that records the fees it is asked for and declines those of the
// bookings named in decline.
type cardProvider struct {
	payments.Fake
	mu      sync.Mutex
	decline map[string]bool
	asked   []payments.FeeRequest
	// answer, when set, holds every charge's answer until it is closed.
	answer chan struct{}
}

func (p *cardProvider) ChargeFee(ctx context.Context, r payments.FeeRequest) (payments.FeeCharge, error) {
	p.mu.Lock()
	p.asked = append(p.asked, r)
	declined, answer := p.decline[r.BookingID], p.answer
	p.mu.Unlock()
	if answer != nil {
		select {
		case <-answer:
		case <-ctx.Done():
			return payments.FeeCharge{}, ctx.Err()
		}
	}
	if declined {
		return payments.FeeCharge{}, fmt.Errorf("%w: Your card was declined.", payments.ErrFeeDeclined)
	}
	return p.Fake.ChargeFee(ctx, r)
}

func (p *cardProvider) fees() []payments.FeeRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]payments.FeeRequest(nil), p.asked...)
}

// guaranteed holds stay at hotel under plan HOTEL (BAR -10%: 90.00 a night, paid at the hotel,
// with policy), saves the
// guest's card through the checkout and its setup's webhook, and answers the confirmed booking.
func guaranteed(t *testing.T, sys *testsuite.System, hotel string, stay domain.Stay, policy map[string]any) map[string]any {
	t.Helper()
	openRooms(t, sys, hotel, "double", stay, 1)
	putPlans(t, sys, hotel, planDef{"HOTEL", map[string]any{"name": "Pay at the hotel", "policy": policy,
		"derivedFrom": map[string]any{"parent": "BAR", "percent": "-10"}, "payment": map[string]any{"kind": "at_hotel"}}})
	body := holdBody(sys.Customer("guest"), hotel, "double", stay, 1)
	body["ratePlan"] = "HOTEL"
	res := hold(t, sys, "k-"+hotel, body)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	checkout := sys.Guest(t, sys.Customer("guest")).Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	require.Equal(t, http.StatusOK, checkout.Status, checkout.Raw)
	setup := checkout.Body["setupIntentId"].(string)
	res = sys.Webhook(t, payments.EventPayload("evt_seti_"+hotel, "setup_intent.succeeded",
		payments.SetupIntentObject(setup, id, "cus_"+hotel, "pm_"+hotel), time.Now()), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitStatus(t, sys, id, "CONFIRMED")
	view := staffView(t, sys, id)
	require.Equal(t, http.StatusOK, view.Status, view.Raw)
	assert.Equal(t, true, view.Body["guaranteed"], view.Raw)
	assert.Equal(t, float64(0), view.Body["paid"], "nothing is paid: the price is paid at the hotel")
	return view.Body
}

// awaitFee waits for the booking's fee to reach status and answers the booking.
func awaitFee(t *testing.T, sys *testsuite.System, id, status string) map[string]any {
	t.Helper()
	var view testsuite.Response
	require.Eventually(t, func() bool {
		view = staffView(t, sys, id)
		fee, _ := view.Body["guaranteeFee"].(map[string]any)
		return fee != nil && fee["status"] == status
	}, 20*time.Second, 50*time.Millisecond, "booking %s's fee never became %s: %s", id, status, view.Raw)
	return view.Body
}

// TestALateCancelOfAGuaranteedBookingChargesTheCardWhatThePolicyKeeps: two nights of 90.00 paid
// at the hotel, cancelled inside the 72 hours a 50% fee applies: the cancel is answered before
// the card's provider answers (it is held); then the card is charged 90.00, once, under the fee's
// key, with the card the setup saved; the booking keeps it (CANCELLED, paid 90.00, the ledger's
// kept), the fee's webhook changes nothing, and every check agrees.
func TestALateCancelOfAGuaranteedBookingChargesTheCardWhatThePolicyKeeps(t *testing.T) {
	t.Parallel()
	provider := &cardProvider{}
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider})
	hotel, stay := "h-card-cancel", stayFromNow(2, 2)
	b := guaranteed(t, sys, hotel, stay, map[string]any{"freeUntilHours": 72, "feePercent": 50})
	id := b["id"].(string)
	require.Equal(t, float64(18000), b["price"].(map[string]any)["total"])
	checkInvariants(t, sys)

	answer := make(chan struct{})
	provider.mu.Lock()
	provider.answer = answer
	provider.mu.Unlock()
	res := cancel(t, sys, sys.Customer("guest"), id)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "CANCELLED", res.Body["status"], "answered while the card's provider has not")
	awaitFee(t, sys, id, domain.FeeCharging)
	close(answer)
	b = awaitFee(t, sys, id, domain.FeePaid)
	fee := b["guaranteeFee"].(map[string]any)
	assert.Equal(t, domain.FeeLateCancel, fee["kind"])
	assert.Equal(t, float64(9000), fee["amount"], "50% of 180.00")
	assert.Equal(t, float64(9000), b["paid"], "the booking keeps the fee")
	asked := provider.fees()
	require.Len(t, asked, 1, "charged once")
	assert.Equal(t, payments.FeeRequest{BookingID: id, Guarantee: domain.CardGuarantee{SetupIntentID: asked[0].Guarantee.SetupIntentID,
		CustomerID: "cus_" + hotel, PaymentMethodID: "pm_" + hotel}, Amount: 9000, Currency: "EUR", Kind: domain.FeeLateCancel,
		IdempotencyKey: id + "/fee@late_cancel"}, asked[0])

	// The provider's webhook of the fee's payment: the booking's own, not a payment to give back.
	res = sys.Webhook(t, payments.EventPayload("evt_fee_"+hotel, "payment_intent.succeeded",
		payments.FeeIntentObject(fee["paymentId"].(string), id, id+"/fee@late_cancel", 9000, "EUR"), time.Now()), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	time.Sleep(time.Second)
	assert.Zero(t, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1`, id), "nothing goes back")
	money := sys.Admin(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/payments", nil)
	assert.Equal(t, float64(9000), money.Body["balances"].(map[string]any)["kept"], money.Raw)
	found, err := sys.DB.Store.MoneyMismatches(context.Background())
	require.NoError(t, err)
	assert.Empty(t, found, "the money checker")
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "card-guarantee-late-cancel-fee-by-database")
}

// TestANoShowOfAGuaranteedBookingChargesTheFirstNightOrIsFlagged: nobody checks in to two
// guaranteed bookings keeping the first night of a no-show: one card pays 90.00 (kept, NO_SHOW),
// the other declines (the fee declined with the card's reason, FEE_DECLINED for staff, nothing
// kept). A cancel before the fee window charges nothing.
func TestANoShowOfAGuaranteedBookingChargesTheFirstNightOrIsFlagged(t *testing.T) {
	t.Parallel()
	provider := &cardProvider{decline: map[string]bool{}}
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider, NoShowAfter: 3 * time.Second})
	stay := stayFromNow(20, 2)
	policy := map[string]any{"noShow": "first_night", "freeUntilHours": 48}
	paid := guaranteed(t, sys, "h-card-noshow", stay, policy)["id"].(string)
	refused := guaranteed(t, sys, "h-card-declined", stay, policy)["id"].(string)
	provider.mu.Lock()
	provider.decline[refused] = true
	provider.mu.Unlock()
	free := guaranteed(t, sys, "h-card-free", stay, policy)["id"].(string)
	res := cancel(t, sys, sys.Customer("guest"), free)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)

	awaitStatus(t, sys, paid, "NO_SHOW")
	b := awaitFee(t, sys, paid, domain.FeePaid)
	assert.Equal(t, float64(9000), b["guaranteeFee"].(map[string]any)["amount"], "the first night")
	assert.Equal(t, domain.FeeNoShow, b["guaranteeFee"].(map[string]any)["kind"])
	assert.Equal(t, float64(9000), b["paid"])

	awaitStatus(t, sys, refused, "NO_SHOW")
	b = awaitFee(t, sys, refused, domain.FeeDeclined)
	assert.Contains(t, b["guaranteeFee"].(map[string]any)["reason"], "Your card was declined.")
	assert.Equal(t, float64(0), b["paid"])
	var state struct{ Issue string }
	require.Eventually(t, func() bool {
		v, err := sys.Temporal.QueryWorkflow(context.Background(), refused, "", "state")
		return err == nil && v.Get(&state) == nil && state.Issue == "FEE_DECLINED"
	}, 10*time.Second, 50*time.Millisecond, "the declined fee is flagged for staff: %+v", state)

	awaitStatus(t, sys, free, "CANCELLED")
	view := staffView(t, sys, free)
	assert.NotContains(t, view.Body, "guaranteeFee", "cancelled inside the free window: no fee")
	for _, f := range provider.fees() {
		assert.NotEqual(t, free, f.BookingID)
	}
	found, err := sys.DB.Store.MoneyMismatches(context.Background())
	require.NoError(t, err)
	assert.Empty(t, found, "the money checker")
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, paid, "card-guarantee-no-show-fee-by-database")
	testsuite.ReplayAndRecord(t, sys.Temporal, refused, "card-guarantee-no-show-fee-declined-by-database")
}

// TestAPayAtHotelNoShowThroughStripeMock: the same no-show with Stripe's API (stripe-mock, which
// checks every request against Stripe's API description) behind bookflow: the checkout's card
// setup and the off-session charge of the first night are requests Stripe takes. stripe-mock
// charges no card (its payment intent answers requires_payment_method), which bookflow reads as
// the card refusing: the fee is declined with the provider's word, flagged, and nothing is kept.
func TestAPayAtHotelNoShowThroughStripeMock(t *testing.T) {
	t.Parallel()
	stripe := payments.NewStripe("sk_test_bookflow", testsuite.StartStripeMock(t))
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: stripe, NoShowAfter: 3 * time.Second})
	b := guaranteed(t, sys, "h-card-stripe", stayFromNow(20, 2), map[string]any{"noShow": "first_night"})
	id := b["id"].(string)
	awaitStatus(t, sys, id, "NO_SHOW")
	b = awaitFee(t, sys, id, domain.FeeDeclined)
	fee := b["guaranteeFee"].(map[string]any)
	assert.Equal(t, float64(9000), fee["amount"], "the first night")
	assert.Contains(t, fee["reason"], "requires_payment_method", "the provider's word")
	assert.Equal(t, float64(0), b["paid"])
	found, err := sys.DB.Store.MoneyMismatches(context.Background())
	require.NoError(t, err)
	assert.Empty(t, found, "the money checker")
	checkInvariants(t, sys)
}
