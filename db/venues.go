package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// PutVenue creates a venue or updates its name and terms. A venue's time zone is fixed once it
// has resources: their units were laid out on its clock.
func (s *Store) PutVenue(ctx context.Context, v domain.Venue) (created bool, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var stored string
		err := tx.QueryRow(ctx, `SELECT time_zone FROM venues WHERE id = $1 FOR UPDATE`, v.ID).Scan(&stored)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			created = true
		case err != nil:
			return err
		case stored != v.TimeZone:
			var used bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM resources WHERE venue_id = $1)`, v.ID).Scan(&used); err != nil {
				return err
			}
			if used {
				return fmt.Errorf("%w: venue %s has resources laid out in %s; its time zone cannot change",
					domain.ErrConflict, v.ID, stored)
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO venues (id, name, time_zone, payment_window_seconds, free_cancel_hours,
				no_show_grace_minutes, country) VALUES ($1, $2, $3, $4, $5, $6, NULLIF($7, ''))
			ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, time_zone = EXCLUDED.time_zone,
				payment_window_seconds = EXCLUDED.payment_window_seconds, free_cancel_hours = EXCLUDED.free_cancel_hours,
				no_show_grace_minutes = EXCLUDED.no_show_grace_minutes, country = EXCLUDED.country`,
			v.ID, v.Name, v.TimeZone, v.PaymentWindowMinutes*60, v.FreeCancelHours, v.NoShowGraceMinutes, v.Country)
		return err
	})
	return created, err
}

// GetVenue loads a venue and its time zone.
func (s *Store) GetVenue(ctx context.Context, id string) (domain.Venue, *time.Location, error) {
	v := domain.Venue{ID: id}
	var windowSeconds int
	err := s.pool.QueryRow(ctx, `SELECT name, time_zone, payment_window_seconds, free_cancel_hours, no_show_grace_minutes,
			coalesce(country, '') FROM venues WHERE id = $1`, id).
		Scan(&v.Name, &v.TimeZone, &windowSeconds, &v.FreeCancelHours, &v.NoShowGraceMinutes, &v.Country)
	if errors.Is(err, pgx.ErrNoRows) {
		return v, nil, fmt.Errorf("%w: no venue %q", domain.ErrNotFound, id)
	}
	if err != nil {
		return v, nil, err
	}
	v.PaymentWindowMinutes = windowSeconds / 60
	loc, err := time.LoadLocation(v.TimeZone)
	return v, loc, err
}

