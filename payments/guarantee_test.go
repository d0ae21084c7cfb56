package payments_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
)

func TestParseASavedCard(t *testing.T) {
	ev, err := parse(t, "setup_intent.succeeded", payments.SetupIntentObject("seti_1", "booking-a:k", "cus_1", "pm_1"), time.Now())
	require.NoError(t, err)
	assert.Equal(t, domain.PaymentEvent{EventID: "evt_1", Type: "setup_intent.succeeded", BookingID: "booking-a:k",
		Succeeded: true, Guarantee: &domain.CardGuarantee{SetupIntentID: "seti_1", CustomerID: "cus_1", PaymentMethodID: "pm_1"}}, ev,
		"a saved card has no payment and no amount")

	// Controls: a setup that saved no card, or under no customer, can never be charged.
	for name, obj := range map[string]map[string]any{
		"no payment method": payments.SetupIntentObject("seti_1", "booking-a:k", "cus_1", ""),
		"no customer":       payments.SetupIntentObject("seti_1", "booking-a:k", "", "pm_1"),
		"no booking":        payments.SetupIntentObject("seti_1", "", "cus_1", "pm_1"),
	} {
		_, err := parse(t, "setup_intent.succeeded", obj, time.Now())
		assert.ErrorIs(t, err, payments.ErrUnprocessable, name)
	}
	// An expanded customer is not an id: kept for an operator, not read as a card.
	obj := payments.SetupIntentObject("seti_1", "booking-a:k", "cus_1", "pm_1")
	obj["customer"] = map[string]any{"id": "cus_1"}
	_, err = parse(t, "setup_intent.succeeded", obj, time.Now())
	assert.ErrorIs(t, err, payments.ErrUnprocessable)

	_, err = parse(t, "setup_intent.setup_failed", payments.SetupIntentObject("seti_1", "booking-a:k", "cus_1", "pm_1"), time.Now())
	assert.ErrorIs(t, err, payments.ErrUnsupportedEvent, "a failed setup changes nothing: the hold waits or expires")
}

func TestParseAFeePayment(t *testing.T) {
	ev, err := parse(t, "payment_intent.succeeded", payments.FeeIntentObject("pi_f", "booking-a:k", "booking-a:k/fee/no_show", 9000, "EUR"), time.Now())
	require.NoError(t, err)
	assert.Equal(t, domain.PaymentEvent{EventID: "evt_1", Type: "payment_intent.succeeded", BookingID: "booking-a:k",
		PaymentID: "pi_f", Succeeded: true, Amount: 9000, Currency: "EUR", FeeKey: "booking-a:k/fee/no_show"}, ev)

	ev, err = parse(t, "payment_intent.payment_failed", payments.FeeIntentObject("pi_f", "booking-a:k", "fk", 9000, "EUR"), time.Now())
	require.NoError(t, err)
	assert.Equal(t, "fk", ev.FeeKey, "a failed fee is a fee too")

	ev, err = parse(t, "payment_intent.succeeded", payments.PaymentIntentObject("pi_1", "booking-a:k", 9000, "EUR"), time.Now())
	require.NoError(t, err)
	assert.Empty(t, ev.FeeKey, "a payment of the price is no fee")
}

// stripeStub answers the Stripe API's requests as scripted, and keeps them.
type stripeStub struct {
	mu       sync.Mutex
	requests []stubRequest
	answer   func(path string) (int, any)
}

type stubRequest struct {
	Path, IdempotencyKey string
	Form                 url.Values
}

