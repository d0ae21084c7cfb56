package db

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// ReserveParams is one reservation: the booking to create and what it takes.
type ReserveParams struct {
	BookingID      string
	IdempotencyKey string
	Request        domain.HoldRequest
	// CreatedBy is who asks: the customer, or the staff member booking for them.
	CreatedBy string
	// MaxActiveHolds, when above zero, refuses a new booking (ErrTooManyHolds, nothing written)
	// while the customer already has that many unexpired holds of their own.
	MaxActiveHolds int
	// HoldTTL is how long the hold lasts from the moment the reservation commits, by the
	// database's clock; the stored expires_at is what confirmation is checked against.
	HoldTTL time.Duration
	// ChannelID and AgentID: the channel and agent selling (empty: a direct sale). The sale
	// rules are judged for them, and a channel sells from its allocation first.
	ChannelID string
	AgentID   string
	// SupplierID is the hotel's supplier, which confirms the stay.
	SupplierID string
}

const bookingColumns = `b.id, b.customer_id, b.created_by, COALESCE(r.hotel_id, ''), COALESCE(b.venue_id, ''), r.code,
	b.unit_from, b.unit_to, b.quantity, b.status, b.expires_at, b.created_at, b.updated_at, b.fingerprint,
	COALESCE(b.currency, ''), COALESCE(b.total, 0), b.nightly_rates, b.line_prices, COALESCE(b.payment_id, ''), b.paid,
	b.refund_due, COALESCE(b.policy, '{}'), COALESCE(b.time_zone, 'UTC'), b.abandoned,
	COALESCE(b.channel_id, ''), COALESCE(b.agent_id, ''), b.discount, COALESCE(b.refusal, ''), COALESCE(b.supplier_id, ''),
	COALESCE(b.supplier_ref, '')`

func scanBooking(row pgx.Row) (domain.Booking, error) {
	var b domain.Booking
	var from, to time.Time
	err := row.Scan(&b.ID, &b.CustomerID, &b.CreatedBy, &b.HotelID, &b.VenueID, &b.RoomTypeID, &from, &to,
		&b.Quantity, &b.Status, &b.ExpiresAt, &b.CreatedAt, &b.UpdatedAt, &b.Fingerprint,
		&b.Price.Currency, &b.Price.Total, &b.Price.Nights, &b.Price.Lines, &b.PaymentID, &b.Paid, &b.RefundDue,
		&b.CancellationPolicy, &b.TimeZone, &b.Abandoned, &b.ChannelID, &b.AgentID, &b.Discount, &b.Refusal, &b.SupplierID, &b.SupplierRef)
	if errors.Is(err, pgx.ErrNoRows) {
		return b, fmt.Errorf("%w: no such booking", domain.ErrNotFound)
	}
	b.CheckIn = domain.DateOf(from, time.UTC)
	b.CheckOut = domain.DateOf(to, time.UTC)
	return b, err
}

// GetBooking loads one booking.
func (s *Store) GetBooking(ctx context.Context, id string) (domain.Booking, error) {
	return getBooking(ctx, s.pool, id)
}

func getBooking(ctx context.Context, q querier, id string) (domain.Booking, error) {
	return scanBooking(q.QueryRow(ctx, `SELECT `+bookingColumns+`
		FROM bookings b JOIN resources r ON r.id = b.resource_id WHERE b.id = $1`, id))
}