// PutVenueResource creates a venue's resource or updates its name, sport and capacity. Its kind
// and unit are fixed once it exists. A new capacity applies to its units from now on, unless
// one of them already has more booked (a conflict, nothing changed). Places a raise adds are
// offered to the waitlist first, in its transaction.
func (s *Store) PutVenueResource(ctx context.Context, r domain.VenueResource) (created bool, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var id int64
		var kind, unit string
		err := tx.QueryRow(ctx, `SELECT id, kind, unit FROM resources WHERE venue_id = $1 AND code = $2 FOR UPDATE`,
			r.VenueID, r.ID).Scan(&id, &kind, &unit)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			created = true
			tag, err := tx.Exec(ctx, `INSERT INTO resources (kind, unit, venue_id, code, name, sport, capacity)
				SELECT $1, $2, v.id, $4, $5, $6, $7 FROM venues v WHERE v.id = $3`,
				r.Kind, r.Unit, r.VenueID, r.ID, r.Name, r.Sport, r.Capacity)
			if err == nil && tag.RowsAffected() == 0 {
				err = fmt.Errorf("%w: no venue %q", domain.ErrNotFound, r.VenueID)
			}
			return err
		case err != nil:
			return err
		case kind != string(r.Kind) || unit != r.Unit:
			return fmt.Errorf("%w: resource %s is a %s sold by the %s; its kind and unit cannot change",
				domain.ErrConflict, r.ID, kind, unit)
		}
		if _, err := tx.Exec(ctx, `UPDATE resources SET name = $2, sport = $3, capacity = $4 WHERE id = $1`,
			id, r.Name, r.Sport, r.Capacity); err != nil {
			return err
		}
		// From two days back: a unit under way now started before now. With the waitlist's
		// locks: places a raise adds are offered to it before the public sees them.
		units := []line{{resourceID: id, from: time.Now().UTC().Add(-48 * time.Hour), to: FarFuture}}
		waiting, err := lockForGiveBack(ctx, tx, units)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE inventory SET total = $2 WHERE resource_id = $1 AND unit_end > now() AT TIME ZONE 'UTC'`,
			id, r.Capacity)
		if pgCode(err) == codeCheckViolation {
			return fmt.Errorf("%w: capacity %d is below what is already booked on a unit of %s",
				domain.ErrConflict, r.Capacity, r.ID)
		}
		if err != nil {
			return err
		}
		return offerFreed(ctx, tx, units, waiting)
	})
	return created, err
}

// FarFuture ends the unit ranges that mean "from now on".
var FarFuture = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// venueResource is a venue's resource as the inventory knows it.
type venueResource struct {
	id       int64
	kind     domain.ResourceKind
	unit     string
	capacity int
}

// VenueResourceKind returns how a venue's resource is sold: its kind and its unit.
func (s *Store) VenueResourceKind(ctx context.Context, venueID, code string) (domain.ResourceKind, string, error) {
	r, err := getVenueResource(ctx, s.pool, venueID, code, "")
	return r.kind, r.unit, err
}

// getVenueResource reads a venue's resource, with lock ("", "FOR SHARE") on its row.
func getVenueResource(ctx context.Context, q querier, venueID, code, lock string) (venueResource, error) {
	var r venueResource
	err := q.QueryRow(ctx, `SELECT id, kind, unit, capacity FROM resources WHERE venue_id = $1 AND code = $2 `+lock,
		venueID, code).Scan(&r.id, &r.kind, &r.unit, &r.capacity)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, fmt.Errorf("%w: venue %q has no resource %q", domain.ErrNotFound, venueID, code)
	}
	return r, err
}

// ScheduleResult is what applying a schedule changed.
type ScheduleResult struct {
	Units   int `json:"units"`   // units the schedule lays out
	Created int `json:"created"` // of those, new
	Removed int `json:"removed"` // unsold units in the range the schedule no longer has
	// KeptSold are units in the range the schedule no longer has that stay: something is booked
	// on them.
	KeptSold int `json:"keptSold"`
	// KeptClosed are units the schedule no longer has that stay because staff closed them: a
	// schedule never reopens what staff closed.
	KeptClosed int `json:"keptClosed"`
	// Skipped are units of the schedule not laid out: a kept unit overlaps them.
	Skipped int `json:"skipped"`
}

// ApplySchedule makes a resource's units over the schedule's dates the schedule's: units it
// lays out are created (priced, with the resource's capacity) or repriced, and unsold units in
// the range it no longer has are removed. A unit with anything booked, or closed by staff, is
// never removed (nor made smaller than what is booked), and a new unit overlapping it is
// skipped. Applying the same schedule again changes nothing. Closed units stay closed. Units it
// adds or enlarges are offered to the waitlist first, in its transaction.
func (s *Store) ApplySchedule(ctx context.Context, venueID, resourceID string, sched domain.Schedule) (ScheduleResult, error) {
	var res ScheduleResult
	_, loc, err := s.GetVenue(ctx, venueID)
	if err != nil {
		return res, err
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		// Shared lock on the resource: a capacity change waits, so it cannot be undone here.
		r, err := getVenueResource(ctx, tx, venueID, resourceID, "FOR SHARE")
		if err != nil {
			return err
		}
		units := sched.Units(r.unit, loc)
		res.Units = len(units)
		starts, ends := make([]time.Time, len(units)), make([]time.Time, len(units))
		for i, u := range units {
			starts[i], ends[i] = u.Start, u.End
		}
		from, to := domain.DayBounds(sched.From, loc).Start, domain.DayBounds(sched.To, loc).Start
		// With the waitlist's locks: units the schedule adds are offered to it first.
		laid := []line{{resourceID: r.id, from: from, to: to}}
		waiting, err := lockForGiveBack(ctx, tx, laid)
		if err != nil {
			return err
		}
		// Units of the range that are not the schedule's: removed when unsold, kept otherwise.
		err = tx.QueryRow(ctx, `WITH gone AS (
				SELECT i.unit_start, i.reserved, i.closed_at IS NOT NULL AS closed FROM inventory i
				WHERE i.resource_id = $1 AND i.unit_start >= $2 AND i.unit_start < $3
					AND NOT EXISTS (SELECT 1 FROM unnest($4::timestamp[], $5::timestamp[]) AS u(s, e)
						WHERE u.s = i.unit_start AND u.e = i.unit_end)),
			removed AS (DELETE FROM inventory i USING gone
				WHERE i.resource_id = $1 AND i.unit_start = gone.unit_start AND gone.reserved = 0 AND NOT gone.closed
				RETURNING 1)
			SELECT (SELECT count(*) FROM removed), (SELECT count(*) FROM gone WHERE reserved > 0),
				(SELECT count(*) FROM gone WHERE reserved = 0 AND closed)`,
			r.id, from, to, starts, ends).Scan(&res.Removed, &res.KeptSold, &res.KeptClosed)
		if err != nil {
			return err
		}
		// The schedule's units that exist: repriced, and given the resource's capacity unless
		// more is booked on them.
		var existing int
		err = tx.QueryRow(ctx, `WITH updated AS (
				UPDATE inventory i SET rate = $4, currency = $5, total = GREATEST($6, i.reserved)
				FROM unnest($2::timestamp[], $3::timestamp[]) AS u(s, e)
				WHERE i.resource_id = $1 AND i.unit_start = u.s AND i.unit_end = u.e RETURNING 1)
			SELECT count(*) FROM updated`,
			r.id, starts, ends, sched.Price.Amount, sched.Price.Currency, r.capacity).Scan(&existing)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO inventory (resource_id, unit_start, unit_end, total, rate, currency)
			SELECT $1, u.s, u.e, $4, $5, $6 FROM unnest($2::timestamp[], $3::timestamp[]) AS u(s, e)
			ORDER BY u.s
			ON CONFLICT DO NOTHING`,
			r.id, starts, ends, r.capacity, sched.Price.Amount, sched.Price.Currency)
		if err != nil {
			return err
		}
		res.Created = int(tag.RowsAffected())
		res.Skipped = res.Units - existing - res.Created
		return offerFreed(ctx, tx, laid, waiting)
	})
	return res, err
}

