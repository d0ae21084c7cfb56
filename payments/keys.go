package payments

import "fmt"

// CheckoutKey is the idempotency key of the payment a booking's checkout creates for its price:
// one per booking, and a new one after each amendment that changed the price of its hold
// (amendment: the last applied one's id; 0 when none was).
func CheckoutKey(bookingID string, amendment int64) string {
	if amendment == 0 {
		return bookingID + "/payment"
	}
	return fmt.Sprintf("%s/payment/amended-%d", bookingID, amendment)
}

// BalanceKey is the idempotency key of the payment of an amendment's balance.
func BalanceKey(bookingID string, amendment int64) string {
	return fmt.Sprintf("%s/balance/%d", bookingID, amendment)
}

// GuaranteeKey is the idempotency key of the card a pay-at-hotel booking's checkout saves: one
// per booking (a card is no price, so an amended hold keeps it).
func GuaranteeKey(bookingID string) string {
	return bookingID + "/guarantee"
}
