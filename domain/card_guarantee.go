package domain

// A pay-at-hotel plan's booking (issue 35): nothing is charged at booking; the guest leaves a
// card, kept with the provider, as the guarantee, and the stay is paid at the hotel. A no-show or
// a cancel late enough for the policy to keep part of the price is charged to that card, off
// session, as a fee.

// CardGuarantee is the card a pay-at-hotel booking keeps as its guarantee: the provider's setup
// of it (a SetupIntent), the customer it is saved under and the payment method a fee is charged
// to.
type CardGuarantee struct {
	SetupIntentID   string `json:"setupIntentId"`
	CustomerID      string `json:"customerId"`
	PaymentMethodID string `json:"paymentMethodId"`
}

// The fees a guaranteed booking's card is charged.
const (
	FeeNoShow     = "no_show"     // nobody checked in: what the plan's no-show terms keep
	FeeLateCancel = "late_cancel" // cancelled late: what the cancellation policy keeps
)

// PaysAtHotel reports whether the booking was sold under a pay-at-hotel plan.
func (b Booking) PaysAtHotel() bool {
	return b.PlanTerms != nil && b.PlanTerms.Payment.Kind == PayAtHotel
}

// GuaranteeFeeAmount is what a guaranteed booking's card is charged when the booking ends
// keeping keep of its price (the policy's share: NoShowKeeps, or the price less what a cancel
// gives back of it): keep less what the guest paid at the hotel (paidHere: the desk's payments
// less their reversals; a goodwill refund was a gift, not a payment undone) and does not get back
// for this end (givenBack: the cancel's or the no-show's refund), never below zero.
func GuaranteeFeeAmount(keep, paidHere, givenBack int64) int64 {
	return max(keep-max(paidHere-givenBack, 0), 0)
}

// GuaranteeFee is the fee a guaranteed booking's card was asked for: at most one per booking (a
// cancelled booking is never a no-show, a no-show never cancelled), under its Key.
type GuaranteeFee struct {
	Kind     string `json:"kind"` // FeeNoShow or FeeLateCancel
	Key      string `json:"key"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	// Status is FeeCharging until the card's answer, then FeePaid or FeeDeclined (FeeProcessing
	// while the provider has not said: the payment's webhook ends it).
	Status string `json:"status"`
	// PaymentID is the provider's payment once it succeeded (the booking keeps it, as it keeps
	// its first payment); PendingPaymentID the payment still processing.
	PaymentID        string `json:"paymentId,omitempty"`
	PendingPaymentID string `json:"pendingPaymentId,omitempty"`
	Reason           string `json:"reason,omitempty"` // why the card refused it
}

// The statuses of a GuaranteeFee.
const (
	FeeCharging   = "charging"
	FeeProcessing = "processing"
	FeePaid       = "paid"
	FeeDeclined   = "declined"
)

// FeeKey is the key of a booking's fee of kind: its idempotency key with the provider too. No
// client key holds "@".
func FeeKey(bookingID, kind string) string { return bookingID + "/fee@" + kind }
