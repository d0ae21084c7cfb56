package db

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// ActiveHolds counts a customer's own unexpired holds other than bookingID (holds staff made
// for them do not count) and returns when the first of them expires.
func (s *Store) ActiveHolds(ctx context.Context, customerID, bookingID string) (int, time.Time, error) {
	return activeHolds(ctx, s.pool, customerID, bookingID)
}

func activeHolds(ctx context.Context, q querier, customerID, bookingID string) (int, time.Time, error) {
	var n int
	var first *time.Time
	err := q.QueryRow(ctx, `SELECT count(*), min(expires_at) FROM bookings
		WHERE customer_id = $1 AND created_by = $1 AND status = 'HOLD' AND expires_at > now() AND id <> $2`,
		customerID, bookingID).Scan(&n, &first)
	if first == nil {
		return n, time.Time{}, err
	}
	return n, *first, err
}

// BookingFilter selects bookings for a list, newest first.
type BookingFilter struct {
	CustomerID string // only this customer's, when set
	AgentID    string // only what this agent sold, when set
	// HotelIDs and VenueIDs: only these hotels' and venues' bookings, when either is not nil.
	HotelIDs []string
	VenueIDs []string
	Status   domain.Status // only this status, when set
	// Meeting, when set, keeps the bookings whose units meet this span: a venue order with a
	// line within it, a stay that arrives, stays or leaves within it (a stay's span is its dates
	// at midnight, UTC-naive, as its units are stored).
	Meeting *domain.Span
	// After continues a list: only bookings older than this position.
	After *ListPosition
	Limit int
}

// ListPosition is where a list stopped: the last booking shown.
type ListPosition struct {
	CreatedAt time.Time `json:"t"`
	ID        string    `json:"id"`
}

// ListBookings returns up to f.Limit bookings matching f, newest first, and the position to
// continue from (nil when there are no more).
func (s *Store) ListBookings(ctx context.Context, f BookingFilter) ([]domain.Booking, *ListPosition, error) {
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if f.CustomerID != "" {
		where = append(where, "b.customer_id = "+arg(f.CustomerID))
	}
	if f.AgentID != "" {
		where = append(where, "b.agent_id = "+arg(f.AgentID))
	}
	if f.HotelIDs != nil || f.VenueIDs != nil {
		where = append(where, "(r.hotel_id = ANY("+arg(orEmpty(f.HotelIDs))+") OR b.venue_id = ANY("+arg(orEmpty(f.VenueIDs))+"))")
	}
	if f.Status != "" {
		where = append(where, "b.status = "+arg(f.Status))
	}
	if f.Meeting != nil {
		start, end := arg(f.Meeting.Start), arg(f.Meeting.End)
		// A stay leaving on the day meets it (its unit_to is that midnight); a venue line ending
		// as the day begins does not.
		where = append(where, fmt.Sprintf(`((b.unit_from < %[2]s AND (b.unit_to > %[1]s OR (b.venue_id IS NULL AND b.unit_to = %[1]s)))
			OR EXISTS (SELECT 1 FROM booking_lines l WHERE l.booking_id = b.id AND l.unit_from < %[2]s AND l.unit_to > %[1]s))`, start, end))
	}
	if f.After != nil {
		where = append(where, fmt.Sprintf("(b.created_at, b.id) < (%s, %s)", arg(f.After.CreatedAt), arg(f.After.ID)))
	}
	query := `SELECT ` + bookingColumns + ` FROM bookings b JOIN resources r ON r.id = b.resource_id`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	// One more than asked tells whether the list goes on.
	query += " ORDER BY b.created_at DESC, b.id DESC LIMIT " + arg(f.Limit+1)
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, nil, err
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Booking, error) { return scanBooking(r) })
	if err != nil || len(list) <= f.Limit {
		return list, nil, err
	}
	list = list[:f.Limit]
	last := list[len(list)-1]
	return list, &ListPosition{CreatedAt: last.CreatedAt, ID: last.ID}, nil
}
