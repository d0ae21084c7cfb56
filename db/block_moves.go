package db

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// lockedBlock is a block row locked FOR NO KEY UPDATE, which every writer of its nights takes
// first.
type lockedBlock struct {
	id         string
	status     domain.BlockStatus
	resourceID int64
	from, to   time.Time // its first night and the day after its last
}

// span is the block's nights as one line, for the unit locks.
func (b lockedBlock) span() []line {
	return []line{{resourceID: b.resourceID, from: b.from, to: b.to}}
}

// lockBlock locks block id's row (ErrNotFound when there is none).
func lockBlock(ctx context.Context, tx pgx.Tx, id string) (lockedBlock, error) {
	b := lockedBlock{id: id}
	err := tx.QueryRow(ctx, `SELECT b.status, b.resource_id,
			(SELECT min(unit_start) FROM block_nights n WHERE n.block_id = b.id),
			(SELECT max(unit_start) + interval '1 day' FROM block_nights n WHERE n.block_id = b.id)
		FROM blocks b WHERE b.id = $1 FOR NO KEY UPDATE`, id).Scan(&b.status, &b.resourceID, &b.from, &b.to)
	if errors.Is(err, pgx.ErrNoRows) {
		return b, fmt.Errorf("%w: no block %q", domain.ErrNotFound, id)
	}
	return b, err
}

// MakeBlockDefinite takes a tentative block's rooms from sale, every night or none, as a hold
// takes them: on the nights' locked rows, from what is left in the shared pool (a block is
// nobody's channel), besides what is reserved and blocked. A night short, closed or not on sale
// refuses it (ErrConflict naming the nights), with nothing taken. Nights whose cut-off has
// passed are released at once. A definite block is answered as it is.
func (s *Store) MakeBlockDefinite(ctx context.Context, id, actor string) (Block, error) {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		b, err := lockBlock(ctx, tx, id)
		switch {
		case err != nil:
			return err
		case b.status == domain.BlockDefinite:
			return nil
		case b.status != domain.BlockInquiry:
			return fmt.Errorf("%w: block %s is %s", domain.ErrConflict, id, b.status)
		}
		if err := lockLines(ctx, tx, b.span()); err != nil {
			return err
		}
		var open bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM block_nights WHERE block_id = $1
			AND (release_at IS NULL OR release_at > now()))`, id).Scan(&open); err != nil {
			return err
		}
		if !open {
			return fmt.Errorf("%w: every night of block %s is past its cut-off: there is nothing to set aside", domain.ErrConflict, id)
		}
		if short, err := shortBlockNights(ctx, tx, id); err != nil || short != "" {
			if err == nil {
				err = fmt.Errorf("%w: block %s cannot be made definite: %s; nothing was set aside", domain.ErrConflict, id, short)
			}
			return err
		}
		if _, err := tx.Exec(ctx, `WITH aside AS (
				UPDATE block_nights SET held = CASE WHEN release_at <= now() THEN 0 ELSE rooms END,
					released = CASE WHEN release_at <= now() THEN rooms ELSE 0 END,
					released_at = CASE WHEN release_at <= now() THEN now() END
				WHERE block_id = $1 RETURNING resource_id, unit_start, held)
			UPDATE inventory i SET reserved = i.reserved + a.held FROM aside a
			WHERE i.resource_id = a.resource_id AND i.unit_start = a.unit_start AND a.held > 0`, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE blocks SET status = 'DEFINITE', definite_at = now(), updated_at = now() WHERE id = $1`, id); err != nil {
			return err
		}
		return recordBlockChange(ctx, tx, id, actor, "definite", map[string]any{})
	})
	if err != nil {
		return Block{}, err
	}
	return s.GetBlock(ctx, id)
}

