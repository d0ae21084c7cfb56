package db

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// A group block (docs/groups-and-blocks.md) sets rooms of one room type aside per night. Once
// DEFINITE its unpicked rooms (block_nights.held) are counted in inventory.reserved, as a
// booking's are: every read of what is left, the allocations' checks and the sold-out gate see
// them taken without knowing of blocks. Every writer of a block's nights holds the block row
// (FOR NO KEY UPDATE), then the sale locks and units as a give-back takes them
// (lockForGiveBack); a pickup reads the nights under its units' locks alone, so what it reads
// holds until it commits.

// Block is a block as stored, with its nights.
type Block struct {
	ID         string              `json:"id"`
	HotelID    string              `json:"hotelId"`
	RoomTypeID string              `json:"roomTypeId"`
	GroupCode  string              `json:"groupCode"`
	Name       string              `json:"name"`
	Status     domain.BlockStatus  `json:"status"`
	RatePlan   string              `json:"ratePlan,omitempty"`
	Currency   string              `json:"currency,omitempty"`
	Overflow   bool                `json:"overflow"`
	Release    domain.BlockRelease `json:"release"`
	Direct     bool                `json:"direct"`
	Channels   []string            `json:"channels"`
	Owner      domain.BlockOwner   `json:"owner"`
	CreatedBy  string              `json:"createdBy"`
	CreatedAt  time.Time           `json:"createdAt"`
	UpdatedAt  time.Time           `json:"updatedAt"`
	Nights     []BlockNightState   `json:"nights"`
}

// BlockNightState is a night of a block: promised (rooms), still set aside (remaining), taken
// by its guests (picked) and given back to sale (released); tentative is what an INQUIRY block
// would take. releaseAt is when its unpicked rooms go back to sale.
type BlockNightState struct {
	Date       domain.Date `json:"date"`
	Rooms      int         `json:"rooms"`
	Tentative  int         `json:"tentative"`
	Remaining  int         `json:"remaining"`
	Picked     int         `json:"picked"`
	Released   int         `json:"released"`
	Price      *int64      `json:"price,omitempty"`
	ReleaseAt  *time.Time  `json:"releaseAt,omitempty"`
	ReleasedAt *time.Time  `json:"releasedAt,omitempty"`
}

// BlockIDPrefix starts every block id.
const BlockIDPrefix = "blk_"

