package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// AmendInput asks to change what booking BookingID holds (see db.Store.Amend).
type AmendInput struct {
	BookingID      string
	IdempotencyKey string
	Change         domain.Change
	Actor          string
	// BalanceWindow is how long a paid booking that costs more waits for its balance.
	BalanceWindow time.Duration
	// At is when the workflow accepted the amendment: the cancellation policy of the units given
	// up is judged at this moment.
	At time.Time
}

// AmendOutcome is an amendment as stored, the booking as it left it, and the no-show deadline of
// the booking's check-in (the workflow keeps it only when the booking had one).
type AmendOutcome struct {
	Amendment domain.Amendment
	Booking   domain.Booking
	NoShowAt  time.Time `json:",omitzero"`
	// OldSupplierRef is the supplier hold a supplier's booking has just left for its amendment's
	// new one: for the supplier to cancel.
	OldSupplierRef string `json:",omitempty"`
}

// Amend changes what a booking holds in one transaction: at once, or, for a paid booking that
// costs more, holding the added units until the balance is paid. Of a paid booking that costs
// less, what the cancellation policy allows of the difference goes back, judged at in.At on the
// booking's start before the change (RefundOf). An amendment made before under the key (this activity's
// earlier attempt, whose answer was lost, or a client's retry) is answered as stored: the
// workflow tells which by its id.
func (a *Bookings) Amend(ctx context.Context, in AmendInput) (AmendOutcome, error) {
	p := db.AmendParams{BookingID: in.BookingID, IdempotencyKey: in.IdempotencyKey,
		Change: in.Change, Actor: in.Actor, BalanceWindow: in.BalanceWindow, RefundOf: RefundOf(in.At)}
	if _, err := a.Store.AmendmentByKey(ctx, in.BookingID, in.IdempotencyKey); errors.Is(err, domain.ErrNotFound) {
		// Not asked before: a direct_connect supplier prices the new stay. One that does not
		// answer refuses it: the booking's main loop does not wait on the supplier for ever.
		quote, err := a.supplierQuote(ctx, in.BookingID, in.Change)
		var appErr *temporal.ApplicationError
		switch {
		case errors.As(err, &appErr):
			return AmendOutcome{}, err
		case err != nil:
			activity.GetLogger(ctx).Warn("Supplier did not quote the amended stay", "bookingId", in.BookingID, "error", err)
			p.SupplierSilent = true
		}
		p.SupplierPrice = quote
	} else if err != nil {
		return AmendOutcome{}, err
	}
	am, b, err := a.Store.Amend(ctx, p)
	if err != nil {
		return AmendOutcome{}, classifyAmend(err)
	}
	return a.amended(ctx, am, b)
}

// RefundOf is what a booking's policy gives back of a fall in its price, judged at at (an
// amendment's, or a quote's) on the start a cancel judges (domain.Booking.PolicyRefund): a
// venue order's first line's start, a stay's check-in at the hotel.
func RefundOf(at time.Time) func(domain.Booking, int64) int64 {
	return func(b domain.Booking, fallsBy int64) int64 {
		refund, err := b.PolicyRefund(fallsBy, b.Price.Currency, at)
		if err != nil {
			return 0 // never reached: the hotel's zone was checked when it was stored
		}
		return refund
	}
}

// Application error types of an amendment the booking's state refuses; nothing changed.
const (
	ErrTypeBalanceDue          = "BalanceDue"          // an earlier amendment waits for its balance
	ErrTypeNotAmendable        = "NotAmendable"        // not held or confirmed, or a kind not amendable yet
	ErrTypeStayStarted         = "StayStarted"         // the change touches nights before today of a begun stay
	ErrTypePaymentNotWhole     = "PaymentNotWhole"     // the balance's payment was asked back or is kept already
	ErrTypeIdempotencyMismatch = "IdempotencyMismatch" // the key was first used for another amendment
)

// classifyAmend names the refusals of an amendment, as the API answers them.
func classifyAmend(err error) error {
	for _, t := range []struct {
		err  error
		name string
	}{{db.ErrBalanceDue, ErrTypeBalanceDue}, {db.ErrNotAmendable, ErrTypeNotAmendable}, {db.ErrStayStarted, ErrTypeStayStarted},
		{db.ErrAlreadyOrdered, ErrTypeAlreadyOrdered}, {db.ErrPaymentNotWhole, ErrTypePaymentNotWhole},
		{domain.ErrIdempotencyMismatch, ErrTypeIdempotencyMismatch}} {
		if errors.Is(err, t.err) {
			return temporal.NewNonRetryableApplicationError(err.Error(), t.name, err)
		}
	}
	return classify(err)
}

// amended is the outcome of an amendment, with the no-show deadline of what the booking now
// holds: a hotel's check-in cut-off, or the end of an order's last line plus the venue's grace.
func (a *Bookings) amended(ctx context.Context, am domain.Amendment, b domain.Booking) (AmendOutcome, error) {
	out := AmendOutcome{Amendment: am, Booking: b}
	if b.VenueID != "" {
		v, _, err := a.Store.GetVenue(ctx, b.VenueID)
		if err != nil {
			return out, err
		}
		out.NoShowAt = b.OrderEnds().Add(time.Duration(v.NoShowGraceMinutes) * time.Minute).UTC()
		return out, nil
	}
	loc, err := time.LoadLocation(b.TimeZone)
	if err != nil {
		return out, fmt.Errorf("booking %s: time zone %q: %w", b.ID, b.TimeZone, err)
	}
	out.NoShowAt = domain.HotelNoShowAt(b.CheckIn, loc)
	return out, nil
}

// SettleAmendmentInput pays an amendment's balance.
type SettleAmendmentInput struct {
	BookingID   string
	AmendmentID int64
	Payment     domain.Payment
}

// SettleAmendment applies an amendment whose balance was paid (db.Store.SettleAmendment).
func (a *Bookings) SettleAmendment(ctx context.Context, in SettleAmendmentInput) (AmendOutcome, error) {
	am, b, err := a.Store.SettleAmendment(db.WithActor(ctx, db.ActorBalancePayment), in.BookingID, in.AmendmentID, in.Payment)
	if err != nil {
		return AmendOutcome{}, classifyAmend(err)
	}
	if am.SupplierHoldRef != "" { // the stored row names the hold the booking left, asked again too
		if am, err = a.Store.Amendment(ctx, in.BookingID, in.AmendmentID); err != nil {
			return AmendOutcome{}, err
		}
	}
	out, err := a.amended(ctx, am, b)
	out.OldSupplierRef = am.LeftHoldRef
	return out, err
}

// LapseAmendmentInput ends an amendment whose balance was not paid in time.
type LapseAmendmentInput struct {
	BookingID   string
	AmendmentID int64
	Reason      string
}

// LapseAmendment gives back the units an unpaid amendment held (db.Store.LapseAmendment).
func (a *Bookings) LapseAmendment(ctx context.Context, in LapseAmendmentInput) (AmendOutcome, error) {
	am, b, err := a.Store.LapseAmendment(ctx, in.BookingID, in.AmendmentID, in.Reason)
	if err != nil {
		return AmendOutcome{}, classify(err)
	}
	return AmendOutcome{Amendment: am, Booking: b}, nil
}
