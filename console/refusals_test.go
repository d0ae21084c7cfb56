package console

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEveryRefusalOfTheBookingPageHasASentence: the refusals the booking page's actions meet, as
// the API words them (api/*.go, workflows/booking_staff_money.go, db/staff_money.go), each have a
// sentence for staff of their own, and none shows the API's words.
func TestEveryRefusalOfTheBookingPageHasASentence(t *testing.T) {
	const id = "booking-01jd0000000000000000000000"
	for _, c := range []struct {
		status      int
		code, msg   string
		want        string
		description string
	}{
		{403, "forbidden", "your token does not name hotel seaside-inn", "refusal.forbidden", "another site's booking"},
		{404, "not_found", `no booking "` + id + `"`, "refusal.notFound", "no such booking"},
		{409, "too_early", "check-in opens on the check-in date at the hotel, or an hour before a venue booking starts",
			"refusal.tooEarly", "a check-in 6 days early"},
		{409, "unavailable", "not enough rooms left on every night of the stay", "refusal.soldOut", "sold out"},
		{409, "wrong_state", "booking " + id + ": conflict: booking " + id + " is REFUNDED: a refund that keeps its units is " +
			"for a confirmed, checked-in or no-show booking, or the fee a cancelled one's card paid", "refusal.notRefundable",
			"reversing a refunded booking's payment"},
		{409, "wrong_state", "the booking's workflow has closed: only a refund that keeps its units is given now", "refusal.ended",
			"a reversal once the workflow closed"},
		{400, "invalid_request", "invalid request: lines[0] cuts a unit of lane-1: start and end must be whole units", "refusal.notOnUnit",
			"a move off the slots"},
		{400, "invalid_request", "invalid request: lines[0] starts in the past", "refusal.past", "a move into the past"},
		{409, "checked_in", "the booking was checked in: cancelling it would put its units back on sale while they are in use",
			"refusal.checkedIn", "cancelling a checked-in venue order"},
		{409, "stay_started", "the stay has begun: only its check-out can move (the nights before today are used)",
			"refusal.stayStarted", "moving a begun stay's check-in"},
		{409, "wrong_state", "booking " + id + ": booking " + id + " keeps 2000 EUR of what was paid; a refund of 3000 is more",
			"refusal.moreThanKept", "refunding more than is kept"},
		{409, "wrong_state", "booking " + id + ": conflict: payment p-1 of booking " + id + " has 0 left to refund; a part of 2000 is more",
			"refusal.moreThanLeft", "reversing a payment twice"},
		{409, "conflict", "conflict: booking " + id + " has 1000 EUR due; a desk payment of 2000 is more", "refusal.moreThanDue",
			"taking more than is due"},
		{409, "conflict", "conflict: the hold on booking " + id + " has expired", "refusal.holdExpired", "paying an expired hold"},
		{409, "wrong_state", "booking " + id + " is EXPIRED", "refusal.wrongState", "a command the workflow ended otherwise"},
		{409, "not_amendable", "booking " + id + " is CANCELLED", "refusal.notAmendable", "changing a cancelled stay"},
		{409, "balance_due", "an earlier amendment waits for its balance: pay it or let it lapse first", "refusal.balanceDue", "a balance due"},
		{409, "supplier_booking", "booking " + id + " was sold from supplier s-1's stock: paid through the checkout",
			"refusal.supplierBooking", "a supplier's booking at the desk"},
		{400, "invalid_request", "invalid request: a payment by another method has a note saying what it was", "refusal.noteNeeded",
			"another method without a note"},
		{422, "idempotency_key_reused", "idempotency key reused: refund " + id + "/k", "booking.wentThrough", "a lost answer"},
		{503, "timeout", "the request took too long; it is safe to retry", "error.busy", "a slow workflow"},
		{409, "refund_in_flight", "a refund is in flight", "refusal.refundUnderWay", "a refund under way"},
	} {
		key, known := refusalKey(&apiError{Status: c.status, Code: c.code, Message: c.msg})
		assert.True(t, known, c.description)
		assert.Equal(t, c.want, key, c.description)
		for _, lang := range []string{"en", "zh-Hans"} {
			text, ok := messages[lang][key]
			if assert.True(t, ok, "%s: %s has no %s sentence", c.description, key, lang) {
				assert.NotContains(t, text, c.msg, c.description)
				assert.NotContains(t, strings.ToLower(text), c.code+":", c.description)
			}
		}
	}
}

// TestAnUnknownRefusalIsAGeneralSentence: a refusal the console has no sentence for is the
// general one, never the API's words.
func TestAnUnknownRefusalIsAGeneralSentence(t *testing.T) {
	key, known := refusalKey(&apiError{Status: http.StatusConflict, Code: "conflict", Message: "conflict: something new"})
	assert.False(t, known)
	assert.Equal(t, "refusal.unknown", key)
	_, known = refusalKey(&apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: "closes must be after opens"})
	assert.False(t, known, "an admin's form keeps the API's word on what was typed (fail)")
}

// TestEveryRefusalsSentenceIsInBothLanguages: each sentence the table names is in both catalogues.
func TestEveryRefusalsSentenceIsInBothLanguages(t *testing.T) {
	for _, f := range append(refusals, refusal{key: "refusal.unknown"}) {
		for _, lang := range []string{"en", "zh-Hans"} {
			assert.Contains(t, messages[lang], f.key, lang)
		}
	}
}
