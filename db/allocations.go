package db

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// A night's stock may be split between channels: each sells from its own allocation first, then
// from the shared pool, which is the total less every allocation (and less its blocked rooms). A direct sale, or a channel
// without an allocation, sells from the pool alone. Allocation rows are written only under the
// lock of their inventory row, so a decision on the locked rows holds until commit.

// AllocationSet gives a channel Allotted rooms of a room type on every night of [From, To).
type AllocationSet struct {
	HotelID    string      `json:"hotelId"`
	RoomTypeID string      `json:"roomTypeId"`
	ChannelID  string      `json:"channelId"`
	From       domain.Date `json:"from"`
	To         domain.Date `json:"to"`
	Allotted   int         `json:"allotted"`
}

// SetAllocations applies every set, all or none. A night that is not on sale, has unlimited
// stock, would have allocations adding up to more than its total, or an allotment below what the
// channel already took from it, is a conflict and changes nothing.
func (s *Store) SetAllocations(ctx context.Context, sets []AllocationSet) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		lines := make([]line, len(sets))
		for i, a := range sets {
			var id int64
			err := tx.QueryRow(ctx, `SELECT id FROM resources WHERE hotel_id = $1 AND code = $2`, a.HotelID, a.RoomTypeID).Scan(&id)
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("%w: hotel %s has no room type %q", domain.ErrNotFound, a.HotelID, a.RoomTypeID)
			}
			if err != nil {
				return err
			}
			lines[i] = line{resourceID: id, from: a.From.Time(), to: a.To.Time()}
		}
		sorted := slices.Clone(lines)
		slices.SortFunc(sorted, func(a, b line) int {
			return cmp.Or(cmp.Compare(a.resourceID, b.resourceID), a.from.Compare(b.from))
		})
		if err := lockLines(ctx, tx, sorted); err != nil {
			return err
		}
		for i, a := range sets {
			if err := setAllocation(ctx, tx, lines[i].resourceID, a); err != nil {
				return err
			}
		}
		return nil
	})
}

// setAllocation applies one set to its locked nights.
func setAllocation(ctx context.Context, tx pgx.Tx, resourceID int64, a AllocationSet) error {
	var nights, missing, unlimited, over, belowUsed, overPromised int
	err := tx.QueryRow(ctx, `WITH night AS (SELECT d FROM generate_series($2::timestamp, $3::timestamp - interval '1 day', interval '1 day') d),
		state AS (SELECT n.d, i.total, i.reserved, i.blocked, i.unit_start IS NULL AS missing,
				COALESCE((SELECT sum(allotted) FROM allocations o WHERE o.resource_id = $1 AND o.unit_start = n.d AND o.channel_id <> $4), 0) AS others,
				COALESCE((SELECT sum(allotted - used) FROM allocations o WHERE o.resource_id = $1 AND o.unit_start = n.d AND o.channel_id <> $4), 0) AS others_free,
				COALESCE((SELECT used FROM allocations o WHERE o.resource_id = $1 AND o.unit_start = n.d AND o.channel_id = $4), 0) AS used
			FROM night n LEFT JOIN inventory i ON i.resource_id = $1 AND i.unit_start = n.d)
		SELECT count(*), count(*) FILTER (WHERE missing), count(*) FILTER (WHERE NOT missing AND total IS NULL),
			count(*) FILTER (WHERE others + $5 > total), count(*) FILTER (WHERE used > $5),
			count(*) FILTER (WHERE others_free + $5 - used > total - reserved - blocked)
		FROM state`, resourceID, a.From.Time(), a.To.Time(), a.ChannelID, a.Allotted).Scan(&nights, &missing, &unlimited, &over,
		&belowUsed, &overPromised)
	switch {
	case err != nil:
		return err
	case missing > 0:
		return fmt.Errorf("%w: %d nights of %s/%s in [%s, %s) are not on sale", domain.ErrConflict, missing, a.HotelID, a.RoomTypeID, a.From, a.To)
	case unlimited > 0:
		return fmt.Errorf("%w: %d nights of %s/%s in [%s, %s) have unlimited stock, which is not split", domain.ErrConflict, unlimited, a.HotelID, a.RoomTypeID, a.From, a.To)
	case over > 0:
		return fmt.Errorf("%w: on %d nights of %s/%s the allocations would add up to more than the total", domain.ErrConflict, over, a.HotelID, a.RoomTypeID)
	case belowUsed > 0:
		return fmt.Errorf("%w: on %d nights channel %s already sold more than %d from its allocation", domain.ErrConflict, belowUsed, a.ChannelID, a.Allotted)
	case overPromised > 0:
		return fmt.Errorf("%w: on %d nights the unsold allocations would promise more rooms than are left unsold (and not blocked)", domain.ErrConflict, overPromised)
	}
	_, err = tx.Exec(ctx, `INSERT INTO allocations (resource_id, unit_start, channel_id, allotted)
		SELECT $1, d, $4, $5 FROM generate_series($2::timestamp, $3::timestamp - interval '1 day', interval '1 day') d ORDER BY d
		ON CONFLICT (resource_id, unit_start, channel_id) DO UPDATE SET allotted = EXCLUDED.allotted`,
		resourceID, a.From.Time(), a.To.Time(), a.ChannelID, a.Allotted)
	if pgCode(err) == codeForeignKeyViolation {
		return fmt.Errorf("%w: no channel %q", domain.ErrNotFound, a.ChannelID)
	}
	return err
}

