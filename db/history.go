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

// BookingChange is one state change of a booking, as the database recorded it, with who or
// what caused it (empty when nobody was named: a change from before actors were recorded, or a
// step whose actor the workflow does not pass yet).
type BookingChange struct {
	At    time.Time     `json:"at"`
	From  domain.Status `json:"from,omitempty"`
	To    domain.Status `json:"to"`
	Actor string        `json:"actor,omitempty"`
}

// Actors of the steps a booking takes without a person asking (domain.SystemActorPrefix); a
// person acting is named by their token's subject.
const (
	ActorHoldTimer          = domain.SystemActorPrefix + "hold-timer"          // the hold ran out
	ActorNoShow             = domain.SystemActorPrefix + "no-show"             // nobody checked in by the deadline
	ActorPayment            = domain.SystemActorPrefix + "payment"             // a payment the provider reported
	ActorLatePayment        = domain.SystemActorPrefix + "late-payment"        // a payment after the hold ended
	ActorBalancePayment     = domain.SystemActorPrefix + "balance-payment"     // an amendment's balance paid
	ActorRefund             = domain.SystemActorPrefix + "refund"              // the provider made the refund
	ActorReservationTimeout = domain.SystemActorPrefix + "reservation-timeout" // the reservation was abandoned
	ActorInvariantChecker   = domain.SystemActorPrefix + "invariant-checker"   // a repair of the hourly checker
	ActorOnAccount          = domain.SystemActorPrefix + "on-account"          // a channel's sale confirmed on its account
	ActorSupplier           = domain.SystemActorPrefix + "supplier"            // the supplier refused it or did not answer
	ActorOperator           = domain.SystemActorPrefix + "operator"            // its workflow was cancelled from the Temporal UI
	ActorPlanBalance        = domain.SystemActorPrefix + "plan-balance"        // a deposit plan's balance not paid by its date
	ActorCardGuarantee      = domain.SystemActorPrefix + "card-guarantee"      // a pay-at-hotel hold's card saved
)

type actorKey struct{}

// WithActor returns ctx naming who or what the booking state changes the Store makes under it
// are for: a person's token subject, or one of the Actor constants. The history trigger records
// it with each change, in the changing statement (migration 00022). A booking's creation, and a
// reservation's refusal, name its creator when ctx names nobody.
func WithActor(ctx context.Context, actor string) context.Context {
	return context.WithValue(ctx, actorKey{}, actor)
}

// actorOf is the actor ctx names ("" for none).
func actorOf(ctx context.Context) string {
	actor, _ := ctx.Value(actorKey{}).(string)
	return actor
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
	rows, err := s.pool.Query(ctx, `SELECT at, COALESCE(from_status, ''), to_status, COALESCE(actor, '') FROM booking_changes
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
