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
	"github.com/bookflow/bookflow/suppliers"
)

// ErrTypeSupplierRefused: the supplier refused the request itself (a 4xx); asking again will
// not help. The booking workflow treats it as a rejection.
const ErrTypeSupplierRefused = "SupplierRefused"

// Suppliers runs the steps that involve an outside supplier: confirming and cancelling its
// bookings, pulling its stock, and telling agents what became of their bookings.
type Suppliers struct {
	Store  *db.Store
	Client suppliers.Client
	// SyncDays is how many nights ahead a pull reads (DefaultSyncDays when zero).
	SyncDays int
	Now      func() time.Time // time.Now when nil
}

// DefaultSyncDays is how far ahead a stock pull reads by default.
const DefaultSyncDays = 90

func (a *Suppliers) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// reserveAtSupplier reserves a stay at a direct_connect supplier's hotel: the sale rules first
// (a stay they refuse never reaches the supplier), then the supplier's quote, which becomes the
// price (see db.Store.ReserveAtSupplier).
func (a *Bookings) reserveAtSupplier(ctx context.Context, in ReserveInput, sup db.Supplier) (domain.Booking, error) {
	req := in.Request
	v, err := a.Store.JudgeSale(ctx, domain.SaleContext{HotelID: req.HotelID, RoomTypeID: req.RoomTypeID,
		ChannelID: in.ChannelID, AgentID: in.AgentID, Stay: req.Stay})
	if err != nil {
		return domain.Booking{}, err
	}
	var price *domain.Price
	if v.Allowed {
		q, err := a.Suppliers.Quote(ctx, sup.Endpoint, suppliers.QuoteRequest{HotelID: req.HotelID, RoomTypeID: req.RoomTypeID,
			CheckIn: req.CheckIn, CheckOut: req.CheckOut, Quantity: req.Quantity})
		switch {
		case errors.Is(err, suppliers.ErrRefused):
			// A malformed quote, or a refusal of the request: no room to sell from it.
			activity.GetLogger(ctx).Warn("Supplier quote refused", "supplier", sup.ID, "error", err)
		case err != nil:
			return domain.Booking{}, fmt.Errorf("quote from supplier %s: %w", sup.ID, err)
		case q.Available:
			p := q.Price()
			price = &p
		}
	}
	return a.Store.ReserveAtSupplier(ctx, in.stay(), price)
}

// SupplierOutcome is the supplier's word on a booking, and the booking as it stands after it.
type SupplierOutcome struct {
	Confirmed bool
	Reason    string // why it was rejected
	Booking   domain.Booking
}

// ConfirmWithSupplier asks the hotel's supplier to confirm a booking on hold (the booking id
// makes the request idempotent at the supplier) and keeps its confirmation number. A supplier
// that does not answer fails the attempt, to be retried; one that refuses the request itself
// fails with type SupplierRefused.
func (a *Suppliers) ConfirmWithSupplier(ctx context.Context, bookingID string) (SupplierOutcome, error) {
	b, sup, err := a.bookingSupplier(ctx, bookingID)
	if err != nil {
		return SupplierOutcome{}, err
	}
	if sup.Endpoint == "" {
		held, err := a.Store.SupplierHolds(ctx, bookingID)
		if err != nil || held {
			// Nobody to ask, and no stock of ours behind it: never confirmed.
			return SupplierOutcome{Reason: "the supplier " + sup.ID + " has no endpoint to confirm with", Booking: b}, err
		}
		// A direct_procure supplier without an endpoint confirms through its stock alone.
		b, err = a.Store.RecordSupplierConfirmation(ctx, bookingID, "stock:"+sup.ID)
		return SupplierOutcome{Confirmed: true, Booking: b}, err
	}
	ans, err := a.Client.Hold(ctx, sup.Endpoint, suppliers.HoldRequest{Reference: bookingID, QuoteRequest: suppliers.QuoteRequest{
		HotelID: b.HotelID, RoomTypeID: b.RoomTypeID, CheckIn: b.CheckIn, CheckOut: b.CheckOut, Quantity: b.Quantity}})
	if errors.Is(err, suppliers.ErrRefused) {
		return SupplierOutcome{}, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeSupplierRefused, err)
	}
	if err != nil {
		activity.GetLogger(ctx).Warn("Supplier did not confirm", "supplier", sup.ID, "bookingId", bookingID, "error", err)
		return SupplierOutcome{}, err
	}
	if ans.Status == suppliers.HoldRejected {
		return SupplierOutcome{Reason: "the supplier rejected the booking: " + ans.Reason, Booking: b}, nil
	}
	b, err = a.Store.RecordSupplierConfirmation(ctx, bookingID, ans.Confirmation)
	return SupplierOutcome{Confirmed: true, Booking: b}, err
}

// bookingSupplier loads a booking and the supplier it was held with (not whichever supplies its
// hotel now).
func (a *Suppliers) bookingSupplier(ctx context.Context, bookingID string) (domain.Booking, db.Supplier, error) {
	b, err := a.Store.GetBooking(ctx, bookingID)
	if err != nil {
		return b, db.Supplier{}, classify(err)
	}
	if b.SupplierID == "" {
		return b, db.Supplier{}, classify(fmt.Errorf("%w: booking %s has no supplier", domain.ErrInvalid, bookingID))
	}
	sup, err := a.Store.GetSupplier(ctx, b.SupplierID)
	return b, sup, classify(err)
}