// CreateBlock stores a new INQUIRY block of a hotel's room type, which deducts nothing. A group
// code used by another of the hotel's blocks is a conflict; a night before the hotel's today, a
// room type, rate plan or channel unknown, or a supplier's hotel (its rooms are the supplier's)
// is refused, with nothing written.
func (s *Store) CreateBlock(ctx context.Context, hotelID, actor string, r domain.BlockRequest) (Block, error) {
	id := BlockIDPrefix + strings.ToLower(rand.Text()[:16])
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		resourceID, err := roomTypeResource(ctx, tx, hotelID, r.RoomTypeID)
		if err != nil {
			return err
		}
		if err := checkBlockTerms(ctx, tx, hotelID, r); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO blocks (id, hotel_id, resource_id, group_code, name, rate_plan, currency, overflow,
				release_kind, release_date, release_days, release_time, direct, channel_ids, owner_name, owner_contact, created_by)
			VALUES ($1, $2, $3, $4, $5, NULLIF($6, ''), NULLIF($7, ''), $8, $9, $10, $11, $12::time, $13, $14, $15, $16, $17)`,
			id, hotelID, resourceID, r.GroupCode, r.Name, r.RatePlan, r.Currency, r.Overflow, r.Release.Kind, timeOrNil(r.Release.Date),
			r.Release.Days, r.Release.Time, *r.Direct, nonNil(r.Channels), r.Owner.Name, r.Owner.Contact, actor)
		if pgCode(err) == codeUniqueViolation {
			return fmt.Errorf("%w: hotel %s already has a block with group code %s", domain.ErrConflict, hotelID, r.GroupCode)
		}
		if err != nil {
			return err
		}
		dates, rooms, prices := make([]time.Time, len(r.Nights)), make([]int, len(r.Nights)), make([]*int64, len(r.Nights))
		for i, n := range r.Nights {
			dates[i], rooms[i], prices[i] = n.Date.Time(), n.Rooms, n.Price
		}
		if _, err := tx.Exec(ctx, `INSERT INTO block_nights (block_id, resource_id, unit_start, rooms, price)
			SELECT $1, $2, n.d, n.rooms, n.price FROM unnest($3::timestamp[], $4::int[], $5::bigint[]) AS n(d, rooms, price)`,
			id, resourceID, dates, rooms, prices); err != nil {
			return err
		}
		if err := setReleaseTimes(ctx, tx, id); err != nil {
			return err
		}
		return recordBlockChange(ctx, tx, id, actor, "created", map[string]any{"groupCode": r.GroupCode, "nights": r.Nights})
	})
	if err != nil {
		return Block{}, err
	}
	return s.GetBlock(ctx, id)
}

// checkBlockTerms refuses a block of a supplier's hotel, one with a night or a fixed release date
// before the hotel's today, and one naming an unknown rate plan or channel.
func checkBlockTerms(ctx context.Context, tx pgx.Tx, hotelID string, r domain.BlockRequest) error {
	var supplier *string
	var today time.Time
	err := tx.QueryRow(ctx, `SELECT supplier_id, (now() AT TIME ZONE time_zone)::date FROM hotels WHERE id = $1`, hotelID).
		Scan(&supplier, &today)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%w: no hotel %q", domain.ErrNotFound, hotelID)
	}
	switch {
	case err != nil:
		return err
	case supplier != nil:
		return fmt.Errorf("%w: hotel %s sells its supplier's rooms, which a block cannot set aside", domain.ErrConflict, hotelID)
	case r.Nights[0].Date.Time().Before(today):
		return fmt.Errorf("%w: the night of %s is before the hotel's today (%s)", domain.ErrInvalid, r.Nights[0].Date,
			today.Format(time.DateOnly))
	case r.Release.Date != nil && r.Release.Date.Time().Before(today):
		return fmt.Errorf("%w: release.date %s is before the hotel's today (%s): the block would be released at once",
			domain.ErrInvalid, *r.Release.Date, today.Format(time.DateOnly))
	}
	if r.RatePlan != "" && r.RatePlan != domain.DefaultRatePlan {
		var known bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM rate_plans WHERE hotel_id = $1 AND code = $2)`, hotelID, r.RatePlan).
			Scan(&known); err != nil {
			return err
		}
		if !known {
			return fmt.Errorf("%w: hotel %s has no rate plan %q", domain.ErrNotFound, hotelID, r.RatePlan)
		}
	}
	var missing []string
	if err := tx.QueryRow(ctx, `SELECT COALESCE(array_agg(c ORDER BY c), '{}') FROM unnest($1::text[]) c
		WHERE NOT EXISTS (SELECT 1 FROM channels WHERE id = c)`, nonNil(r.Channels)).Scan(&missing); err != nil {
		return err
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: no channel %s", domain.ErrNotFound, strings.Join(missing, ", "))
	}
	return nil
}

// setReleaseTimes computes when each night of a block goes back to sale, on its hotel's clock.
func setReleaseTimes(ctx context.Context, tx pgx.Tx, blockID string) error {
	_, err := tx.Exec(ctx, `UPDATE block_nights n SET release_at = CASE b.release_kind
			WHEN 'fixed' THEN (b.release_date + b.release_time) AT TIME ZONE h.time_zone
			WHEN 'rolling' THEN ((n.unit_start::date - b.release_days) + b.release_time) AT TIME ZONE h.time_zone END
		FROM blocks b JOIN hotels h ON h.id = b.hotel_id WHERE b.id = $1 AND n.block_id = b.id`, blockID)
	return err
}

