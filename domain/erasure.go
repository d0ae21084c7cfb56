package domain

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"unicode"
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

// minNamedInReason is the shortest customer id looked for in an erasure's reason: a shorter one
// ("42") is found in too many ticket numbers and words to mean the customer.
const minNamedInReason = 3

// emailLike finds an e-mail address in an erasure's reason.
var emailLike = regexp.MustCompile(`[^\s@]+@[^\s@]+\.[^\s@]+`)

// ValidateErasure checks an erasure request: a customer id (a subject, ValidateSubject) that is
// not itself a pseudonym, and a reason of 1 to MaxErasureReason characters on one line (no
// control or formatting characters) that names nobody as far as can be told: not the customer's
// id (in any case) as a whole word (holdsWord), nor a walk-in's phone number as a whole number
// (holdsNumber), nor any e-mail address. The reason is kept with the erasure, beyond its reach, so it must not undo it.
// (A walk-in's name is checked by the erasure, which reads it: ValidateErasureReasonName.)
func ValidateErasure(customerID, reason string) error {
	if err := ValidateSubject("customerId", customerID); err != nil {
		return err
	}
	phone := strings.TrimPrefix(customerID, WalkInPrefix)
	switch {
	case strings.HasPrefix(customerID, ErasedPrefix):
		return fmt.Errorf("%w: customerId is already a pseudonym of an erased customer", ErrInvalid)
	case strings.TrimSpace(reason) == "":
		return fmt.Errorf("%w: reason is required", ErrInvalid)
	case utf8.RuneCountInString(reason) > MaxErasureReason:
		return fmt.Errorf("%w: reason must be at most %d characters", ErrInvalid, MaxErasureReason)
	case strings.IndexFunc(reason, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) >= 0:
		return fmt.Errorf("%w: reason must be one line of text, without control or formatting characters", ErrInvalid)
	case utf8.RuneCountInString(customerID) >= minNamedInReason && holdsWord(reason, customerID):
		return reasonNames("the customer's id")
	case phone != customerID && holdsNumber(reason, strings.TrimPrefix(phone, "+")):
		return reasonNames("a phone number")
	case emailLike.MatchString(reason):
		return reasonNames("an e-mail address")
	}
	return nil
}

// ValidateErasureReasonName refuses an erasure's reason that holds the walk-in guest's name, as a
// whole word in any case ("annual" does not name Ann); an empty name names nothing.
func ValidateErasureReasonName(reason, name string) error {
	if name != "" && holdsWord(reason, name) {
		return reasonNames("the guest's name")
	}
	return nil
}

// ErrReasonNamesCustomer refuses an erasure whose reason names the customer, or anyone.
var ErrReasonNamesCustomer = fmt.Errorf("%w: reason must not name the customer", ErrInvalid)

// reasonNames is ErrReasonNamesCustomer saying what kind of thing the reason names (what, "a
// phone number"), never the thing itself: the refusal may be logged.
func reasonNames(what string) error {
	return fmt.Errorf("%w (their id, phone number, name or an e-mail address): this one holds %s; it is kept "+
		"with the erasure: say why, with a ticket number", ErrReasonNamesCustomer, what)
}

// holdsWord reports whether text holds word, in any case, as a whole: not inside a longer run of
// letters, digits and marks ("annual" does not hold "Ann"). An end of word that is not a letter
// or digit itself needs nothing beside it.
func holdsWord(text, word string) bool { return holds(text, word, `[^\pL\pN\pM]`) }

// holdsNumber reports whether text holds the number digits, not inside a longer number ("ticket
// 49151123456789" does not hold 4915112345678; "tel4915112345678" does).
func holdsNumber(text, digits string) bool { return holds(text, digits, `[^\pN]`) }

// holds reports whether text holds s in any case, each end of s that is a letter, digit or mark
// at the start or end of text or beside a character edge matches.
func holds(text, s, edge string) bool {
	if s == "" {
		return false
	}
	pattern := regexp.QuoteMeta(s)
	if first, _ := utf8.DecodeRuneInString(s); isWordRune(first) {
		pattern = `(?:^|` + edge + `)` + pattern
	}
	if last, _ := utf8.DecodeLastRuneInString(s); isWordRune(last) {
		pattern += `(?:$|` + edge + `)`
	}
	return regexp.MustCompile(`(?i)` + pattern).MatchString(text)
}

// isWordRune reports whether r is part of a word: a letter, digit or mark.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }
