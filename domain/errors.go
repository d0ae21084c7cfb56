package domain

import "errors"

// The kinds of failure every layer reports. Wrap them with a message
// (fmt.Errorf("%w: ...", ErrInvalid)) and compare with errors.Is; the API maps each kind to an
// HTTP status in one place.
var (
	// ErrInvalid: the input breaks a rule; retrying the same input cannot succeed.
	ErrInvalid = errors.New("invalid request")
	// ErrNotFound: a hotel, room type or booking that does not exist.
	ErrNotFound = errors.New("not found")
	// ErrUnavailable: not enough inventory for every unit asked for.
	ErrUnavailable = errors.New("not available")
	// ErrConflict: the change contradicts the current state (for example a total below what is
	// already reserved, or confirming a booking that is no longer on hold).
	ErrConflict = errors.New("conflict")
	// ErrIdempotencyMismatch: an idempotency key reused with a different request.
	ErrIdempotencyMismatch = errors.New("idempotency key reused with a different request")
	// ErrTooManyHolds: the customer already holds as many unpaid bookings as allowed; retrying
	// later, once one is paid, cancelled or expired, can succeed.
	ErrTooManyHolds = errors.New("too many active holds")
)
