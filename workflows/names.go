// Package workflows holds bookflow's workflow definitions: deterministic code only, no I/O, no
// wall clock, no randomness except through the Temporal SDK.
package workflows

import "go.temporal.io/sdk/temporal"

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
	// QueryState returns the booking's BookingState.
	QueryState = "state"

	// ErrTypeIdempotencyMismatch is the error type of a hold update refused because its
	// request differs from the one the workflow was started with.
	ErrTypeIdempotencyMismatch = "IdempotencyMismatch"
)

// Search attributes that let operators filter bookings in the Temporal UI. They must be
// registered on the server (the dev scripts pass them to `temporal server start-dev`).
var (
	SearchBookingStatus = temporal.NewSearchAttributeKeyKeyword("BookingStatus")
	SearchHotelID       = temporal.NewSearchAttributeKeyKeyword("HotelId")
	SearchCustomerID    = temporal.NewSearchAttributeKeyKeyword("CustomerId")
	SearchCheckIn       = temporal.NewSearchAttributeKeyTime("CheckIn")
	SearchHoldExpiresAt = temporal.NewSearchAttributeKeyTime("HoldExpiresAt")
)

// SearchAttributes lists every search attribute key the workflows set.
var SearchAttributes = []temporal.SearchAttributeKey{
	SearchBookingStatus, SearchHotelID, SearchCustomerID, SearchCheckIn, SearchHoldExpiresAt,
}