// Reserve creates the booking and takes its units in one short transaction: insert the booking
// row (a retry finds it and changes nothing), lock the nights in ascending order, add the
// quantity only where enough rooms are left, and require one updated row per night. When any
// night is short or not on sale, the inventory is left as it was and the booking is stored as
// REJECTED. The returned booking's status says which happened.
//
// It fails with ErrNotFound for an unknown room type, ErrIdempotencyMismatch when the booking id
// exists for a different request, and ErrTooManyHolds when the customer is at
// p.MaxActiveHolds.
func (s *Store) Reserve(ctx context.Context, p ReserveParams) (domain.Booking, error) {
	if p.ChannelID == "" && p.AgentID == "" {
		if b, done, err := s.reserveDirect(ctx, p); done || err != nil {
			return b, err
		}
	}
	req := p.Request
	var booking domain.Booking
	err := s.inBookingTx(ctx, p.BookingID, func(tx pgx.Tx) error {
		if err := lockCustomerHolds(ctx, tx, req.CustomerID, p.MaxActiveHolds); err != nil {
			return err
		}
		// The booking row first: a concurrent attempt with the same id waits here on the
		// primary key and then finds the committed row.
		sale, inserted, err := insertBooking(ctx, tx, p, domain.StatusHold)
		if err != nil {
			return err
		}
		if !inserted {
			booking, err = getBooking(ctx, tx, p.BookingID)
			if err != nil {
				return err
			}
			if booking.Fingerprint != req.Fingerprint() {
				return fmt.Errorf("%w: booking %s", domain.ErrIdempotencyMismatch, p.BookingID)
			}
			return nil
		}
		if err := checkHoldLimit(ctx, tx, req.CustomerID, p.BookingID, p.MaxActiveHolds); err != nil {
			return err
		}
		booking, err = reserveStay(ctx, tx, p, sale)
		return err
	})
	return booking, err
}

