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

// A night's stock may be split between channels, and within a channel given to one of its
// agents. An agent's sale takes from its own allocation first, then its channel's (which every
// agent of the channel shares), then the shared pool, which is the total less every allocation and
// less its blocked rooms:
// what an agent holds for itself is spent before what its colleagues could sell. A direct sale,
// or a channel without an allocation, sells from the pool alone. Allocation rows are written
// only under the lock of their inventory row, so a decision on the locked rows holds until
// commit.

// AllocationSet gives a channel, or one agent of it (AgentID), Allotted rooms of a room type on
// every night of [From, To).
type AllocationSet struct {
	HotelID    string      `json:"hotelId"`
	RoomTypeID string      `json:"roomTypeId"`
	ChannelID  string      `json:"channelId"`
	AgentID    string      `json:"agentId,omitempty"`
	From       domain.Date `json:"from"`
	To         domain.Date `json:"to"`
	Allotted   int         `json:"allotted"`
}

// allocationOf matches one allocation of a night, a channel's or one agent's of it, by the
// query's parameters holding the channel and the agent (empty for the channel's own).
func allocationOf(channel, agent string) string {
	return "channel_id = " + channel + " AND agent_id IS NOT DISTINCT FROM NULLIF(" + agent + "::text, '')"
}

// SetAllocations applies every set, all or none. A night that is not on sale, has unlimited
// stock, would have allocations adding up to more than its total, or an allotment below what the
// channel already took from it, is a conflict and changes nothing. Rooms a lowered allotment
// gives back to the pool are offered to the waitlist first, in its transaction.
func (s *Store) SetAllocations(ctx context.Context, sets []AllocationSet) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		lines := make([]line, len(sets))
		for i, a := range sets {
			id, err := roomTypeResource(ctx, tx, a.HotelID, a.RoomTypeID)
			if err != nil {
				return err
			}
			lines[i] = line{resourceID: id, from: a.From.Time(), to: a.To.Time()}
		}
		sorted := slices.Clone(lines)
		slices.SortFunc(sorted, func(a, b line) int {
			return cmp.Or(cmp.Compare(a.resourceID, b.resourceID), a.from.Compare(b.from))
		})
		waiting, err := lockForGiveBack(ctx, tx, sorted)
		if err != nil {
			return err
		}
		for i, a := range sets {
			if err := setAllocation(ctx, tx, lines[i].resourceID, a); err != nil {
				return err
			}
		}
		// An allotment lowered gives its unsold rooms back to the pool: the waitlist's first.
		return offerFreed(ctx, tx, sorted, waiting)
	})
}

// setAllocation applies one set to its locked nights.
func setAllocation(ctx context.Context, tx pgx.Tx, resourceID int64, a AllocationSet) error {
	if err := checkAgentOf(ctx, tx, a.ChannelID, a.AgentID); err != nil {
		return err
	}
	var nights, missing, unlimited, over, belowUsed, overPromised int
	err := tx.QueryRow(ctx, `WITH night AS (SELECT d FROM generate_series($2::timestamp, $3::timestamp - interval '1 day', interval '1 day') d),
		state AS (SELECT n.d, i.total, i.reserved, i.blocked, i.unit_start IS NULL AS missing,
				COALESCE((SELECT sum(allotted) FROM allocations o WHERE o.resource_id = $1 AND o.unit_start = n.d AND NOT (`+allocationOf("$4", "$6")+`)), 0) AS others,
				COALESCE((SELECT sum(allotted - used) FROM allocations o WHERE o.resource_id = $1 AND o.unit_start = n.d AND NOT (`+allocationOf("$4", "$6")+`)), 0) AS others_free,
				COALESCE((SELECT used FROM allocations o WHERE o.resource_id = $1 AND o.unit_start = n.d AND `+allocationOf("$4", "$6")+`), 0) AS used
			FROM night n LEFT JOIN inventory i ON i.resource_id = $1 AND i.unit_start = n.d)
		SELECT count(*), count(*) FILTER (WHERE missing), count(*) FILTER (WHERE NOT missing AND total IS NULL),
			count(*) FILTER (WHERE others + $5 > total), count(*) FILTER (WHERE used > $5),
			count(*) FILTER (WHERE others_free + $5 - used > total - reserved - blocked)
		FROM state`, resourceID, a.From.Time(), a.To.Time(), a.ChannelID, a.Allotted, a.AgentID).Scan(&nights, &missing, &unlimited, &over,
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
		return fmt.Errorf("%w: on %d nights %s already sold more than %d from its allocation", domain.ErrConflict, belowUsed, a.holder(), a.Allotted)
	case overPromised > 0:
		return fmt.Errorf("%w: on %d nights the unsold allocations would promise more rooms than are left unsold (and not blocked)", domain.ErrConflict, overPromised)
	}
	_, err = tx.Exec(ctx, `INSERT INTO allocations (resource_id, unit_start, channel_id, agent_id, allotted)
		SELECT $1, d, $4, NULLIF($6, ''), $5 FROM generate_series($2::timestamp, $3::timestamp - interval '1 day', interval '1 day') d ORDER BY d
		ON CONFLICT (resource_id, unit_start, channel_id, agent_id) DO UPDATE SET allotted = EXCLUDED.allotted`,
		resourceID, a.From.Time(), a.To.Time(), a.ChannelID, a.Allotted, a.AgentID)
	if pgCode(err) == codeForeignKeyViolation {
		return fmt.Errorf("%w: no channel %q", domain.ErrNotFound, a.ChannelID)
	}
	return err
}