// Closure closes or reopens a venue's units: of one resource (or all of the venue's when
// ResourceID is empty) that overlap [From, To).
type Closure struct {
	VenueID    string
	ResourceID string
	From, To   time.Time
	Reason     string
	By         string
	// KeepBookings closes units bookings hold, keeping them; otherwise such a closure is
	// refused (SlotsBookedError).
	KeepBookings bool
}

// CloseUnits closes the units a closure covers: they stop selling at once. Units bookings hold
// are closed only when the closure keeps them (refuseBooked); releasing those bookings does not
// reopen them. It returns how many it closed (units
// already closed keep their first reason).
func (s *Store) CloseUnits(ctx context.Context, c Closure) (int, error) {
	return s.setClosed(ctx, c, true)
}

// ReopenUnits reopens the closed units a closure covers and returns how many, offering them to
// the waitlist first, in its transaction.
func (s *Store) ReopenUnits(ctx context.Context, c Closure) (int, error) {
	return s.setClosed(ctx, c, false)
}

func (s *Store) setClosed(ctx context.Context, c Closure, closed bool) (n int, err error) {
	if _, _, err := s.GetVenue(ctx, c.VenueID); err != nil {
		return 0, err
	}
	if c.ResourceID != "" {
		if _, err := getVenueResource(ctx, s.pool, c.VenueID, c.ResourceID, ""); err != nil {
			return 0, err
		}
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		// Locked in (resource, unit) order, as every writer does.
		rows, err := tx.Query(ctx, `WITH target AS MATERIALIZED (
				SELECT i.resource_id, i.unit_start FROM inventory i JOIN resources r ON r.id = i.resource_id
				WHERE r.venue_id = $1 AND ($2 = '' OR r.code = $2) AND i.unit_start < $4 AND i.unit_end > $3
					AND (i.closed_at IS NULL) = $5
				ORDER BY i.resource_id, i.unit_start FOR UPDATE OF i)
			UPDATE inventory i SET
				closed_reason = CASE WHEN $5 THEN $6::text END, closed_by = CASE WHEN $5 THEN $7::text END,
				closed_at = CASE WHEN $5 THEN now() END
			FROM target t WHERE i.resource_id = t.resource_id AND i.unit_start = t.unit_start
			RETURNING i.resource_id, i.unit_start, i.unit_end`,
			c.VenueID, c.ResourceID, c.From.UTC(), c.To.UTC(), closed, c.Reason, c.By)
		if err != nil {
			return err
		}
		changed, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (line, error) {
			var l line
			err := r.Scan(&l.resourceID, &l.from, &l.to)
			return l, err
		})
		n = len(changed)
		if err != nil {
			return err
		}
		if closed {
			return refuseBooked(ctx, tx, c, changed)
		}
		// Units reopened go to the waitlist first; they are locked already, so its entries'
		// locks are only tried (offerAfterLocks).
		return offerAfterLocks(ctx, tx, changed)
	})
	return n, err
}