// reserveDirect makes a direct sale's reservation in one round trip: the reserve_stay function
// (migrations 00018, 00020) does what Reserve's statements do, and the booking is read back in
// the same implicit transaction (one pipelined batch). done is false, with nothing written, when
// the sale needs the full path: the hotel has sale rules (also when one was answered while this
// sale began) or a low-stock threshold, or a night is split between channels.
func (s *Store) reserveDirect(ctx context.Context, p ReserveParams) (b domain.Booking, done bool, err error) {
	req := p.Request
	batch := &pgx.Batch{}
	var outcome string
	batch.Queue(`SELECT reserve_stay($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
		p.BookingID, req.CustomerID, p.CreatedBy, p.IdempotencyKey, req.Fingerprint(), req.HotelID, req.RoomTypeID,
		req.CheckIn.Time(), req.CheckOut.Time(), req.Quantity, p.HoldTTL.Microseconds(), p.SupplierID, p.MaxActiveHolds,
		s.lockTimeout.Milliseconds()).QueryRow(func(row pgx.Row) error { return row.Scan(&outcome) })
	batch.Queue(`SELECT `+bookingColumns+` FROM bookings b JOIN resources r ON r.id = b.resource_id WHERE b.id = $1`,
		p.BookingID).QueryRow(func(row pgx.Row) error {
		b, err = scanBooking(row)
		if errors.Is(err, domain.ErrNotFound) && outcome != "held" && outcome != "rejected" && outcome != "exists" {
			err = nil // nothing was written
		}
		return err
	})
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		switch pgCode(err) {
		case codeNeedsFullPath, codeForeignKeyViolation: // the full path says which reference is wrong
			return domain.Booking{}, false, nil
		case codeTooManyHolds:
			return domain.Booking{}, true, fmt.Errorf("%w: %s", domain.ErrTooManyHolds, pgMessage(err))
		}
		return domain.Booking{}, true, err
	}
	switch outcome {
	case "unknown":
		return domain.Booking{}, true, fmt.Errorf("%w: hotel %q has no room type %q", domain.ErrNotFound, req.HotelID, req.RoomTypeID)
	case "full_path":
		return domain.Booking{}, false, nil
	case "exists":
		if b.Fingerprint != req.Fingerprint() {
			return domain.Booking{}, true, fmt.Errorf("%w: booking %s", domain.ErrIdempotencyMismatch, p.BookingID)
		}
	}
	s.oneTrips.Add(1)
	return b, true, nil
}

// The SQLSTATEs reserve_stay raises: the customer is at their hold limit, and the sale needs the
// full path (nights split between channels, or a sale rule set while the sale began).
const (
	codeTooManyHolds  = "BF001"
	codeNeedsFullPath = "BF002"
)

// reserveStay judges a new booking's stay by the hotel's sale rules, then takes its nights: it
// stores the booking REJECTED (with the refusing rule, or the night without a rate) or priced,
// and returns it. The rules are read here, after insertBooking took the room type's sale lock,
// in statements that see every rule committed before it (see migration 00020): a rule answered
// before this sale got the lock applies to it, and a rule write waits for it otherwise.
func reserveStay(ctx context.Context, tx pgx.Tx, p ReserveParams, sale saleSetup) (domain.Booking, error) {
	req := p.Request
	v, err := judgeSale(ctx, tx, domain.SaleContext{HotelID: req.HotelID, RoomTypeID: req.RoomTypeID,
		ChannelID: p.ChannelID, AgentID: p.AgentID, Stay: req.Stay})
	if err != nil {
		return domain.Booking{}, err
	}
	if !v.Allowed {
		return reject(ctx, tx, p.BookingID, v.Refusal.Named())
	}
	price, refusal, err := takeUnits(ctx, tx, p.BookingID, sale.resourceID, req.Stay, req.Quantity, p.ChannelID)
	if err != nil {
		return domain.Booking{}, err
	}
	if price == nil {
		return reject(ctx, tx, p.BookingID, refusal)
	}
	var off int64
	if v.Discount != nil {
		*price, off = v.Discount.Apply(*price, req.Quantity)
	}
	if sale.watched {
		if err := raiseLowStock(ctx, tx, sale.resourceID, req.Stay); err != nil {
			return domain.Booking{}, err
		}
	}
	return scanBooking(tx.QueryRow(ctx, `UPDATE bookings b SET currency = $2, total = $3, nightly_rates = $4, discount = $5
		FROM resources r WHERE r.id = b.resource_id AND b.id = $1 RETURNING `+bookingColumns,
		p.BookingID, price.Currency, price.Total, price.Nights, off))
}

// reject stores a new booking REJECTED with its refusal (empty: stock refused it, which needs
// no more words) and returns it.
func reject(ctx context.Context, tx pgx.Tx, bookingID, refusal string) (domain.Booking, error) {
	return scanBooking(tx.QueryRow(ctx, `UPDATE bookings b SET status = 'REJECTED', refusal = $2
		FROM resources r WHERE r.id = b.resource_id AND b.id = $1 RETURNING `+bookingColumns, bookingID, nullable(refusal)))
}

// lockCustomerHolds takes the customer's hold lock when a hold limit applies: one new hold at a
// time per customer, so concurrent requests cannot all see room under the limit. Taken before
// any row lock, and no other path takes it.
func lockCustomerHolds(ctx context.Context, tx pgx.Tx, customerID string, limit int) error {
	if limit <= 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('holds:' || $1, 0))`, customerID)
	return err
}

// checkHoldLimit refuses a new booking (ErrTooManyHolds) while the customer already has limit
// unexpired holds of their own; no limit when limit is 0.
func checkHoldLimit(ctx context.Context, tx pgx.Tx, customerID, bookingID string, limit int) error {
	if limit <= 0 {
		return nil
	}
	held, _, err := activeHolds(ctx, tx, customerID, bookingID)
	if err == nil && held >= limit {
		err = fmt.Errorf("%w: customer already has %d unexpired holds", domain.ErrTooManyHolds, held)
	}
	return err
}

// saleSetup is what a reservation needs to know of its room type's hotel.
type saleSetup struct {
	resourceID int64
	watched    bool // a low-stock threshold is set for the room type
}