// ChannelShare is one channel's allocation of a night.
type ChannelShare struct {
	ChannelID string `json:"channelId"`
	Allotted  int    `json:"allotted"`
	Used      int    `json:"used"`
	// Exhausted: the channel sells only from the pool on this night, until a cancellation frees
	// a room of its allocation.
	Exhausted bool `json:"exhausted"`
}

// NightShares is how a night's stock is split.
type NightShares struct {
	Date     domain.Date    `json:"date"`
	Total    *int           `json:"total"` // nil: unlimited
	Reserved int            `json:"reserved"`
	Blocked  int            `json:"blocked"`  // rooms out of order, taken from the pool
	Pool     int            `json:"pool"`     // the shared pool's size: total less every allocation
	PoolLeft int            `json:"poolLeft"` // what the pool has left to sell
	Channels []ChannelShare `json:"channels"`
}

// Allocations returns how a room type's nights in [from, to) are split between channels.
func (s *Store) Allocations(ctx context.Context, hotelID, roomTypeID string, from, to domain.Date) ([]NightShares, error) {
	rows, err := s.pool.Query(ctx, `SELECT i.unit_start, i.total, i.reserved, i.blocked, a.channel_id, a.allotted, a.used
		FROM resources r JOIN inventory i ON i.resource_id = r.id
		LEFT JOIN allocations a ON a.resource_id = i.resource_id AND a.unit_start = i.unit_start
		WHERE r.hotel_id = $1 AND r.code = $2 AND i.unit_start >= $3 AND i.unit_start < $4
		ORDER BY i.unit_start, a.channel_id`, hotelID, roomTypeID, from.Time(), to.Time())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []NightShares{}
	for rows.Next() {
		var start time.Time
		var total *int
		var reserved, blocked int
		var channel *string
		var allotted, used *int
		if err := rows.Scan(&start, &total, &reserved, &blocked, &channel, &allotted, &used); err != nil {
			return nil, err
		}
		date := domain.DateOf(start, time.UTC)
		if len(out) == 0 || out[len(out)-1].Date != date {
			out = append(out, NightShares{Date: date, Total: total, Reserved: reserved, Blocked: blocked, Channels: []ChannelShare{}})
		}
		n := &out[len(out)-1]
		if channel != nil {
			n.Channels = append(n.Channels, ChannelShare{ChannelID: *channel, Allotted: *allotted, Used: *used,
				Exhausted: *used >= *allotted})
		}
	}
	for i := range out {
		n := &out[i]
		if n.Total == nil {
			continue
		}
		var allotted, used int
		for _, c := range n.Channels {
			allotted, used = allotted+c.Allotted, used+c.Used
		}
		n.Pool = *n.Total - allotted
		n.PoolLeft = max(n.Pool-n.Blocked-(n.Reserved-used), 0)
	}
	return out, rows.Err()
}

