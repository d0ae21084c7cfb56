package domain

import "time"

// The invariant checks, by name.
const (
	CheckInventory       = "inventory_mismatch"       // reserved differs from the bookings holding a unit
	CheckHoldPastExpiry  = "hold_past_expiry"         // a HOLD long past its expiry
	CheckRefundingOrphan = "refunding_without_saga"   // a REFUNDING booking no workflow is refunding
	CheckUnmatchedPay    = "unmatched_payment"        // money received that no booking keeps and none gives back
	CheckRefundTwice     = "refund_paid_twice"        // more given back than was paid, or one refund step paid twice
	CheckRefundUnsettled = "refund_unsettled"         // a refund attempt neither succeeded nor failed for over a day
	CheckNoWorkflow      = "booking_without_workflow" // a confirmed or checked-in booking whose workflow was terminated or failed
	CheckSupplierNotTold = "supplier_not_told"        // a booking off whose supplier could not be told
	CheckNotChecked      = "not_checked"              // a row the checker could not look at or repair this time
	// CheckRefundOwed: money a booking gave up to a staff refund that no attempt gave back, none
	// is asking for, and no workflow of the booking gives back (it was lost), whatever its status.
	CheckRefundOwed = "refund_owed"
	// CheckMoney: a booking refunded more than its payments brought, confirmed with a price and
	// neither paid nor on account, or ended with money left and no reason to keep it.
	CheckMoney = "money_mismatch"
	// CheckLedger: the money ledger disagrees with the rows it is posted from, or moved money
	// that was not there (an account below zero).
	CheckLedger = "ledger_mismatch"
	// CheckBalancePastDue: a booking confirmed by a deposit plan's deposit still owing part of its
	// price long after its balance date (its workflow should have cancelled it).
	CheckBalancePastDue = "balance_past_due"
	// CheckFeeNotCharged: a guaranteed booking's fee its card declined in the last day, or one
	// still charging or processing long after it was asked (its webhook may be lost).
	CheckFeeNotCharged = "fee_not_charged"
	// CheckBlock: a group block's night whose picked rooms differ from what its guests' bookings
	// drew, or whose counts do not add up to the rooms it was promised.
	CheckBlock = "block_mismatch"
)

// Finding is one thing the invariant checker found wrong, and what it did about it.
type Finding struct {
	Check     string `json:"check"`
	BookingID string `json:"bookingId,omitempty"`
	PaymentID string `json:"paymentId,omitempty"`
	Detail    string `json:"detail"`
	// Repaired says what the checker did, when the repair was safe; empty: left for an operator.
	Repaired string `json:"repaired,omitempty"`
}

// CheckReport is one run of the invariant checker.
type CheckReport struct {
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`
	Repair     bool      `json:"repair"`
	// Skipped: another run was under way, and this one checked nothing.
	Skipped  bool      `json:"skipped,omitempty"`
	Findings []Finding `json:"findings"`
}