// CancelWithSupplier tells the hotel's supplier a booking is off, whether or not it had
// confirmed it (a confirmation whose answer was lost is undone this way).
// Once it is told (or has no endpoint to tell), the booking records when.
func (a *Suppliers) CancelWithSupplier(ctx context.Context, bookingID string) error {
	_, sup, err := a.bookingSupplier(ctx, bookingID)
	if err != nil {
		return err
	}
	if sup.Endpoint != "" {
		// Its own hold, and any an amendment made (see db.Store.SupplierRefs).
		refs, err := a.Store.SupplierRefs(ctx, bookingID)
		if err != nil {
			return classify(err)
		}
		for _, ref := range refs {
			err = a.Client.Cancel(ctx, sup.Endpoint, ref)
			if errors.Is(err, suppliers.ErrRefused) {
				return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeSupplierRefused, err)
			}
			if err != nil {
				return err
			}
		}
	}
	return a.Store.MarkSupplierTold(ctx, bookingID)
}

// RecordSupplierNotTold records on the booking that its supplier could not be told it is off,
// for the invariant checker and operators to tell it again.
func (a *Suppliers) RecordSupplierNotTold(ctx context.Context, bookingID string) error {
	return a.Store.MarkSupplierNotTold(ctx, bookingID)
}

// NotifyInput is what to tell an agent about one of its bookings.
type NotifyInput struct {
	BookingID string
	AgentID   string
	Event     string // confirmed, rejected, supplier_timeout, cancelled, expired, amended
	Detail    string
	// AmendmentID names the amendment of an amended event.
	AmendmentID int64 `json:",omitempty"`
}

// NotifyAgent records the notification (once per booking and event) and, when the agent has a
// webhook, queues its delivery there: the worker's event sender posts it signed with the agent's
// secret, retried and in order like any integrator event (docs/integrator-events.md).
func (a *Suppliers) NotifyAgent(ctx context.Context, in NotifyInput) error {
	n, err := a.Store.RecordAgentNotification(ctx, db.AgentNotification{AgentID: in.AgentID, BookingID: in.BookingID,
		Event: in.Event, Detail: in.Detail, AmendmentID: nonZero(in.AmendmentID)})
	if err != nil || n.DeliveredAt != nil {
		return err
	}
	return a.Store.QueueAgentNotification(ctx, n)
}

// nonZero is id, or nil when it is 0.
func nonZero(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

// PullResult says what a stock pull changed, per hotel.
type PullResult struct {
	Hotels []db.SyncResult `json:"hotels"`
	Failed []string        `json:"failed"` // hotels whose pull failed, with why
}

// PullStock reads the stock of every hotel of a supplier for the next SyncDays nights and
// writes it (see db.Store.ApplySupplierStock). A report without reportedAt is ordered by when it
// was asked for, so one answering after a push made meanwhile never puts older totals back. A
// hotel whose report is invalid (a night without a rate, say) is skipped, logged and named; the
// others are still written.
func (a *Suppliers) PullStock(ctx context.Context, supplierID string) (PullResult, error) {
	var out PullResult
	sup, err := a.Store.GetSupplier(ctx, supplierID)
	if err != nil {
		return out, classify(err)
	}
	if sup.Endpoint == "" {
		return out, nil
	}
	hotels, err := a.Store.SupplierHotels(ctx, supplierID)
	if err != nil {
		return out, err
	}
	days := a.SyncDays
	if days <= 0 {
		days = DefaultSyncDays
	}
	from := domain.DateOf(a.now(), time.UTC).AddDays(-1) // the day before, for zones west of UTC
	for _, h := range hotels {
		activity.RecordHeartbeat(ctx, h)
		asked := a.now()
		report, err := a.Client.Stock(ctx, sup.Endpoint, h, from, from.AddDays(days+1))
		if err == nil && report.HotelID != h {
			err = fmt.Errorf("%w: asked for hotel %s, the supplier answered for %q", domain.ErrInvalid, h, report.HotelID)
		}
		if err == nil {
			err = report.Validate()
		}
		if err == nil {
			err = report.Within(from, from.AddDays(domain.MaxReportNights))
		}
		var at time.Time
		if err == nil {
			at, err = report.OrderedAt(asked, a.now())
			report.ReportedAt = &at
		}
		var res db.SyncResult
		if err == nil {
			res, err = a.Store.ApplySupplierStock(ctx, supplierID, "pull", report)
		}
		if err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			activity.GetLogger(ctx).Warn("Supplier stock report refused", "supplier", supplierID, "hotelId", h, "error", err)
			out.Failed = append(out.Failed, h+": "+err.Error())
			continue
		}
		out.Hotels = append(out.Hotels, res)
	}
	return out, nil
}

// ExpireStopSells marks the stop-sells whose last night is over expired.
func (a *Suppliers) ExpireStopSells(ctx context.Context) (int, error) {
	return a.Store.ExpireStopSells(ctx)
}
