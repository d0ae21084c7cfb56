package activities

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/suppliers"
)

// Application error types the booking workflow tells apart. They are non-retryable: a business
// refusal stays a refusal however often it is asked.
const (
	ErrTypeUnavailable = "Unavailable"
	ErrTypeInvalid     = "Invalid"
	ErrTypeConflict    = "Conflict"
	// ErrTypeBalanceDatePassed: a deposit confirmed nothing, its balance date having passed
	// (db.ErrBalanceDatePassed); the hold is still live.
	ErrTypeBalanceDatePassed = "BalanceDatePassed"
	// ErrTypeTooManyHolds: the customer is at the active-hold limit; nothing was written, and
	// the same request may succeed later.
	ErrTypeTooManyHolds = "TooManyHolds"
	// ErrTypeAlreadyOrdered: the customer already holds an active order for the slot; nothing
	// was written.
	ErrTypeAlreadyOrdered = "AlreadyOrdered"
)

// Bookings runs booking steps against the store.
type Bookings struct {
	Store *db.Store
	Now   func() time.Time // the clock for cancellation policies; time.Now when nil
	// Suppliers asks direct_connect suppliers for quotes when a stay at their hotels is
	// reserved.
	Suppliers suppliers.Client
}

// ReserveInput asks to create booking BookingID and take its units: a stay at a hotel
// (Request), or a venue order (Order, when set). Fields as in db.ReserveParams.
type ReserveInput struct {
	BookingID      string
	IdempotencyKey string
	Request        domain.HoldRequest
	Order          *domain.OrderRequest `json:",omitempty"`
	CreatedBy      string
	MaxActiveHolds int
	HoldTTL        time.Duration
	ChannelID      string `json:",omitempty"`
	AgentID        string `json:",omitempty"`
	// SupplierID names the hotel's supplier: a direct_connect one is asked for a quote instead
	// of taking local stock.
	SupplierID string `json:",omitempty"`
}

func (in ReserveInput) stay() db.ReserveParams {
	return db.ReserveParams{BookingID: in.BookingID, IdempotencyKey: in.IdempotencyKey, Request: in.Request,
		CreatedBy: in.CreatedBy, MaxActiveHolds: in.MaxActiveHolds, HoldTTL: in.HoldTTL,
		ChannelID: in.ChannelID, AgentID: in.AgentID, SupplierID: in.SupplierID}
}

func (in ReserveInput) order() db.OrderParams {
	return db.OrderParams{BookingID: in.BookingID, IdempotencyKey: in.IdempotencyKey, Request: *in.Order,
		CreatedBy: in.CreatedBy, MaxActiveHolds: in.MaxActiveHolds, HoldTTL: in.HoldTTL}
}

// Reserve creates the booking and takes its units. It answers with the stored booking; when the
// units are not available the booking is stored REJECTED and the error has type Unavailable.
// Each attempt logs, and puts on its span, where its time went (reserve_timing.go).
func (a *Bookings) Reserve(ctx context.Context, in ReserveInput) (domain.Booking, error) {
	ctx, timing := db.WithReserveTiming(ctx)
	start := time.Now()
	b, err := a.reserve(ctx, in)
	reportReservation(ctx, in.BookingID, start, timing.Times(), err)
	return b, err
}

func (a *Bookings) reserve(ctx context.Context, in ReserveInput) (domain.Booking, error) {
	var b domain.Booking
	var err error
	why := "not enough rooms left, or no rate set, on every night of the stay"
	if in.Order != nil {
		b, err = a.Store.ReserveOrder(ctx, in.order())
		why = "not every slot or item of the order is open with enough left for it"
		if errors.Is(err, db.ErrAlreadyOrdered) {
			return b, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeAlreadyOrdered, err)
		}
	} else {
		b, err = a.reserveStay(ctx, in)
	}
	if err != nil {
		return b, classify(err)
	}
	if b.Status == domain.StatusRejected {
		if b.Refusal != "" {
			why = "not on sale: " + b.Refusal
		}
		return b, temporal.NewNonRetryableApplicationError(why, ErrTypeUnavailable, nil, b)
	}
	return b, nil
}

// reserveStay reserves a stay: from local stock, or from a direct_connect supplier.
func (a *Bookings) reserveStay(ctx context.Context, in ReserveInput) (domain.Booking, error) {
	if in.SupplierID != "" {
		sup, err := a.Store.HotelSupplier(ctx, in.Request.HotelID)
		if err != nil {
			return domain.Booking{}, err
		}
		if sup.Mode == db.ModeDirectConnect {
			return a.reserveAtSupplier(ctx, in, sup)
		}
	}
	return a.Store.Reserve(ctx, in.stay())
}

