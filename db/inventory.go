package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// Hotel is a hotel as stored.
type Hotel struct {
	ID       string
	Location *time.Location
	Policy   domain.CancellationPolicy
	// Country (ISO 3166-1 alpha-2, "" for none) is where the desk's national phone numbers are
	// read.
	Country string
}

// GetHotel loads a hotel with its time zone and cancellation policy.
func (s *Store) GetHotel(ctx context.Context, id string) (Hotel, error) {
	return getHotel(ctx, s.pool, id)
}

func getHotel(ctx context.Context, q querier, id string) (Hotel, error) {
	return scanHotel(id, q.QueryRow(ctx, hotelSQL, id))
}

// hotelSQL reads a hotel's zone and cancellation policy; scanHotel reads its row.
const hotelSQL = `SELECT h.time_zone, ` + policyJSON + `, coalesce(h.country, '') FROM hotels h WHERE h.id = $1`

func scanHotel(id string, row pgx.Row) (Hotel, error) {
	h := Hotel{ID: id}
	var tz string
	err := row.Scan(&tz, &h.Policy, &h.Country)
	if errors.Is(err, pgx.ErrNoRows) {
		return h, fmt.Errorf("%w: no hotel %q", domain.ErrNotFound, id)
	}
	if err != nil {
		return h, err
	}
	h.Location, err = time.LoadLocation(tz)
	return h, err
}

