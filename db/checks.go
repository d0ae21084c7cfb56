package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// InventoryMismatches finds the units, from yesterday on, whose reserved count is not the sum of
// the quantities of the bookings holding them and the rooms group blocks set aside, or exceeds
// their total, and nights held by
// bookings that have no inventory row. One pass: the held nights of the bookings still running
// are counted once, then joined to the inventory; a venue order's lines are joined to the units
// they cover.
func (s *Store) InventoryMismatches(ctx context.Context) ([]domain.Finding, error) {
	rows, err := s.pool.Query(ctx, `WITH venue_lines AS (
			SELECT b.resource_id, b.unit_from, b.unit_to, b.quantity FROM bookings b
			WHERE b.status IN ('HOLD', 'CONFIRMED', 'COMPLETED') AND b.unit_to > current_date - 1 AND b.venue_id IS NOT NULL
			UNION ALL
			SELECT l.resource_id, l.unit_from, l.unit_to, l.quantity FROM booking_lines l JOIN bookings b ON b.id = l.booking_id
			WHERE b.status IN ('HOLD', 'CONFIRMED', 'COMPLETED') AND l.unit_to > current_date - 1),
		parts AS (
			SELECT b.resource_id, n.unit_start, sum(b.quantity) AS held
			FROM bookings b CROSS JOIN LATERAL generate_series(greatest(b.unit_from, current_date - 1),
				b.unit_to - interval '1 day', interval '1 day') AS n(unit_start)
			WHERE b.status IN ('HOLD', 'CONFIRMED', 'COMPLETED') AND b.unit_to > current_date - 1 AND b.venue_id IS NULL
				AND NOT b.supplier_held -- a direct_connect supplier holds those rooms, not our stock
			GROUP BY 1, 2
			UNION ALL
			SELECT i.resource_id, i.unit_start, sum(l.quantity)
			FROM venue_lines l JOIN inventory i ON i.resource_id = l.resource_id
				AND i.unit_start >= l.unit_from AND i.unit_start < l.unit_to AND i.unit_start >= current_date - 1
			GROUP BY 1, 2
			UNION ALL -- what definite group blocks set aside
			SELECT n.resource_id, n.unit_start, sum(n.held) FROM block_nights n
			WHERE n.unit_start >= current_date - 1 AND n.held > 0 GROUP BY 1, 2),
		held AS (SELECT resource_id, unit_start, sum(held) AS held FROM parts GROUP BY 1, 2),
		units AS (SELECT resource_id, unit_start, reserved, total FROM inventory WHERE unit_start >= current_date - 1)
		SELECT COALESCE(r.hotel_id, r.venue_id), r.code, COALESCE(u.unit_start, h.unit_start), u.reserved, u.total, COALESCE(h.held, 0)
		FROM units u FULL JOIN held h ON h.resource_id = u.resource_id AND h.unit_start = u.unit_start
			JOIN resources r ON r.id = COALESCE(u.resource_id, h.resource_id)
		WHERE u.resource_id IS NULL OR u.reserved <> COALESCE(h.held, 0) OR u.reserved > u.total
		ORDER BY 1, 2, 3 LIMIT $1`, maxFindings)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Finding, error) {
		var hotel, roomType string
		var unit time.Time
		var reserved, total *int
		var held int
		err := r.Scan(&hotel, &roomType, &unit, &reserved, &total, &held)
		when := unit.Format(domain.DateLayout)
		if !unit.Equal(unit.Truncate(24 * time.Hour)) {
			when = unit.Format(time.RFC3339) // a venue's unit, in UTC
		}
		detail := fmt.Sprintf("%s %s on %s: held by bookings %d, and no inventory row", hotel, roomType, when, held)
		if reserved != nil {
			totalText := "unlimited"
			if total != nil {
				totalText = fmt.Sprint(*total)
			}
			detail = fmt.Sprintf("%s %s on %s: reserved %d, held by bookings %d, total %s",
				hotel, roomType, when, *reserved, held, totalText)
		}
		return domain.Finding{Check: domain.CheckInventory, Detail: detail}, err
	})
}

