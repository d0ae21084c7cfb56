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

// SyncResult says what applying a supplier's report changed.
type SyncResult struct {
	HotelID string `json:"hotelId"`
	Nights  int    `json:"nights"` // nights written
	// Stale are the nights a newer report had already set: left as they are.
	Stale int `json:"stale"`
	// Conflicts are the nights the supplier reported fewer rooms on than are sold or held here:
	// their totals stay at what is sold or held, and an alert is raised for each.
	Conflicts int `json:"conflicts"`
}

// ErrReplayed: a signed push that was already accepted arrived again.
var ErrReplayed = errors.New("this signed push was already received")

// ApplySupplierStock writes a validated report from supplierID (source "pull" or "push") in one
// transaction: room types it does not know yet are added; for a direct_procure supplier every
// night's total, rate and currency are set, recording when and from where. Reports apply in the
// order of their ReportedAt (the transaction's start when nil), night by night: a night a report
// at least as new already set is left alone and counted Stale, so an old pull answering late, or
// a supplier's retries out of order, never put older totals back. A total is never lowered below
// what is sold or held: such a night keeps that many and raises a sync_conflict alert for
// operators. A direct_connect supplier keeps no stock here: only its room types are recorded. A
// hotel that is not the supplier's is ErrInvalid and writes nothing.
func (s *Store) ApplySupplierStock(ctx context.Context, supplierID, source string, r domain.StockReport) (SyncResult, error) {
	var res SyncResult
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		res, err = applyStock(ctx, tx, supplierID, source, r)
		return err
	})
	return res, err
}

// ApplySupplierPush is ApplySupplierStock for a signed push, remembered by digest (of its signed
// timestamp and body) for tolerance: the same push again within it is ErrReplayed and writes
// nothing.
func (s *Store) ApplySupplierPush(ctx context.Context, supplierID, digest string, tolerance time.Duration, r domain.StockReport) (SyncResult, error) {
	var res SyncResult
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM supplier_pushes WHERE supplier_id = $1 AND received_at < now() - make_interval(secs => $2)`,
			supplierID, tolerance.Seconds()); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO supplier_pushes (supplier_id, digest) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
			supplierID, digest)
		switch {
		case pgCode(err) == codeForeignKeyViolation:
			return fmt.Errorf("%w: no supplier %q", domain.ErrNotFound, supplierID)
		case err != nil:
			return err
		case tag.RowsAffected() == 0:
			return ErrReplayed
		}
		res, err = applyStock(ctx, tx, supplierID, "push", r)
		return err
	})
	return res, err
}

func applyStock(ctx context.Context, tx pgx.Tx, supplierID, source string, r domain.StockReport) (SyncResult, error) {
	res := SyncResult{HotelID: r.HotelID}
	var mode string
	var owner *string
	err := tx.QueryRow(ctx, `SELECT s.mode, h.supplier_id FROM suppliers s LEFT JOIN hotels h ON h.id = $2 WHERE s.id = $1`,
		supplierID, r.HotelID).Scan(&mode, &owner)
	if errors.Is(err, pgx.ErrNoRows) {
		return res, fmt.Errorf("%w: no supplier %q", domain.ErrNotFound, supplierID)
	}
	if err != nil {
		return res, err
	}
	if owner == nil || *owner != supplierID {
		return res, fmt.Errorf("%w: hotel %s is not supplied by %s", domain.ErrInvalid, r.HotelID, supplierID)
	}
	// The hotel's row first, as rule writes and SetInventory take it (FOR UPDATE) before its room
	// types: a sync holding a room type's row while it waited for the hotel's (a new room type's
	// foreign key) deadlocked with them. NO KEY UPDATE leaves reservations' KEY SHARE alone.
	if _, err := tx.Exec(ctx, `SELECT 1 FROM hotels WHERE id = $1 FOR NO KEY UPDATE`, r.HotelID); err != nil {
		return res, err
	}
	reportedAt := r.ReportedAt
	if reportedAt == nil {
		var now time.Time
		if err := tx.QueryRow(ctx, `SELECT now()`).Scan(&now); err != nil {
			return res, err
		}
		reportedAt = &now
	}
	type roomType struct {
		id    int64
		stock domain.RoomTypeStock
	}
	var rts []roomType
	// Room types in code order: two syncs of one hotel upsert its resources in one order.
	sorted := slices.Clone(r.RoomTypes)
	slices.SortFunc(sorted, func(a, b domain.RoomTypeStock) int { return strings.Compare(a.RoomTypeID, b.RoomTypeID) })
	for _, rt := range sorted {
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO resources (kind, hotel_id, code) VALUES ('hotel_room_type', $1, $2)
			ON CONFLICT (hotel_id, code) DO UPDATE SET kind = EXCLUDED.kind RETURNING id`, r.HotelID, rt.RoomTypeID).Scan(&id); err != nil {
			return res, err
		}
		rts = append(rts, roomType{id, rt})
	}
	if mode == ModeDirectConnect {
		return res, nil
	}
	// One resource at a time, in id order, each night in date order: the order every writer
	// of inventory rows locks in.
	slices.SortFunc(rts, func(a, b roomType) int { return int(a.id - b.id) })
	for _, rt := range rts {
		w, err := applyRoomTypeStock(ctx, tx, rt.id, r.HotelID, source, *reportedAt, rt.stock)
		if err != nil {
			return res, err
		}
		res.Nights, res.Stale, res.Conflicts = res.Nights+w.nights, res.Stale+w.stale, res.Conflicts+w.conflicts
	}
	return res, nil
}