// nightShare is what a sale through a channel (empty: direct) may take of one locked night.
type nightShare struct {
	start     time.Time
	unlimited bool
	own       int // left in the channel's allocation
	pool      int // left in the shared pool
}

// lineShares reads the shares of a line's locked nights for a sale through channel.
func lineShares(ctx context.Context, tx pgx.Tx, l line, channel string) ([]nightShare, error) {
	rows, err := tx.Query(ctx, `SELECT i.unit_start, i.total IS NULL,
			COALESCE(sum(a.allotted - a.used) FILTER (WHERE a.channel_id = $4), 0),
			COALESCE(i.total, 0) - COALESCE(sum(a.allotted), 0) - i.blocked - (i.reserved - COALESCE(sum(a.used), 0))
		FROM inventory i LEFT JOIN allocations a ON a.resource_id = i.resource_id AND a.unit_start = i.unit_start
		WHERE i.resource_id = $1 AND i.unit_start >= $2 AND i.unit_start < $3
		GROUP BY i.unit_start, i.total, i.reserved, i.blocked ORDER BY i.unit_start`, l.resourceID, l.from, l.to, channel)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (nightShare, error) {
		var n nightShare
		err := r.Scan(&n.start, &n.unlimited, &n.own, &n.pool)
		return n, err
	})
}

// takeShares decides, on a line's locked nights, where a sale through channel takes each night's
// rooms from: its allocation first, then the pool. When every night has enough it records the
// allocations taken (used, and booking_allocations for the release) and reports true; otherwise
// it changes nothing. The caller then takes the rooms from the nights themselves.
func takeShares(ctx context.Context, tx pgx.Tx, bookingID string, l line, channel string) (bool, error) {
	shares, err := lineShares(ctx, tx, l, channel)
	if err != nil {
		return false, err
	}
	var starts []time.Time
	var owns []int
	for _, n := range shares {
		if n.unlimited {
			continue
		}
		own := min(l.quantity, max(n.own, 0))
		if l.quantity-own > max(n.pool, 0) {
			return false, nil
		}
		if own > 0 {
			starts, owns = append(starts, n.start), append(owns, own)
		}
	}
	if len(starts) == 0 {
		return true, nil
	}
	if _, err := tx.Exec(ctx, `UPDATE allocations a SET used = a.used + t.own
		FROM unnest($2::timestamp[], $3::int[]) AS t(start, own)
		WHERE a.resource_id = $1 AND a.unit_start = t.start AND a.channel_id = $4`,
		l.resourceID, starts, owns, channel); err != nil {
		return false, err
	}
	_, err = tx.Exec(ctx, `INSERT INTO booking_allocations (booking_id, resource_id, unit_start, channel_id, quantity)
		SELECT $1, $2, t.start, $5, t.own FROM unnest($3::timestamp[], $4::int[]) AS t(start, own)`,
		bookingID, l.resourceID, starts, owns, channel)
	return err == nil, err
}

// giveBackShares returns what a booking took from allocations on a line's locked nights to
// those allocations, reactivating an exhausted one.
func giveBackShares(ctx context.Context, tx pgx.Tx, bookingID string, l line) error {
	_, err := tx.Exec(ctx, `WITH given AS (
			DELETE FROM booking_allocations WHERE booking_id = $1 AND resource_id = $2 AND unit_start >= $3 AND unit_start < $4
			RETURNING resource_id, unit_start, channel_id, quantity)
		UPDATE allocations a SET used = a.used - g.quantity FROM given g
		WHERE a.resource_id = g.resource_id AND a.unit_start = g.unit_start AND a.channel_id = g.channel_id`,
		bookingID, l.resourceID, l.from, l.to)
	return err
}
