package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

const saleRuleColumns = `id, kind, hotel_id, COALESCE(room_type, ''), COALESCE(rate_plan, ''), COALESCE(channel_id, ''),
	COALESCE(agent_id, ''),
	from_date, to_date, min_advance, max_advance, min_los, max_los, discount_from, discount_percent, discount_amount,
	overrides_global, COALESCE(reason, ''), note, set_by`

func scanSaleRule(row pgx.CollectableRow) (domain.SaleRule, error) {
	var r domain.SaleRule
	var from, to *time.Time
	err := row.Scan(&r.ID, &r.Kind, &r.HotelID, &r.RoomTypeID, &r.RatePlan, &r.ChannelID, &r.AgentID, &from, &to,
		&r.MinAdvance, &r.MaxAdvance, &r.MinLOS, &r.MaxLOS, &r.DiscountFrom, &r.DiscountPercent, &r.DiscountAmount,
		&r.OverridesGlobal, &r.Reason, &r.Note, &r.SetBy)
	if from != nil {
		r.From = domain.DateOf(*from, time.UTC)
	}
	if to != nil {
		r.To = domain.DateOf(*to, time.UTC)
	}
	return r, err
}

// dateArg is a rule's date as a query argument: NULL when zero.
func dateArg(d domain.Date) *time.Time {
	if d.IsZero() {
		return nil
	}
	t := d.Time()
	return &t
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// CreateSaleRules stores validated rules, all or none, and returns them with their ids. A hotel,
// room type, channel or agent that does not exist is ErrNotFound and stores nothing.
func (s *Store) CreateSaleRules(ctx context.Context, rules []domain.SaleRule) ([]domain.SaleRule, error) {
	out := make([]domain.SaleRule, 0, len(rules))
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		hotels := make([]string, len(rules))
		for i, r := range rules {
			hotels[i] = r.HotelID
		}
		if err := lockSaleRules(ctx, tx, hotels...); err != nil {
			return err
		}
		for _, r := range rules {
			if err := checkRuleScope(ctx, tx, r); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, `INSERT INTO sale_rules (kind, hotel_id, room_type, channel_id, agent_id, from_date,
					to_date, min_advance, max_advance, min_los, max_los, discount_from, discount_percent, discount_amount,
					overrides_global, reason, note, set_by, rate_plan)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
				RETURNING `+saleRuleColumns, ruleArgs(r)...)
			if err != nil {
				return err
			}
			stored, err := pgx.CollectExactlyOneRow(rows, scanSaleRule)
			if err != nil {
				return err
			}
			out = append(out, stored)
		}
		for _, r := range out {
			// A rule overriding the hotel's own of its kind may ease it (a channel's shorter
			// minimum stay): the stays it lets sell go to the waitlist first.
			if r.OverridesGlobal {
				if err := offerAfterRuleChange(ctx, tx, scopeOf(r)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return out, err
}

func ruleArgs(r domain.SaleRule) []any {
	return []any{r.Kind, r.HotelID, nullable(r.RoomTypeID), nullable(r.ChannelID), nullable(r.AgentID),
		dateArg(r.From), dateArg(r.To), r.MinAdvance, r.MaxAdvance, r.MinLOS, r.MaxLOS, r.DiscountFrom,
		r.DiscountPercent, r.DiscountAmount, r.OverridesGlobal, nullable(r.Reason), r.Note, r.SetBy, nullable(r.RatePlan)}
}

// checkRuleScope answers ErrNotFound for a rule naming a hotel, room type, rate plan, channel or
// agent that does not exist, and ErrInvalid for one naming a plan that does not sell its room type.
// Under the sale lock a plan's room types do not change (PutRatePlan takes it too).
func checkRuleScope(ctx context.Context, q querier, r domain.SaleRule) error {
	var hotel, roomType, channel, agent bool
	var planTypes *[]string
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM hotels WHERE id = $1),
			$2 = '' OR EXISTS (SELECT 1 FROM resources WHERE hotel_id = $1 AND code = $2),
			$3 = '' OR EXISTS (SELECT 1 FROM channels WHERE id = $3),
			$4 = '' OR EXISTS (SELECT 1 FROM agents WHERE id = $4),
			(SELECT room_types FROM rate_plans WHERE hotel_id = $1 AND code = $5)`,
		r.HotelID, r.RoomTypeID, r.ChannelID, r.AgentID, r.RatePlan).Scan(&hotel, &roomType, &channel, &agent, &planTypes)
	switch {
	case err != nil:
		return err
	case !hotel:
		return fmt.Errorf("%w: no hotel %q", domain.ErrNotFound, r.HotelID)
	case !roomType:
		return fmt.Errorf("%w: hotel %s has no room type %q", domain.ErrNotFound, r.HotelID, r.RoomTypeID)
	case !channel:
		return fmt.Errorf("%w: no channel %q", domain.ErrNotFound, r.ChannelID)
	case !agent:
		return fmt.Errorf("%w: no agent %q", domain.ErrNotFound, r.AgentID)
	case r.RatePlan != "" && planTypes == nil:
		return fmt.Errorf("%w: hotel %s has no rate plan %q", domain.ErrNotFound, r.HotelID, r.RatePlan)
	case r.RatePlan != "" && r.RoomTypeID != "" && !(domain.RatePlan{RoomTypes: *planTypes}).Sells(r.RoomTypeID):
		return fmt.Errorf("%w: rate plan %s of hotel %s does not sell room type %s", domain.ErrInvalid, r.RatePlan,
			r.HotelID, r.RoomTypeID)
	}
	return nil
}

// SaleRuleFilter selects rules to list.
type SaleRuleFilter struct {
	HotelID string
	Kind    domain.RuleKind // empty: every kind
	// Ended includes cancelled and expired rules.
	Ended bool
}

// SaleRules lists a hotel's rules, newest first.
func (s *Store) SaleRules(ctx context.Context, f SaleRuleFilter) ([]domain.SaleRule, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+saleRuleColumns+` FROM sale_rules
		WHERE hotel_id = $1 AND ($2 = '' OR kind = $2) AND ($3 OR (cancelled_at IS NULL AND expired_at IS NULL))
		ORDER BY id DESC LIMIT 1000`, f.HotelID, f.Kind, f.Ended)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanSaleRule)
}

// GetSaleRule loads one rule, whether or not it ended.
func (s *Store) GetSaleRule(ctx context.Context, id int64) (domain.SaleRule, error) {
	return getSaleRule(ctx, s.pool, id)
}

func getSaleRule(ctx context.Context, q querier, id int64) (domain.SaleRule, error) {
	rows, err := q.Query(ctx, `SELECT `+saleRuleColumns+` FROM sale_rules WHERE id = $1`, id)
	if err != nil {
		return domain.SaleRule{}, err
	}
	r, err := pgx.CollectExactlyOneRow(rows, scanSaleRule)
	if errors.Is(err, pgx.ErrNoRows) {
		err = fmt.Errorf("%w: no sale rule %d", domain.ErrNotFound, id)
	}
	return r, err
}

// ReplaceSaleRule changes an active rule to r (same id and hotel; its kind may not change).
// Stays it no longer refuses are offered to the waitlist first (offerAfterRuleChange).
func (s *Store) ReplaceSaleRule(ctx context.Context, id int64, r domain.SaleRule) (domain.SaleRule, error) {
	var out domain.SaleRule
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockSaleRules(ctx, tx, r.HotelID); err != nil {
			return err
		}
		if err := checkRuleScope(ctx, tx, r); err != nil {
			return err
		}
		was, err := getSaleRule(ctx, tx, id)
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			return err
		}
		rows, err := tx.Query(ctx, `UPDATE sale_rules SET room_type = $3, channel_id = $4, agent_id = $5, from_date = $6,
				to_date = $7, min_advance = $8, max_advance = $9, min_los = $10, max_los = $11, discount_from = $12,
				discount_percent = $13, discount_amount = $14, overrides_global = $15, reason = $16, note = $17,
				set_by = $18, rate_plan = $19, updated_at = now()
			WHERE id = $20 AND kind = $1 AND hotel_id = $2 AND cancelled_at IS NULL AND expired_at IS NULL
			RETURNING `+saleRuleColumns, append(ruleArgs(r), id)...)
		if err != nil {
			return err
		}
		out, err = pgx.CollectExactlyOneRow(rows, scanSaleRule)
		if errors.Is(err, pgx.ErrNoRows) {
			err = fmt.Errorf("%w: no active %s rule %d at hotel %s", domain.ErrNotFound, r.Kind, id, r.HotelID)
		}
		if err != nil {
			return err
		}
		// What the rule refused before may sell now: the waitlist's first.
		return offerAfterRuleChange(ctx, tx, scopeOf(was).with(scopeOf(out)))
	})
	return out, err
}

// EndSaleRule cancels an active rule: from this moment it no longer applies (a cancelled
// stop-sell is sellable again at once, to the waitlist first: offerAfterRuleChange). The rule is
// kept, ended, for the record.
func (s *Store) EndSaleRule(ctx context.Context, id int64) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		var hotel string
		err := tx.QueryRow(ctx, `SELECT hotel_id FROM sale_rules WHERE id = $1`, id).Scan(&hotel)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: no active sale rule %d", domain.ErrNotFound, id)
		}
		if err != nil {
			return err
		}
		if err := lockSaleRules(ctx, tx, hotel); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE sale_rules SET cancelled_at = now(), updated_at = now()
			WHERE id = $1 AND cancelled_at IS NULL AND expired_at IS NULL`, id)
		if err == nil && tag.RowsAffected() == 0 {
			err = fmt.Errorf("%w: no active sale rule %d", domain.ErrNotFound, id)
		}
		if err != nil {
			return err
		}
		ended, err := getSaleRule(ctx, tx, id)
		if err != nil {
			return err
		}
		// What it refused may sell now: the waitlist's first.
		return offerAfterRuleChange(ctx, tx, scopeOf(ended))
	})
}

