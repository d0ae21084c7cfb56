package payments_test

import (
	"errors"
	"testing"
	"time"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
)

// FuzzParseWebhook: any correctly signed body is refused as invalid, acknowledged as unsupported
// or unprocessable, or read into an event that names its booking and, for a payment, a positive
// amount in a currency, for a saved card its customer and payment method; it never panics.
func FuzzParseWebhook(f *testing.F) {
	now := time.Now()
	f.Add(payments.EventPayload("evt_1", "payment_intent.succeeded", payments.PaymentIntentObject("pi_1", "booking-x", 100, "EUR"), now))
	f.Add(payments.EventPayload("evt_2", "refund.updated", map[string]any{"id": "re_1", "status": "succeeded", "payment_intent": "pi_1",
		"amount": 100, "currency": "eur", "metadata": map[string]string{"bookingId": "booking-x"}}, now))
	f.Add(payments.EventPayload("evt_4", "setup_intent.succeeded", payments.SetupIntentObject("seti_1", "booking-x", "cus_1", "pm_1"), now))
	f.Add([]byte(`{"id":"evt_3","object":"event","type":"payment_intent.succeeded","data":{"object":"not an object"}}`))
	f.Add([]byte(`{"type":"payment_intent.succeeded","data":{"object":{"amount":1,"currency":"eur","metadata":{"bookingId":"b"}}}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		ev, err := payments.ParseWebhook(payload, payments.SignWebhook(payload, secret, now), secret, payments.DefaultTolerance)
		switch {
		case errors.Is(err, domain.ErrInvalid), errors.Is(err, payments.ErrUnsupportedEvent), errors.Is(err, payments.ErrUnprocessable):
		case err != nil:
			t.Fatalf("an error of no known kind: %v", err)
		case ev.BookingID == "" || ev.EventID == "":
			t.Fatalf("an event without its booking or id: %+v", ev)
		case ev.Guarantee != nil && (ev.Guarantee.CustomerID == "" || ev.Guarantee.PaymentMethodID == "" || ev.Amount != 0):
			t.Fatalf("a saved card that cannot be charged: %+v", ev)
		case ev.Succeeded && !ev.IsRefund && ev.Guarantee == nil && (ev.Amount <= 0 || domain.ValidateCurrency(ev.Currency) != nil):
			t.Fatalf("a payment without an amount: %+v", ev)
		}
	})
}
