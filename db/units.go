package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// The units of every kind of resource are spans of time: a night is [its date, the next date)
// on the hotel's calendar (no unit_end is stored), a venue's unit is [unit_start, unit_end) in
// UTC. A booking line takes quantity units of one resource over [from, to): every unit starting
// in the range, which must tile it exactly.

// unitEndOf is the end of inventory row i's unit.
const unitEndOf = `COALESCE(i.unit_end, i.unit_start + interval '1 day')`

// line is quantity units of a resource over [from, to): a booking's own resource and span, or
// one of its further lines (booking_lines).
type line struct {
	resourceID int64
	from, to   time.Time
	quantity   int
}

// bookingLines returns every line of a booking in (resource, start) order, the order units are
// locked in; none when a direct_connect supplier holds its rooms (it takes no stock here).
func bookingLines(ctx context.Context, tx pgx.Tx, bookingID string) ([]line, error) {
	rows, err := tx.Query(ctx, `SELECT resource_id, unit_from, unit_to, quantity FROM bookings WHERE id = $1 AND NOT supplier_held
		UNION ALL SELECT resource_id, unit_from, unit_to, quantity FROM booking_lines WHERE booking_id = $1
		ORDER BY 1, 2`, bookingID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (line, error) {
		var l line
		err := r.Scan(&l.resourceID, &l.from, &l.to, &l.quantity)
		return l, err
	})
}

// roomTypeResource is the resource id of a hotel's room type (ErrNotFound when it has none).
func roomTypeResource(ctx context.Context, q querier, hotelID, roomTypeID string) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, `SELECT id FROM resources WHERE hotel_id = $1 AND code = $2`, hotelID, roomTypeID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("%w: hotel %s has no room type %q", domain.ErrNotFound, hotelID, roomTypeID)
	}
	return id, err
}

// lockLines locks the units of lines in (resource, start) order: the one order every writer of
// inventory rows uses, so bookings sharing units cannot deadlock.
func lockLines(ctx context.Context, tx pgx.Tx, lines []line) error {
	resources, froms, tos := make([]int64, len(lines)), make([]time.Time, len(lines)), make([]time.Time, len(lines))
	for i, l := range lines {
		resources[i], froms[i], tos[i] = l.resourceID, l.from, l.to
	}
	_, err := tx.Exec(ctx, `SELECT 1 FROM inventory i
		JOIN unnest($1::bigint[], $2::timestamp[], $3::timestamp[]) AS l(r, f, t)
			ON i.resource_id = l.r AND i.unit_start >= l.f AND i.unit_start < l.t
		ORDER BY i.resource_id, i.unit_start FOR UPDATE OF i`, resources, froms, tos)
	return err
}

// lineState is what lineAvailable finds on a line's locked units.
type lineState struct {
	ok       bool   // they tile its span, are all open, priced in one currency and have its quantity left
	currency string // that currency
	units    int    // how many units the line has
	// allocated: some of its units are split between channels (see takeShares).
	allocated bool
	// unpriced is the first night with no rate, or a rate of 0 not set free (ok is then false).
	unpriced *time.Time
}

// priced is whether inventory row i may be sold at its rate: it has one, and a hotel night's
// rate of 0 was set on purpose (free). A venue's units are priced by their schedule, whose price
// is always given, 0 included.
const priced = `(i.rate IS NOT NULL AND (i.rate > 0 OR i.free OR i.unit_end IS NOT NULL))`

// lineTakeable is whether the inventory rows i of a line over [$2, $3) can take $4 more: they
// tile the span, are all open and priced in one currency, with the quantity left (an aggregate).
const lineTakeable = `count(*) > 0 AND min(i.unit_start) = $2 AND max(` + unitEndOf + `) = $3
	AND sum(` + unitEndOf + ` - i.unit_start) = $3::timestamp - $2::timestamp
	AND bool_and(` + unitsLeft + ` >= $4 AND ` + priced + `) AND count(DISTINCT i.currency) = 1`