// RoomTypeExists reports whether the hotel sells the room type.
func (s *Store) RoomTypeExists(ctx context.Context, hotelID, roomTypeID string) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM resources WHERE hotel_id = $1 AND code = $2)`,
		hotelID, roomTypeID).Scan(&ok)
	return ok, err
}

// SetInventoryParams sets the total rooms of a room type for the nights [From, To).
type SetInventoryParams struct {
	HotelID    string
	RoomTypeID string
	From, To   domain.Date
	TotalRooms int
	// Unlimited sells the nights without a total ("a price means a room"): TotalRooms is ignored.
	Unlimited bool
	// Source says where the total came from: "manual" (an admin, the default), or a supplier
	// sync ("pull" or "push").
	Source string
	// TimeZone is used when the hotel is new; empty means UTC. For an existing hotel it must be
	// empty or the hotel's own zone.
	TimeZone string
	// Country, when not empty, sets the hotel's country (ISO 3166-1 alpha-2); empty keeps it.
	Country string
	// Rate, when set, is the nightly rate for the range; nil keeps the rates already set.
	Rate *domain.Money
	// Free: a Rate of 0 is meant; without it a night at 0 is not sold.
	Free bool
}

// SetInventory creates the hotel and room type when needed and sets the total for every night in
// the range, opening nights not yet on sale. Lowering a total below what is already reserved on
// any night is a conflict and changes nothing. Rooms it frees are offered to the waitlist first,
// in its transaction (offerFreed).
func (s *Store) SetInventory(ctx context.Context, p SetInventoryParams) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		tz := p.TimeZone
		if tz == "" {
			tz = "UTC"
		}
		var stored string
		err := tx.QueryRow(ctx, `INSERT INTO hotels (id, time_zone, country) VALUES ($1, $2, NULLIF($3, ''))
			ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id, country = coalesce(EXCLUDED.country, hotels.country)
			RETURNING time_zone`, p.HotelID, tz, p.Country).Scan(&stored)
		if err != nil {
			return err
		}
		if p.TimeZone != "" && stored != p.TimeZone {
			return fmt.Errorf("%w: hotel %s already exists with time zone %s", domain.ErrConflict, p.HotelID, stored)
		}
		var resourceID int64
		err = tx.QueryRow(ctx, `INSERT INTO resources (kind, hotel_id, code) VALUES ('hotel_room_type', $1, $2)
			ON CONFLICT (hotel_id, code) DO UPDATE SET kind = EXCLUDED.kind RETURNING id`,
			p.HotelID, p.RoomTypeID).Scan(&resourceID)
		if err != nil {
			return err
		}
		// Ascending order, like every other writer of inventory rows.
		var rate *int64
		var currency *string
		if p.Rate != nil {
			rate, currency = &p.Rate.Amount, &p.Rate.Currency
		}
		total := &p.TotalRooms
		if p.Unlimited {
			total = nil
		}
		source := p.Source
		if source == "" {
			source = "manual"
		}
		// Lock the nights first (ascending, as every writer does; with the waitlist's, for the
		// offer below), then, in a statement that sees what the lock holders committed, refuse a
		// total below what a night promised its channels: all their allotments, and their unsold
		// rooms besides what is sold.
		nights := []line{{resourceID: resourceID, from: p.From.Time(), to: p.To.Time()}}
		waiting, err := lockForGiveBack(ctx, tx, nights)
		if err != nil {
			return err
		}
		var short, blocked int
		err = tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM (SELECT i.unit_start FROM inventory i
				JOIN allocations a ON a.resource_id = i.resource_id AND a.unit_start = i.unit_start
				WHERE i.resource_id = $1 AND i.unit_start >= $2 AND i.unit_start < $3
				GROUP BY i.unit_start, i.reserved, i.blocked
				HAVING $4 OR sum(a.allotted) > $5 OR i.reserved + i.blocked + sum(a.allotted - a.used) > $5) x),
			(SELECT count(*) FROM inventory i WHERE i.resource_id = $1 AND i.unit_start >= $2 AND i.unit_start < $3
				AND NOT $4 AND i.blocked > 0 AND i.reserved + i.blocked > $5)`,
			resourceID, p.From.Time(), p.To.Time(), p.Unlimited, p.TotalRooms).Scan(&short, &blocked)
		if err != nil {
			return err
		}
		if short > 0 {
			return fmt.Errorf("%w: %d nights in [%s, %s) promise channels more rooms than %d (or stock split between "+
				"channels cannot be unlimited): lower or remove the allocations first", domain.ErrConflict, short, p.From, p.To, p.TotalRooms)
		}
		if blocked > 0 {
			return fmt.Errorf("%w: on %d nights in [%s, %s) more rooms are reserved and blocked (out of order) than %d: "+
				"unblock rooms first", domain.ErrConflict, blocked, p.From, p.To, p.TotalRooms)
		}
		_, err = tx.Exec(ctx, `INSERT INTO inventory (resource_id, unit_start, total, rate, currency, free, synced_at, synced_from)
			SELECT $1, d, $4, $5, $6, $8, now(), $7 FROM generate_series($2::timestamp, $3::timestamp - interval '1 day', interval '1 day') d
			ORDER BY d
			ON CONFLICT (resource_id, unit_start) DO UPDATE SET total = EXCLUDED.total,
				rate = COALESCE(EXCLUDED.rate, inventory.rate), currency = COALESCE(EXCLUDED.currency, inventory.currency),
				free = CASE WHEN EXCLUDED.rate IS NULL THEN inventory.free ELSE EXCLUDED.free END,
				synced_at = EXCLUDED.synced_at, synced_from = EXCLUDED.synced_from`,
			resourceID, p.From.Time(), p.To.Time(), total, rate, currency, source, p.Free && rate != nil)
		if pgCode(err) == codeCheckViolation {
			return fmt.Errorf("%w: totalRooms %d is below the rooms already reserved on a night in [%s, %s)",
				domain.ErrConflict, p.TotalRooms, p.From, p.To)
		}
		if err != nil {
			return err
		}
		// Rooms a raise or a night opened adds go to the waitlist before the public sees them.
		return offerFreed(ctx, tx, nights, waiting)
	})
}

// BlockRooms sets Blocked rooms of a room type out of order on every night of [From, To):
// neither sold nor for sale (a stop-sell closes a night whole; this takes some rooms away).
type BlockRooms struct {
	HotelID    string      `json:"hotelId"`
	RoomTypeID string      `json:"roomTypeId"`
	From       domain.Date `json:"from"`
	To         domain.Date `json:"to"`
	Blocked    int         `json:"blocked"`
}

