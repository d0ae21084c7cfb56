package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/suppliers"
)

// A supplier's booking is amended as a new hold its supplier confirms (see db/amend_supplier.go):
// the amendment waits while HoldAmendment asks, SupplierAnswered decides it with the answer, and
// the hold the booking left is cancelled (CancelSupplierHold).

// supplierQuote is a direct_connect supplier's quote for the stay a change leads to (nil: it has
// no rooms for it), or nil for any other booking.
func (a *Bookings) supplierQuote(ctx context.Context, bookingID string, change domain.Change) (*domain.Price, error) {
	ctx, cancel := context.WithTimeout(ctx, supplierQuoteWithin) // well inside the database step's own bound
	defer cancel()
	p, err := QuoteAtSupplier(ctx, a.Store, a.Suppliers, bookingID, change)
	return p, classify(err)
}

// QuoteAtSupplier is a direct_connect supplier's quote for the stay a change of booking bookingID
// leads to (nil: it has no rooms for it), or nil for any other booking: a quote of the amendment
// is priced by it, as the amendment would be.
func QuoteAtSupplier(ctx context.Context, store *db.Store, client suppliers.Client, bookingID string, change domain.Change) (*domain.Price, error) {
	held, err := store.SupplierHolds(ctx, bookingID)
	if err != nil || !held {
		return nil, err
	}
	b, err := store.GetBooking(ctx, bookingID)
	if err != nil {
		return nil, err
	}
	sup, err := store.GetSupplier(ctx, b.SupplierID)
	if err != nil {
		return nil, err
	}
	to := change.Apply(domain.UnitsOf(b))
	q, err := client.Quote(ctx, sup.Endpoint, suppliers.QuoteRequest{HotelID: b.HotelID, RoomTypeID: to.RoomTypeID,
		CheckIn: to.CheckIn, CheckOut: to.CheckOut, Quantity: to.Quantity})
	switch {
	case errors.Is(err, suppliers.ErrRefused):
		return nil, nil // no room to sell from a refused quote
	case err != nil:
		return nil, fmt.Errorf("quote from supplier %s: %w", sup.ID, err)
	case !q.Available:
		return nil, nil
	}
	p := q.Price()
	return &p, nil
}

// supplierQuoteWithin bounds asking a direct_connect supplier to quote an amended stay.
const supplierQuoteWithin = 5 * time.Second

// SupplierAnsweredInput is a supplier's answer on an amendment's new hold.
type SupplierAnsweredInput struct {
	BookingID     string
	AmendmentID   int64
	Answer        db.SupplierAnswer
	BalanceWindow time.Duration
	At            time.Time // when the workflow accepted the amendment: the policy of a fall is judged then
}

// SupplierAnswered decides an amendment that waited for its supplier (db.Store.SupplierAnswered).
func (a *Bookings) SupplierAnswered(ctx context.Context, in SupplierAnsweredInput) (AmendOutcome, error) {
	am, b, oldRef, err := a.Store.SupplierAnswered(ctx, in.BookingID, in.AmendmentID, in.Answer, in.BalanceWindow, RefundOf(in.At))
	if err != nil {
		return AmendOutcome{}, classifyAmend(err)
	}
	out, err := a.amended(ctx, am, b)
	out.OldSupplierRef = oldRef
	return out, err
}

// HoldAmendmentInput names an amendment whose new stay its supplier is asked to hold.
type HoldAmendmentInput struct {
	BookingID   string
	AmendmentID int64
}

// HoldAmendment asks the booking's supplier to confirm the stay an amendment leads to, as a new
// hold under the amendment's own reference (asking again answers the first outcome). A supplier
// that does not answer fails the attempt, to be retried.
func (a *Suppliers) HoldAmendment(ctx context.Context, in HoldAmendmentInput) (db.SupplierAnswer, error) {
	b, sup, err := a.bookingSupplier(ctx, in.BookingID)
	if err != nil {
		return db.SupplierAnswer{}, err
	}
	am, err := a.Store.Amendment(ctx, in.BookingID, in.AmendmentID)
	if err != nil {
		return db.SupplierAnswer{}, classify(err)
	}
	if sup.Endpoint == "" {
		// A direct_procure supplier without an endpoint confirms through its stock alone.
		return db.SupplierAnswer{Confirmed: true, Confirmation: "stock:" + sup.ID}, nil
	}
	u := am.After
	ans, err := a.Client.Hold(ctx, sup.Endpoint, suppliers.HoldRequest{Reference: am.SupplierHoldRef, QuoteRequest: suppliers.QuoteRequest{
		HotelID: b.HotelID, RoomTypeID: u.RoomTypeID, CheckIn: u.CheckIn, CheckOut: u.CheckOut, Quantity: u.Quantity}})
	if errors.Is(err, suppliers.ErrRefused) {
		return db.SupplierAnswer{Reason: err.Error()}, nil
	}
	if err != nil {
		return db.SupplierAnswer{}, err
	}
	return db.SupplierAnswer{Confirmed: ans.Status == suppliers.HoldConfirmed, Confirmation: ans.Confirmation, Reason: ans.Reason}, nil
}

// CancelSupplierHold tells a booking's supplier that one of its holds is off: the hold a booking
// left for its amendment's new one, or an amendment's that will not be used.
func (a *Suppliers) CancelSupplierHold(ctx context.Context, bookingID, ref string) error {
	_, sup, err := a.bookingSupplier(ctx, bookingID)
	if err != nil || sup.Endpoint == "" {
		return err
	}
	err = a.Client.Cancel(ctx, sup.Endpoint, ref)
	if errors.Is(err, suppliers.ErrRefused) {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeSupplierRefused, err)
	}
	return err
}