// ExpireStopSells marks the stop-sells, and the other dated restrictions (closed to arrival or
// departure, stay through, arrival advance), whose last date is over at their hotel expired, and
// returns how many it marked: none of them can meet a stay sold from then on, and every hold
// reads the rules in force.
func (s *Store) ExpireStopSells(ctx context.Context) (int, error) {
	var n int
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT DISTINCT r.hotel_id FROM sale_rules r JOIN hotels h ON h.id = r.hotel_id
			WHERE `+datedRuleOverSQL)
		if err != nil {
			return err
		}
		hotels, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil || len(hotels) == 0 {
			return err
		}
		if err := lockSaleRules(ctx, tx, hotels...); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE sale_rules r SET expired_at = now(), updated_at = now()
			FROM hotels h WHERE h.id = r.hotel_id AND `+datedRuleOverSQL)
		n = int(tag.RowsAffected())
		return err
	})
	return n, err
}

// datedRuleOverSQL selects the active dated restrictions r whose last date ([from, to)) is over
// at their hotel h.
const datedRuleOverSQL = `r.kind IN ('stop_sell', 'closed_to_arrival', 'closed_to_departure', 'stay_through',
		'arrival_advance')
	AND r.cancelled_at IS NULL AND r.expired_at IS NULL
	AND r.to_date <= (now() AT TIME ZONE h.time_zone)::date`