// SetBlockedRooms sets the blocked rooms of every night of the range, all or none, under the
// nights' lock, and returns how many nights it set. A night not on sale, unlimited stock (no
// rooms to count), or more blocked rooms than the night has free (not sold, held or promised to
// a channel's allocation) is a conflict and changes nothing: blocking never oversells; so is
// fewer blocked rooms than rooms out of order that night (rooms_out_of_order.go). Rooms
// unblocked are offered to the waitlist first, in its transaction.
func (s *Store) SetBlockedRooms(ctx context.Context, p BlockRooms) (int, error) {
	var nights int
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		resourceID, err := roomTypeResource(ctx, tx, p.HotelID, p.RoomTypeID)
		if err != nil {
			return err
		}
		nights, err = setBlocked(ctx, tx, resourceID, p, false)
		return err
	})
	return nights, err
}

// setBlocked is SetBlockedRooms in tx: it sets every night's blocked rooms to p.Blocked, or, by
// (an out-of-order room, rooms_out_of_order.go), raises or lowers each night's by p.Blocked. A
// set below the rooms out of order on a night is refused: those rooms are counted there.
func setBlocked(ctx context.Context, tx pgx.Tx, resourceID int64, p BlockRooms, by bool) (int, error) {
	nightsLine := []line{{resourceID: resourceID, from: p.From.Time(), to: p.To.Time()}}
	waiting, err := lockForGiveBack(ctx, tx, nightsLine)
	if err != nil {
		return 0, err
	}
	var nights, unlimited, short, leastFree, underOutOfOrder int
	err = tx.QueryRow(ctx, `WITH night AS (
			SELECT i.total, CASE WHEN $5 THEN i.blocked + $4 ELSE $4 END AS target,
				i.total - i.reserved - COALESCE((SELECT sum(a.allotted - a.used) FROM allocations a
				WHERE a.resource_id = i.resource_id AND a.unit_start = i.unit_start), 0) AS free,
				(SELECT count(*) FROM room_out_of_order o JOIN rooms m ON m.id = o.room_id
					WHERE m.room_type = i.resource_id AND o.nights @> i.unit_start::date) AS out_of_order
			FROM inventory i WHERE i.resource_id = $1 AND i.unit_start >= $2 AND i.unit_start < $3)
		SELECT count(*), count(*) FILTER (WHERE total IS NULL),
			count(*) FILTER (WHERE free < target AND $4 > 0),
			COALESCE(min(free), 0), count(*) FILTER (WHERE NOT $5 AND target < out_of_order) FROM night`,
		resourceID, p.From.Time(), p.To.Time(), p.Blocked, by).Scan(&nights, &unlimited, &short, &leastFree, &underOutOfOrder)
	span := domain.Stay{CheckIn: p.From, CheckOut: p.To}
	switch {
	case err != nil:
		return 0, err
	case nights < span.Nights():
		return 0, fmt.Errorf("%w: %d nights of %s/%s in [%s, %s) are not on sale", domain.ErrConflict,
			span.Nights()-nights, p.HotelID, p.RoomTypeID, p.From, p.To)
	case unlimited > 0 && p.Blocked > 0:
		return 0, fmt.Errorf("%w: %d nights of %s/%s in [%s, %s) have unlimited stock: there are no rooms to block",
			domain.ErrConflict, unlimited, p.HotelID, p.RoomTypeID, p.From, p.To)
	case short > 0 && by:
		return 0, fmt.Errorf("%w: on %d nights of %s/%s in [%s, %s) no room is free to block (%d on the scarcest; "+
			"the others are sold, held, allotted to channels or blocked): nothing was blocked", domain.ErrConflict,
			short, p.HotelID, p.RoomTypeID, p.From, p.To, max(leastFree, 0))
	case short > 0:
		return 0, fmt.Errorf("%w: on %d nights of %s/%s in [%s, %s) fewer than %d rooms are free to block (%d on the "+
			"scarcest; the others are sold, held or allotted to channels): nothing was blocked", domain.ErrConflict,
			short, p.HotelID, p.RoomTypeID, p.From, p.To, p.Blocked, max(leastFree, 0))
	case underOutOfOrder > 0:
		return 0, fmt.Errorf("%w: on %d nights of %s/%s in [%s, %s) more rooms than %d are out of order: put them "+
			"back in order first", domain.ErrConflict, underOutOfOrder, p.HotelID, p.RoomTypeID, p.From, p.To, p.Blocked)
	}
	_, err = tx.Exec(ctx, `UPDATE inventory SET blocked = CASE WHEN $5 THEN greatest(blocked + $4, 0) ELSE $4 END
		WHERE resource_id = $1 AND unit_start >= $2 AND unit_start < $3`,
		resourceID, p.From.Time(), p.To.Time(), p.Blocked, by)
	if err != nil {
		return 0, err
	}
	return nights, offerFreed(ctx, tx, nightsLine, waiting) // rooms unblocked go to the waitlist first
}

