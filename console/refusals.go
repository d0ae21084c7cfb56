package console

import (
	"net/http"
	"strings"
)

// refusal is one cause of an API refusal that staff meet, told apart by the answer's status, its
// code and, where one code covers several causes, a piece of its message; key is the sentence
// staff read instead of the API's text (text_booking.go, "refusal.*").
type refusal struct {
	status int
	code   string // "" for any code of the status
	cause  string // a piece of the message, lower case; "" for any message
	key    string
}

// refusals are the causes the console names, the first that matches winning: a code's particular
// causes come before its catch-all. The messages are the API's (api/*.go), the workflows'
// (workflows/booking_staff_money.go, booking_amend.go) and the database's (db/staff_money.go)
// refusals of the booking page's actions; TestEveryRefusalOfTheBookingPageHasASentence holds
// them to it.
var refusals = []refusal{
	{http.StatusForbidden, "", "", "refusal.forbidden"},
	{http.StatusNotFound, "", "has no room ", "refusal.noRoom"},
	{http.StatusNotFound, "", "", "refusal.notFound"},
	{http.StatusUnprocessableEntity, "idempotency_key_reused", "", "booking.wentThrough"},
	{http.StatusConflict, "idempotency_key_spent", "", "booking.wentThrough"},
	{http.StatusTooManyRequests, "", "", "error.busy"},
	{http.StatusServiceUnavailable, "", "", "error.busy"},
	{http.StatusBadGateway, "payment_provider_unavailable", "", "refusal.provider"},

	{http.StatusConflict, "too_early", "a no-show", "refusal.noShowTooEarly"},
	{http.StatusConflict, "too_early", "", "refusal.tooEarly"},
	{http.StatusConflict, "checked_in", "", "refusal.checkedIn"},
	{http.StatusConflict, "stay_started", "", "refusal.stayStarted"},
	{http.StatusConflict, "supplier_booking", "", "refusal.supplierBooking"},
	{http.StatusConflict, "supplier_pending", "", "refusal.supplierPending"},
	{http.StatusConflict, "balance_due", "", "refusal.balanceDue"},
	{http.StatusConflict, "amendment_closed", "", "refusal.notAmendable"},
	{http.StatusConflict, "unavailable", "", "refusal.soldOut"},
	{http.StatusConflict, "refund_in_flight", "", "refusal.refundUnderWay"},
	{http.StatusConflict, "operator_action_in_progress", "", "refusal.refundUnderWay"},
	{http.StatusConflict, "saga_running", "", "refusal.refundUnderWay"},
	{http.StatusConflict, "workflow_running", "", "refusal.refundUnderWay"},
	// wrong_state, not_amendable and conflict carry the workflow's or the database's reason.
	{http.StatusConflict, "", "a refund that keeps its units is for", "refusal.notRefundable"},
	{http.StatusConflict, "", "workflow has closed", "refusal.ended"},
	{http.StatusConflict, "", "has ended", "refusal.ended"},
	{http.StatusConflict, "", "left to refund", "refusal.moreThanLeft"},
	{http.StatusConflict, "", "keeps no payment", "refusal.paymentGone"},
	{http.StatusConflict, "", "of what was paid; a refund of", "refusal.moreThanKept"},
	{http.StatusConflict, "", "after its cancel's refund; a refund of", "refusal.moreThanKept"},
	{http.StatusConflict, "", "; a desk payment of", "refusal.moreThanDue"},
	{http.StatusConflict, "", "takes no payment", "refusal.takesNoPayment"},
	{http.StatusConflict, "", "no balance to pay", "refusal.takesNoPayment"},
	{http.StatusConflict, "", "no price to pay", "refusal.takesNoPayment"},
	{http.StatusConflict, "", "the channel pays for it", "refusal.channelPays"},
	{http.StatusConflict, "", "has expired", "refusal.holdExpired"},
	{http.StatusConflict, "", "has its price changed", "refusal.priceFixed"},
	{http.StatusConflict, "", "its price is changed by", "refusal.priceFixed"},
	{http.StatusConflict, "", "priced by its supplier", "refusal.priceFixed"},
	{http.StatusConflict, "", "the stay has begun", "refusal.stayStarted"},
	{http.StatusConflict, "", "has not confirmed", "refusal.supplierPending"},
	// The folio's and a refund's method (db/folio.go, db/refund_methods.go).
	{http.StatusConflict, "", "extras are charged to a confirmed or checked-in booking", "refusal.notChargeable"},
	{http.StatusConflict, "", "the charge was paid", "refusal.chargePaid"},
	{http.StatusConflict, "", "the provider cannot give it back", "refusal.providerCannot"},
	{http.StatusConflict, "", "does not wait at the desk", "refusal.notAtDesk"},
	{http.StatusConflict, "", "was cashed up while this was recorded", "refusal.shiftCashedUp"},
	// A room's refusals (db/rooms.go, db/rooms_out_of_order.go, db/inventory.go's blocking).
	{http.StatusConflict, "", "is another booking's on a night", "refusal.roomTaken"},
	{http.StatusConflict, "", "is out of order on a night", "refusal.roomOutOfOrder"},
	{http.StatusConflict, "", "has a guest on", "refusal.roomHasGuest"},
	{http.StatusConflict, "", "is already out of order", "refusal.roomAlreadyOut"},
	{http.StatusConflict, "", "free to block", "refusal.noRoomToBlock"},
	{http.StatusConflict, "", "are not on sale", "refusal.roomNotOnSale"},
	{http.StatusConflict, "", "have unlimited stock", "refusal.roomUnlimited"},
	{http.StatusConflict, "", "is not out of order on any night", "refusal.roomNotOut"},
	{http.StatusConflict, "", "holds no nights", "refusal.roomNoNights"},
	{http.StatusConflict, "not_amendable", "", "refusal.notAmendable"},
	{http.StatusConflict, "wrong_state", "", "refusal.wrongState"},

	{http.StatusBadRequest, "", "name the room the guest moves out of", "refusal.roomMoveFrom"},
	{http.StatusBadRequest, "", "does not have room", "refusal.roomMoveFrom"},
	{http.StatusBadRequest, "", "is not a night of the stay", "refusal.roomNight"},
	{http.StatusBadRequest, "", "the booking's rooms are", "refusal.roomType"},
	{http.StatusBadRequest, "", "to must be after from", "refusal.roomDates"},
	{http.StatusBadRequest, "", "a room out of order has a reason", "refusal.reasonNeeded"},
	{http.StatusBadRequest, "", "cuts a unit", "refusal.notOnUnit"},
	{http.StatusBadRequest, "", "starts in the past", "refusal.past"},
	{http.StatusBadRequest, "", "has a reason", "refusal.reasonNeeded"},
	{http.StatusBadRequest, "", "reason is required", "refusal.reasonNeeded"},
	{http.StatusBadRequest, "", "has a note saying", "refusal.noteNeeded"},
	{http.StatusBadRequest, "", "is priced in", "refusal.currency"},
	{http.StatusBadRequest, "", "is paid in", "refusal.currency"},
	{http.StatusBadRequest, "", "is not an amount of", "refusal.amount"},
	{http.StatusBadRequest, "", "is more than zero", "refusal.amount"},
	{http.StatusBadRequest, "", "a refund of -", "refusal.amount"},
	{http.StatusBadRequest, "", "a refund of 0", "refusal.amount"},
	{http.StatusBadRequest, "", "a reversal keeps the booking's units", "refusal.reversalKeeps"},
}

// refusalKey is the catalogue key of the sentence for the API's refusal ae, and whether the
// console knows its cause.
func refusalKey(ae *apiError) (string, bool) {
	msg := strings.ToLower(ae.Message)
	for _, f := range refusals {
		if f.status == ae.Status && (f.code == "" || f.code == ae.Code) && strings.Contains(msg, f.cause) {
			return f.key, true
		}
	}
	return "refusal.unknown", false
}

// refusalText is the sentence staff read for the API's refusal ae, in their language; the
// API's own words go to the log only.
func (r *request) refusalText(ae *apiError) string {
	key, known := refusalKey(ae)
	log := r.c.cfg.Logger.Info
	if !known {
		log = r.c.cfg.Logger.Warn // a refusal the console has no sentence for yet
	}
	log("console: the API refused", "path", r.Request().URL.Path, "status", ae.Status, "code", ae.Code,
		"message", ae.Message, "known", known)
	return r.text.T(key)
}