// recordBlockChange writes one move of a block to its audit trail.
func recordBlockChange(ctx context.Context, tx pgx.Tx, blockID, actor, action string, detail any) error {
	text, err := json.Marshal(detail)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO block_changes (block_id, actor, action, detail) VALUES ($1, $2, $3, $4)`,
		blockID, actor, action, text)
	return err
}

// blockColumns reads a block b of resource r.
const blockColumns = `b.id, b.hotel_id, r.code, b.group_code, b.name, b.status, COALESCE(b.rate_plan, ''), COALESCE(b.currency, ''),
	b.overflow, b.release_kind, b.release_date, b.release_days, to_char(b.release_time, 'HH24:MI'), b.direct, b.channel_ids,
	b.owner_name, b.owner_contact, b.created_by, b.created_at, b.updated_at`

func scanBlock(row pgx.Row) (Block, error) {
	var b Block
	var date *time.Time
	err := row.Scan(&b.ID, &b.HotelID, &b.RoomTypeID, &b.GroupCode, &b.Name, &b.Status, &b.RatePlan, &b.Currency, &b.Overflow,
		&b.Release.Kind, &date, &b.Release.Days, &b.Release.Time, &b.Direct, &b.Channels, &b.Owner.Name, &b.Owner.Contact,
		&b.CreatedBy, &b.CreatedAt, &b.UpdatedAt)
	b.Release.Date = dateOrNil(date)
	return b, err
}

// GetBlock returns a block with its nights (ErrNotFound when there is none).
func (s *Store) GetBlock(ctx context.Context, id string) (Block, error) {
	blocks, err := s.blocks(ctx, `b.id = $1`, id)
	if err == nil && len(blocks) == 0 {
		err = fmt.Errorf("%w: no block %q", domain.ErrNotFound, id)
	}
	if err != nil {
		return Block{}, err
	}
	return blocks[0], nil
}

// HotelBlocks returns a hotel's blocks with a night in [from, to), the earliest first.
func (s *Store) HotelBlocks(ctx context.Context, hotelID string, from, to domain.Date) ([]Block, error) {
	return s.blocks(ctx, `b.hotel_id = $1 AND EXISTS (SELECT 1 FROM block_nights n WHERE n.block_id = b.id
		AND n.unit_start >= $2 AND n.unit_start < $3)`, hotelID, from.Time(), to.Time())
}

// blocks reads the blocks matching where (over b) with their nights.
func (s *Store) blocks(ctx context.Context, where string, args ...any) ([]Block, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+blockColumns+` FROM blocks b JOIN resources r ON r.id = b.resource_id WHERE `+where+`
		ORDER BY (SELECT min(unit_start) FROM block_nights n WHERE n.block_id = b.id), b.id`, args...)
	if err != nil {
		return nil, err
	}
	blocks, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Block, error) { return scanBlock(r) })
	if err != nil || len(blocks) == 0 {
		return []Block{}, err
	}
	ids := make([]string, len(blocks))
	at := map[string]int{}
	for i, b := range blocks {
		ids[i], at[b.ID] = b.ID, i
		blocks[i].Nights = []BlockNightState{}
	}
	rows, err = s.pool.Query(ctx, `SELECT n.block_id, n.unit_start, n.rooms, n.held, n.picked, n.released, n.price, n.release_at, n.released_at,
			b.status = 'INQUIRY'
		FROM block_nights n JOIN blocks b ON b.id = n.block_id WHERE n.block_id = ANY($1) ORDER BY n.block_id, n.unit_start`, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var start time.Time
		var n BlockNightState
		var inquiry bool
		if err := rows.Scan(&id, &start, &n.Rooms, &n.Remaining, &n.Picked, &n.Released, &n.Price, &n.ReleaseAt, &n.ReleasedAt, &inquiry); err != nil {
			return nil, err
		}
		n.Date = domain.DateOf(start, time.UTC)
		if inquiry {
			n.Tentative = n.Rooms
		}
		blocks[at[id]].Nights = append(blocks[at[id]].Nights, n)
	}
	return blocks, rows.Err()
}

// BlockChange is one audited move of a block.
type BlockChange struct {
	At     time.Time       `json:"at"`
	Actor  string          `json:"actor"`
	Action string          `json:"action"`
	Detail json.RawMessage `json:"detail"`
}

// BlockChanges returns a block's audit trail, oldest first.
func (s *Store) BlockChanges(ctx context.Context, blockID string) ([]BlockChange, error) {
	rows, err := s.pool.Query(ctx, `SELECT at, actor, action, detail FROM block_changes WHERE block_id = $1 ORDER BY id`, blockID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (BlockChange, error) {
		var c BlockChange
		err := r.Scan(&c.At, &c.Actor, &c.Action, &c.Detail)
		return c, err
	})
}

// timeOrNil is d's time, or nil.
func timeOrNil(d *domain.Date) *time.Time {
	if d == nil {
		return nil
	}
	t := d.Time()
	return &t
}

// NoteBlockGuest keeps the name a rooming list gave the guest of a pickup of block blockID; a
// booking that is not the block's is ErrNotFound. Noting it again changes nothing.
func (s *Store) NoteBlockGuest(ctx context.Context, blockID, bookingID, name string) error {
	tag, err := s.pool.Exec(ctx, `INSERT INTO block_guests (booking_id, block_id, name)
		SELECT id, block_id, $3 FROM bookings WHERE id = $1 AND block_id = $2
		ON CONFLICT (booking_id) DO NOTHING`, bookingID, blockID, name)
	if err == nil && tag.RowsAffected() == 0 {
		var known bool
		if err = s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM block_guests WHERE booking_id = $1)`, bookingID).Scan(&known); err == nil && !known {
			err = fmt.Errorf("%w: booking %s is not a pickup of block %s", domain.ErrNotFound, bookingID, blockID)
		}
	}
	return err
}

