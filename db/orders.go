package db

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// OrderParams is one venue order to reserve: the booking to create and its lines.
type OrderParams struct {
	BookingID      string
	IdempotencyKey string
	Request        domain.OrderRequest
	CreatedBy      string
	MaxActiveHolds int // as in ReserveParams
	// HoldTTL is how long the hold lasts from the moment it commits: the venue's payment window.
	HoldTTL time.Duration
}

// ErrAlreadyOrdered: the customer already holds an active order for the slot.
var ErrAlreadyOrdered = fmt.Errorf("%w: the customer already has an active order for this slot", domain.ErrConflict)

// ReserveOrder creates a venue order and takes the units of all its lines in one transaction,
// as Reserve does for a stay: the booking row first (a retry finds it and changes nothing),
// then every line's units locked in (resource, start) order, then, only when every line's units
// tile its span, are open, priced in one currency and have its quantity left, all of them taken.
// Otherwise nothing is taken and the order is stored REJECTED. The price snapshot keeps each
// line's unit price, quantity and total.
//
// It fails with ErrNotFound for an unknown venue or resource, ErrIdempotencyMismatch when the
// booking id exists for another order, ErrAlreadyOrdered when the customer holds an active order
// for the first line's slot (under another key), and ErrTooManyHolds as Reserve does.
func (s *Store) ReserveOrder(ctx context.Context, p OrderParams) (domain.Booking, error) {
	req := p.Request
	var booking domain.Booking
	err := s.inBookingTx(ctx, p.BookingID, func(tx pgx.Tx) error {
		if err := lockCustomerHolds(ctx, tx, req.CustomerID, p.MaxActiveHolds); err != nil {
			return err
		}
		inserted, err := insertOrder(ctx, tx, p, domain.StatusHold)
		if err != nil {
			return err
		}
		if !inserted {
			booking, err = getBooking(ctx, tx, p.BookingID)
			switch {
			case errors.Is(err, domain.ErrNotFound):
				return ErrAlreadyOrdered // the one conflict that leaves no row of this id
			case err != nil:
				return err
			case booking.Fingerprint != req.Fingerprint():
				return fmt.Errorf("%w: booking %s", domain.ErrIdempotencyMismatch, p.BookingID)
			}
			return nil
		}
		if err := checkHoldLimit(ctx, tx, req.CustomerID, p.BookingID, p.MaxActiveHolds); err != nil {
			return err
		}
		taken, err := takeAndPriceOrder(ctx, tx, p)
		if err == nil && !taken {
			_, err = tx.Exec(ctx, `UPDATE bookings SET status = 'REJECTED' WHERE id = $1`, p.BookingID)
		}
		if err != nil {
			return err
		}
		booking, err = getBooking(ctx, tx, p.BookingID)
		return err
	})
	return booking, err
}

// insertOrder writes the booking row of a venue order in status, and its further lines, unless a
// row with its id exists (inserted is then false). The venue's time zone and its free
// cancellation hours are copied onto the booking. A conflict on the one-active-order-per-slot
// index also inserts nothing.
func insertOrder(ctx context.Context, tx pgx.Tx, p OrderParams, status domain.Status) (inserted bool, err error) {
	req := p.Request
	lines, err := orderLines(ctx, tx, req)
	if err != nil {
		return false, err
	}
	first := lines[0]
	tag, err := tx.Exec(ctx, `INSERT INTO bookings (id, customer_id, created_by, idempotency_key, fingerprint,
			resource_id, unit_from, unit_to, quantity, status, expires_at, time_zone, policy, venue_id)
		SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $12, now() + $10 * interval '1 microsecond', v.time_zone,
			jsonb_build_object('freeUntilHours', v.free_cancel_hours, 'feePercent', 0, 'feeFixed', 0,
				'feeCurrency', '', 'noRefundHours', 0),
			v.id
		FROM venues v WHERE v.id = $11
		ON CONFLICT DO NOTHING`,
		p.BookingID, req.CustomerID, p.CreatedBy, p.IdempotencyKey, req.Fingerprint(), first.resourceID,
		first.from, first.to, first.quantity, p.HoldTTL.Microseconds(), req.VenueID, status)
	if err != nil || tag.RowsAffected() == 0 {
		return false, err
	}
	for i, l := range lines[1:] {
		if _, err := tx.Exec(ctx, `INSERT INTO booking_lines (booking_id, line_no, resource_id, unit_from, unit_to, quantity)
			VALUES ($1, $2, $3, $4, $5, $6)`, p.BookingID, i+1, l.resourceID, l.from, l.to, l.quantity); err != nil {
			return false, err
		}
	}
	return true, nil
}