// lockSaleRules takes the sale lock of hotels for a rule write, in its transaction before it
// changes a rule: their rows, then their room types' rows (resources), FOR UPDATE in id order
// (no deadlock between writes). A reservation holds its room type's row FOR KEY SHARE from its
// booking row on (the foreign key's check, see insertBooking) and reads the rules after, so the
// write waits for every reservation in flight at the hotel and holds new ones until it commits:
// a rule applies to every sale not committed before it is answered. A room type being added
// holds the hotel's row FOR KEY SHARE, so the second statement, which sees what committed while
// the first waited, misses none. Reservations take no lock of their own for this, and hotels
// without rule writes never wait. An unknown hotel is left to the write's own checks.
func lockSaleRules(ctx context.Context, tx pgx.Tx, hotels ...string) error {
	if _, err := tx.Exec(ctx, `SELECT 1 FROM hotels WHERE id = ANY($1) ORDER BY id FOR UPDATE`, hotels); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `SELECT 1 FROM resources WHERE hotel_id = ANY($1) ORDER BY id FOR UPDATE`, hotels)
	return err
}

// SaleRulesInForce returns the rules in force at a hotel.
func (s *Store) SaleRulesInForce(ctx context.Context, hotelID string) ([]domain.SaleRule, error) {
	return activeSaleRules(ctx, s.pool, hotelID)
}

// activeSaleRules returns the rules in force at a hotel.
func activeSaleRules(ctx context.Context, q querier, hotelID string) ([]domain.SaleRule, error) {
	rows, err := q.Query(ctx, rulesInForceSQL, hotelID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanSaleRule)
}

const rulesInForceSQL = `SELECT ` + saleRuleColumns + ` FROM sale_rules
	WHERE hotel_id = $1 AND cancelled_at IS NULL AND expired_at IS NULL`

// JudgeSale evaluates a hotel's rules for a sale whose Today is zero (then today at the hotel by
// the database's clock is used).
func (s *Store) JudgeSale(ctx context.Context, c domain.SaleContext) (domain.SaleVerdict, error) {
	return judgeSale(ctx, s.pool, c)
}

// batchQuerier is a querier that also pipelines: the pool or a transaction.
type batchQuerier interface {
	querier
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// judgeSale evaluates the rules in force at the sale's hotel, read in one round trip with its
// date (when c.Today is zero). In a reservation (or a retake) the room type's sale lock must be
// held first (see insertBooking) so that no rule write is in flight.
func judgeSale(ctx context.Context, q batchQuerier, c domain.SaleContext) (domain.SaleVerdict, error) {
	b := &pgx.Batch{}
	if c.Today.IsZero() {
		b.Queue(`SELECT (now() AT TIME ZONE time_zone)::date FROM hotels WHERE id = $1`, c.HotelID).QueryRow(func(row pgx.Row) error {
			var today time.Time
			err := row.Scan(&today)
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("%w: no hotel %q", domain.ErrNotFound, c.HotelID)
			}
			c.Today = domain.DateOf(today, time.UTC)
			return err
		})
	}
	var rules []domain.SaleRule
	b.Queue(rulesInForceSQL, c.HotelID).Query(func(rows pgx.Rows) (err error) {
		rules, err = pgx.CollectRows(rows, scanSaleRule)
		return err
	})
	if err := q.SendBatch(ctx, b).Close(); err != nil {
		return domain.SaleVerdict{}, err
	}
	return domain.EvaluateSale(rules, c), nil
}