// written counts what a report did to one room type's nights.
type written struct {
	nights, stale, conflicts int
}

func applyRoomTypeStock(ctx context.Context, tx pgx.Tx, resourceID int64, hotelID, source string, reportedAt time.Time,
	rt domain.RoomTypeStock) (written, error) {
	if len(rt.Nights) == 0 {
		return written{}, nil
	}
	var w written
	nightsSorted := slices.Clone(rt.Nights)
	slices.SortFunc(nightsSorted, func(a, b domain.StockNight) int { return a.Date.Time().Compare(b.Date.Time()) })
	all := make([]time.Time, len(nightsSorted))
	for i, night := range nightsSorted {
		all[i] = night.Date.Time()
	}
	// Lock the nights, and leave out those a newer report already set (one as new applies: the
	// later arrival of two reports read at the same moment wins).
	rows, err := tx.Query(ctx, `SELECT unit_start, reported_at IS NOT NULL AND reported_at > $3 FROM inventory
		WHERE resource_id = $1 AND unit_start = ANY($2) ORDER BY unit_start FOR UPDATE`, resourceID, all, reportedAt)
	if err != nil {
		return w, err
	}
	stale := map[int64]bool{} // by the night's Unix time
	var night time.Time
	var newer bool
	if _, err := pgx.ForEachRow(rows, []any{&night, &newer}, func() error {
		stale[night.Unix()] = newer
		return nil
	}); err != nil {
		return w, err
	}
	var dates []time.Time
	var totals []*int
	var rates []int64
	var currencies []string
	for _, night := range nightsSorted {
		if stale[night.Date.Time().Unix()] {
			w.stale++
			continue
		}
		dates, totals = append(dates, night.Date.Time()), append(totals, night.Total)
		rates, currencies = append(rates, night.Rate), append(currencies, night.Currency)
	}
	if len(dates) == 0 {
		return w, nil
	}
	// On the locked rows: the nights the supplier reports fewer rooms on than are sold or held.
	rows, err = tx.Query(ctx, `SELECT t.d, t.total, i.reserved FROM unnest($2::timestamp[], $3::int[]) AS t(d, total)
		JOIN inventory i ON i.resource_id = $1 AND i.unit_start = t.d WHERE t.total < i.reserved ORDER BY t.d`,
		resourceID, dates, totals)
	if err != nil {
		return w, err
	}
	type conflict struct {
		night             time.Time
		reported, reserve int
	}
	found, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (conflict, error) {
		var c conflict
		err := r.Scan(&c.night, &c.reported, &c.reserve)
		return c, err
	})
	if err != nil {
		return w, err
	}
	for _, c := range found {
		if err := raiseAlert(ctx, tx, StockAlert{Kind: AlertSyncConflict, HotelID: hotelID, RoomTypeID: rt.RoomTypeID,
			Night: domain.DateOf(c.night, time.UTC), Detail: fmt.Sprintf("the supplier (%s) reports %d rooms, %d are sold or held here: "+
				"the total stays at %d until this is settled with the supplier", source, c.reported, c.reserve, c.reserve)}); err != nil {
			return w, err
		}
	}
	// Reports of one room type serialise on its resource row (upserted above), so what was read
	// as locked stands; the condition states the rule in the write too, for a night another
	// writer inserts meanwhile.
	tag, err := tx.Exec(ctx, `INSERT INTO inventory (resource_id, unit_start, total, rate, currency, synced_at, synced_from, reported_at)
		SELECT $1, t.d, t.total, t.rate, t.currency, now(), $6, $7
		FROM unnest($2::timestamp[], $3::int[], $4::bigint[], $5::text[]) AS t(d, total, rate, currency) ORDER BY t.d
		ON CONFLICT (resource_id, unit_start) DO UPDATE SET
			total = CASE WHEN EXCLUDED.total IS NULL THEN NULL ELSE GREATEST(EXCLUDED.total, inventory.reserved) END,
			rate = EXCLUDED.rate, currency = EXCLUDED.currency, synced_at = EXCLUDED.synced_at, synced_from = EXCLUDED.synced_from,
			reported_at = EXCLUDED.reported_at
		WHERE inventory.reported_at IS NULL OR inventory.reported_at <= EXCLUDED.reported_at`,
		resourceID, dates, totals, rates, currencies, source, reportedAt)
	if err != nil {
		return w, err
	}
	w.nights = int(tag.RowsAffected())
	w.stale += len(dates) - w.nights
	w.conflicts = len(found)
	// Channels keep their allocations (they are contracts), but operators hear when the stock
	// no longer covers them: the pool is then empty and the nights sell to their total only.
	_, err = tx.Exec(ctx, `INSERT INTO stock_alerts (kind, hotel_id, room_type, night, detail)
		SELECT 'sync_conflict', $3, $4, i.unit_start::date,
			format('the supplier (%s) reports %s rooms, %s are allotted to channels', $5::text, i.total, sum(a.allotted))
		FROM inventory i JOIN allocations a ON a.resource_id = i.resource_id AND a.unit_start = i.unit_start
		WHERE i.resource_id = $1 AND i.unit_start = ANY($2) AND i.total IS NOT NULL
		GROUP BY i.unit_start, i.total HAVING sum(a.allotted) > i.total
		ON CONFLICT DO NOTHING`, resourceID, dates, hotelID, rt.RoomTypeID, source)
	if err != nil {
		return w, err
	}
	// A sync that leaves a watched night below its threshold is low stock like a sale is.
	_, err = tx.Exec(ctx, `INSERT INTO stock_alerts (kind, hotel_id, room_type, night, detail)
		SELECT 'low_stock', $3, $4, i.unit_start::date,
			format('%s rooms left after a %s sync, below the threshold of %s', `+unitsLeft+`, $5::text, t.threshold)
		FROM inventory i JOIN stock_alert_thresholds t ON t.hotel_id = $3 AND t.room_type = $4
		WHERE i.resource_id = $1 AND i.unit_start = ANY($2) AND i.total IS NOT NULL AND `+unitsLeft+` < t.threshold
		ON CONFLICT DO NOTHING`, resourceID, dates, hotelID, rt.RoomTypeID, source)
	return w, err
}

