package workflows

import (
	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/activities"
)

// Names that cross process boundaries, defined once.
const (
	// TaskQueue is where booking workflows and their activities run.
	TaskQueue = "bookflow-bookings"

	// BookingWorkflowName is the registered name of the booking workflow.
	BookingWorkflowName = "Booking"
	// UpdateHold answers when the reservation outcome is known; the API sends it with
	// Update-with-Start so the HTTP call that creates a hold learns HOLD or REJECTED at once.
	UpdateHold = "hold"
	// UpdateConfirm confirms a booking on hold after the guest paid.
	UpdateConfirm = "confirm"
	// UpdateCancel cancels a booking on hold or confirmed, giving its nights back.
	UpdateCancel = "cancel"
	// UpdateCheckOut checks a checked-in stay's guest out: before its last night, an early
	// departure that ends the stay that day at the hotel (issue 39).
	UpdateCheckOut = "check-out"
	// UpdateNoShow is the desk marking a confirmed booking whose start has passed, nobody
	// checked in, a no-show by hand: the same step as the no-show deadline's (issue 39).
	UpdateNoShow = "no-show"
	// UpdateCheckIn marks a confirmed booking COMPLETED: staff checked its guest in.
	UpdateCheckIn = "checkIn"
	// UpdateAmend changes what a held or confirmed booking holds (an AmendRequest); it answers
	// an AmendAnswer.
	UpdateAmend = "amend"
	// UpdateMoney is staff steering a booking's money (a MoneyRequest): a desk payment, a price
	// set by hand, a refund; it answers a BookingState.
	UpdateMoney = "money"
	// QueryState returns the booking's BookingState.
	QueryState = "state"

	// SignalPayment carries a domain.PaymentEvent for a payment (succeeded or failed).
	SignalPayment = "payment"
	// SignalRefund carries a domain.PaymentEvent for a refund the provider settled.
	SignalRefund = "refund"
	// UpdateRetryRefund restarts a stuck refund (an OperatorAction).
	UpdateRetryRefund = "retry-refund"
	// UpdateResolveRefund closes a stuck refund that an operator settled by hand.
	UpdateResolveRefund = "resolve-refund"

	// InvariantCheckWorkflowName runs the invariant checker; the hourly schedule starts it.
	InvariantCheckWorkflowName = "InvariantCheck"
	// InvariantCheckScheduleID is the hourly schedule of the invariant checker.
	InvariantCheckScheduleID = "bookflow-invariant-check"
	// InvariantCheckWorkflowID is the id of the workflows its schedule starts (the schedule's
	// runs add the time they were due).
	InvariantCheckWorkflowID = "invariant-check"
	// ReconcilePaymentsWorkflowName matches the provider's payments against bookflow's records;
	// the daily schedule starts it.
	ReconcilePaymentsWorkflowName = "ReconcilePayments"
	// ReconcileScheduleID is the daily schedule of the payment reconciliation.
	ReconcileScheduleID = "bookflow-reconcile-payments"
	// ReconcileWorkflowID is the id of the workflows its schedule starts.
	ReconcileWorkflowID = "reconcile-payments"
	// SupplierSyncWorkflowName pulls one supplier's stock; each supplier's schedule
	// (SupplierSyncScheduleID) starts it.
	SupplierSyncWorkflowName = "SupplierSync"
	// SupplierSyncIDPrefix starts the id of a supplier's SupplierSync workflows; the supplier id
	// follows (the schedule's runs add the time they were due).
	SupplierSyncIDPrefix = "supplier-sync-"
	// SupplierSyncScheduleIDPrefix starts the id of a supplier's stock sync schedule; the
	// supplier id follows.
	SupplierSyncScheduleIDPrefix = "bookflow-supplier-sync-"
	// ExpireStopSellsWorkflowName marks past stop-sells and dated restrictions expired;
	// ExpireStopSellsScheduleID starts it hourly, as workflows ExpireStopSellsWorkflowID.
	ExpireStopSellsWorkflowName = "ExpireStopSells"
	ExpireStopSellsScheduleID   = "bookflow-expire-stop-sells"
	ExpireStopSellsWorkflowID   = "expire-stop-sells"

	// ReleaseBlocksWorkflowName gives back to sale what group blocks hold past their cut-off;
	// ReleaseBlocksScheduleID starts it every minute, as workflows ReleaseBlocksWorkflowID.
	ReleaseBlocksWorkflowName = "ReleaseBlocks"
	ReleaseBlocksScheduleID   = "bookflow-release-blocks"
	ReleaseBlocksWorkflowID   = "release-blocks"

	// StaffRefundWorkflowName gives staff refunds of a booking whose own workflow has closed.
	StaffRefundWorkflowName = "StaffRefund"
	// RecoverRefundWorkflowName finishes the refund of a booking whose own workflow is gone.
	RecoverRefundWorkflowName = "RecoverRefund"
	// TellSupplierWorkflowName tells a booking's supplier again that it is off.
	TellSupplierWorkflowName = "TellSupplier"

	// LatePaymentWorkflowName refunds a payment whose booking workflow has already closed.
	LatePaymentWorkflowName = "LatePayment"
	// LatePaymentIDPrefix starts the id of a LatePayment workflow; the payment id follows.
	LatePaymentIDPrefix = "late-payment-"

	// StatusPaymentStuck is the BookingStatus search attribute of a booking whose refund failed
	// too often and waits for an operator.
	StatusPaymentStuck = "PAYMENT_STUCK"
	// StatusBalanceDue is the BookingStatus search attribute of a confirmed booking whose
	// amendment waits for its balance.
	StatusBalanceDue = "BALANCE_DUE"

	// ErrTypeIdempotencyMismatch is the error type of a hold update refused because its
	// request differs from the one the workflow was started with.
	ErrTypeIdempotencyMismatch = activities.ErrTypeIdempotencyMismatch
	// ErrTypeNoChange is the error type of an update rejected by its validator because it would
	// change nothing (a cancel of a cancelled booking, a repeated hold); the booking's state is
	// in the database.
	ErrTypeNoChange = "NoChange"
	// ErrTypeTooEarly is the error type of a no-show update refused because the booking has not
	// started yet (see booking.started); nothing changed.
	ErrTypeTooEarly = "TooEarly"
	// ErrTypeNotAmendable is the error type of an amend update the booking cannot take (its
	// status, or a kind of booking that cannot be amended yet); nothing changed.
	ErrTypeNotAmendable = activities.ErrTypeNotAmendable
	// ErrTypeBalanceDue is the error type of an amend update refused because an earlier
	// amendment waits for its balance.
	ErrTypeBalanceDue = activities.ErrTypeBalanceDue
	// ErrTypeReservationAbandoned is the error type of a hold update whose reservation did not
	// complete within the time the API waits: it was abandoned, nothing is held, the key is
	// spent.
	ErrTypeReservationAbandoned = "ReservationAbandoned"
	// ErrTypeTooManyHolds is the error type of a hold update refused because the customer is
	// at the active-hold limit. Nothing was written and the workflow closes: its key is spent.
	ErrTypeTooManyHolds = activities.ErrTypeTooManyHolds
	// ErrTypeAlreadyOrdered is the error type of a venue order's hold update refused because
	// the customer already holds an active order for the slot. Nothing was written and the
	// workflow closes.
	ErrTypeAlreadyOrdered = activities.ErrTypeAlreadyOrdered
)