// shortBlockNights names the nights of a block, locked, that cannot set its rooms aside: not on
// sale, closed, or with fewer rooms left in the shared pool (empty when none).
func shortBlockNights(ctx context.Context, tx pgx.Tx, id string) (string, error) {
	var short []string
	rows, err := tx.Query(ctx, `SELECT n.unit_start, n.rooms, i.unit_start IS NULL OR i.closed_at IS NOT NULL,
			CASE WHEN i.total IS NULL THEN n.rooms
				ELSE GREATEST(i.total - a.allotted - i.blocked - (i.reserved - a.used), 0) END
		FROM block_nights n LEFT JOIN inventory i ON i.resource_id = n.resource_id AND i.unit_start = n.unit_start
			CROSS JOIN LATERAL (SELECT COALESCE(sum(o.allotted), 0) AS allotted, COALESCE(sum(o.used), 0) AS used
				FROM allocations o WHERE o.resource_id = n.resource_id AND o.unit_start = n.unit_start) a
		WHERE n.block_id = $1 AND n.rooms > 0 AND (n.release_at IS NULL OR n.release_at > now()) ORDER BY n.unit_start`, id)
	if err != nil {
		return "", err
	}
	var start time.Time
	var rooms, left int
	var closed bool
	_, err = pgx.ForEachRow(rows, []any{&start, &rooms, &closed, &left}, func() error {
		day := start.Format(time.DateOnly)
		switch {
		case closed:
			short = append(short, day+" (not on sale)")
		case left < rooms:
			short = append(short, fmt.Sprintf("%s (%d of %d rooms left)", day, left, rooms))
		}
		return nil
	})
	if err != nil || len(short) == 0 {
		return "", err
	}
	if len(short) > 5 {
		short = append(short[:5], fmt.Sprintf("and %d more", len(short)-5))
	}
	return "the nights of " + strings.Join(short, ", ") + " are short", nil
}

