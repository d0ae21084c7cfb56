package domain

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErasedPrefix starts the pseudonym that replaces an erased customer's id.
const ErasedPrefix = "erased:"

// erasureKeyLabel names the key pseudonyms are made under (derivedKey), so neither the booking-id
// key nor the search key's keys a second hash.
const erasureKeyLabel = "bookflow customer erasure v1"

// MaxErasureReason bounds an erasure request's reason, in characters.
const MaxErasureReason = 500

// ErasurePseudonym is what replaces customerID everywhere once the customer is erased:
// "erased:" and the hex of the first 16 bytes of HMAC-SHA256 over the id, keyed by a sub-key of
// the deployment's booking-id key. It is deterministic, so erasing again finds the same
// pseudonym, and distinct ids get distinct pseudonyms (with overwhelming probability), so the
// bookings' unique keys still hold; without the key nobody can tell whose it was.
func ErasurePseudonym(idKey []byte, customerID string) string {
	mac := hmac.New(sha256.New, derivedKey(idKey, erasureKeyLabel))
	mac.Write([]byte(customerID))
	return ErasedPrefix + hex.EncodeToString(mac.Sum(nil)[:16])
}

// ValidateErasure checks an erasure request: a customer id (a subject, ValidateSubject) that is
// not itself a pseudonym, and a reason of 1 to MaxErasureReason characters.
func ValidateErasure(customerID, reason string) error {
	if err := ValidateSubject("customerId", customerID); err != nil {
		return err
	}
	switch {
	case strings.HasPrefix(customerID, ErasedPrefix):
		return fmt.Errorf("%w: customerId is already a pseudonym of an erased customer", ErrInvalid)
	case strings.TrimSpace(reason) == "":
		return fmt.Errorf("%w: reason is required", ErrInvalid)
	case utf8.RuneCountInString(reason) > MaxErasureReason:
		return fmt.Errorf("%w: reason must be at most %d characters", ErrInvalid, MaxErasureReason)
	}
	return nil
}