// insertBooking writes the booking row of a reservation in status, unless a row with its id
// exists (inserted is then false). The hotel's policy and time zone are copied onto the booking:
// a cancellation is judged by the terms it was held under. Inserting the row takes the sale
// lock of its room type: the foreign key's check locks the resources row FOR KEY SHARE at the
// end of the statement, which only a rule write's FOR UPDATE conflicts with (lockSaleRules).
// Read the sale rules after it, in a later statement.
func insertBooking(ctx context.Context, tx pgx.Tx, p ReserveParams, status domain.Status) (sale saleSetup, inserted bool, err error) {
	req := p.Request
	err = tx.QueryRow(ctx, `SELECT r.id,
			EXISTS (SELECT 1 FROM stock_alert_thresholds t WHERE t.hotel_id = $1 AND t.room_type = $2)
		FROM resources r WHERE r.hotel_id = $1 AND r.code = $2`,
		req.HotelID, req.RoomTypeID).Scan(&sale.resourceID, &sale.watched)
	if errors.Is(err, pgx.ErrNoRows) {
		return sale, false, fmt.Errorf("%w: hotel %q has no room type %q", domain.ErrNotFound, req.HotelID, req.RoomTypeID)
	}
	if err != nil {
		return sale, false, err
	}
	tag, err := tx.Exec(ctx, `INSERT INTO bookings (id, customer_id, created_by, idempotency_key, fingerprint,
			resource_id, unit_from, unit_to, quantity, status, expires_at, time_zone, policy, channel_id, agent_id, supplier_id)
		SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $12, now() + $10 * interval '1 microsecond',
			h.time_zone, `+policyJSON+`, $13, $14, $15
		FROM hotels h WHERE h.id = $11
		ON CONFLICT DO NOTHING`,
		p.BookingID, req.CustomerID, p.CreatedBy, p.IdempotencyKey, req.Fingerprint(), sale.resourceID,
		req.CheckIn.Time(), req.CheckOut.Time(), req.Quantity, p.HoldTTL.Microseconds(), req.HotelID, status,
		nullable(p.ChannelID), nullable(p.AgentID), nullable(p.SupplierID))
	if pgCode(err) == codeForeignKeyViolation {
		return sale, false, fmt.Errorf("%w: the channel %q or agent %q is not known", domain.ErrInvalid, p.ChannelID, p.AgentID)
	}
	return sale, err == nil && tag.RowsAffected() == 1, err
}

// AbandonReservation ends a reservation its workflow stopped waiting for, whatever it reached,
// so a hold never commits after its client has gone. A booking row not yet written is written
// REJECTED: a Reserve attempt still running then finds it and takes nothing. A hold that did
// commit is released (EXPIRED). Anything else is left as it is. It returns the booking as it
// ends, and changes nothing when called again.
func (s *Store) AbandonReservation(ctx context.Context, p ReserveParams) (domain.Booking, error) {
	return s.abandon(ctx, p.BookingID, func(tx pgx.Tx) (bool, error) {
		_, inserted, err := insertBooking(ctx, tx, p, domain.StatusRejected)
		return inserted, err
	})
}

// AbandonOrder ends a venue order its workflow stopped waiting for, as AbandonReservation does.
func (s *Store) AbandonOrder(ctx context.Context, p OrderParams) (domain.Booking, error) {
	return s.abandon(ctx, p.BookingID, func(tx pgx.Tx) (bool, error) {
		return insertOrder(ctx, tx, p, domain.StatusRejected)
	})
}

