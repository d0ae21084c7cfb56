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

// BookingChange is one state change of a booking, as the database recorded it.
type BookingChange struct {
	At   time.Time     `json:"at"`
	From domain.Status `json:"from,omitempty"`
	To   domain.Status `json:"to"`
}

// UnitChange is one change of a unit's counts or state: what was reserved, the total and
// whether it was closed, before and after, and the booking it was made for (if any).
type UnitChange struct {
	At             time.Time `json:"at"`
	ResourceID     string    `json:"resourceId"`
	Unit           time.Time `json:"unit"`
	Change         string    `json:"change"` // created, updated or removed
	ReservedBefore *int      `json:"reservedBefore,omitempty"`
	ReservedAfter  *int      `json:"reservedAfter,omitempty"`
	TotalBefore    *int      `json:"totalBefore,omitempty"`
	TotalAfter     *int      `json:"totalAfter,omitempty"`
	ClosedBefore   *bool     `json:"closedBefore,omitempty"`
	ClosedAfter    *bool     `json:"closedAfter,omitempty"`
	ClosedReason   string    `json:"closedReason,omitempty"`
	BookingID      string    `json:"bookingId,omitempty"`
	// BlockedBefore and BlockedAfter count its rooms out of order (recorded from migration 00020).
	BlockedBefore *int `json:"blockedBefore,omitempty"`
	BlockedAfter  *int `json:"blockedAfter,omitempty"`
}

const unitChangeColumns = `c.at, r.code, c.unit_start, c.change, c.reserved_before, c.reserved_after, c.total_before,
	c.total_after, c.closed_before, c.closed_after, COALESCE(c.closed_reason, ''), COALESCE(c.booking_id, ''),
	c.blocked_before, c.blocked_after`

// BookingHistory returns a booking's state changes and the unit changes made for it, oldest
// first.
func (s *Store) BookingHistory(ctx context.Context, bookingID string) ([]BookingChange, []UnitChange, error) {
	rows, err := s.pool.Query(ctx, `SELECT at, COALESCE(from_status, ''), to_status FROM booking_changes
		WHERE booking_id = $1 ORDER BY id`, bookingID)
	if err != nil {
		return nil, nil, err
	}
	changes, err := pgx.CollectRows(rows, pgx.RowToStructByPos[BookingChange])
	if err != nil {
		return nil, nil, err
	}
	rows, err = s.pool.Query(ctx, `SELECT `+unitChangeColumns+` FROM inventory_changes c
		JOIN resources r ON r.id = c.resource_id WHERE c.booking_id = $1 ORDER BY c.id`, bookingID)
	if err != nil {
		return nil, nil, err
	}
	units, err := pgx.CollectRows(rows, pgx.RowToStructByPos[UnitChange])
	return orEmpty(changes), orEmpty(units), err
}

// UnitState is a unit as it stands, with its changes.
type UnitState struct {
	Start        time.Time    `json:"start"`
	End          time.Time    `json:"end"`
	Total        int          `json:"total"`
	Reserved     int          `json:"reserved"`
	Open         bool         `json:"open"`
	ClosedReason string       `json:"closedReason,omitempty"`
	ClosedBy     string       `json:"closedBy,omitempty"`
	Changes      []UnitChange `json:"changes"`
}

// ResourceRef names a resource: a hotel's room type or a venue's resource.
type ResourceRef struct {
	HotelID, VenueID, Code string
}

// UnitHistory returns the units of a resource that start within span, as they stand, each with
// every change recorded for it (units removed since appear with their changes only), so support
// can tell why a unit cannot be booked.
func (s *Store) UnitHistory(ctx context.Context, ref ResourceRef, span domain.Span) ([]UnitState, error) {
	var resourceID int64
	err := s.pool.QueryRow(ctx, `SELECT id FROM resources WHERE code = $3 AND
		(($1 <> '' AND hotel_id = $1) OR ($2 <> '' AND venue_id = $2))`, ref.HotelID, ref.VenueID, ref.Code).Scan(&resourceID)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("%w: no resource %q", domain.ErrNotFound, ref.Code)
	}
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT i.unit_start, `+unitEndOf+`, i.total, i.reserved, i.closed_at IS NULL,
			COALESCE(i.closed_reason, ''), COALESCE(i.closed_by, '')
		FROM inventory i WHERE i.resource_id = $1 AND i.unit_start >= $2 AND i.unit_start < $3 ORDER BY i.unit_start`,
		resourceID, span.Start.UTC(), span.End.UTC())
	if err != nil {
		return nil, err
	}
	units, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (UnitState, error) {
		var u UnitState
		err := r.Scan(&u.Start, &u.End, &u.Total, &u.Reserved, &u.Open, &u.ClosedReason, &u.ClosedBy)
		u.Changes = []UnitChange{}
		return u, err
	})
	if err != nil {
		return nil, err
	}
	rows, err = s.pool.Query(ctx, `SELECT `+unitChangeColumns+` FROM inventory_changes c
		JOIN resources r ON r.id = c.resource_id
		WHERE c.resource_id = $1 AND c.unit_start >= $2 AND c.unit_start < $3 ORDER BY c.unit_start, c.id`,
		resourceID, span.Start.UTC(), span.End.UTC())
	if err != nil {
		return nil, err
	}
	changes, err := pgx.CollectRows(rows, pgx.RowToStructByPos[UnitChange])
	if err != nil {
		return nil, err
	}
	byStart := map[time.Time]int{}
	for i, u := range units {
		byStart[u.Start] = i
	}
	for _, c := range changes {
		i, ok := byStart[c.Unit]
		if !ok { // removed since: shown with its changes
			units = append(units, UnitState{Start: c.Unit, Changes: []UnitChange{}})
			i = len(units) - 1
			byStart[c.Unit] = i
		}
		units[i].Changes = append(units[i].Changes, c)
	}
	slices.SortFunc(units, func(a, b UnitState) int { return a.Start.Compare(b.Start) })
	return orEmpty(units), nil
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