// NightAvailability is what is left of a room type on one night.
type NightAvailability struct {
	Date      domain.Date `json:"date"`
	Available int         `json:"available"`
	// Unlimited: the night has no total ("a price means a room"); Available is then a billion.
	Unlimited bool `json:"unlimited,omitempty"`
}

// RoomTypeAvailability is what is left of a room type over a stay: the minimum over its nights
// (a night not on sale counts as 0) and each night.
type RoomTypeAvailability struct {
	RoomTypeID string              `json:"roomTypeId"`
	Available  int                 `json:"available"`
	Unlimited  bool                `json:"unlimited,omitempty"` // every night is unlimited
	Nights     []NightAvailability `json:"nights"`
	// UnavailableBecause names the sale rule that refuses the stay (the hotel availability
	// endpoint fills it in; Available is then 0).
	UnavailableBecause string `json:"unavailableBecause,omitempty"`
	// SupplierPrice is a direct_connect supplier's quote for one room over the stay.
	SupplierPrice *domain.Price `json:"supplierPrice,omitempty"`
	// Offers are the rate plans the search's party may sell of the room type over the stay (the
	// hotel availability endpoint fills them in).
	Offers []domain.Offer `json:"offers,omitempty"`
	// NightRates are the nights' rates, one per night (zero where a night has no inventory row),
	// from which the offers are priced.
	NightRates []domain.NightRates `json:"-"`
}

// Availability returns, for every room type of the hotel, the rooms left over the stay for a
// sale through channel (empty: a direct sale): on a night split between channels, what the
// channel's allocation and the shared pool have left (the pool alone for a direct sale).
func (s *Store) Availability(ctx context.Context, hotelID, channel string, stay domain.Stay) ([]RoomTypeAvailability, error) {
	return availability(ctx, s.reads(ctx), hotelID, channel, stay)
}

// availability is Availability read through q: a pool, or a transaction whose snapshot it
// shares with other reads (the ARI export's).
func availability(ctx context.Context, q reader, hotelID, channel string, stay domain.Stay) ([]RoomTypeAvailability, error) {
	rows, err := q.Query(ctx, `SELECT r.code, d, COALESCE(`+unitsLeft+`, 0), i.unit_start IS NOT NULL AND i.total IS NULL
			AND i.closed_at IS NULL, a.allotted IS NOT NULL AND i.total IS NOT NULL,
			COALESCE(a.own, 0), COALESCE(i.total - a.allotted - i.blocked - (i.reserved - a.used), 0), `+nightRatesColumns+`
		FROM resources r
		CROSS JOIN generate_series($2::timestamp, $3::timestamp - interval '1 day', interval '1 day') d
		-- One primary-key lookup per night (LIMIT 1 keeps the planner from flattening it): a
		-- plain join let it, guessing 1,000 rows for generate_series, hash the whole inventory
		-- of a small catalogue (100 ms a search at 100k rows instead of 1 ms).
		LEFT JOIN LATERAL (SELECT * FROM inventory x WHERE x.resource_id = r.id AND x.unit_start = d LIMIT 1) i ON true
		LEFT JOIN LATERAL (SELECT sum(allotted) AS allotted, sum(used) AS used,
				COALESCE(sum(allotted - used) FILTER (WHERE channel_id = $4), 0) AS own
			FROM allocations x WHERE x.resource_id = i.resource_id AND x.unit_start = i.unit_start) a ON true
		WHERE r.hotel_id = $1
		ORDER BY r.code, d`, hotelID, stay.CheckIn.Time(), stay.CheckOut.Time(), channel)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []RoomTypeAvailability{}
	var rates nightRatesScan // every row sets each of its fields; kept for its plan rates' memo
	for rows.Next() {
		var roomType string
		var night time.Time
		var left, own, pool int
		var unlimited, split bool
		if err := rows.Scan(append([]any{&roomType, &night, &left, &unlimited, &split, &own, &pool}, rates.targets()...)...); err != nil {
			return nil, err
		}
		if split {
			left = min(left, max(own, 0)+max(pool, 0))
		}
		if len(out) == 0 || out[len(out)-1].RoomTypeID != roomType {
			out = append(out, RoomTypeAvailability{RoomTypeID: roomType, Available: left, Unlimited: true})
		}
		cur := &out[len(out)-1]
		cur.Available, cur.Unlimited = min(cur.Available, left), cur.Unlimited && unlimited
		date := domain.DateOf(night, time.UTC)
		cur.Nights = append(cur.Nights, NightAvailability{Date: date, Available: left, Unlimited: unlimited})
		cur.NightRates = append(cur.NightRates, rates.rates(date))
	}
	return out, rows.Err()
}