// lineAvailable reads, on the line's units as they stand (lock them first), whether the line can
// be taken: every unit there, open, priced in one currency, with the quantity left besides what
// is reserved and blocked. A retake calls it on a locked booking's lines as a new hold does.
func lineAvailable(ctx context.Context, tx pgx.Tx, l line) (lineState, error) {
	var s lineState
	err := tx.QueryRow(ctx, `SELECT `+lineTakeable+`,
			COALESCE(min(i.currency), ''), count(*),
			EXISTS (SELECT 1 FROM allocations a WHERE a.resource_id = $1 AND a.unit_start >= $2 AND a.unit_start < $3),
			min(i.unit_start) FILTER (WHERE NOT `+priced+`)
		FROM inventory i WHERE i.resource_id = $1 AND i.unit_start >= $2 AND i.unit_start < $3`,
		l.resourceID, l.from, l.to, l.quantity).Scan(&s.ok, &s.currency, &s.units, &s.allocated, &s.unpriced)
	return s, err
}

// refusal is why the line cannot be taken, when that is a night without a rate (empty
// otherwise: short, closed or missing nights need no more words than the refusal's own).
func (s lineState) refusal() string {
	if s.unpriced == nil {
		return ""
	}
	return "no rate is set for the night of " + s.unpriced.Format(time.DateOnly)
}

// unitRate is the rate of one unit a line took.
type unitRate struct {
	start time.Time
	rate  int64
}

// takeLine adds the line's quantity to each of its units, which lineAvailable found available
// (all units of them) under the same lock, and returns their rates. A unit with unlimited stock
// (no total) counts what it sold all the same.
func takeLine(ctx context.Context, tx pgx.Tx, l line, units int) ([]unitRate, error) {
	rows, err := tx.Query(ctx, `UPDATE inventory i SET reserved = reserved + $4
		WHERE resource_id = $1 AND unit_start >= $2 AND unit_start < $3
			AND (total IS NULL OR total - reserved - blocked >= $4) AND `+priced+` AND closed_at IS NULL
		RETURNING unit_start, rate`, l.resourceID, l.from, l.to, l.quantity)
	if err != nil {
		return nil, err
	}
	rates, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (unitRate, error) {
		var u unitRate
		err := r.Scan(&u.start, &u.rate)
		return u, err
	})
	if err != nil {
		return nil, err
	}
	if len(rates) != units {
		// Checked under lock, so this cannot happen; if it does, the transaction rolls back
		// rather than keep part of a line.
		return nil, fmt.Errorf("took %d of %d units of resource %d: refusing a partial reservation", len(rates), units, l.resourceID)
	}
	return rates, nil
}

// giveBack subtracts a booking's quantities from the units of its lines, locked in order, those
// a pending amendment holds beside them included (it lapses), and offers what they free to the
// waitlist first (offerFreed). The caller has just moved the booking out of a status that holds
// inventory, in the same transaction. A closed unit stays closed.
func giveBack(ctx context.Context, tx pgx.Tx, bookingID string) error {
	lines, err := bookingLines(ctx, tx, bookingID)
	if err != nil {
		return err
	}
	waiting, err := lockForGiveBack(ctx, tx, lines)
	if err != nil {
		return err
	}
	for _, l := range lines {
		if err := giveBackLine(ctx, tx, bookingID, l); err != nil {
			return err
		}
	}
	if err := lapsePending(ctx, tx, bookingID); err != nil {
		return err
	}
	return offerFreed(ctx, tx, lines, waiting)
}

// giveBackLine subtracts a line's quantity from its units, locked by the caller, which must
// still tile its span, and gives what it took from channels' allocations and a group's block
// back to them.
func giveBackLine(ctx context.Context, tx pgx.Tx, bookingID string, l line) error {
	if err := giveBackShares(ctx, tx, bookingID, l); err != nil {
		return err
	}
	var tiles bool
	err := tx.QueryRow(ctx, `WITH given AS (
			UPDATE inventory i SET reserved = reserved - $4
			WHERE resource_id = $1 AND unit_start >= $2 AND unit_start < $3
			RETURNING unit_start, `+unitEndOf+` AS unit_end)
		SELECT count(*) > 0 AND min(unit_start) = $2 AND max(unit_end) = $3
			AND sum(unit_end - unit_start) = $3::timestamp - $2::timestamp FROM given`,
		l.resourceID, l.from, l.to, l.quantity).Scan(&tiles)
	if err == nil && tiles {
		_, err = returnToBlock(ctx, tx, bookingID, l, nil) // after: the check on the total sees the rooms gone first
	}
	if err == nil && !tiles {
		err = fmt.Errorf("release %s: the units of resource %d over [%s, %s) are not all there: inventory rows were removed under a booking",
			bookingID, l.resourceID, l.from.Format(time.RFC3339), l.to.Format(time.RFC3339))
	}
	return err
}