// BlockMismatches finds the nights of group blocks, from yesterday on, whose picked count is not
// what the bookings holding rooms drew from them, or whose counts do not add up to the rooms
// promised (held + picked + released, once made definite; nothing for a block never made
// definite; nothing held once released or cancelled).
func (s *Store) BlockMismatches(ctx context.Context) ([]domain.Finding, error) {
	rows, err := s.pool.Query(ctx, `SELECT k.id, k.group_code, n.unit_start, k.status, n.rooms, n.held, n.picked, n.released,
			COALESCE((SELECT sum(bb.quantity) FROM booking_blocks bb JOIN bookings b ON b.id = bb.booking_id
				WHERE bb.block_id = n.block_id AND bb.unit_start = n.unit_start AND b.status IN ('HOLD', 'CONFIRMED', 'COMPLETED')), 0) AS drawn
		FROM block_nights n JOIN blocks k ON k.id = n.block_id WHERE n.unit_start >= current_date - 1
		AND (n.picked <> COALESCE((SELECT sum(bb.quantity) FROM booking_blocks bb JOIN bookings b ON b.id = bb.booking_id
				WHERE bb.block_id = n.block_id AND bb.unit_start = n.unit_start AND b.status IN ('HOLD', 'CONFIRMED', 'COMPLETED')), 0)
			OR (k.definite_at IS NULL AND n.held + n.picked + n.released > 0)
			OR (k.definite_at IS NOT NULL AND n.held + n.picked + n.released <> n.rooms)
			OR (k.status IN ('RELEASED', 'CANCELLED') AND n.held > 0))
		ORDER BY 1, 3 LIMIT $1`, maxFindings)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Finding, error) {
		var id, code, status string
		var night time.Time
		var rooms, held, picked, released, drawn int
		err := r.Scan(&id, &code, &night, &status, &rooms, &held, &picked, &released, &drawn)
		return domain.Finding{Check: domain.CheckBlock, Detail: fmt.Sprintf(
			"block %s (group %s, %s) on %s: rooms %d, held %d, picked %d (bookings drew %d), released %d",
			id, code, status, night.Format(domain.DateLayout), rooms, held, picked, drawn, released)}, err
	})
}

// maxFindings bounds the findings of one check, so a report stays small enough to store and to
// pass through a workflow; past it, the first ones are enough to act on.
const maxFindings = 500

// HoldsPastExpiry returns the bookings still HOLD longer than grace after their expiry: their
// workflow should have released them.
func (s *Store) HoldsPastExpiry(ctx context.Context, grace time.Duration) ([]domain.Booking, error) {
	return s.bookingsWhere(ctx, `b.status = 'HOLD' AND b.expires_at < now() - $1 * interval '1 microsecond'`,
		grace.Microseconds())
}

// RefundingSince returns the bookings REFUNDING for longer than age: candidates for a saga that
// no workflow runs any more.
func (s *Store) RefundingSince(ctx context.Context, age time.Duration) ([]domain.Booking, error) {
	return s.bookingsWhere(ctx, `b.status = 'REFUNDING' AND b.updated_at < now() - $1 * interval '1 microsecond'`, age.Microseconds())
}

// MarkSupplierTold records that the booking's supplier acknowledged the booking is off.
func (s *Store) MarkSupplierTold(ctx context.Context, bookingID string) error {
	_, err := s.pool.Exec(ctx, `UPDATE bookings SET supplier_told_at = clock_timestamp() WHERE id = $1`, bookingID)
	return err
}

// MarkSupplierNotTold records that the booking's workflow gave up telling its supplier the
// booking is off.
func (s *Store) MarkSupplierNotTold(ctx context.Context, bookingID string) error {
	_, err := s.pool.Exec(ctx, `UPDATE bookings SET supplier_not_told_at = clock_timestamp() WHERE id = $1`, bookingID)
	return err
}

// SuppliersNotTold lists the bookings whose supplier could not be told they are off and has not
// acknowledged it since.
func (s *Store) SuppliersNotTold(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT id FROM bookings WHERE supplier_not_told_at IS NOT NULL
		AND (supplier_told_at IS NULL OR supplier_told_at < supplier_not_told_at) ORDER BY id LIMIT $1`, maxFindings)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

func (s *Store) bookingsWhere(ctx context.Context, where string, args ...any) ([]domain.Booking, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+bookingColumns+` FROM bookings b JOIN resources r ON r.id = b.resource_id
		WHERE `+where+` ORDER BY b.id LIMIT `+fmt.Sprint(maxFindings), args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Booking, error) { return scanBooking(r) })
}

// SaveCheck records a run of the invariant checker.
func (s *Store) SaveCheck(ctx context.Context, r domain.CheckReport) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO invariant_checks (started_at, finished_at, repair, findings)
		VALUES ($1, $2, $3, $4)`, r.StartedAt, r.FinishedAt, r.Repair, r.Findings)
	return err
}