// Slot is one unit of a venue's slot resource, as search shows it.
type Slot struct {
	ResourceID   string              `json:"resourceId"`
	Name         string              `json:"name"`
	Sport        string              `json:"sport,omitempty"`
	Kind         domain.ResourceKind `json:"kind"`
	Unit         string              `json:"unit"` // slot, or an equipment's hour or day
	Start        time.Time           `json:"start"`
	End          time.Time           `json:"end"`
	Capacity     int                 `json:"capacity"`
	PlacesLeft   int                 `json:"placesLeft"`
	Price        domain.Money        `json:"price"`
	Open         bool                `json:"open"`
	ClosedReason string              `json:"closedReason,omitempty"`
}

// VenueSlots lists the slots of a venue's slot resources (of one sport, or all) that start
// within day, by resource then start, with their start and end in loc.
func (s *Store) VenueSlots(ctx context.Context, venueID, sport string, day domain.Span, loc *time.Location) ([]Slot, error) {
	return s.VenueUnits(ctx, venueID, sport, day, loc, false)
}

// VenueUnits is VenueSlots, with the units of the venue's equipment too when equipment is set
// (its hours and days, as the desk's grid shows them beside the courts; issue 39).
func (s *Store) VenueUnits(ctx context.Context, venueID, sport string, day domain.Span, loc *time.Location,
	equipment bool) ([]Slot, error) {
	rows, err := s.reads(ctx).Query(ctx, `SELECT r.code, r.name, r.sport, r.kind, r.unit, i.unit_start, i.unit_end, i.total,
			`+unitsLeft+`, COALESCE(i.rate, 0), COALESCE(i.currency, ''), i.closed_at IS NULL, COALESCE(i.closed_reason, '')
		FROM resources r JOIN inventory i ON i.resource_id = r.id
		WHERE r.venue_id = $1 AND (r.unit = 'slot' OR $5) AND ($2 = '' OR r.sport = $2)
			AND i.unit_start >= $3 AND i.unit_start < $4
		ORDER BY r.code, i.unit_start`, venueID, sport, day.Start.UTC(), day.End.UTC(), equipment)
	if err != nil {
		return nil, err
	}
	slots, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Slot, error) {
		var sl Slot
		err := row.Scan(&sl.ResourceID, &sl.Name, &sl.Sport, &sl.Kind, &sl.Unit, &sl.Start, &sl.End, &sl.Capacity,
			&sl.PlacesLeft, &sl.Price.Amount, &sl.Price.Currency, &sl.Open, &sl.ClosedReason)
		sl.Start, sl.End = sl.Start.In(loc), sl.End.In(loc)
		return sl, err
	})
	return orEmpty(slots), err
}

// Rental is what a venue's equipment offers over a span of time.
type Rental struct {
	ResourceID string `json:"resourceId"`
	Name       string `json:"name"`
	Unit       string `json:"unit"`
	Capacity   int    `json:"capacity"`
	// Available is how many items can be rented for the whole span: 0 when the span is not
	// made of whole units on sale.
	Available int `json:"available"`
	// Price is the price of one item for the span, when it can be rented.
	Price *domain.Money `json:"price,omitempty"`
}

// EquipmentAvailability lists the venue's equipment with what is left for the span.
func (s *Store) EquipmentAvailability(ctx context.Context, venueID string, span domain.Span) ([]Rental, error) {
	rows, err := s.reads(ctx).Query(ctx, `SELECT r.code, r.name, r.unit, r.capacity,
			COALESCE(min(`+unitsLeft+`), 0),
			count(i.unit_start) > 0 AND min(i.unit_start) = $2 AND max(i.unit_end) = $3
				AND sum(i.unit_end - i.unit_start) = $3::timestamp - $2::timestamp
				AND count(DISTINCT i.currency) = 1 AND bool_and(i.rate IS NOT NULL),
			COALESCE(sum(i.rate), 0), COALESCE(min(i.currency), '')
		FROM resources r LEFT JOIN inventory i ON i.resource_id = r.id AND i.unit_start >= $2 AND i.unit_end <= $3
		WHERE r.venue_id = $1 AND r.kind = 'equipment'
		GROUP BY r.id ORDER BY r.code`, venueID, span.Start.UTC(), span.End.UTC())
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Rental, error) {
		var r Rental
		var whole bool
		var price domain.Money
		err := row.Scan(&r.ResourceID, &r.Name, &r.Unit, &r.Capacity, &r.Available, &whole, &price.Amount, &price.Currency)
		if whole {
			r.Price = &price
		} else {
			r.Available = 0
		}
		return r, err
	})
	return orEmpty(out), err
}