// takeAndPriceOrder takes the units of an order whose booking row insertOrder wrote, and prices
// the booking; taken is false, with nothing changed, when a line cannot be taken.
func takeAndPriceOrder(ctx context.Context, tx pgx.Tx, p OrderParams) (taken bool, err error) {
	lines, err := orderLines(ctx, tx, p.Request)
	if err != nil {
		return false, err
	}
	prices, currency, err := takeOrder(ctx, tx, p.Request, lines)
	if err != nil || prices == nil {
		return false, err
	}
	var total int64
	for _, lp := range prices {
		total += lp.Total
	}
	_, err = tx.Exec(ctx, `UPDATE bookings SET currency = $2, total = $3, line_prices = $4 WHERE id = $1`,
		p.BookingID, currency, total, prices)
	return err == nil, err
}

// orderLines resolves an order's lines to resources, in the order's own order; times in UTC.
func orderLines(ctx context.Context, tx pgx.Tx, req domain.OrderRequest) ([]line, error) {
	lines := make([]line, len(req.Lines))
	for i, l := range req.Lines {
		r, err := getVenueResource(ctx, tx, req.VenueID, l.ResourceID, "")
		if err != nil {
			return nil, err
		}
		lines[i] = line{resourceID: r.id, from: l.Start.UTC(), to: l.End.UTC(), quantity: l.Quantity}
	}
	return lines, nil
}

// takeOrder takes every line's units, or none: it locks them all, checks every line, and only
// then takes them. It returns each line's price and the order's currency, or nil prices when
// nothing was taken.
func takeOrder(ctx context.Context, tx pgx.Tx, req domain.OrderRequest, lines []line) ([]domain.LinePrice, string, error) {
	sorted := slices.Clone(lines)
	slices.SortFunc(sorted, func(a, b line) int {
		return cmp.Or(cmp.Compare(a.resourceID, b.resourceID), a.from.Compare(b.from))
	})
	if err := lockLines(ctx, tx, sorted); err != nil {
		return nil, "", err
	}
	var currency string
	units := make([]int, len(lines))
	for i, l := range lines {
		st, err := lineAvailable(ctx, tx, l)
		if err != nil || !st.ok || (currency != "" && st.currency != currency) {
			return nil, "", err // short, missing, closed, unpriced or in another currency: nothing taken
		}
		currency, units[i] = st.currency, st.units
	}
	prices := make([]domain.LinePrice, len(lines))
	for i, l := range lines {
		rates, err := takeLine(ctx, tx, l, units[i])
		if err != nil {
			return nil, "", err
		}
		lp := domain.LinePrice{OrderLine: req.Lines[i]}
		for _, u := range rates {
			lp.UnitPrice += u.rate
		}
		lp.Total = lp.UnitPrice * int64(l.quantity)
		prices[i] = lp
	}
	return prices, currency, nil
}

// LineOffUnits returns the index of the first line of an order that cuts a unit of its resource
// (09:30-10:30 on an hourly court, half a day of a day-rented locker): a unit overlaps the line
// without lying inside it. -1 when no line does; a line over no units at all is not on sale,
// which the reservation answers. Unknown resources are left to the reservation too.
func (s *Store) LineOffUnits(ctx context.Context, req domain.OrderRequest) (int, error) {
	codes, starts, ends := make([]string, len(req.Lines)), make([]time.Time, len(req.Lines)), make([]time.Time, len(req.Lines))
	for i, l := range req.Lines {
		codes[i], starts[i], ends[i] = l.ResourceID, l.Start.UTC(), l.End.UTC()
	}
	var n int
	err := s.pool.QueryRow(ctx, `SELECT COALESCE(min(l.n), 0)
		FROM unnest($2::text[], $3::timestamp[], $4::timestamp[]) WITH ORDINALITY AS l(code, s, e, n)
		JOIN resources r ON r.venue_id = $1 AND r.code = l.code
		WHERE EXISTS (SELECT 1 FROM inventory i WHERE i.resource_id = r.id
			AND tsrange(i.unit_start, i.unit_end) && tsrange(l.s, l.e) AND (i.unit_start < l.s OR i.unit_end > l.e))`,
		req.VenueID, codes, starts, ends).Scan(&n)
	return n - 1, err
}