func newStripeStub(t *testing.T, answer func(path string) (int, any)) (*payments.Stripe, *stripeStub) {
	stub := &stripeStub{answer: answer}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.NoError(t, r.ParseForm())
		stub.mu.Lock()
		stub.requests = append(stub.requests, stubRequest{Path: r.URL.Path, IdempotencyKey: r.Header.Get("Idempotency-Key"), Form: r.PostForm})
		stub.mu.Unlock()
		status, body := stub.answer(r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(srv.Close)
	return payments.NewStripe("sk_test_stub", srv.URL), stub
}

func stripeError(typ, code, msg string) map[string]any {
	return map[string]any{"error": map[string]any{"type": typ, "code": code, "message": msg}}
}

func TestCreateGuaranteeSavesACardForOffSessionUse(t *testing.T) {
	s, stub := newStripeStub(t, func(path string) (int, any) {
		if path == "/v1/customers" {
			return 200, map[string]any{"id": "cus_9", "object": "customer"}
		}
		return 200, map[string]any{"id": "seti_9", "object": "setup_intent", "client_secret": "seti_9_secret_x",
			"status": "requires_payment_method", "customer": "cus_9"}
	})
	out, err := s.CreateGuarantee(context.Background(), payments.GuaranteeRequest{BookingID: "bk_1", Currency: "EUR",
		IdempotencyKey: payments.GuaranteeKey("bk_1")})
	require.NoError(t, err)
	assert.Equal(t, payments.GuaranteeCheckout{SetupIntentID: "seti_9", ClientSecret: "seti_9_secret_x", CustomerID: "cus_9",
		Status: "requires_payment_method"}, out)

	require.Len(t, stub.requests, 2)
	cus, setup := stub.requests[0], stub.requests[1]
	assert.Equal(t, "/v1/customers", cus.Path)
	assert.Equal(t, "bk_1/guarantee/customer", cus.IdempotencyKey, "a retry creates no second customer")
	assert.Equal(t, "bk_1", cus.Form.Get("metadata[bookingId]"))
	assert.Equal(t, "/v1/setup_intents", setup.Path)
	assert.Equal(t, "bk_1/guarantee", setup.IdempotencyKey)
	assert.Equal(t, "cus_9", setup.Form.Get("customer"))
	assert.Equal(t, "off_session", setup.Form.Get("usage"))
	assert.Equal(t, "card", setup.Form.Get("payment_method_types[0]"))
	assert.Equal(t, "bk_1", setup.Form.Get("metadata[bookingId]"), "its webhook finds the booking by it")
}

func feeRequest() payments.FeeRequest {
	return payments.FeeRequest{BookingID: "bk_1", Amount: 9000, Currency: "EUR", Kind: domain.FeeNoShow,
		IdempotencyKey: "bk_1/fee/no_show", Guarantee: domain.CardGuarantee{SetupIntentID: "seti_9", CustomerID: "cus_9", PaymentMethodID: "pm_9"}}
}

func TestChargeFeeChargesTheCardOffSession(t *testing.T) {
	status := "succeeded"
	s, stub := newStripeStub(t, func(string) (int, any) {
		return 200, map[string]any{"id": "pi_fee", "object": "payment_intent", "status": status}
	})
	out, err := s.ChargeFee(context.Background(), feeRequest())
	require.NoError(t, err)
	assert.Equal(t, payments.FeeCharge{PaymentID: "pi_fee", Status: payments.FeeSucceeded}, out)
	require.Len(t, stub.requests, 1)
	r := stub.requests[0]
	assert.Equal(t, "/v1/payment_intents", r.Path)
	assert.Equal(t, "bk_1/fee/no_show", r.IdempotencyKey)
	for field, want := range map[string]string{"amount": "9000", "currency": "eur", "customer": "cus_9", "payment_method": "pm_9",
		"off_session": "true", "confirm": "true", "metadata[bookingId]": "bk_1", "metadata[feeKey]": "bk_1/fee/no_show",
		"metadata[fee]": "no_show"} {
		assert.Equal(t, want, r.Form.Get(field), field)
	}

	status = "processing"
	out, err = s.ChargeFee(context.Background(), feeRequest())
	require.NoError(t, err)
	assert.Equal(t, payments.FeeProcessing, out.Status, "its webhook says how it ends")
}

// TestChargeFeeTellsADeclineFromAnUnknownOutcome: only the card's refusal (or the card or its
// customer gone from the provider) is ErrFeeDeclined; an answer that leaves the outcome unknown
// is returned as it is, to be retried with the same key.
func TestChargeFeeTellsADeclineFromAnUnknownOutcome(t *testing.T) {
	for name, c := range map[string]struct {
		status   int
		body     any
		declined bool
	}{
		"card declined":    {402, stripeError("card_error", "card_declined", "Your card was declined."), true},
		"needs the guest":  {402, stripeError("card_error", "authentication_required", "Your card requires authentication."), true},
		"needs a new card": {200, map[string]any{"id": "pi_fee", "status": "requires_payment_method", "last_payment_error": map[string]any{"message": "Your card has insufficient funds."}}, true},
		"needs an action":  {200, map[string]any{"id": "pi_fee", "status": "requires_action"}, true},
		"server error":     {500, stripeError("api_error", "", "Something went wrong"), false},
		"rate limited":     {429, stripeError("invalid_request_error", "rate_limit", "Too many requests"), false},
		"key in flight":    {409, stripeError("idempotency_error", "", "another request with this key is in progress"), false},
		"card gone":        {400, stripeError("invalid_request_error", "resource_missing", "No such PaymentMethod"), true},
		"invalid request":  {400, stripeError("invalid_request_error", "parameter_invalid_integer", "Invalid integer"), false},
	} {
		t.Run(name, func(t *testing.T) {
			s, _ := newStripeStub(t, func(string) (int, any) { return c.status, c.body })
			_, err := s.ChargeFee(context.Background(), feeRequest())
			require.Error(t, err)
			assert.Equal(t, c.declined, errors.Is(err, payments.ErrFeeDeclined), "%v", err)
		})
	}
	s, _ := newStripeStub(t, func(string) (int, any) {
		return 402, stripeError("card_error", "card_declined", "Your card was declined.")
	})
	_, err := s.ChargeFee(context.Background(), feeRequest())
	assert.ErrorContains(t, err, "Your card was declined.", "staff read the provider's reason")
}

func TestTheFakeSavesCardsAndChargesFees(t *testing.T) {
	ctx := context.Background()
	a, err := payments.Fake{}.CreateGuarantee(ctx, payments.GuaranteeRequest{BookingID: "bk_1", IdempotencyKey: payments.GuaranteeKey("bk_1")})
	require.NoError(t, err)
	again, _ := payments.Fake{}.CreateGuarantee(ctx, payments.GuaranteeRequest{BookingID: "bk_1", IdempotencyKey: payments.GuaranteeKey("bk_1")})
	other, _ := payments.Fake{}.CreateGuarantee(ctx, payments.GuaranteeRequest{BookingID: "bk_2", IdempotencyKey: payments.GuaranteeKey("bk_2")})
	assert.Equal(t, a, again, "asking again returns the same setup")
	assert.NotEqual(t, a.SetupIntentID, other.SetupIntentID)
	assert.Regexp(t, `^seti_fake_`, a.SetupIntentID)
	assert.Regexp(t, `^cus_fake_`, a.CustomerID)
	assert.NotEmpty(t, a.ClientSecret)

	fee, err := payments.Fake{}.ChargeFee(ctx, feeRequest())
	require.NoError(t, err)
	assert.Equal(t, payments.FeeSucceeded, fee.Status)
	assert.Regexp(t, `^pi_fake_`, fee.PaymentID)
}

// TestListedPaymentsNameTheirFee: the reconciliation's listing reads a fee's key from its
// payment's metadata, so a fee whose webhook was lost is recovered as that fee.
func TestListedPaymentsNameTheirFee(t *testing.T) {
	event := func(id, pi string, metadata map[string]string) map[string]any {
		return map[string]any{"id": id, "object": "event", "type": "payment_intent.succeeded", "created": time.Now().Unix(),
			"data": map[string]any{"object": map[string]any{"id": pi, "object": "payment_intent", "amount_received": 9000,
				"currency": "eur", "metadata": metadata}}}
	}
	s, _ := newStripeStub(t, func(string) (int, any) {
		return 200, map[string]any{"object": "list", "url": "/v1/events", "has_more": false, "data": []any{
			event("evt_1", "pi_fee", map[string]string{"bookingId": "bk_1", "feeKey": "bk_1/fee/no_show", "fee": "no_show"}),
			event("evt_2", "pi_price", map[string]string{"bookingId": "bk_2"})}}
	})
	listed, err := s.SucceededPayments(context.Background(), time.Now().Add(-time.Hour))
	require.NoError(t, err)
	require.Len(t, listed, 2)
	assert.Equal(t, "bk_1/fee/no_show", listed[0].FeeKey)
	assert.Empty(t, listed[1].FeeKey)
}