// unitsLeft is what an inventory row i has left to sell: nothing while it is closed or missing
// (a left join found no row: not on sale), and a billion (more than any request) when it has no
// total: unlimited stock. Blocked rooms (out of order) are not for sale; a supplier's sync may
// lower a total under reserved + blocked, which leaves nothing, never less.
const unitsLeft = `CASE WHEN i.unit_start IS NULL OR i.closed_at IS NOT NULL THEN 0
	WHEN i.total IS NULL THEN 1000000000 ELSE GREATEST(i.total - i.reserved - i.blocked, 0) END`

// SetRates sets the nightly rate of a room type for the nights of [from, to) that are open for
// sale and returns how many nights it changed. free says a rate of 0 is meant: a night at 0
// without it is not sold. Bookings keep the price they were held at.
func (s *Store) SetRates(ctx context.Context, hotelID, roomTypeID string, from, to domain.Date, rate domain.Money, free bool) (int, error) {
	var n int
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE inventory i SET rate = $5, currency = $6, free = $7
			FROM resources r WHERE r.id = i.resource_id AND r.hotel_id = $1 AND r.code = $2
				AND i.unit_start >= $3 AND i.unit_start < $4`,
			hotelID, roomTypeID, from.Time(), to.Time(), rate.Amount, rate.Currency, free)
		if err != nil {
			return err
		}
		n = int(tag.RowsAffected())
		// Nights without a rate were not for sale: priced now, they go to the waitlist first.
		if n > 0 {
			resource, err := roomTypeResource(ctx, tx, hotelID, roomTypeID)
			if err != nil {
				return err
			}
			if err := offerAfterLocks(ctx, tx, []line{{resourceID: resource, from: from.Time(), to: to.Time()}}); err != nil {
				return err
			}
		}
		// A rate plan's own rates on these nights are in the nights' currency (SetPlanRates reads
		// the rows this updated FOR SHARE, so one of the two sees the other).
		var plan string
		err = tx.QueryRow(ctx, `SELECT p.plan_code FROM plan_rates p JOIN resources r ON r.id = p.resource_id
			WHERE r.hotel_id = $1 AND r.code = $2 AND p.unit_start >= $3 AND p.unit_start < $4 AND p.currency <> $5
			LIMIT 1`, hotelID, roomTypeID, from.Time(), to.Time(), rate.Currency).Scan(&plan)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return nil
		case err != nil:
			return err
		}
		return fmt.Errorf("%w: rate plan %s has rates of its own in another currency than %s on these nights",
			domain.ErrConflict, plan, rate.Currency)
	})
	return n, err
}

// policyJSON is a hotel h's cancellation policy as a domain.CancellationPolicy in JSON: read
// with the hotel, and copied onto every booking held there. An early departure that gives
// nothing back is left out, as in the policies of the bookings held before it was a choice.
const policyJSON = `jsonb_strip_nulls(jsonb_build_object('freeUntilHours', h.free_until_hours, 'feePercent', h.fee_percent,
	'feeFixed', h.fee_fixed, 'feeCurrency', COALESCE(h.fee_currency, ''), 'noRefundHours', h.no_refund_hours,
	'earlyDeparture', NULLIF(h.early_departure_refund, 'none')))`

// SetCancellationPolicy replaces a hotel's cancellation policy for the bookings held from now on;
// bookings already held keep theirs.
func (s *Store) SetCancellationPolicy(ctx context.Context, hotelID string, p domain.CancellationPolicy) error {
	// A fixed fee is refused in a currency the hotel's nights are not priced in: it could never
	// be kept from their payments.
	var exists, otherCurrency bool
	err := s.pool.QueryRow(ctx, `WITH updated AS (
			UPDATE hotels SET free_until_hours = $2, fee_percent = $3, fee_fixed = $4,
				fee_currency = NULLIF($5, ''), no_refund_hours = $6, early_departure_refund = COALESCE(NULLIF($7, ''), 'none')
			WHERE id = $1 AND ($4 = 0 OR NOT EXISTS (SELECT 1 FROM inventory i JOIN resources r ON r.id = i.resource_id
				WHERE r.hotel_id = $1 AND i.currency <> $5))
			RETURNING id)
		SELECT EXISTS (SELECT 1 FROM hotels WHERE id = $1), NOT EXISTS (SELECT 1 FROM updated)`,
		hotelID, p.FreeUntilHours, p.FeePercent, p.FeeFixed, p.FeeCurrency, p.NoRefundHours,
		p.EarlyDeparture).Scan(&exists, &otherCurrency)
	switch {
	case err != nil:
		return err
	case !exists:
		return fmt.Errorf("%w: no hotel %q", domain.ErrNotFound, hotelID)
	case otherCurrency:
		return fmt.Errorf("%w: hotel %s has nights priced in another currency than the fixed fee's %s",
			domain.ErrConflict, hotelID, p.FeeCurrency)
	}
	return nil
}

// RoomTypeRef is a hotel's room type and the resource that holds its nights.
type RoomTypeRef struct {
	Code       string
	ResourceID int64
}

const roomTypesSQL = `SELECT code, id FROM resources WHERE hotel_id = $1 ORDER BY code`

// HotelTerms is what searches and holds read of a hotel: its zone and policy, its supplier
// (none: zero), the sale rules in force, its room types and its rate plans.
type HotelTerms struct {
	Hotel    Hotel
	Supplier Supplier
	Rules    []domain.SaleRule
	Rooms    []RoomTypeRef
	Plans    []domain.RatePlan
}

// HotelTerms reads a hotel's terms in one round trip (a pipelined batch): ErrNotFound for an
// unknown hotel.
func (s *Store) HotelTerms(ctx context.Context, hotelID string) (HotelTerms, error) {
	var t HotelTerms
	b := &pgx.Batch{}
	b.Queue(hotelSQL, hotelID).QueryRow(func(row pgx.Row) (err error) {
		t.Hotel, err = scanHotel(hotelID, row)
		return err
	})
	b.Queue(hotelSupplierSQL, hotelID).Query(func(rows pgx.Rows) (err error) {
		t.Supplier, err = collectSupplier(rows)
		return err
	})
	b.Queue(rulesInForceSQL, hotelID).Query(func(rows pgx.Rows) (err error) {
		t.Rules, err = pgx.CollectRows(rows, scanSaleRule)
		return err
	})
	b.Queue(roomTypesSQL, hotelID).Query(func(rows pgx.Rows) (err error) {
		t.Rooms, err = pgx.CollectRows(rows, pgx.RowToStructByPos[RoomTypeRef])
		return err
	})
	b.Queue(`SELECT `+ratePlanColumns+` FROM rate_plans WHERE hotel_id = $1 ORDER BY code`, hotelID).Query(
		func(rows pgx.Rows) (err error) {
			t.Plans, err = pgx.CollectRows(rows, scanRatePlan)
			return err
		})
	return t, s.pool.SendBatch(ctx, b).Close()
}