// AbandonReservation ends a reservation the workflow stopped waiting for: nothing is held
// afterwards, whatever a Reserve attempt still running does (see db.Store.AbandonReservation).
func (a *Bookings) AbandonReservation(ctx context.Context, in ReserveInput) (domain.Booking, error) {
	ctx = db.WithActor(ctx, db.ActorReservationTimeout)
	var b domain.Booking
	var err error
	if in.Order != nil {
		b, err = a.Store.AbandonOrder(ctx, in.order())
	} else {
		b, err = a.Store.AbandonReservation(ctx, in.stay())
	}
	return b, classify(err)
}

// ConfirmInput confirms a booking on hold, with the payment that paid it (nil: confirmed
// without online payment).
type ConfirmInput struct {
	BookingID string
	Payment   *domain.Payment
	// Actor, as in ReleaseInput: the desk's staff member, say; a payment names itself.
	Actor string `json:",omitempty"`
	// CatchUp: a booking confirmed already (by another payment, or without one) is answered
	// as ErrTypeAhead with the booking, not as a conflict.
	CatchUp bool `json:",omitempty"`
}

// Confirm confirms a booking on hold. A hold that expired by the database's clock, or a booking
// no longer on hold, fails with type Conflict.
func (a *Bookings) Confirm(ctx context.Context, in ConfirmInput) (domain.Booking, error) {
	actor := in.Actor
	if actor == "" && in.Payment != nil {
		actor = db.ActorPayment
	}
	b, err := a.Store.Confirm(db.WithActor(ctx, actor), in.BookingID, in.Payment)
	if errors.Is(err, db.ErrBalanceDatePassed) {
		return b, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeBalanceDatePassed, err)
	}
	return b, aheadOfHold(in.CatchUp, b, err)
}

// Actors the booking workflow names for its own steps in the booking's history.
const (
	ActorOnAccount = db.ActorOnAccount
	ActorSupplier  = db.ActorSupplier
	ActorOperator  = db.ActorOperator
)

// ReleaseInput asks to give a booking's units back and move it to status To.
type ReleaseInput struct {
	BookingID string
	To        domain.Status
	// Refusal is why a hold is REJECTED (its supplier's reason), recorded on the booking.
	Refusal string `json:",omitempty"`
	// Actor names who asked, for the booking's history (db.WithActor): the token subject of the
	// customer, agent or staff member who cancelled. Left empty, an expiry is the hold timer's
	// and a cancel names nobody.
	Actor string `json:",omitempty"`
	// CatchUp: a booking the database holds confirmed is answered as ErrTypeAhead with the
	// booking, not as a conflict.
	CatchUp bool `json:",omitempty"`
}

// Release gives a booking's units back and moves it to EXPIRED or CANCELLED, or a hold its
// supplier refused to REJECTED.
func (a *Bookings) Release(ctx context.Context, in ReleaseInput) (domain.Booking, error) {
	actor := in.Actor
	if actor == "" && in.To == domain.StatusExpired {
		actor = db.ActorHoldTimer
	}
	ctx = db.WithActor(ctx, actor)
	if in.To == domain.StatusRejected {
		b, err := a.Store.Reject(ctx, in.BookingID, in.Refusal)
		return b, classify(err)
	}
	b, err := a.Store.Release(ctx, in.BookingID, in.To)
	return b, aheadOfHold(in.CatchUp, b, err)
}

// RetakeInput confirms an expired booking whose payment arrived late.
type RetakeInput struct {
	BookingID string
	Payment   domain.Payment
}

// Retake takes the expired booking's nights again and confirms it (a deposit hold whose hold ran
// out: with the rest of its price, keeping both), or fails with type Unavailable when they were
// sold meanwhile.
func (a *Bookings) Retake(ctx context.Context, in RetakeInput) (domain.Booking, error) {
	b, err := a.Store.Retake(db.WithActor(ctx, db.ActorLatePayment), in.BookingID, in.Payment)
	return b, classify(err)
}

// StartRefundInput moves a paid booking to REFUNDING.
type StartRefundInput struct {
	BookingID string
	// Payment is the payment to give back when the booking has none recorded (a payment for
	// nights it no longer holds).
	Payment *domain.Payment
	// ByPolicy applies the booking's cancellation policy; otherwise the whole payment is due.
	ByPolicy bool
	// CancelledAt is when the workflow accepted the cancel: the policy judges that moment, not
	// when this activity (or a retry of it) runs. Zero: now.
	CancelledAt time.Time
	// Amount, when set, is the refund staff decided instead of the policy's (never above what
	// the booking keeps).
	Amount int64 `json:",omitempty"`
	// Actor, as in ReleaseInput. Left empty, a refund of a payment for nights the booking no
	// longer holds is the late payment's, and a cancel names nobody.
	Actor string `json:",omitempty"`
	// EndsHold: the refund ends a hold the desk took part of the price for (its expiry). A
	// booking the database holds confirmed is not refunded: it is answered as ErrTypeAhead.
	EndsHold bool `json:",omitempty"`
}

