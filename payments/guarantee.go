package payments

import (
	"context"
	"errors"

	"github.com/bookflow/bookflow/domain"
)

// A pay-at-hotel booking's card (issue 35): the checkout saves the guest's card with the provider
// (a customer and a SetupIntent for off-session use) instead of taking a payment; a fee is later
// charged to it off session.

// GuaranteeRequest asks the provider to save a card as a booking's guarantee.
type GuaranteeRequest struct {
	BookingID      string
	Currency       string
	IdempotencyKey string // one per booking: asking again returns the same setup
}

// GuaranteeCheckout is what a checkout front end needs to save the card: the provider's setup
// id and the secret its client library completes it with.
type GuaranteeCheckout struct {
	SetupIntentID string
	ClientSecret  string
	CustomerID    string
	Status        string
}

// FeeRequest charges a fee to a booking's guarantee card, off session.
type FeeRequest struct {
	BookingID string
	Guarantee domain.CardGuarantee
	Amount    int64
	Currency  string
	Kind      string // domain.FeeNoShow or domain.FeeLateCancel
	// IdempotencyKey is the fee's key: the charge's idempotency key, and its metadata "feeKey"
	// (the webhook of the payment tells it from a payment of the price by it).
	IdempotencyKey string
}

// FeeCharge is the provider's answer to a fee: its payment id and status, FeeSucceeded or
// FeeProcessing (the payment's webhook says how it ended). Beside ErrFeeDeclined it may name the
// refused payment (PaymentID, no Status) when the provider said which.
type FeeCharge struct {
	PaymentID string
	Status    string
}

// The fee statuses bookflow tells apart; a declined fee is ErrFeeDeclined.
const (
	FeeSucceeded  = "succeeded"
	FeeProcessing = "processing"
)

// ErrFeeDeclined marks a fee the card refused (declined, or the bank asks for the guest, who is
// not there: authentication required). Trying again will not help; staff take it up with the
// guest.
var ErrFeeDeclined = errors.New("fee declined by the card")

// Guarantees saves guarantee cards and charges fees to them.
type Guarantees interface {
	CreateGuarantee(ctx context.Context, r GuaranteeRequest) (GuaranteeCheckout, error)
	ChargeFee(ctx context.Context, r FeeRequest) (FeeCharge, error)
}
