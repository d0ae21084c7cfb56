package payments_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
)

const secret = "whsec_test"

func parse(t *testing.T, eventType string, object map[string]any, signedAt time.Time) (domain.PaymentEvent, error) {
	t.Helper()
	payload := payments.EventPayload("evt_1", eventType, object, signedAt)
	return payments.ParseWebhook(payload, payments.SignWebhook(payload, secret, signedAt), secret, payments.DefaultTolerance)
}

func TestParsePaymentEvents(t *testing.T) {
	ev, err := parse(t, "payment_intent.succeeded", payments.PaymentIntentObject("pi_1", "booking-a:k", 30000, "EUR"), time.Now())
	require.NoError(t, err)
	assert.Equal(t, domain.PaymentEvent{EventID: "evt_1", Type: "payment_intent.succeeded", BookingID: "booking-a:k",
		PaymentID: "pi_1", Succeeded: true, Amount: 30000, Currency: "EUR"}, ev)

	ev, err = parse(t, "payment_intent.succeeded", payments.BalanceIntentObject("pi_3", "booking-a:k", 7, 10000, "EUR"), time.Now())
	require.NoError(t, err)
	assert.Equal(t, int64(7), ev.AmendmentID, "a balance's payment names its amendment")

	failed := payments.PaymentIntentObject("pi_2", "booking-a:k", 30000, "eur")
	failed["last_payment_error"] = map[string]any{"message": "card declined"}
	ev, err = parse(t, "payment_intent.payment_failed", failed, time.Now())
	require.NoError(t, err)
	assert.False(t, ev.Succeeded)
	assert.Equal(t, "card declined", ev.Reason)
}

func TestParseRefundEvents(t *testing.T) {
	refund := map[string]any{"id": "re_1", "object": "refund", "amount": 500, "currency": "eur", "status": "succeeded",
		"payment_intent": "pi_1", "metadata": map[string]string{"bookingId": "booking-a:k"}}
	ev, err := parse(t, "refund.updated", refund, time.Now())
	require.NoError(t, err)
	assert.True(t, ev.IsRefund)
	assert.True(t, ev.Succeeded)
	assert.Equal(t, "re_1", ev.RefundID)
	assert.Equal(t, "pi_1", ev.PaymentID)

	refund["status"] = "pending"
	_, err = parse(t, "refund.updated", refund, time.Now())
	assert.ErrorIs(t, err, payments.ErrUnsupportedEvent, "a pending refund is not the final word")
}

func TestParseRefusesWhatItCannotTrust(t *testing.T) {
	_, err := parse(t, "payment_intent.succeeded", payments.PaymentIntentObject("pi_1", "b", 100, "EUR"), time.Now().Add(-time.Hour))
	assert.ErrorIs(t, err, domain.ErrInvalid, "an old signature is a replay")

	payload := payments.EventPayload("evt_1", "payment_intent.succeeded", payments.PaymentIntentObject("pi_1", "b", 100, "EUR"), time.Now())
	_, err = payments.ParseWebhook(payload, payments.SignWebhook(payload, "whsec_other", time.Now()), secret, payments.DefaultTolerance)
	assert.ErrorIs(t, err, domain.ErrInvalid, "signed with another secret")

	// Signed, but never processable: acknowledged and kept for an operator, not refused.
	ev, err := parse(t, "payment_intent.succeeded", payments.PaymentIntentObject("pi_1", "", 100, "EUR"), time.Now())
	assert.ErrorIs(t, err, payments.ErrUnprocessable, "no booking id in the metadata")
	assert.NotErrorIs(t, err, domain.ErrInvalid)
	assert.Equal(t, "evt_1", ev.EventID, "the event is named, so it can be recorded")
	_, err = parse(t, "payment_intent.succeeded", payments.PaymentIntentObject("pi_1", "b", 0, "EUR"), time.Now())
	assert.ErrorIs(t, err, payments.ErrUnprocessable, "a payment of nothing")

	payload = []byte(`{"object":"event","type":"payment_intent.succeeded","data":{"object":{"id":"pi_1","amount":100,"currency":"eur","metadata":{"bookingId":"b"}}}}`)
	_, err = payments.ParseWebhook(payload, payments.SignWebhook(payload, secret, time.Now()), secret, payments.DefaultTolerance)
	assert.ErrorIs(t, err, domain.ErrInvalid, "an event without its id cannot be recorded once")

	_, err = parse(t, "customer.created", map[string]any{"id": "cus_1"}, time.Now())
	assert.True(t, errors.Is(err, payments.ErrUnsupportedEvent))
}

func TestACanceledRefundIsFailed(t *testing.T) {
	ev, err := parse(t, "refund.updated", map[string]any{"id": "re_1", "object": "refund", "status": "canceled",
		"payment_intent": "pi_1", "amount": 100, "currency": "eur", "metadata": map[string]string{"bookingId": "b"}}, time.Now())
	require.NoError(t, err, "a canceled refund is a final word, not one to wait for")
	assert.True(t, ev.IsRefund)
	assert.False(t, ev.Succeeded, "no money went back")
}
