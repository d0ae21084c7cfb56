// Package payments talks to the payment provider (Stripe, or a compatible API such as
// stripe-mock): it creates the payments guests complete at checkout, verifies and reads webhook
// events, and creates refunds.
package payments

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/webhook"

	"github.com/bookflow/bookflow/domain"
)

// RefundRequest asks the provider to give back part or all of a payment.
type RefundRequest struct {
	PaymentID      string
	Amount         int64
	Currency       string
	BookingID      string
	IdempotencyKey string // one per attempt of a refund step
}

// Refund is the provider's answer: its refund id and status, one of RefundPending,
// RefundSucceeded and RefundFailed.
type Refund struct {
	ID     string
	Status string
}

// The refund statuses bookflow tells apart. A refund the provider canceled is failed: no money
// went back.
const (
	RefundPending   = "pending"
	RefundSucceeded = "succeeded"
	RefundFailed    = "failed"
)

// refundStatus maps the provider's refund status onto bookflow's.
func refundStatus(s string) string {
	switch s {
	case "succeeded":
		return RefundSucceeded
	case "failed", "canceled":
		return RefundFailed
	}
	return RefundPending // pending, requires_action
}

// RefundLookup names a refund to look up: by the provider's id, or, when it is not known (the
// reply to its creation was lost), by its payment and the idempotency key it was created with.
type RefundLookup struct {
	RefundID       string
	PaymentID      string
	IdempotencyKey string
}

// ErrDeclined marks a refund the provider refused; trying the same request again will not help,
// a later attempt (with a new idempotency key) might.
var ErrDeclined = errors.New("refund declined by the payment provider")

// Provider creates refunds and looks them up.
type Provider interface {
	CreateRefund(ctx context.Context, r RefundRequest) (Refund, error)
	// LookupRefund asks the provider how a refund stands; found is false when the provider has
	// no such refund (it never received the request).
	LookupRefund(ctx context.Context, q RefundLookup) (r Refund, found bool, err error)
}

// PaymentRecord is a payment as the provider lists it.
type PaymentRecord struct {
	ID          string
	BookingID   string // from its metadata; empty when it has none
	Amount      int64  // what was received
	Currency    string // upper case
	SucceededAt time.Time
	AmendmentID int64  // the amendment whose balance it pays, from its metadata (0: none)
	FeeKey      string // a fee charged to a guarantee card: its key, from its metadata ("": none)
}

// PaymentLister lists the provider's payments, for the daily reconciliation.
type PaymentLister interface {
	// SucceededPayments lists the payments that succeeded since.
	SucceededPayments(ctx context.Context, since time.Time) ([]PaymentRecord, error)
}

// PaymentRequest asks the provider for a payment of a booking's price, which the guest then
// completes at checkout.
type PaymentRequest struct {
	BookingID      string
	Amount         int64
	Currency       string
	IdempotencyKey string // one per booking: asking again returns the same payment
	// AmendmentID, for the payment of an amendment's balance, travels in its metadata
	// ("amendmentId"), so its webhook is told from a second payment of the price.
	AmendmentID int64
}

// Checkout is what a checkout front end needs to take the payment: the provider's payment id
// and the secret its client library completes the payment with.
type Checkout struct {
	PaymentID    string
	ClientSecret string
	Status       string
}

// Checkouts creates the payments guests complete.
type Checkouts interface {
	CreatePayment(ctx context.Context, r PaymentRequest) (Checkout, error)
}

// Stripe is the Provider backed by the Stripe API at a configurable base URL.
type Stripe struct {
	client *stripe.Client
}

// NewStripe returns a Stripe provider; baseURL empty means Stripe's own API.
func NewStripe(apiKey, baseURL string) *Stripe {
	cfg := &stripe.BackendConfig{HTTPClient: &http.Client{Timeout: 20 * time.Second}, MaxNetworkRetries: stripe.Int64(0)}
	if baseURL != "" {
		cfg.URL = stripe.String(strings.TrimRight(baseURL, "/"))
	}
	return &Stripe{client: stripe.NewClient(apiKey, stripe.WithBackends(stripe.NewBackendsWithConfig(cfg)))}
}

