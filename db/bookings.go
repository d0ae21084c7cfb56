package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// ReserveParams is one reservation: the booking to create and what it takes.
type ReserveParams struct {
	BookingID      string
	IdempotencyKey string
	Request        domain.HoldRequest
	// HoldTTL is how long the hold lasts from the moment the reservation commits, by the
	// database's clock; the stored expires_at is what confirmation is checked against.
	HoldTTL time.Duration
}

const bookingColumns = `b.id, b.customer_id, r.hotel_id, r.room_type_id, b.unit_from, b.unit_to,
	b.quantity, b.status, b.expires_at, b.created_at, b.updated_at, b.fingerprint`

func scanBooking(row pgx.Row) (domain.Booking, error) {
	var b domain.Booking
	var from, to time.Time
	err := row.Scan(&b.ID, &b.CustomerID, &b.HotelID, &b.RoomTypeID, &from, &to,
		&b.Quantity, &b.Status, &b.ExpiresAt, &b.CreatedAt, &b.UpdatedAt, &b.Fingerprint)
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
// It fails with ErrNotFound for an unknown room type and ErrIdempotencyMismatch when the
// booking id exists for a different request.
func (s *Store) Reserve(ctx context.Context, p ReserveParams) (domain.Booking, error) {
	req := p.Request
	var booking domain.Booking
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var resourceID int64
		err := tx.QueryRow(ctx, `SELECT id FROM resources WHERE hotel_id = $1 AND room_type_id = $2`,
			req.HotelID, req.RoomTypeID).Scan(&resourceID)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: hotel %q has no room type %q", domain.ErrNotFound, req.HotelID, req.RoomTypeID)
		}
		if err != nil {
			return err
		}

		// The booking row first: a concurrent attempt with the same id waits here on the
		// primary key and then finds the committed row.
		tag, err := tx.Exec(ctx, `INSERT INTO bookings (id, customer_id, idempotency_key, fingerprint,
				resource_id, unit_from, unit_to, quantity, status, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'HOLD', now() + $9 * interval '1 microsecond')
			ON CONFLICT DO NOTHING`,
			p.BookingID, req.CustomerID, p.IdempotencyKey, req.Fingerprint(), resourceID,
			req.CheckIn.Time(), req.CheckOut.Time(), req.Quantity, p.HoldTTL.Microseconds())
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			booking, err = getBooking(ctx, tx, p.BookingID)
			if err != nil {
				return err
			}
			if booking.Fingerprint != req.Fingerprint() {
				return fmt.Errorf("%w: booking %s", domain.ErrIdempotencyMismatch, p.BookingID)
			}
			return nil
		}

		taken, err := takeUnits(ctx, tx, resourceID, req.Stay, req.Quantity)
		if err != nil {
			return err
		}
		if !taken {
			if _, err := tx.Exec(ctx, `UPDATE bookings SET status = 'REJECTED' WHERE id = $1`, p.BookingID); err != nil {
				return err
			}
		}
		booking, err = getBooking(ctx, tx, p.BookingID)
		return err
	})
	return booking, err
}

// takeUnits adds qty to every night of the stay, or to none: it locks the nights in ascending
// order (the one order every writer uses, so overlapping stays cannot deadlock), then runs the
// conditional update inside a savepoint and undoes it unless every night was updated.
func takeUnits(ctx context.Context, tx pgx.Tx, resourceID int64, stay domain.Stay, qty int) (bool, error) {
	if err := lockUnits(ctx, tx, resourceID, stay); err != nil {
		return false, err
	}
	sp, err := tx.Begin(ctx) // SAVEPOINT
	if err != nil {
		return false, err
	}
	tag, err := sp.Exec(ctx, `UPDATE inventory SET reserved = reserved + $4
		WHERE resource_id = $1 AND unit_start >= $2 AND unit_start < $3 AND total - reserved >= $4`,
		resourceID, stay.CheckIn.Time(), stay.CheckOut.Time(), qty)
	if err != nil {
		return false, err
	}
	if tag.RowsAffected() != int64(stay.Nights()) {
		return false, sp.Rollback(ctx) // ROLLBACK TO SAVEPOINT: a short or missing night
	}
	return true, sp.Commit(ctx)
}

// lockUnits locks the stay's inventory rows in ascending unit order.
func lockUnits(ctx context.Context, tx pgx.Tx, resourceID int64, stay domain.Stay) error {
	_, err := tx.Exec(ctx, `SELECT 1 FROM inventory
		WHERE resource_id = $1 AND unit_start >= $2 AND unit_start < $3
		ORDER BY unit_start FOR UPDATE`, resourceID, stay.CheckIn.Time(), stay.CheckOut.Time())
	return err
}

// Release moves a booking that holds inventory to status to (EXPIRED or CANCELLED) and gives
// its units back, in one transaction. Releasing a booking already in status to changes nothing;
// a booking in any other state is a conflict.
func (s *Store) Release(ctx context.Context, bookingID string, to domain.Status) (domain.Booking, error) {
	if to.HoldsInventory() {
		return domain.Booking{}, fmt.Errorf("%w: cannot release into %s", domain.ErrInvalid, to)
	}
	var booking domain.Booking
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var resourceID int64
		var from, until time.Time
		var qty int
		err := tx.QueryRow(ctx, `UPDATE bookings SET status = $2, updated_at = now()
			WHERE id = $1 AND status = ANY($3)
			RETURNING resource_id, unit_from, unit_to, quantity`,
			bookingID, to, domain.Sources(to)).Scan(&resourceID, &from, &until, &qty)
		if errors.Is(err, pgx.ErrNoRows) {
			booking, err = getBooking(ctx, tx, bookingID)
			if err == nil && booking.Status != to {
				err = fmt.Errorf("%w: booking %s is %s and cannot become %s", domain.ErrConflict, bookingID, booking.Status, to)
			}
			return err
		}
		if err != nil {
			return err
		}
		stay := domain.Stay{CheckIn: domain.DateOf(from, time.UTC), CheckOut: domain.DateOf(until, time.UTC)}
		if err := lockUnits(ctx, tx, resourceID, stay); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE inventory SET reserved = reserved - $4
			WHERE resource_id = $1 AND unit_start >= $2 AND unit_start < $3`,
			resourceID, from, until, qty)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != int64(stay.Nights()) {
			return fmt.Errorf("release %s: %d of %d nights found: inventory rows were removed under a booking",
				bookingID, tag.RowsAffected(), stay.Nights())
		}
		booking, err = getBooking(ctx, tx, bookingID)
		return err
	})
	return booking, err
}

// Confirm moves a booking from HOLD to CONFIRMED, only while its hold has not expired by the
// database's clock. Confirming a CONFIRMED booking changes nothing; anything else is a conflict.
func (s *Store) Confirm(ctx context.Context, bookingID string) (domain.Booking, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE bookings SET status = 'CONFIRMED', updated_at = now()
		WHERE id = $1 AND status = 'HOLD' AND expires_at > now()`, bookingID)
	if err != nil {
		return domain.Booking{}, err
	}
	booking, err := s.GetBooking(ctx, bookingID)
	if err != nil || tag.RowsAffected() == 1 || booking.Status == domain.StatusConfirmed {
		return booking, err
	}
	if booking.Status == domain.StatusHold {
		return booking, fmt.Errorf("%w: the hold on booking %s expired at %s", domain.ErrConflict,
			bookingID, booking.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return booking, fmt.Errorf("%w: booking %s is %s and cannot be confirmed", domain.ErrConflict, bookingID, booking.Status)
}