// abandon writes a booking's REJECTED fence row with insertFence unless it exists, or releases
// the hold it reached, in one transaction.
func (s *Store) abandon(ctx context.Context, bookingID string, insertFence func(pgx.Tx) (inserted bool, err error)) (domain.Booking, error) {
	var booking domain.Booking
	err := s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		inserted, err := insertFence(tx)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE bookings SET status = 'EXPIRED', updated_at = now()
			WHERE id = $1 AND status = 'HOLD' AND paid = 0`, bookingID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			if err := giveBack(ctx, tx, bookingID); err != nil {
				return err
			}
		}
		if inserted || tag.RowsAffected() == 1 {
			if _, err := tx.Exec(ctx, `UPDATE bookings SET abandoned = true WHERE id = $1`, bookingID); err != nil {
				return err
			}
		}
		booking, err = getBooking(ctx, tx, bookingID)
		return err
	})
	return booking, err
}

// takeUnits adds qty to every night of the stay, or to none: it locks the nights in ascending
// order, decides on the rows as locked whether every night is there, open, priced in one
// currency and has qty rooms left besides those reserved and blocked (for a channel's sale, in
// its allocation and the shared pool; for a direct one, in the pool), and only then takes them.
// It returns the price of the quantity at the nights' current rates, or nil when the units were
// not taken (nothing changed), with the refusal to store (see lineState.refusal).
func takeUnits(ctx context.Context, tx pgx.Tx, bookingID string, resourceID int64, stay domain.Stay, qty int, channel string) (*domain.Price, string, error) {
	l := line{resourceID: resourceID, from: stay.CheckIn.Time(), to: stay.CheckOut.Time(), quantity: qty}
	if err := lockLines(ctx, tx, []line{l}); err != nil {
		return nil, "", err
	}
	st, err := lineAvailable(ctx, tx, l)
	if err != nil || !st.ok {
		return nil, st.refusal(), err // a short, missing, closed or unpriced night: nothing was taken
	}
	if st.allocated {
		if ok, err := takeShares(ctx, tx, bookingID, l, channel); err != nil || !ok {
			return nil, "", err // the channel's allocation and the pool are short: nothing was taken
		}
	}
	rates, err := takeLine(ctx, tx, l, st.units)
	if err != nil {
		return nil, "", err
	}
	price := domain.Price{Currency: st.currency}
	for _, u := range rates {
		price.Nights = append(price.Nights, domain.NightRate{Date: domain.DateOf(u.start, time.UTC), Amount: u.rate * int64(qty)})
		price.Total += u.rate * int64(qty)
	}
	slices.SortFunc(price.Nights, func(a, b domain.NightRate) int { return a.Date.Time().Compare(b.Date.Time()) })
	return &price, "", nil
}

// Release moves an unpaid booking that holds inventory to status to (EXPIRED or CANCELLED) and
// gives its units back, in one transaction. Releasing a booking already in status to changes
// nothing; a paid booking, or one in any other state, is a conflict.
func (s *Store) Release(ctx context.Context, bookingID string, to domain.Status) (domain.Booking, error) {
	if to != domain.StatusExpired && to != domain.StatusCancelled {
		return domain.Booking{}, fmt.Errorf("%w: cannot release into %s", domain.ErrInvalid, to)
	}
	return s.release(ctx, bookingID, to, "")
}

// Reject gives the units of a hold its supplier refused back and moves it to REJECTED, with the
// supplier's reason as its refusal. Rejecting it again changes nothing.
func (s *Store) Reject(ctx context.Context, bookingID, refusal string) (domain.Booking, error) {
	return s.release(ctx, bookingID, domain.StatusRejected, refusal)
}

func (s *Store) release(ctx context.Context, bookingID string, to domain.Status, refusal string) (domain.Booking, error) {
	var booking domain.Booking
	err := s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		// A paid booking is never just released: it is refunded (StartRefund).
		tag, err := tx.Exec(ctx, `UPDATE bookings SET status = $2, refusal = COALESCE(NULLIF($4, ''), refusal), updated_at = now()
			WHERE id = $1 AND status = ANY($3) AND status IN ('HOLD', 'CONFIRMED', 'COMPLETED') AND paid = 0`,
			bookingID, to, domain.Sources(to), refusal)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			if err := giveBack(ctx, tx, bookingID); err != nil {
				return err
			}
		}
		booking, err = getBooking(ctx, tx, bookingID)
		if err == nil && booking.Status != to {
			err = fmt.Errorf("%w: booking %s is %s and cannot become %s", domain.ErrConflict, bookingID, booking.Status, to)
		}
		return err
	})
	return booking, err
}

// CheckIn moves a confirmed booking to COMPLETED: staff checked its guest in. Its units stay
// taken. Checking a COMPLETED booking in again changes nothing; anything else is a conflict.
func (s *Store) CheckIn(ctx context.Context, bookingID string) (domain.Booking, error) {
	return s.move(ctx, bookingID, domain.StatusConfirmed, domain.StatusCompleted)
}

// move moves a booking that holds no lock on anything from status from to status to; one
// already in to is left as it is. It returns the booking as it stands; any other status is a
// conflict.
func (s *Store) move(ctx context.Context, bookingID string, from, to domain.Status) (domain.Booking, error) {
	// The actor is set in the statement's own transaction, for the history trigger.
	if _, err := s.pool.Exec(ctx, `UPDATE bookings SET status = $3, updated_at = now()
		FROM (SELECT set_config('bookflow.actor', $4, true)) AS actor
		WHERE id = $1 AND status = $2`, bookingID, from, to, actorOf(ctx)); err != nil {
		return domain.Booking{}, err
	}
	b, err := s.GetBooking(ctx, bookingID)
	if err == nil && b.Status != to {
		err = fmt.Errorf("%w: booking %s is %s, not %s, and cannot become %s", domain.ErrConflict, bookingID, b.Status, from, to)
	}
	return b, err
}

// NoShow moves a confirmed booking nobody checked in to NO_SHOW and gives its units back, in one
// transaction; the payment is kept. A booking checked in meanwhile (or already NO_SHOW) is left
// as it is and returned.
func (s *Store) NoShow(ctx context.Context, bookingID string) (domain.Booking, error) {
	var booking domain.Booking
	err := s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE bookings SET status = 'NO_SHOW', updated_at = now()
			WHERE id = $1 AND status = 'CONFIRMED'`, bookingID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			if err := giveBack(ctx, tx, bookingID); err != nil {
				return err
			}
		}
		booking, err = getBooking(ctx, tx, bookingID)
		return err
	})
	return booking, err
}