// CreateRefund creates a refund on the payment intent. Only an answer that says the request
// itself is refused (a card or invalid-request error: already refunded, amount too large,
// unknown payment) is ErrDeclined. Everything else, network failures, 5xx, rate limits and
// idempotency conflicts (the same key still in flight), leaves the outcome unknown and is
// returned as it is, to be retried with the same key.
func (s *Stripe) CreateRefund(ctx context.Context, r RefundRequest) (Refund, error) {
	params := &stripe.RefundCreateParams{PaymentIntent: stripe.String(r.PaymentID), Amount: stripe.Int64(r.Amount)}
	params.AddMetadata("bookingId", r.BookingID)
	params.AddMetadata("refundKey", r.IdempotencyKey)
	params.SetIdempotencyKey(r.IdempotencyKey)
	params.Context = ctx
	re, err := s.client.V1Refunds.Create(ctx, params)
	var se *stripe.Error
	if errors.As(err, &se) && declined(se) {
		return Refund{}, fmt.Errorf("%w: %s", ErrDeclined, se.Msg)
	}
	if err != nil {
		return Refund{}, err
	}
	return Refund{ID: re.ID, Status: refundStatus(string(re.Status))}, nil
}

// LookupRefund retrieves a refund by id, or finds it among the payment's refunds by the
// idempotency key its metadata carries (CreateRefund writes it there).
func (s *Stripe) LookupRefund(ctx context.Context, q RefundLookup) (Refund, bool, error) {
	if q.RefundID != "" {
		re, err := s.client.V1Refunds.Retrieve(ctx, q.RefundID, nil)
		var se *stripe.Error
		if errors.As(err, &se) && se.HTTPStatusCode == http.StatusNotFound {
			return Refund{}, false, nil
		}
		if err != nil {
			return Refund{}, false, err
		}
		return Refund{ID: re.ID, Status: refundStatus(string(re.Status))}, true, nil
	}
	for re, err := range s.client.V1Refunds.List(ctx, &stripe.RefundListParams{PaymentIntent: stripe.String(q.PaymentID)}) {
		if err != nil {
			return Refund{}, false, err
		}
		if re.Metadata["refundKey"] == q.IdempotencyKey {
			return Refund{ID: re.ID, Status: refundStatus(string(re.Status))}, true, nil
		}
	}
	return Refund{}, false, nil
}

// CreatePayment creates a payment intent for the booking's price, tagged with the booking id
// (the webhook finds the booking by it). The idempotency key makes a repeated call return the
// same intent.
func (s *Stripe) CreatePayment(ctx context.Context, r PaymentRequest) (Checkout, error) {
	params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(r.Amount),
		Currency: stripe.String(strings.ToLower(r.Currency))}
	params.AddMetadata("bookingId", r.BookingID)
	if r.AmendmentID != 0 {
		params.AddMetadata("amendmentId", strconv.FormatInt(r.AmendmentID, 10))
	}
	params.SetIdempotencyKey(r.IdempotencyKey)
	pi, err := s.client.V1PaymentIntents.Create(ctx, params)
	if err != nil {
		return Checkout{}, err
	}
	return Checkout{PaymentID: pi.ID, ClientSecret: pi.ClientSecret, Status: string(pi.Status)}, nil
}

// SucceededPayments lists the payments that succeeded since, from the provider's
// payment_intent.succeeded events (kept 30 days): a payment is found by when it succeeded, however
// long before its intent was made.
func (s *Stripe) SucceededPayments(ctx context.Context, since time.Time) ([]PaymentRecord, error) {
	params := &stripe.EventListParams{Type: stripe.String("payment_intent.succeeded"),
		CreatedRange: &stripe.RangeQueryParams{GreaterThanOrEqual: since.Unix()}}
	params.Limit = stripe.Int64(100)
	params.Context = ctx
	seen := map[string]bool{}
	var out []PaymentRecord
	for ev, err := range s.client.V1Events.List(ctx, params) {
		if err != nil {
			return nil, err
		}
		var pi struct {
			ID             string            `json:"id"`
			Object         string            `json:"object"`
			AmountReceived int64             `json:"amount_received"`
			Currency       string            `json:"currency"`
			Metadata       map[string]string `json:"metadata"`
		}
		if ev.Type != "payment_intent.succeeded" || ev.Data == nil || json.Unmarshal(ev.Data.Raw, &pi) != nil ||
			pi.Object != "payment_intent" || seen[pi.ID] {
			continue
		}
		seen[pi.ID] = true
		amendment, _ := strconv.ParseInt(pi.Metadata["amendmentId"], 10, 64)
		out = append(out, PaymentRecord{ID: pi.ID, BookingID: pi.Metadata["bookingId"], Amount: pi.AmountReceived,
			Currency: strings.ToUpper(pi.Currency), SucceededAt: time.Unix(ev.Created, 0), AmendmentID: amendment,
			FeeKey: pi.Metadata["feeKey"]})
	}
	return out, nil
}

// declined reports whether the provider refused a refund request itself.
func declined(se *stripe.Error) bool {
	return !outcomeUnknown(se) && (se.Type == stripe.ErrorTypeCard || se.Type == stripe.ErrorTypeInvalidRequest)
}