// DeleteAllocation removes a channel's or agent's allocation (a.Allotted is not read) on the
// nights of [a.From, a.To), its unsold rooms going back to the pool, and reports how many nights
// it had. While rooms sold from it are held or sold on any of those nights nothing is deleted
// (ErrConflict, naming them): those rooms stay the allocation's until their bookings release
// them, and lowering allotted to what is used frees the rest meanwhile. No such allocation on
// any night is ErrNotFound. Its rooms, back in the pool, are offered to the waitlist first.
func (s *Store) DeleteAllocation(ctx context.Context, a AllocationSet) (int, error) {
	var deleted int
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		id, err := roomTypeResource(ctx, tx, a.HotelID, a.RoomTypeID)
		if err != nil {
			return err
		}
		// Under the nights' lock, as every writer of allocations: a sale in flight commits first.
		nights := []line{{resourceID: id, from: a.From.Time(), to: a.To.Time()}}
		waiting, err := lockForGiveBack(ctx, tx, nights)
		if err != nil {
			return err
		}
		var used int
		var first *time.Time
		if err := tx.QueryRow(ctx, `SELECT count(*), min(unit_start) FROM allocations
			WHERE resource_id = $1 AND unit_start >= $2 AND unit_start < $3 AND `+allocationOf("$4", "$5")+` AND used > 0`,
			id, a.From.Time(), a.To.Time(), a.ChannelID, a.AgentID).Scan(&used, &first); err != nil {
			return err
		}
		if used > 0 {
			return fmt.Errorf("%w: %s has rooms sold from its allocation on %d nights (the first %s): they stay its until "+
				"released; delete the other nights, or lower allotted to what is used", domain.ErrConflict, a.holder(), used,
				domain.DateOf(*first, time.UTC))
		}
		tag, err := tx.Exec(ctx, `DELETE FROM allocations WHERE resource_id = $1 AND unit_start >= $2 AND unit_start < $3
			AND `+allocationOf("$4", "$5"), id, a.From.Time(), a.To.Time(), a.ChannelID, a.AgentID)
		if err == nil && tag.RowsAffected() == 0 {
			err = fmt.Errorf("%w: %s has no allocation of %s/%s in [%s, %s)", domain.ErrNotFound, a.holder(), a.HotelID,
				a.RoomTypeID, a.From, a.To)
		}
		deleted = int(tag.RowsAffected())
		if err != nil {
			return err
		}
		return offerFreed(ctx, tx, nights, waiting) // its rooms, back in the pool, go to the waitlist first
	})
	return deleted, err
}

// holder names whose allocation a set is.
func (a AllocationSet) holder() string {
	if a.AgentID != "" {
		return "agent " + a.AgentID + " of channel " + a.ChannelID
	}
	return "channel " + a.ChannelID
}

