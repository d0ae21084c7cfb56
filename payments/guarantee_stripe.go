package payments

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/stripe/stripe-go/v82"
)

// CreateGuarantee saves the guest's card for off-session use: a customer, then a SetupIntent
// under it, both tagged with the booking id (the setup's webhook finds the booking by it). Both
// keys derive from r.IdempotencyKey, so asking again (a lost answer, a second click) creates no
// second customer and returns the same setup. A setup has no currency: r.Currency is not sent.
func (s *Stripe) CreateGuarantee(ctx context.Context, r GuaranteeRequest) (GuaranteeCheckout, error) {
	cp := &stripe.CustomerCreateParams{}
	cp.AddMetadata("bookingId", r.BookingID)
	cp.SetIdempotencyKey(r.IdempotencyKey + "/customer")
	cus, err := s.client.V1Customers.Create(ctx, cp)
	if err != nil {
		return GuaranteeCheckout{}, err
	}
	sp := &stripe.SetupIntentCreateParams{Customer: stripe.String(cus.ID),
		Usage: stripe.String(string(stripe.SetupIntentUsageOffSession)), PaymentMethodTypes: stripe.StringSlice([]string{"card"})}
	sp.AddMetadata("bookingId", r.BookingID)
	sp.SetIdempotencyKey(r.IdempotencyKey)
	si, err := s.client.V1SetupIntents.Create(ctx, sp)
	if err != nil {
		return GuaranteeCheckout{}, err
	}
	return GuaranteeCheckout{SetupIntentID: si.ID, ClientSecret: si.ClientSecret, CustomerID: cus.ID, Status: string(si.Status)}, nil
}

// ChargeFee charges the fee to the guarantee card, off session and confirmed at once, under the
// fee's key (its idempotency key and metadata "feeKey"). The card's refusal, as a card error
// (declined, or authentication required: the guest is not there to give it) or as the payment's
// status (requires_payment_method, requires_action), is ErrFeeDeclined; with it, PaymentID names
// the refused payment when the provider said. Everything else (network failures, 5xx, rate
// limits, the same key still in flight, an invalid request) leaves the outcome unknown and is
// returned as it is, to be retried with the same key.
func (s *Stripe) ChargeFee(ctx context.Context, r FeeRequest) (FeeCharge, error) {
	params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(r.Amount), Currency: stripe.String(strings.ToLower(r.Currency)),
		Customer: stripe.String(r.Guarantee.CustomerID), PaymentMethod: stripe.String(r.Guarantee.PaymentMethodID),
		OffSession: stripe.Bool(true), Confirm: stripe.Bool(true)}
	params.AddMetadata("bookingId", r.BookingID)
	params.AddMetadata("feeKey", r.IdempotencyKey)
	params.AddMetadata("fee", r.Kind)
	params.SetIdempotencyKey(r.IdempotencyKey)
	pi, err := s.client.V1PaymentIntents.Create(ctx, params)
	var se *stripe.Error
	// A card error refuses the charge; so does a card or customer gone from the provider (asked
	// again under the same key, it would answer the same for a day).
	if errors.As(err, &se) && !outcomeUnknown(se) && (se.Type == stripe.ErrorTypeCard ||
		se.Type == stripe.ErrorTypeInvalidRequest && se.Code == stripe.ErrorCodeResourceMissing) {
		var refused FeeCharge
		if se.PaymentIntent != nil {
			refused.PaymentID = se.PaymentIntent.ID
		}
		return refused, fmt.Errorf("%w: %s", ErrFeeDeclined, se.Msg)
	}
	if err != nil {
		return FeeCharge{}, err
	}
	switch pi.Status {
	case stripe.PaymentIntentStatusSucceeded:
		return FeeCharge{PaymentID: pi.ID, Status: FeeSucceeded}, nil
	case stripe.PaymentIntentStatusProcessing:
		return FeeCharge{PaymentID: pi.ID, Status: FeeProcessing}, nil
	case stripe.PaymentIntentStatusRequiresPaymentMethod, stripe.PaymentIntentStatusRequiresAction:
		why := string(pi.Status)
		if pi.LastPaymentError != nil && pi.LastPaymentError.Msg != "" {
			why = pi.LastPaymentError.Msg
		}
		return FeeCharge{PaymentID: pi.ID}, fmt.Errorf("%w: %s", ErrFeeDeclined, why)
	}
	return FeeCharge{}, fmt.Errorf("fee payment %s is %s, neither paid nor refused", pi.ID, pi.Status)
}

// CreateGuarantee answers with a setup whose ids derive from the idempotency key (its
// setup_intent.succeeded webhook is for the developer to send).
func (Fake) CreateGuarantee(_ context.Context, r GuaranteeRequest) (GuaranteeCheckout, error) {
	id := fakeID(r.IdempotencyKey)
	return GuaranteeCheckout{SetupIntentID: "seti_fake_" + id, ClientSecret: "seti_fake_" + id + "_secret_fake",
		CustomerID: "cus_fake_" + id, Status: "requires_payment_method"}, nil
}

// ChargeFee answers with a succeeded payment whose id derives from the fee's key.
func (Fake) ChargeFee(_ context.Context, r FeeRequest) (FeeCharge, error) {
	return FeeCharge{PaymentID: "pi_fake_" + fakeID(r.IdempotencyKey), Status: FeeSucceeded}, nil
}