// TellSupplierID is the id of the workflow telling a booking's supplier again that it is off.
func TellSupplierID(bookingID string) string { return "tell-supplier-" + bookingID }

// SupplierSyncScheduleID is the id of a supplier's stock sync schedule, without a deployment's
// prefix (ScheduleIDs).
func SupplierSyncScheduleID(supplierID string) string {
	return SupplierSyncScheduleIDPrefix + supplierID
}

// ScheduleIDs are the ids of the schedules the worker keeps and of the workflows they start, as
// one deployment names them: each behind its Prefix (BOOKFLOW_SCHEDULE_PREFIX), so two
// deployments sharing a Temporal namespace keep a schedule each instead of taking turns
// rewriting one. The zero value has no prefix: the ids as they always were.
type ScheduleIDs struct {
	Prefix string
}

// InvariantCheck is the invariant checker's schedule and the id of the workflows it starts.
func (n ScheduleIDs) InvariantCheck() (schedule, workflow string) {
	return n.Prefix + InvariantCheckScheduleID, n.Prefix + InvariantCheckWorkflowID
}

// Reconcile is the payment reconciliation's schedule and the id of the workflows it starts.
func (n ScheduleIDs) Reconcile() (schedule, workflow string) {
	return n.Prefix + ReconcileScheduleID, n.Prefix + ReconcileWorkflowID
}

// ExpireStopSells is the stop-sells' expiry schedule and the id of the workflows it starts.
func (n ScheduleIDs) ExpireStopSells() (schedule, workflow string) {
	return n.Prefix + ExpireStopSellsScheduleID, n.Prefix + ExpireStopSellsWorkflowID
}

// ReleaseBlocks is the group blocks' release schedule and the id of the workflows it starts.
func (n ScheduleIDs) ReleaseBlocks() (schedule, workflow string) {
	return n.Prefix + ReleaseBlocksScheduleID, n.Prefix + ReleaseBlocksWorkflowID
}

// SupplierSync is a supplier's stock sync schedule and the id of its SupplierSync workflows,
// scheduled or asked for now (one at a time).
func (n ScheduleIDs) SupplierSync(supplierID string) (schedule, workflow string) {
	return n.Prefix + SupplierSyncScheduleID(supplierID), n.Prefix + SupplierSyncIDPrefix + supplierID
}

// Search attributes that let operators filter bookings in the Temporal UI. They must be
// registered on the server (the dev scripts pass them to `temporal server start-dev`).
var (
	SearchBookingStatus = temporal.NewSearchAttributeKeyKeyword("BookingStatus")
	SearchHotelID       = temporal.NewSearchAttributeKeyKeyword("HotelId")
	SearchVenueID       = temporal.NewSearchAttributeKeyKeyword("VenueId")
	SearchCustomerID    = temporal.NewSearchAttributeKeyKeyword("CustomerId")
	SearchCheckIn       = temporal.NewSearchAttributeKeyTime("CheckIn")
	SearchHoldExpiresAt = temporal.NewSearchAttributeKeyTime("HoldExpiresAt")
	// SearchPaymentIssue flags money that needs a look: AMOUNT_MISMATCH, DUPLICATE_PAYMENT,
	// LATE_PAYMENT_REFUNDED, NO_BOOKING, REFUND_CONFLICT.
	SearchPaymentIssue = temporal.NewSearchAttributeKeyKeyword("PaymentIssue")
	// SearchCheckResult is an invariant check's result: CLEAN or FINDINGS.
	SearchCheckResult = temporal.NewSearchAttributeKeyKeyword("CheckResult")
)

// SearchAttributes lists every search attribute key the workflows set.
var SearchAttributes = []temporal.SearchAttributeKey{
	SearchBookingStatus, SearchHotelID, SearchVenueID, SearchCustomerID, SearchCheckIn, SearchHoldExpiresAt,
	SearchPaymentIssue, SearchCheckResult,
}