// StartRefund releases the booking's nights if it holds them, marks it REFUNDING and stores the
// amount due back, in one transaction.
func (a *Bookings) StartRefund(ctx context.Context, in StartRefundInput) (domain.Booking, error) {
	at := in.CancelledAt
	if at.IsZero() {
		at = time.Now()
		if a.Now != nil {
			at = a.Now()
		}
	}
	actor := in.Actor
	if actor == "" && in.Payment != nil {
		actor = db.ActorLatePayment
	}
	b, err := a.Store.StartRefund(db.WithActor(ctx, actor), in.BookingID, in.Payment, func(b domain.Booking) (int64, error) {
		if in.EndsHold && b.Status.Used() {
			return 0, aheadError(b)
		}
		if in.Amount > 0 {
			return in.Amount, nil
		}
		if !in.ByPolicy || b.VenueID != "" || b.Status == domain.StatusHold {
			// A hold the desk took a deposit for was never confirmed: the deposit goes back whole.
			// A venue order is cancelled by its customer only inside the free window, and
			// refunded whole whoever cancels it.
			return b.Paid, nil
		}
		// The fixed fee's currency is judged again here, against the money being refunded.
		currency := b.Price.Currency
		if in.Payment != nil {
			currency = in.Payment.Currency
		}
		return b.PolicyRefund(b.Paid, currency, at)
	})
	var ahead *temporal.ApplicationError
	if errors.As(err, &ahead) && ahead.Type() == ErrTypeAhead {
		return b, ahead
	}
	return b, classify(err)
}

// FinishRefund marks a REFUNDING booking REFUNDED.
func (a *Bookings) FinishRefund(ctx context.Context, bookingID string) (domain.Booking, error) {
	b, err := a.Store.FinishRefund(db.WithActor(ctx, db.ActorRefund), bookingID)
	return b, classify(err)
}

// CheckIn marks a confirmed booking COMPLETED (see db.Store.CheckIn).
// actor is the staff member who checked the guest in (empty in tasks scheduled before it was
// passed).
func (a *Bookings) CheckIn(ctx context.Context, bookingID, actor string) (domain.Booking, error) {
	b, err := a.Store.CheckIn(db.WithActor(ctx, actor), bookingID)
	return b, classify(err)
}

// NoShow marks a confirmed booking nobody checked in NO_SHOW and gives its units back (see
// db.Store.NoShow).
func (a *Bookings) NoShow(ctx context.Context, bookingID string) (domain.Booking, error) {
	b, err := a.Store.NoShow(db.WithActor(ctx, db.ActorNoShow), bookingID)
	return b, classify(err)
}

// DepartEarlyInput applies a cancel accepted at At to a confirmed booking.
type DepartEarlyInput struct {
	BookingID string
	At        time.Time
	// EndsToday: a check-out, which ends the stay the day At falls on at the hotel (a cancel
	// keeps tonight).
	EndsToday bool `json:",omitempty"`
}

// DepartEarlyOutput says whether the stay had begun (the cancel was an early departure), how
// the booking stands, how many nights the guest will not stay and what the booking's policy
// gives back for them (histories from before the refund have neither).
type DepartEarlyOutput struct {
	Begun   bool
	Booking domain.Booking
	Nights  int   `json:",omitempty"`
	Refund  int64 `json:",omitempty"`
}

// DepartEarly turns a cancel of a confirmed stay that has begun, at the hotel, into an early
// departure: the nights after that day go back on sale. It decides by the hotel's calendar,
// which workflow code must not read.
func (a *Bookings) DepartEarly(ctx context.Context, in DepartEarlyInput) (DepartEarlyOutput, error) {
	depart := a.Store.DepartEarly
	if in.EndsToday {
		depart = a.Store.CheckOutEarly
	}
	d, err := depart(ctx, in.BookingID, in.At)
	return DepartEarlyOutput{Begun: d.Begun, Booking: d.Booking, Nights: d.Nights, Refund: d.Refund}, classify(err)
}

// classify marks business refusals non-retryable; everything else (network, lock timeouts)
// stays retryable under the activity's retry policy.
func classify(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, domain.ErrUnavailable):
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeUnavailable, err)
	case errors.Is(err, domain.ErrInvalid), errors.Is(err, domain.ErrNotFound), errors.Is(err, domain.ErrIdempotencyMismatch):
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeInvalid, err)
	case errors.Is(err, domain.ErrConflict):
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeConflict, err)
	case errors.Is(err, domain.ErrTooManyHolds):
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeTooManyHolds, err)
	}
	return err
}