// Confirm moves a booking from HOLD to CONFIRMED, only while its hold has not expired by the
// database's clock, recording the payment when there is one (nil: confirmed without online
// payment, e.g. paid at the desk). Confirming a CONFIRMED booking again with the same payment
// changes nothing; anything else is a conflict.
func (s *Store) Confirm(ctx context.Context, bookingID string, pay *domain.Payment) (domain.Booking, error) {
	var payID *string
	var paid int64
	if pay != nil {
		payID, paid = &pay.ID, pay.Amount
	}
	tag, err := s.pool.Exec(ctx, `UPDATE bookings SET status = 'CONFIRMED', payment_id = $2, paid = $3, updated_at = now()
		FROM (SELECT set_config('bookflow.actor', $4, true)) AS actor
		WHERE id = $1 AND status = 'HOLD' AND expires_at > now()`, bookingID, payID, paid, actorOf(ctx))
	if err != nil {
		return domain.Booking{}, err
	}
	booking, err := s.GetBooking(ctx, bookingID)
	if err != nil || tag.RowsAffected() == 1 || (booking.Status == domain.StatusConfirmed && booking.Paid == paid) {
		return booking, err
	}
	if booking.Status == domain.StatusHold {
		return booking, fmt.Errorf("%w: the hold on booking %s expired at %s", domain.ErrConflict,
			bookingID, booking.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return booking, fmt.Errorf("%w: booking %s is %s and cannot be confirmed", domain.ErrConflict, bookingID, booking.Status)
}

// Retake confirms an EXPIRED booking whose payment arrived late, if everything a new hold judges
// allows it now (the hotel's sale rules, under the same sale lock; stock, closures, rates and
// allocations on every line of it, under the normal lock); otherwise it changes nothing and
// fails with ErrUnavailable. The price stays the snapshot taken with the hold.
func (s *Store) Retake(ctx context.Context, bookingID string, pay domain.Payment) (domain.Booking, error) {
	var booking domain.Booking
	err := s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		// A supplier's booking is never taken again: the supplier was told it is off.
		tag, err := tx.Exec(ctx, `UPDATE bookings SET status = 'CONFIRMED', payment_id = $2, paid = $3, updated_at = now()
			WHERE id = $1 AND status = 'EXPIRED' AND supplier_id IS NULL`, bookingID, pay.ID, pay.Amount)
		if pgCode(err) == codeUniqueViolation {
			// The customer holds another active order for the slot: this payment goes back.
			return fmt.Errorf("%w: the customer holds another order for the slot of booking %s", domain.ErrUnavailable, bookingID)
		}
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			booking, err = getBooking(ctx, tx, bookingID)
			if err == nil && booking.SupplierID != "" && booking.Status == domain.StatusExpired {
				return fmt.Errorf("%w: booking %s's supplier was told it is off", domain.ErrUnavailable, bookingID)
			}
			if err == nil && (booking.Status != domain.StatusConfirmed || booking.PaymentID != pay.ID) {
				err = fmt.Errorf("%w: booking %s is %s and cannot be taken again", domain.ErrConflict, bookingID, booking.Status)
			}
			return err
		}
		if booking, err = getBooking(ctx, tx, bookingID); err != nil {
			return err
		}
		if err := judgeRetake(ctx, tx, booking); err != nil {
			return err
		}
		lines, err := bookingLines(ctx, tx, bookingID)
		if err != nil {
			return err
		}
		if err := lockLines(ctx, tx, lines); err != nil {
			return err
		}
		channel := booking.ChannelID
		units := make([]int, len(lines))
		for i, l := range lines {
			st, err := lineAvailable(ctx, tx, l)
			if err != nil {
				return err
			}
			ok := st.ok
			if ok && st.allocated {
				// Taken where a new sale by its channel would take it: the allocation, then the pool.
				if ok, err = takeShares(ctx, tx, bookingID, l, channel); err != nil {
					return err
				}
			}
			if !ok {
				return fmt.Errorf("%w: the units of booking %s were sold or closed after its hold expired", domain.ErrUnavailable, bookingID)
			}
			units[i] = st.units
		}
		for i, l := range lines {
			if _, err := takeLine(ctx, tx, l, units[i]); err != nil {
				return err
			}
		}
		booking, err = getBooking(ctx, tx, bookingID)
		return err
	})
	return booking, err
}