// LatestCheck returns the last run of the invariant checker; ErrNotFound before the first.
func (s *Store) LatestCheck(ctx context.Context) (domain.CheckReport, error) {
	var r domain.CheckReport
	err := s.pool.QueryRow(ctx, `SELECT started_at, finished_at, repair, findings FROM invariant_checks
		ORDER BY id DESC LIMIT 1`).Scan(&r.StartedAt, &r.FinishedAt, &r.Repair, &r.Findings)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, fmt.Errorf("%w: the invariant checker has not run yet", domain.ErrNotFound)
	}
	return r, err
}

// LatestCheckCounts returns the invariant checker's latest run's findings counted by check, and
// when it finished, without reading the findings themselves.
func (s *Store) LatestCheckCounts(ctx context.Context) (map[string]int, time.Time, error) {
	rows, err := s.pool.Query(ctx, `WITH latest AS (SELECT finished_at, findings FROM invariant_checks
			ORDER BY id DESC LIMIT 1)
		SELECT l.finished_at, f->>'check', count(f) FROM latest l
		LEFT JOIN LATERAL jsonb_array_elements(l.findings) f ON true GROUP BY 1, 2`)
	if err != nil {
		return nil, time.Time{}, err
	}
	counts := map[string]int{}
	var finished time.Time
	var ran bool
	for rows.Next() {
		var check *string
		var n int
		if err := rows.Scan(&finished, &check, &n); err != nil {
			rows.Close()
			return nil, time.Time{}, err
		}
		ran = true
		if check != nil {
			counts[*check] = n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, time.Time{}, err
	}
	if !ran {
		return nil, time.Time{}, fmt.Errorf("%w: the invariant checker has not run yet", domain.ErrNotFound)
	}
	return counts, finished, nil
}

// RefundCurrency returns the currency of the payment a booking refunds: the payment's own, or
// the booking's price currency when the payment was not recorded.
func (s *Store) RefundCurrency(ctx context.Context, b domain.Booking) (string, error) {
	var currency string
	err := s.pool.QueryRow(ctx, `SELECT COALESCE((SELECT currency FROM payments WHERE payment_id = $1), $2)`,
		b.PaymentID, b.Price.Currency).Scan(&currency)
	return currency, err
}

// LastRefundAttempt returns the number and status of the last attempt of a booking's refund step
// (attempt ids are <bookingId>/<step>/<n>); 0 when there is none.
func (s *Store) LastRefundAttempt(ctx context.Context, bookingID, step string) (int, string, error) {
	var n int
	var status string
	err := s.pool.QueryRow(ctx, `SELECT split_part(id, '/', -1)::int AS n, status FROM refunds
		WHERE booking_id = $1 AND starts_with(id, $1 || '/' || $2 || '/') ORDER BY n DESC LIMIT 1`, bookingID, step).Scan(&n, &status)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, "", nil
	}
	return n, status, err
}

// WithCheckLock runs fn unless another run of the invariant checker holds the lock: two runs at
// once (the schedule and the command) would repair the same row twice. ran is false when fn did
// not run.
func (s *Store) WithCheckLock(ctx context.Context, fn func() error) (ran bool, err error) {
	return s.withLock(ctx, "bookflow-invariant-check", fn)
}

// WithReconcileLock runs fn unless another reconciliation run holds the lock (then ran is
// false).
func (s *Store) WithReconcileLock(ctx context.Context, fn func() error) (ran bool, err error) {
	return s.withLock(ctx, "bookflow-reconcile-payments", fn)
}

// withLock runs fn holding the session advisory lock named key, unless another session holds
// it.
func (s *Store) withLock(ctx context.Context, key string, fn func() error) (ran bool, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Release()
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(hashtext($1))`, key).Scan(&ran); err != nil || !ran {
		return false, err
	}
	defer func() {
		// A session whose unlock failed would go back to the pool holding the lock: close it.
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext($1))`, key); err != nil {
			conn.Conn().Close(context.WithoutCancel(ctx)) //nolint:errcheck // closing ends the session and its lock
		}
	}()
	return true, fn()
}