// CancelBlock ends a block: what it still sets aside goes back to sale (offered to the waitlist
// first). Its guests' bookings stay theirs. A cancelled block is answered as it is; a released
// one, which holds nothing, is a conflict.
func (s *Store) CancelBlock(ctx context.Context, id, actor, reason string) (Block, error) {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		b, err := lockBlock(ctx, tx, id)
		switch {
		case err != nil || b.status == domain.BlockCancelled:
			return err
		case b.status == domain.BlockReleased:
			return fmt.Errorf("%w: block %s is released: it holds nothing to cancel", domain.ErrConflict, id)
		}
		released, err := releaseBlockNights(ctx, tx, b, func(n heldNight) int { return n.held })
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE blocks SET status = 'CANCELLED', updated_at = now() WHERE id = $1`, id); err != nil {
			return err
		}
		return recordBlockChange(ctx, tx, id, actor, "cancelled", map[string]any{"reason": reason, "released": released})
	})
	if err != nil {
		return Block{}, err
	}
	return s.GetBlock(ctx, id)
}

// ReleaseBlockRooms gives rooms of a definite block back to sale before its cut-off: c.Rooms on
// each of c.Nights (every night when none), or c.Percent of what each night still holds,
// rounded down (a wash; one that rounds to nothing changes and records nothing). A night that
// holds fewer than c.Rooms is a conflict, with nothing released; a date that is not one of the
// block's nights is invalid.
func (s *Store) ReleaseBlockRooms(ctx context.Context, id, actor string, c domain.BlockRoomsChange) (Block, error) {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		b, err := lockBlock(ctx, tx, id)
		if err != nil {
			return err
		}
		if b.status != domain.BlockDefinite {
			return fmt.Errorf("%w: block %s is %s: only a definite block sets rooms aside", domain.ErrConflict, id, b.status)
		}
		for _, d := range c.Nights {
			if d.Time().Before(b.from) || !d.Time().Before(b.to) {
				return fmt.Errorf("%w: %s is not a night of block %s", domain.ErrInvalid, d, id)
			}
		}
		var short []string
		released, err := releaseBlockNights(ctx, tx, b, func(n heldNight) int {
			switch {
			case len(c.Nights) > 0 && !slices.Contains(c.Nights, domain.DateOf(n.start, time.UTC)):
				return 0
			case c.Percent > 0:
				return n.held * c.Percent / 100
			case n.held < c.Rooms:
				short = append(short, fmt.Sprintf("%s holds %d", n.start.Format(time.DateOnly), n.held))
			}
			return min(c.Rooms, n.held)
		})
		if err != nil {
			return err
		}
		if len(short) > 0 {
			return fmt.Errorf("%w: cannot release %d rooms a night: %s; nothing was released", domain.ErrConflict, c.Rooms,
				strings.Join(short, ", "))
		}
		if len(released) == 0 {
			return nil // a wash of too few rooms to round to one: nothing changed, nothing to tell
		}
		action := "released_early"
		if c.Percent > 0 {
			action = "washed"
		}
		return recordBlockChange(ctx, tx, id, actor, action, map[string]any{"reason": c.Reason, "percent": c.Percent,
			"released": released})
	})
	if err != nil {
		return Block{}, err
	}
	return s.GetBlock(ctx, id)
}

// heldNight is a night of a block and the rooms it still sets aside.
type heldNight struct {
	start time.Time
	held  int
	due   bool // its cut-off has passed and the sweep has not released it
}

// releasedNight is what a release gave back on one night, for the audit trail.
type releasedNight struct {
	Date  domain.Date `json:"date"`
	Rooms int         `json:"rooms"`
}

// releaseBlockNights gives back, on each night of locked block b, the rooms release(night) says
// (at most what it holds) to sale, under lockForGiveBack's locks, and offers them to the
// waitlist first. It returns what it released.
func releaseBlockNights(ctx context.Context, tx pgx.Tx, b lockedBlock, release func(heldNight) int) ([]releasedNight, error) {
	waiting, err := lockForGiveBack(ctx, tx, b.span())
	if err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, `SELECT unit_start, held, COALESCE(released_at IS NULL AND release_at <= now(), false) FROM block_nights
		WHERE block_id = $1 ORDER BY unit_start`, b.id)
	if err != nil {
		return nil, err
	}
	var n heldNight
	var starts []time.Time
	var qtys []int
	released := []releasedNight{}
	if _, err := pgx.ForEachRow(rows, []any{&n.start, &n.held, &n.due}, func() error {
		if q := min(release(n), n.held); q > 0 {
			starts, qtys = append(starts, n.start), append(qtys, q)
			released = append(released, releasedNight{Date: domain.DateOf(n.start, time.UTC), Rooms: q})
		}
		return nil
	}); err != nil || len(starts) == 0 {
		return released, err
	}
	if _, err := tx.Exec(ctx, `WITH given AS (
			UPDATE block_nights n SET held = n.held - t.q, released = n.released + t.q
			FROM unnest($2::timestamp[], $3::int[]) AS t(d, q) WHERE n.block_id = $1 AND n.unit_start = t.d
			RETURNING n.resource_id, n.unit_start, t.q)
		UPDATE inventory i SET reserved = i.reserved - g.q FROM given g
		WHERE i.resource_id = g.resource_id AND i.unit_start = g.unit_start`, b.id, starts, qtys); err != nil {
		return nil, err
	}
	return released, offerFreed(ctx, tx, b.span(), waiting)
}

// ReleaseDueBlocks releases, for every definite block, the nights whose cut-off has passed:
// their unpicked rooms go back to sale (offered to the waitlist first), each release recorded;
// a block whose every night is released becomes RELEASED. Running it again releases nothing
// twice. It returns how many nights it released.
func (s *Store) ReleaseDueBlocks(ctx context.Context) (int, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT n.block_id FROM block_nights n JOIN blocks b ON b.id = n.block_id
		WHERE n.released_at IS NULL AND n.release_at <= now() AND b.status = 'DEFINITE' ORDER BY 1`)
	if err != nil {
		return 0, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, err
	}
	nights := 0
	for _, id := range ids {
		err := s.inTx(ctx, func(tx pgx.Tx) error {
			b, err := lockBlock(ctx, tx, id)
			if err != nil || b.status != domain.BlockDefinite {
				return err
			}
			released, err := releaseBlockNights(ctx, tx, b, func(n heldNight) int {
				if n.due {
					return n.held
				}
				return 0
			})
			if err != nil {
				return err
			}
			tag, err := tx.Exec(ctx, `UPDATE block_nights SET released_at = now()
				WHERE block_id = $1 AND released_at IS NULL AND release_at <= now()`, id)
			if err != nil || tag.RowsAffected() == 0 {
				return err
			}
			nights += int(tag.RowsAffected())
			if _, err := tx.Exec(ctx, `UPDATE blocks b SET status = 'RELEASED', updated_at = now() WHERE id = $1
				AND NOT EXISTS (SELECT 1 FROM block_nights n WHERE n.block_id = b.id AND n.released_at IS NULL)`, id); err != nil {
				return err
			}
			return recordBlockChange(ctx, tx, id, "bookflow", "released_at_cut_off", map[string]any{"released": released})
		})
		if err != nil {
			return nights, fmt.Errorf("release block %s: %w", id, err)
		}
	}
	return nights, nil
}
