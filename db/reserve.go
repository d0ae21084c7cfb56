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
	if p.ChannelID == "" && p.AgentID == "" && p.Request.Plan() == domain.DefaultRatePlan && p.Request.GroupCode == "" { // one round trip
		direct := s.reserveDirect
		if s.Batching() {
			direct = s.reserveBatched
		}
		if b, done, err := direct(ctx, p); done || err != nil {
			return b, err
		}
	}
	req := p.Request
	var booking domain.Booking
	t := reserveTimingOf(ctx)
	t.update(func(r *ReserveTimes) { r.Path = "full" })
	err := s.inBookingTx(ctx, p.BookingID, func(tx pgx.Tx) error {
		pid := tx.Conn().PgConn().PID()
		if err := t.trip(s.pool, "hold lock", pid, func() error {
			return lockCustomerHolds(ctx, tx, req.CustomerID, p.MaxActiveHolds)
		}); err != nil {
			return err
		}
		// The booking row first: a concurrent attempt with the same id waits here on the
		// primary key and then finds the committed row.
		var sale saleSetup
		var inserted bool
		err := t.trip(s.pool, "booking row", pid, func() (err error) {
			sale, inserted, err = insertBooking(ctx, tx, p, domain.StatusHold)
			return err
		})
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
		return t.trip(s.pool, "units", pid, func() (err error) {
			booking, err = reserveStay(ctx, tx, p, sale)
			return err
		})
	})
	return booking, err
}

// reserveDirect makes a direct sale's reservation in one round trip: the reserve_stay function
// (db/functions/reserve_stay.sql) does what Reserve's statements do, and the booking is read
// back in the same implicit transaction (one pipelined batch). done is false, with nothing
// written, when the sale needs the full path: the hotel has sale rules (also when one was
// answered while this sale began) or a low-stock threshold, or a night is split between
// channels.
func (s *Store) reserveDirect(ctx context.Context, p ReserveParams) (b domain.Booking, done bool, err error) {
	return s.reserveDirectWaiting(ctx, p, s.lockTimeout)
}

