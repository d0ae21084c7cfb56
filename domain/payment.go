package domain

// PaymentEvent is what bookflow keeps of a payment provider's webhook event: a payment or a
// refund for a booking that succeeded or failed.
type PaymentEvent struct {
	EventID   string `json:"eventId"`
	Type      string `json:"type"` // the provider's event type, e.g. payment_intent.succeeded
	BookingID string `json:"bookingId"`
	PaymentID string `json:"paymentId"` // the provider's payment id
	RefundID  string `json:"refundId,omitempty"`
	IsRefund  bool   `json:"isRefund"`
	Succeeded bool   `json:"succeeded"` // false: the payment or refund failed
	Amount    int64  `json:"amount"`
	Currency  string `json:"currency"`
	Reason    string `json:"reason,omitempty"` // the provider's failure message
	// AmendmentID names the amendment whose balance a payment pays (from its metadata, as
	// bookflow's checkout of a balance creates it); 0 otherwise.
	AmendmentID int64 `json:"amendmentId,omitempty"`
	// Guarantee, on a setup_intent.succeeded event, is the card a pay-at-hotel booking's guest
	// left as its guarantee (Succeeded, no amount).
	Guarantee *CardGuarantee `json:"guarantee,omitempty"`
	// FeeKey, on a payment bookflow charged to a guarantee card (from its metadata "feeKey"),
	// is the fee's key: the payment is that fee, never a payment of the price.
	FeeKey string `json:"feeKey,omitempty"`
}

// Payment is a provider's successful payment for a booking.
type Payment struct {
	ID       string `json:"id"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// DrawRefund draws a refund of amount on a booking's kept payments, newest first, each up to what
// of it is left (taken off kept): a provider refunds a payment only up to its own amount. It
// returns what it draws on each.
func DrawRefund(kept []Payment, amount int64) []Payment {
	var parts []Payment
	for i := len(kept) - 1; i >= 0 && amount > 0; i-- {
		if take := min(amount, kept[i].Amount); take > 0 {
			parts = append(parts, Payment{ID: kept[i].ID, Amount: take, Currency: kept[i].Currency})
			kept[i].Amount -= take
			amount -= take
		}
	}
	return parts
}

// Payment returns the payment an event reports.
func (e PaymentEvent) Payment() Payment {
	return Payment{ID: e.PaymentID, Amount: e.Amount, Currency: e.Currency}
}

// Methods money is taken or given back by: through the payment provider, or at the desk (and,
// for a refund settled outside bookflow, the way finance paid it).
const (
	MethodProvider     = "provider"
	MethodCash         = "cash"
	MethodCardTerminal = "card_terminal"
	MethodBankTransfer = "bank_transfer"
	MethodOther        = "other" // with a note saying what it was
)

// DeskRefundID is what a refund waiting at the desk is known by while a saga waits for someone
// to hand it over: in place of the provider's refund id, the hand-over's signal carries it.
func DeskRefundID(attemptID string) string { return "desk:" + attemptID }

// DeskMethods are the methods the front desk takes money by.
var DeskMethods = []string{MethodCash, MethodCardTerminal, MethodBankTransfer, MethodOther}

// SupplierBookingNoDeskPayment says why a booking sold from a supplier's stock takes no desk
// payment: its supplier prices it, and the guest pays that price through the checkout.
const SupplierBookingNoDeskPayment = "its supplier prices it and it is paid through the checkout, never at the desk"

// DeskPaymentID is the payment id of money the desk took for a booking under an idempotency key.
func DeskPaymentID(bookingID, key string) string { return "desk/" + bookingID + "/" + key }