// HotelBlockByCode returns the hotel's block whose group code is code, whatever its case
// (ErrNotFound when there is none).
func (s *Store) HotelBlockByCode(ctx context.Context, hotelID, code string) (Block, error) {
	blocks, err := s.blocks(ctx, `b.hotel_id = $1 AND lower(b.group_code) = lower($2)`, hotelID, code)
	if err == nil && len(blocks) == 0 {
		err = fmt.Errorf("%w: hotel %s has no group %s", domain.ErrNotFound, hotelID, code)
	}
	if err != nil {
		return Block{}, err
	}
	return blocks[0], nil
}

// RecordRoomingList records an upload of a block's rooming list by createdBy under key, with its
// content's fingerprint; the same key with another fingerprint is ErrIdempotencyMismatch (the
// lines' bookings are keyed by the upload's key). Recording it again changes nothing.
func (s *Store) RecordRoomingList(ctx context.Context, blockID, createdBy, key, fingerprint string) error {
	var stored string
	err := pgx.ErrNoRows
	// Twice at most: a concurrent upload under the key, committed after this statement's snapshot,
	// is read by the second.
	for try := 0; try < 2 && errors.Is(err, pgx.ErrNoRows); try++ {
		err = s.pool.QueryRow(ctx, `WITH ins AS (
			INSERT INTO rooming_lists (block_id, created_by, idempotency_key, fingerprint) VALUES ($1, $2, $3, $4)
			ON CONFLICT DO NOTHING RETURNING fingerprint)
		SELECT fingerprint FROM ins UNION ALL
		SELECT fingerprint FROM rooming_lists WHERE block_id = $1 AND created_by = $2 AND idempotency_key = $3`,
			blockID, createdBy, key, fingerprint).Scan(&stored)
	}
	if err == nil && stored != fingerprint {
		err = fmt.Errorf("%w: the Idempotency-Key %s was used for another rooming list of block %s", domain.ErrIdempotencyMismatch, key, blockID)
	}
	return err
}
