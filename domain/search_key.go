package domain

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// CustomerSearchKeyPrefix starts every customer search key.
const CustomerSearchKeyPrefix = "cus_"

// CustomerSearchKey is what the CustomerId search attribute holds instead of the customer's id,
// which can be a phone number: a keyed hash (HMAC-SHA256, 128 bits kept) under a key derived
// from the deployment's booking-id key. Operators find a customer's bookings in the Temporal UI
// by it; staff get it from the API, and nobody without the key can tell whose it is.
func CustomerSearchKey(idKey []byte, customerID string) string {
	mac := hmac.New(sha256.New, derivedKey(idKey, "bookflow customer search key v1"))
	mac.Write([]byte(customerID))
	return CustomerSearchKeyPrefix + hex.EncodeToString(mac.Sum(nil)[:16])
}

// derivedKey is a key of its own for one purpose, from the booking-id key: no key serves two.
func derivedKey(idKey []byte, purpose string) []byte {
	mac := hmac.New(sha256.New, idKey)
	mac.Write([]byte(purpose))
	return mac.Sum(nil)
}