// outcomeUnknown reports whether an error leaves the request's outcome unknown (the same key
// still in flight, a rate limit, a server error): it is retried with the same key, never read
// as a refusal.
func outcomeUnknown(se *stripe.Error) bool {
	return se.Type == stripe.ErrorTypeIdempotency || se.HTTPStatusCode == http.StatusConflict ||
		se.HTTPStatusCode == http.StatusTooManyRequests || se.HTTPStatusCode >= 500
}

// Fake is a Provider for local development without an account: every refund succeeds at once,
// and payments are paid with `bookflow pay`.
type Fake struct{}

// CreatePayment answers with a payment whose id derives from the idempotency key.
func (Fake) CreatePayment(_ context.Context, r PaymentRequest) (Checkout, error) {
	id := "pi_fake_" + fakeID(r.IdempotencyKey)
	return Checkout{PaymentID: id, ClientSecret: id + "_secret_fake", Status: "requires_payment_method"}, nil
}

// fakeID is the fake's id for what an idempotency key creates.
func fakeID(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:8])
}

// SucceededPayments has nothing to list: the fake keeps no record of payments (`bookflow pay`
// sends their webhooks itself).
func (Fake) SucceededPayments(context.Context, time.Time) ([]PaymentRecord, error) { return nil, nil }

// CreateRefund answers with a succeeded refund whose id derives from the idempotency key.
func (Fake) CreateRefund(_ context.Context, r RefundRequest) (Refund, error) {
	return Refund{ID: "re_fake_" + r.IdempotencyKey, Status: RefundSucceeded}, nil
}

// LookupRefund finds the refunds CreateRefund made, by id; it keeps no other record.
func (Fake) LookupRefund(_ context.Context, q RefundLookup) (Refund, bool, error) {
	if strings.HasPrefix(q.RefundID, "re_fake_") {
		return Refund{ID: q.RefundID, Status: RefundSucceeded}, true, nil
	}
	return Refund{}, false, nil
}

// DefaultTolerance is how old a webhook's signed timestamp may be.
const DefaultTolerance = 5 * time.Minute

// ErrUnsupportedEvent is an event type bookflow does not act on; it is acknowledged and ignored.
var ErrUnsupportedEvent = errors.New("event type not handled")

// ErrUnprocessable is a correctly signed event bookflow can never act on (no booking id, no
// amount, an unreadable object). Sending it again would not help, so it is acknowledged and
// recorded for an operator rather than refused: a provider retries a refused event for days and
// may then disable the endpoint.
var ErrUnprocessable = errors.New("event cannot be processed")

