package db

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// A closure of units that bookings hold (a court shut by rain) is refused, naming the bookings,
// unless the closure keeps them on purpose (Closure.KeepBookings): the desk moves or refunds
// them first, or says it keeps them (a class closed to further sales). A booking a closed unit
// holds is never a no-show (closedUnitsHeld).

// BookedUnit is a booking that holds units a closure covers.
type BookedUnit struct {
	BookingID  string        `json:"bookingId"`
	CustomerID string        `json:"customerId"`
	Status     domain.Status `json:"status"`
	ResourceID string        `json:"resourceId"`
	Start      time.Time     `json:"start"`
	End        time.Time     `json:"end"`
}

// SlotsBookedError refuses a closure of units bookings hold.
type SlotsBookedError struct{ Bookings []BookedUnit }

func (e *SlotsBookedError) Error() string {
	ids := make([]string, 0, len(e.Bookings))
	for _, b := range e.Bookings {
		ids = append(ids, fmt.Sprintf("%s (%s, %s at %s)", b.BookingID, b.Status, b.ResourceID, b.Start.Format(time.RFC3339)))
	}
	return fmt.Sprintf("%d booking(s) hold units this closure covers: %s; move or refund them first, or close keeping them",
		len(ids), strings.Join(ids, ", "))
}

// Unwrap makes a SlotsBookedError a domain.ErrConflict.
func (e *SlotsBookedError) Unwrap() error { return domain.ErrConflict }

// maxBookedNamed bounds the bookings a refusal names.
const maxBookedNamed = 100

// refuseBooked refuses, as a SlotsBookedError, a closure of units (locked by the caller, so no
// booking takes them meanwhile) that live bookings hold, unless it keeps them.
func refuseBooked(ctx context.Context, tx pgx.Tx, c Closure, units []line) error {
	if c.KeepBookings || len(units) == 0 {
		return nil
	}
	ids, starts := make([]int64, len(units)), make([]time.Time, len(units))
	for i, u := range units {
		ids[i], starts[i] = u.resourceID, u.from
	}
	rows, err := tx.Query(ctx, `WITH closed AS (SELECT * FROM unnest($1::bigint[], $2::timestamp[]) AS u(resource_id, unit_start)),
			held AS (
				SELECT b.id, b.resource_id, b.unit_from, b.unit_to FROM bookings b WHERE b.venue_id IS NOT NULL
				UNION ALL SELECT l.booking_id, l.resource_id, l.unit_from, l.unit_to FROM booking_lines l)
		SELECT DISTINCT ON (b.id) b.id, b.customer_id, b.status, r.code, h.unit_from, h.unit_to
		FROM held h JOIN closed c ON c.resource_id = h.resource_id AND c.unit_start >= h.unit_from AND c.unit_start < h.unit_to
			JOIN bookings b ON b.id = h.id JOIN resources r ON r.id = h.resource_id
		WHERE b.status IN ('HOLD', 'CONFIRMED', 'COMPLETED')
		ORDER BY b.id, h.unit_from LIMIT $3`, ids, starts, maxBookedNamed)
	if err != nil {
		return err
	}
	booked, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (BookedUnit, error) {
		var b BookedUnit
		err := r.Scan(&b.BookingID, &b.CustomerID, &b.Status, &b.ResourceID, &b.Start, &b.End)
		b.Start, b.End = b.Start.UTC(), b.End.UTC()
		return b, err
	})
	if err != nil || len(booked) == 0 {
		return err
	}
	return &SlotsBookedError{Bookings: booked}
}

// closedUnitsHeld reports whether a closed unit is among those booking id holds.
func closedUnitsHeld(ctx context.Context, tx pgx.Tx, bookingID string) (bool, error) {
	var closed bool
	err := tx.QueryRow(ctx, `WITH held AS (
			SELECT resource_id, unit_from, unit_to FROM bookings WHERE id = $1 AND venue_id IS NOT NULL
			UNION ALL SELECT resource_id, unit_from, unit_to FROM booking_lines WHERE booking_id = $1)
		SELECT EXISTS (SELECT 1 FROM held h JOIN inventory i ON i.resource_id = h.resource_id
			AND i.unit_start >= h.unit_from AND i.unit_start < h.unit_to WHERE i.closed_at IS NOT NULL)`, bookingID).Scan(&closed)
	return closed, err
}