// checkAgentOf checks that agentID, when given, sells through channelID: an agent's allocation
// is part of its channel's stock (agents never move channels).
func checkAgentOf(ctx context.Context, tx pgx.Tx, channelID, agentID string) error {
	if agentID == "" {
		return nil
	}
	var channel string
	err := tx.QueryRow(ctx, `SELECT channel_id FROM agents WHERE id = $1`, agentID).Scan(&channel)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("%w: no agent %q", domain.ErrNotFound, agentID)
	case err != nil:
		return err
	case channel != channelID:
		return fmt.Errorf("%w: agent %s sells through channel %s, not %s", domain.ErrInvalid, agentID, channel, channelID)
	}
	return nil
}

// ChannelShare is one channel's allocation of a night, or one of its agents' (AgentID).
type ChannelShare struct {
	ChannelID string `json:"channelId"`
	AgentID   string `json:"agentId,omitempty"`
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
	rows, err := s.pool.Query(ctx, `SELECT i.unit_start, i.total, i.reserved, i.blocked, a.channel_id, COALESCE(a.agent_id, ''), a.allotted, a.used
		FROM resources r JOIN inventory i ON i.resource_id = r.id
		LEFT JOIN allocations a ON a.resource_id = i.resource_id AND a.unit_start = i.unit_start
		WHERE r.hotel_id = $1 AND r.code = $2 AND i.unit_start >= $3 AND i.unit_start < $4
		ORDER BY i.unit_start, a.channel_id, a.agent_id NULLS FIRST`, hotelID, roomTypeID, from.Time(), to.Time())
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
		var agent string
		var allotted, used *int
		if err := rows.Scan(&start, &total, &reserved, &blocked, &channel, &agent, &allotted, &used); err != nil {
			return nil, err
		}
		date := domain.DateOf(start, time.UTC)
		if len(out) == 0 || out[len(out)-1].Date != date {
			out = append(out, NightShares{Date: date, Total: total, Reserved: reserved, Blocked: blocked, Channels: []ChannelShare{}})
		}
		n := &out[len(out)-1]
		if channel != nil {
			n.Channels = append(n.Channels, ChannelShare{ChannelID: *channel, AgentID: agent, Allotted: *allotted, Used: *used,
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

// nightShare is what a sale through a channel (empty: direct), by one of its agents, may take of
// one locked night.
type nightShare struct {
	start     time.Time
	unlimited bool
	agent     int // left in the agent's own allocation
	channel   int // left in the channel's allocation
	pool      int // left in the shared pool
}

// split is how a sale of qty takes a night's shares: from the agent's own allocation first,
// then the channel's, then the pool; fits is false when the pool is short of the rest.
func (n nightShare) split(qty int) (fromAgent, fromChannel int, fits bool) {
	fromAgent = min(qty, max(n.agent, 0))
	fromChannel = min(qty-fromAgent, max(n.channel, 0))
	return fromAgent, fromChannel, qty-fromAgent-fromChannel <= max(n.pool, 0)
}

// sharesFit reports whether a sale of l through channel by agent fits what its allocations and
// the pool have left on every night split between channels, as takeShares decides, taking
// nothing.
func sharesFit(ctx context.Context, tx pgx.Tx, l line, channel, agent string) (bool, error) {
	shares, err := lineShares(ctx, tx, l, channel, agent)
	if err != nil {
		return false, err
	}
	for _, n := range shares {
		if _, _, fits := n.split(l.quantity); !n.unlimited && !fits {
			return false, nil
		}
	}
	return true, nil
}

// lineShares reads the shares of a line's locked nights for a sale through channel by agent.
func lineShares(ctx context.Context, tx pgx.Tx, l line, channel, agent string) ([]nightShare, error) {
	rows, err := tx.Query(ctx, `SELECT i.unit_start, i.total IS NULL,
			COALESCE(sum(a.allotted - a.used) FILTER (WHERE a.channel_id = $4 AND a.agent_id = $5), 0),
			COALESCE(sum(a.allotted - a.used) FILTER (WHERE a.channel_id = $4 AND a.agent_id IS NULL), 0),
			COALESCE(i.total, 0) - COALESCE(sum(a.allotted), 0) - i.blocked - (i.reserved - COALESCE(sum(a.used), 0))
		FROM inventory i LEFT JOIN allocations a ON a.resource_id = i.resource_id AND a.unit_start = i.unit_start
		WHERE i.resource_id = $1 AND i.unit_start >= $2 AND i.unit_start < $3
		GROUP BY i.unit_start, i.total, i.reserved, i.blocked ORDER BY i.unit_start`, l.resourceID, l.from, l.to, channel, agent)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (nightShare, error) {
		var n nightShare
		err := r.Scan(&n.start, &n.unlimited, &n.agent, &n.channel, &n.pool)
		return n, err
	})
}

// takeShares decides, on a line's locked nights, where a sale through channel takes each night's
// rooms from: the allocation of the booking's agent first, then the channel's, then the pool.
// When every night has enough it records the allocations taken (used, and booking_allocations
// for the release) and reports true; otherwise it changes nothing. The caller then takes the
// rooms from the nights themselves. drawn (nil for a sale without a group) is what a pickup
// drew per night from its block: rooms the pool just got back, which are the sale's own.
func takeShares(ctx context.Context, tx pgx.Tx, bookingID string, l line, channel string, drawn map[time.Time]int) (bool, error) {
	var agent string
	if err := tx.QueryRow(ctx, `SELECT COALESCE(agent_id, '') FROM bookings WHERE id = $1`, bookingID).Scan(&agent); err != nil {
		return false, err
	}
	shares, err := lineShares(ctx, tx, l, channel, agent)
	if err != nil {
		return false, err
	}
	var starts []time.Time
	var agents []*string // nil: the channel's allocation
	var qtys []int
	for _, n := range shares {
		if n.unlimited {
			continue
		}
		d := drawn[n.start]
		n.pool -= d
		fromAgent, fromChannel, fits := n.split(l.quantity - d)
		if !fits {
			return false, nil
		}
		if fromAgent > 0 {
			starts, agents, qtys = append(starts, n.start), append(agents, &agent), append(qtys, fromAgent)
		}
		if fromChannel > 0 {
			starts, agents, qtys = append(starts, n.start), append(agents, nil), append(qtys, fromChannel)
		}
	}
	if len(starts) == 0 {
		return true, nil
	}
	if _, err := tx.Exec(ctx, `UPDATE allocations a SET used = a.used + t.qty
		FROM unnest($2::timestamp[], $3::text[], $4::int[]) AS t(start, agent, qty)
		WHERE a.resource_id = $1 AND a.unit_start = t.start AND a.channel_id = $5 AND a.agent_id IS NOT DISTINCT FROM t.agent`,
		l.resourceID, starts, agents, qtys, channel); err != nil {
		return false, err
	}
	_, err = tx.Exec(ctx, `INSERT INTO booking_allocations (booking_id, resource_id, unit_start, channel_id, agent_id, quantity)
		SELECT $1, $2, t.start, $6, t.agent, t.qty FROM unnest($3::timestamp[], $4::text[], $5::int[]) AS t(start, agent, qty)
		ON CONFLICT ON CONSTRAINT booking_allocations_key DO UPDATE SET quantity = booking_allocations.quantity + EXCLUDED.quantity`,
		bookingID, l.resourceID, starts, agents, qtys, channel)
	return err == nil, err
}

// giveBackShares returns what a booking took from allocations on a line's locked nights to
// those allocations (its agent's and its channel's), reactivating an exhausted one.
func giveBackShares(ctx context.Context, tx pgx.Tx, bookingID string, l line) error {
	_, err := tx.Exec(ctx, `WITH given AS (
			DELETE FROM booking_allocations WHERE booking_id = $1 AND resource_id = $2 AND unit_start >= $3 AND unit_start < $4
			RETURNING resource_id, unit_start, channel_id, agent_id, quantity)
		UPDATE allocations a SET used = a.used - g.quantity FROM given g
		WHERE a.resource_id = g.resource_id AND a.unit_start = g.unit_start AND a.channel_id = g.channel_id
			AND a.agent_id IS NOT DISTINCT FROM g.agent_id`,
		bookingID, l.resourceID, l.from, l.to)
	return err
}