// ParseWebhook verifies a webhook's Stripe-Signature header against secret and tolerance, and
// reads the event. Supported: payment_intent.succeeded, payment_intent.payment_failed (FeeKey
// set for a fee ChargeFee charged), refund.updated / refund.failed / charge.refund.updated (the
// refund's status says succeeded or failed), and setup_intent.succeeded: a pay-at-hotel
// booking's card saved (Guarantee; no payment, no amount; one without its customer or payment
// method is ErrUnprocessable). The booking id travels in the object's metadata under "bookingId".
func ParseWebhook(payload []byte, header, secret string, tolerance time.Duration) (domain.PaymentEvent, error) {
	ev, err := webhook.ConstructEventWithOptions(payload, header, secret, webhook.ConstructEventOptions{
		Tolerance: tolerance, IgnoreAPIVersionMismatch: true})
	if err != nil {
		return domain.PaymentEvent{}, fmt.Errorf("%w: webhook signature: %s", domain.ErrInvalid, err.Error())
	}
	if ev.ID == "" { // bookflow records each event once by its id
		return domain.PaymentEvent{}, fmt.Errorf("%w: the event has no id", domain.ErrInvalid)
	}
	out := domain.PaymentEvent{EventID: ev.ID, Type: string(ev.Type)}
	var obj struct {
		ID               string                    `json:"id"`
		Amount           int64                     `json:"amount"`
		Currency         string                    `json:"currency"`
		Status           string                    `json:"status"`
		PaymentIntent    string                    `json:"payment_intent"`
		Metadata         map[string]string         `json:"metadata"`
		FailureReason    string                    `json:"failure_reason"`
		LastPaymentError *struct{ Message string } `json:"last_payment_error"`
	}
	if ev.Data == nil || json.Unmarshal(ev.Data.Raw, &obj) != nil {
		return out, fmt.Errorf("%w: event %s has no readable data.object", ErrUnprocessable, ev.ID)
	}
	out.BookingID = obj.Metadata["bookingId"]
	out.AmendmentID, _ = strconv.ParseInt(obj.Metadata["amendmentId"], 10, 64)
	out.Amount, out.Currency = obj.Amount, strings.ToUpper(obj.Currency)
	switch ev.Type {
	case "payment_intent.succeeded", "payment_intent.payment_failed":
		out.PaymentID, out.FeeKey = obj.ID, obj.Metadata["feeKey"]
		out.Succeeded = ev.Type == "payment_intent.succeeded"
		if obj.LastPaymentError != nil {
			out.Reason = obj.LastPaymentError.Message
		}
	case "refund.updated", "refund.failed", "charge.refund.updated":
		status := refundStatus(obj.Status)
		if status == RefundPending {
			return out, ErrUnsupportedEvent // the final word comes later
		}
		out.IsRefund, out.RefundID, out.PaymentID = true, obj.ID, obj.PaymentIntent
		out.Succeeded = status == RefundSucceeded
		out.Reason = obj.FailureReason
	case "setup_intent.succeeded":
		var si struct {
			Customer      string `json:"customer"`
			PaymentMethod string `json:"payment_method"`
		}
		if json.Unmarshal(ev.Data.Raw, &si) != nil || si.Customer == "" || si.PaymentMethod == "" {
			return out, fmt.Errorf("%w: event %s saved no card bookflow can charge: no customer or payment method id", ErrUnprocessable, ev.ID)
		}
		out.Succeeded, out.Amount, out.Currency = true, 0, ""
		out.Guarantee = &domain.CardGuarantee{SetupIntentID: obj.ID, CustomerID: si.Customer, PaymentMethodID: si.PaymentMethod}
	default:
		return out, ErrUnsupportedEvent
	}
	if out.BookingID == "" {
		return out, fmt.Errorf("%w: event %s has no bookingId in its metadata", ErrUnprocessable, ev.ID)
	}
	if out.Succeeded && out.Guarantee == nil && (out.Amount <= 0 || domain.ValidateCurrency(out.Currency) != nil) {
		return out, fmt.Errorf("%w: event %s reports a payment without a positive amount and a currency", ErrUnprocessable, ev.ID)
	}
	return out, nil
}

// SignWebhook returns a Stripe-Signature header for payload, as the provider would send it.
// It serves tests and the dev command that simulates a payment.
func SignWebhook(payload []byte, secret string, at time.Time) string {
	sig := webhook.ComputeSignature(at, payload, secret)
	return fmt.Sprintf("t=%d,v1=%x", at.Unix(), sig)
}

// EventPayload builds a webhook event body as the provider sends it, around object (a payment
// intent or a refund). It serves the dev command that simulates a payment, and tests.
func EventPayload(eventID, eventType string, object any, created time.Time) []byte {
	raw, _ := json.Marshal(map[string]any{
		"id": eventID, "object": "event", "type": eventType, "api_version": stripe.APIVersion,
		"created": created.Unix(), "livemode": false, "data": map[string]any{"object": object},
	})
	return raw
}

// PaymentIntentObject is the data.object of a payment event for a booking.
func PaymentIntentObject(paymentID, bookingID string, amount int64, currency string) map[string]any {
	return map[string]any{"id": paymentID, "object": "payment_intent", "amount": amount,
		"currency": strings.ToLower(currency), "status": "succeeded", "metadata": map[string]string{"bookingId": bookingID}}
}

// SetupIntentObject is the data.object of a setup_intent.succeeded event: a pay-at-hotel
// booking's card saved under its customer.
func SetupIntentObject(setupID, bookingID, customerID, paymentMethodID string) map[string]any {
	return map[string]any{"id": setupID, "object": "setup_intent", "status": "succeeded", "usage": "off_session",
		"customer": customerID, "payment_method": paymentMethodID, "metadata": map[string]string{"bookingId": bookingID}}
}

// FeeIntentObject is PaymentIntentObject for a fee charged to a guarantee card, as ChargeFee
// creates it: its metadata carries the fee's key.
func FeeIntentObject(paymentID, bookingID, feeKey string, amount int64, currency string) map[string]any {
	obj := PaymentIntentObject(paymentID, bookingID, amount, currency)
	obj["metadata"].(map[string]string)["feeKey"] = feeKey
	return obj
}

// BalanceIntentObject is PaymentIntentObject for the payment of an amendment's balance, as
// bookflow's checkout creates it: its metadata names the amendment.
func BalanceIntentObject(paymentID, bookingID string, amendmentID, amount int64, currency string) map[string]any {
	obj := PaymentIntentObject(paymentID, bookingID, amount, currency)
	obj["metadata"].(map[string]string)["amendmentId"] = strconv.FormatInt(amendmentID, 10)
	return obj
}