// judgeRetake judges a hotel booking's sale rules as a new hold would now, after taking its
// room type's sale lock (the row FOR KEY SHARE, as a new booking row's foreign key takes it: see
// lockSaleRules). Venues have no sale rules.
func judgeRetake(ctx context.Context, tx pgx.Tx, b domain.Booking) error {
	if b.VenueID != "" {
		return nil
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM resources r JOIN bookings b ON b.resource_id = r.id
		WHERE b.id = $1 FOR KEY SHARE OF r`, b.ID); err != nil {
		return err
	}
	v, err := judgeSale(ctx, tx, domain.SaleContext{HotelID: b.HotelID, RoomTypeID: b.RoomTypeID,
		ChannelID: b.ChannelID, AgentID: b.AgentID, Stay: b.Stay})
	if err == nil && !v.Allowed {
		err = fmt.Errorf("%w: booking %s may not be sold again now: %s", domain.ErrUnavailable, b.ID, v.Refusal.Named())
	}
	return err
}

// StartRefund moves a paid booking to REFUNDING with refundDue, releasing its nights first when
// it holds them (a cancelled CONFIRMED booking), all in one transaction. pay records the payment
// being refunded when the booking did not record it yet (a payment for an expired, cancelled or
// rejected booking). refundDue decides from the booking as locked (its policy and time zone are
// the ones it was held under); it is not called again on a retry, which returns the booking as
// already stored.
func (s *Store) StartRefund(ctx context.Context, bookingID string, pay *domain.Payment,
	refundDue func(b domain.Booking) (int64, error)) (domain.Booking, error) {
	var booking domain.Booking
	err := s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		b, err := scanBooking(tx.QueryRow(ctx, `SELECT `+bookingColumns+`
			FROM bookings b JOIN resources r ON r.id = b.resource_id WHERE b.id = $1 FOR UPDATE OF b`, bookingID))
		if err != nil {
			return err
		}
		if b.Status == domain.StatusRefunding || b.Status == domain.StatusRefunded {
			booking = b
			return nil
		}
		if !slices.Contains(domain.Sources(domain.StatusRefunding), b.Status) {
			return fmt.Errorf("%w: booking %s is %s and cannot be refunded", domain.ErrConflict, bookingID, b.Status)
		}
		if pay != nil && b.PaymentID == "" {
			b.PaymentID, b.Paid = pay.ID, pay.Amount
		}
		if b.Paid == 0 {
			return fmt.Errorf("%w: booking %s has no payment to refund", domain.ErrConflict, bookingID)
		}
		due, err := refundDue(b)
		if err != nil {
			return err
		}
		due = min(max(due, 0), b.Paid)
		if b.Status.HoldsInventory() {
			if err := giveBack(ctx, tx, bookingID); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE bookings SET status = 'REFUNDING', payment_id = $2, paid = $3,
				refund_due = $4, updated_at = now() WHERE id = $1`, bookingID, b.PaymentID, b.Paid, due); err != nil {
			return err
		}
		booking, err = getBooking(ctx, tx, bookingID)
		return err
	})
	return booking, err
}