// SupplierHotels lists the hotels a supplier supplies.
func (s *Store) SupplierHotels(ctx context.Context, supplierID string) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT id FROM hotels WHERE supplier_id = $1 ORDER BY id`, supplierID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// StockNightView is one night of supplier stock as operators see it: total (nil: unlimited),
// what is sold (confirmed), held (awaiting payment or the supplier: a hold's units, and those an
// amendment adds beside its booking's own until its balance is paid or its supplier confirms),
// blocked rooms (out of order), whether it is closed (Blocked: closed, or under a stop-sell for
// every sale, named by StopSellID), available (Unlimited when the total is), and when and from
// where the total last came.
type StockNightView struct {
	RoomTypeID   string      `json:"roomTypeId"`
	Date         domain.Date `json:"date"`
	Total        *int        `json:"total"`
	Sold         int         `json:"sold"`
	Held         int         `json:"held"`
	BlockedRooms int         `json:"blockedRooms"`
	Blocked      bool        `json:"blocked"`
	StopSellID   int64       `json:"stopSellId,omitempty"`
	Available    int         `json:"available"`
	Unlimited    bool        `json:"unlimited,omitempty"`
	SyncedAt     *time.Time  `json:"syncedAt,omitempty"`
	SyncedFrom   string      `json:"syncedFrom,omitempty"`
	// ReportedAt is the report time of the supplier's report that set the night (see
	// ApplySupplierStock).
	ReportedAt *time.Time `json:"reportedAt,omitempty"`
	// The night's group blocks (docs/groups-and-blocks.md): the rooms definite and tentative
	// blocks promise, what their guests picked up (counted in sold and held) and what definite
	// ones still set aside (GroupRemaining, off sale besides sold and held).
	GroupDefinite  int `json:"groupDefinite"`
	GroupTentative int `json:"groupTentative"`
	GroupPicked    int `json:"groupPicked"`
	GroupRemaining int `json:"groupRemaining"`
}

// HotelStock lists a hotel's nights in [from, to) with what is sold and held of each: a night's
// total is sold + held + blocked rooms + group rooms set aside + available (unless it is closed
// or over-reserved). A
// night a stop-sell closes for every sale shows closed, with nothing available.
func (s *Store) HotelStock(ctx context.Context, hotelID string, from, to domain.Date) ([]StockNightView, error) {
	rules, err := activeSaleRules(ctx, s.pool, hotelID)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT r.code, i.unit_start, i.total,
			COALESCE((SELECT sum(b.quantity) FROM bookings b WHERE b.resource_id = r.id AND b.status IN ('CONFIRMED', 'COMPLETED')
				AND i.unit_start >= b.unit_from AND i.unit_start < b.unit_to), 0),
			COALESCE((SELECT sum(b.quantity) FROM bookings b WHERE b.resource_id = r.id AND b.status = 'HOLD'
				AND i.unit_start >= b.unit_from AND i.unit_start < b.unit_to), 0)
			+ COALESCE((SELECT sum(l.quantity) FROM booking_lines l JOIN bookings b ON b.id = l.booking_id
				WHERE l.resource_id = r.id AND l.amendment_id IS NOT NULL AND b.status IN ('HOLD', 'CONFIRMED', 'COMPLETED')
				AND i.unit_start >= l.unit_from AND i.unit_start < l.unit_to), 0),
			i.blocked, i.closed_at IS NOT NULL, `+unitsLeft+`, i.synced_at, COALESCE(i.synced_from, ''), i.reported_at,
			g.definite, g.tentative, g.picked, g.remaining
		FROM resources r JOIN inventory i ON i.resource_id = r.id
			CROSS JOIN LATERAL (SELECT COALESCE(sum(n.rooms) FILTER (WHERE k.status = 'DEFINITE'), 0) AS definite,
					COALESCE(sum(n.rooms) FILTER (WHERE k.status = 'INQUIRY'), 0) AS tentative,
					COALESCE(sum(n.picked), 0) AS picked, COALESCE(sum(n.held), 0) AS remaining
				FROM block_nights n JOIN blocks k ON k.id = n.block_id
				WHERE n.resource_id = r.id AND n.unit_start = i.unit_start) g
		WHERE r.hotel_id = $1 AND i.unit_start >= $2 AND i.unit_start < $3
		ORDER BY r.code, i.unit_start`, hotelID, from.Time(), to.Time())
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (StockNightView, error) {
		var v StockNightView
		var night time.Time
		err := r.Scan(&v.RoomTypeID, &night, &v.Total, &v.Sold, &v.Held, &v.BlockedRooms, &v.Blocked, &v.Available,
			&v.SyncedAt, &v.SyncedFrom, &v.ReportedAt, &v.GroupDefinite, &v.GroupTentative, &v.GroupPicked, &v.GroupRemaining)
		v.Date = domain.DateOf(night, time.UTC)
		if stop := domain.StopSold(rules, hotelID, v.RoomTypeID, v.Date); stop != nil {
			v.Blocked, v.StopSellID, v.Available = true, stop.ID, 0
		}
		v.Unlimited = v.Total == nil && !v.Blocked
		return v, err
	})
}