// reserveDirectWaiting is reserveDirect with each lock wait bounded by wait.
func (s *Store) reserveDirectWaiting(ctx context.Context, p ReserveParams, wait time.Duration) (b domain.Booking, done bool, err error) {
	req := p.Request
	batch := &pgx.Batch{}
	var outcome string
	batch.Queue(`SELECT reserve_stay($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
		p.BookingID, req.CustomerID, p.CreatedBy, p.IdempotencyKey, req.Fingerprint(), req.HotelID, req.RoomTypeID,
		req.CheckIn.Time(), req.CheckOut.Time(), req.Quantity, p.HoldTTL.Microseconds(), p.SupplierID, p.MaxActiveHolds,
		wait.Milliseconds()).QueryRow(func(row pgx.Row) error { return row.Scan(&outcome) })
	batch.Queue(`SELECT `+bookingColumns+` FROM bookings b JOIN resources r ON r.id = b.resource_id WHERE b.id = $1`,
		p.BookingID).QueryRow(func(row pgx.Row) error {
		b, err = scanBooking(row)
		if errors.Is(err, domain.ErrNotFound) && outcome != "held" && outcome != "rejected" && outcome != "exists" {
			err = nil // nothing was written
		}
		return err
	})
	// The connection is taken here rather than by pool.SendBatch, which does the same, so the
	// acquire wait and the backend (for the lock probe) are known.
	t := reserveTimingOf(ctx)
	t.update(func(r *ReserveTimes) { r.Path = "alone" })
	conn, err := t.acquire(ctx, s.pool)
	if err == nil {
		err = t.trip(s.pool, "reserve_stay", conn.Conn().PgConn().PID(), func() error { return conn.SendBatch(ctx, batch).Close() })
		conn.Release()
		if pgCode(err) == lockNotAvailable && outcome != "" { // every statement answered: the commit timed out
			t.atCommit()
		}
	}
	if err != nil {
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
// in statements that see every rule committed before it (see db/functions/reserve_stay.sql): a
// rule answered before this sale got the lock applies to it, and a rule write waits for it
// otherwise.
func reserveStay(ctx context.Context, tx pgx.Tx, p ReserveParams, sale saleSetup) (domain.Booking, error) {
	req := p.Request
	var v domain.SaleVerdict
	var blk *blockSale
	var err error
	if req.GroupCode != "" { // a group's contract, not the sale rules, says what its guests may book
		var refusal string
		if blk, refusal, err = blockForPickup(ctx, tx, p, sale.resourceID); err != nil || refusal != "" {
			if err != nil {
				return domain.Booking{}, err
			}
			return reject(ctx, tx, p.BookingID, refusal)
		}
		if blk.ratePlan != "" {
			p.Request.RatePlan = blk.ratePlan
		}
	} else if v, err = judgeSale(ctx, tx, domain.SaleContext{HotelID: req.HotelID, RoomTypeID: req.RoomTypeID,
		ChannelID: p.ChannelID, AgentID: p.AgentID, Stay: req.Stay, RatePlan: req.RatePlan}); err != nil {
		return domain.Booking{}, err
	} else if !v.Allowed {
		return reject(ctx, tx, p.BookingID, v.Refusal.Named())
	}
	req = p.Request
	var planned *plannedSale
	if req.Plan() != domain.DefaultRatePlan {
		var refusal string
		if planned, refusal, err = planSale(ctx, tx, p); err != nil || refusal != "" {
			if err != nil {
				return domain.Booking{}, err
			}
			return reject(ctx, tx, p.BookingID, refusal)
		}
	}
	price, refusal, err := takeUnits(ctx, tx, p.BookingID, sale.resourceID, req.Stay, req.Quantity, p.ChannelID, blk)
	if err != nil {
		return domain.Booking{}, err
	}
	if price == nil {
		return reject(ctx, tx, p.BookingID, refusal)
	}
	if planned != nil {
		*price = planned.price(req.Quantity)
	}
	plan, terms, policy, balanceDueAt, err := planned.keep()
	if err != nil {
		return domain.Booking{}, err
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
	var blockID *string
	if blk != nil {
		blockID = &blk.id
	}
	return scanBooking(tx.QueryRow(ctx, `UPDATE bookings b SET currency = $2, total = $3, nightly_rates = $4, discount = $5,
			rate_plan = COALESCE($6, rate_plan), plan_terms = $7, policy = COALESCE($8, policy),
			balance_due_at = CASE WHEN $9::timestamptz > now() THEN $9::timestamptz END, block_id = $10
		FROM resources r WHERE r.id = b.resource_id AND b.id = $1 RETURNING `+bookingColumns,
		p.BookingID, price.Currency, price.Total, price.Nights, off, plan, terms, policy, balanceDueAt, blockID))
}

// reject stores a new booking REJECTED with its refusal (empty: stock refused it, which needs
// no more words) and returns it.
func reject(ctx context.Context, tx pgx.Tx, bookingID, refusal string) (domain.Booking, error) {
	return scanBooking(tx.QueryRow(ctx, `UPDATE bookings b SET status = 'REJECTED', refusal = $2
		FROM resources r WHERE r.id = b.resource_id AND b.id = $1 RETURNING `+bookingColumns, bookingID, nullable(refusal)))
}

// lockCustomerHolds takes the customer's hold lock when a hold limit applies: one new hold at a
// time per customer, so concurrent requests cannot all see room under the limit. Taken first,
// before the booking row and its room type's sale lock, as reserve_stay, reserve_stays (every
// limited customer of its batch, by customer, before any row) and the erasure take it.
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
// not taken (nothing changed), with the refusal to store (see lineState.refusal). A group's
// pickup (blk) takes its block's rooms first (takeGroupLine), at the block's rates.
func takeUnits(ctx context.Context, tx pgx.Tx, bookingID string, resourceID int64, stay domain.Stay, qty int, channel string, blk *blockSale) (*domain.Price, string, error) {
	l := line{resourceID: resourceID, from: stay.CheckIn.Time(), to: stay.CheckOut.Time(), quantity: qty}
	if err := lockLines(ctx, tx, []line{l}); err != nil {
		return nil, "", err
	}
	if blk != nil {
		return takePickup(ctx, tx, bookingID, l, stay, channel, blk)
	}
	st, err := lineAvailable(ctx, tx, l)
	if err != nil || !st.ok {
		return nil, st.refusal(), err // a short, missing, closed or unpriced night: nothing was taken
	}
	if st.allocated {
		if ok, err := takeShares(ctx, tx, bookingID, l, channel, nil); err != nil || !ok {
			return nil, "", err // the channel's allocation and the pool are short: nothing was taken
		}
	}
	rates, err := takeLine(ctx, tx, l, st.units)
	if err != nil {
		return nil, "", err
	}
	price := priceAt(st.currency, rates, qty)
	return &price, "", nil
}

// priceAt is the price of qty units at the rates of the units taken, night by night.
func priceAt(currency string, rates []unitRate, qty int) domain.Price {
	price := domain.Price{Currency: currency}
	for _, u := range rates {
		price.Nights = append(price.Nights, domain.NightRate{Date: domain.DateOf(u.start, time.UTC), Amount: u.rate * int64(qty)})
		price.Total += u.rate * int64(qty)
	}
	slices.SortFunc(price.Nights, func(a, b domain.NightRate) int { return a.Date.Time().Compare(b.Date.Time()) })
	return price
}