// FinishRefund moves a REFUNDING booking to REFUNDED; a REFUNDED one is left as it is.
func (s *Store) FinishRefund(ctx context.Context, bookingID string) (domain.Booking, error) {
	return s.move(ctx, bookingID, domain.StatusRefunding, domain.StatusRefunded)
}

// DepartEarly applies a cancel accepted at instant at to a confirmed booking whose stay has begun
// by then (the check-in date or later at the hotel): an early departure. The guest keeps that
// night, the nights after it go back on sale (locked in ascending order) and the booking's
// check-out moves, in one transaction; the price and payment stay. begun is false, and nothing
// changes, when the booking is not confirmed or its stay has not begun: the cancel is an
// ordinary one. On the last night, or asked again, there is nothing more to give back.
func (s *Store) DepartEarly(ctx context.Context, bookingID string, at time.Time) (begun bool, _ domain.Booking, _ error) {
	var booking domain.Booking
	err := s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		b, err := scanBooking(tx.QueryRow(ctx, `SELECT `+bookingColumns+`
			FROM bookings b JOIN resources r ON r.id = b.resource_id WHERE b.id = $1 FOR UPDATE OF b`, bookingID))
		if err != nil {
			return err
		}
		booking = b
		today, err := b.TodayAtHotel(at)
		if err != nil || !b.Status.Used() || today.Before(b.CheckIn) || b.VenueID != "" {
			return err
		}
		begun = true
		checkOut := today.AddDays(1)
		if !checkOut.Before(b.CheckOut) {
			return nil // the last night, or already shortened: nothing to give back
		}
		released := line{from: checkOut.Time(), to: b.CheckOut.Time(), quantity: b.Quantity}
		var elsewhere bool // a direct_connect supplier holds the rooms: nothing to give back here
		if err := tx.QueryRow(ctx, `SELECT resource_id, supplier_held FROM bookings WHERE id = $1`, bookingID).Scan(
			&released.resourceID, &elsewhere); err != nil {
			return err
		}
		if !elsewhere {
			if err := lockLines(ctx, tx, []line{released}); err != nil {
				return err
			}
			if err := giveBackLine(ctx, tx, bookingID, released); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE bookings SET unit_to = $2, updated_at = now() WHERE id = $1`,
			bookingID, checkOut.Time()); err != nil {
			return err
		}
		booking, err = getBooking(ctx, tx, bookingID)
		return err
	})
	return begun, booking, err
}
