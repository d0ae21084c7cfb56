package db

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// lockRestrictions is the sale lock a bulk restriction write takes: lockSaleRules, which the race
// tests' control replaces to show the race it closes.
var lockRestrictions = lockSaleRules

// RestrictionsWritten counts what a bulk restriction write did to the sale rules.
type RestrictionsWritten struct {
	Written int `json:"written"` // rules written for the dates of the items
	Trimmed int `json:"trimmed"` // rules cut back to the dates outside an item's
	Split   int `json:"split"`   // rules that spanned an item's dates on both sides, now two
	Ended   int `json:"ended"`   // rules wholly within an item's dates, ended
}

// SetRestrictions applies restriction sets (domain.RestrictionSet) to a hotel, in order, all or
// none, in one transaction under the sale lock (lockSaleRules): a restriction answered 2xx applies
// to every hold from then on. For each kind a set changes, the active rules of that kind with
// exactly the set's scope (its room type and plan; no channel or agent) that meet its dates are
// trimmed to the dates outside them (one spanning them both sides is split in two, its second
// half a new rule), and the values on its dates are written as one rule per run of dates with the
// same value: a date then has one value per kind and scope. Rules of other scopes are left as
// they are (a room type's beside the hotel's, a plan's beside every plan's). Stays the sets let
// sell are offered to the waitlist first (offerAfterRuleChange).
func (s *Store) SetRestrictions(ctx context.Context, hotelID, setBy string,
	sets []domain.RestrictionSet) (RestrictionsWritten, error) {
	var out RestrictionsWritten
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockRestrictions(ctx, tx, hotelID); err != nil {
			return err
		}
		var eased *ruleScope
		for i, set := range sets {
			for _, kind := range set.Kinds() {
				if err := setRestriction(ctx, tx, set, set.Scope(kind, hotelID, setBy), &out); err != nil {
					return fmt.Errorf("item %d: %w", i, err)
				}
			}
			from, to := set.From.Time(), set.To.Time()
			scope := ruleScope{hotel: hotelID, roomType: set.RoomTypeID, from: &from, to: &to}
			if eased != nil {
				scope = eased.with(scope)
			}
			eased = &scope
		}
		if eased == nil {
			return nil
		}
		// A stop-sell cleared or a bound eased lets stays sell: the waitlist's first.
		return offerAfterRuleChange(ctx, tx, *eased)
	})
	return out, err
}

// setRestriction writes one kind of a set over its dates (see SetRestrictions).
func setRestriction(ctx context.Context, tx pgx.Tx, set domain.RestrictionSet, scope domain.SaleRule,
	out *RestrictionsWritten) error {
	if err := checkRuleScope(ctx, tx, scope); err != nil {
		return err
	}
	// open ends (a length of stay's) meet every date before or after them
	rows, err := tx.Query(ctx, `SELECT `+saleRuleColumns+` FROM sale_rules
		WHERE hotel_id = $1 AND kind = $2 AND room_type IS NOT DISTINCT FROM $3 AND rate_plan IS NOT DISTINCT FROM $4
			AND channel_id IS NULL AND agent_id IS NULL AND cancelled_at IS NULL AND expired_at IS NULL
			AND (from_date IS NULL OR from_date < $6) AND (to_date IS NULL OR to_date > $5)
		ORDER BY id`, scope.HotelID, scope.Kind, nullable(scope.RoomTypeID), nullable(scope.RatePlan),
		set.From.Time(), set.To.Time())
	if err != nil {
		return err
	}
	old, err := pgx.CollectRows(rows, scanSaleRule)
	if err != nil {
		return err
	}
	// each date's value: the newest old rule on it, then the set's where it applies
	values := make([]*domain.SaleRule, set.From.DaysUntil(set.To))
	for i := range values {
		d := set.From.AddDays(i)
		var was *domain.SaleRule
		for j := range old {
			if (old[j].From.IsZero() || !d.Before(old[j].From)) && (old[j].To.IsZero() || d.Before(old[j].To)) {
				was = &old[j]
			}
		}
		values[i] = was
		if set.OnDate(d) {
			if values[i], err = set.Apply(scope.Kind, was, scope); err != nil {
				return fmt.Errorf("%w (on %s)", err, d)
			}
		}
	}
	for _, r := range old {
		if err := trimRule(ctx, tx, r, set.From, set.To, out); err != nil {
			return err
		}
	}
	for start := 0; start < len(values); {
		end := start + 1
		for end < len(values) && domain.SameValue(values[start], values[end]) {
			end++
		}
		if r := values[start]; r != nil {
			w := *r
			w.From, w.To = set.From.AddDays(start), set.From.AddDays(end)
			if err := w.Validate(); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO sale_rules (kind, hotel_id, room_type, channel_id, agent_id, from_date,
					to_date, min_advance, max_advance, min_los, max_los, discount_from, discount_percent, discount_amount,
					overrides_global, reason, note, set_by, rate_plan)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
				ruleArgs(w)...); err != nil {
				return err
			}
			out.Written++
		}
		start = end
	}
	return nil
}

// trimRule cuts an active rule back to its dates outside [from, to): its part before stays its
// own, its part after becomes a new rule (a split) or its own; a rule with neither is ended.
func trimRule(ctx context.Context, tx pgx.Tx, r domain.SaleRule, from, to domain.Date, out *RestrictionsWritten) error {
	before := r.From.IsZero() || r.From.Before(from)
	after := r.To.IsZero() || r.To.After(to)
	var err error
	switch {
	case before && after:
		_, err = tx.Exec(ctx, `INSERT INTO sale_rules (kind, hotel_id, room_type, rate_plan, channel_id, agent_id, from_date,
				to_date, min_advance, max_advance, min_los, max_los, discount_from, discount_percent, discount_amount,
				overrides_global, reason, note, set_by)
			SELECT kind, hotel_id, room_type, rate_plan, channel_id, agent_id, $2, to_date, min_advance, max_advance,
				min_los, max_los, discount_from, discount_percent, discount_amount, overrides_global, reason, note, set_by
			FROM sale_rules WHERE id = $1`, r.ID, to.Time())
		if err == nil {
			_, err = tx.Exec(ctx, `UPDATE sale_rules SET to_date = $2, updated_at = now() WHERE id = $1`, r.ID, from.Time())
		}
		out.Split++
	case before:
		_, err = tx.Exec(ctx, `UPDATE sale_rules SET to_date = $2, updated_at = now() WHERE id = $1`, r.ID, from.Time())
		out.Trimmed++
	case after:
		_, err = tx.Exec(ctx, `UPDATE sale_rules SET from_date = $2, updated_at = now() WHERE id = $1`, r.ID, to.Time())
		out.Trimmed++
	default:
		_, err = tx.Exec(ctx, `UPDATE sale_rules SET cancelled_at = now(), updated_at = now() WHERE id = $1`, r.ID)
		out.Ended++
	}
	return err
}

// RestrictionRow is a room type's restrictions under one plan (none: the rules of every plan, what
// a plan no rule names gets), date by date.
type RestrictionRow struct {
	RoomTypeID string                  `json:"roomTypeId"`
	RatePlan   string                  `json:"ratePlan,omitempty"`
	Days       []domain.RestrictionDay `json:"days"`
}

// RestrictionCalendar answers the restrictions in force at a hotel on the dates [from, to) (see
// domain.RestrictionCalendar), per room type (roomTypeID: that one) and plan: with plan, that
// plan's rows for the room types it sells; without, a row of every plan's rules per room type and a
// row for each plan some active rule names that sells it. Read in one snapshot.
func (s *Store) RestrictionCalendar(ctx context.Context, hotelID, roomTypeID, plan string,
	from, to domain.Date) ([]RestrictionRow, error) {
	var rows []RestrictionRow
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			plans, err := ratePlans(ctx, tx, hotelID) // ErrNotFound for no hotel
			if err != nil {
				return err
			}
			q, err := tx.Query(ctx, `SELECT code FROM resources WHERE hotel_id = $1 AND ($2 = '' OR code = $2) ORDER BY code`,
				hotelID, roomTypeID)
			if err != nil {
				return err
			}
			types, err := pgx.CollectRows(q, pgx.RowTo[string])
			if err != nil {
				return err
			}
			if roomTypeID != "" && len(types) == 0 {
				return fmt.Errorf("%w: hotel %s has no room type %q", domain.ErrNotFound, hotelID, roomTypeID)
			}
			rules, err := activeSaleRules(ctx, tx, hotelID)
			if err != nil {
				return err
			}
			named := map[string]bool{}
			for _, r := range rules {
				named[r.RatePlan] = true
			}
			if plan != "" && !planIn(plans, plan) {
				return fmt.Errorf("%w: rate plan %s of hotel %s", domain.ErrNotFound, plan, hotelID)
			}
			for _, t := range types {
				if plan == "" {
					rows = append(rows, RestrictionRow{RoomTypeID: t, Days: domain.RestrictionCalendar(rules, hotelID, t, "", from, to)})
				}
				for _, p := range plans {
					if p.Sells(t) && (p.Code == plan || plan == "" && named[p.Code]) {
						rows = append(rows, RestrictionRow{RoomTypeID: t, RatePlan: p.Code,
							Days: domain.RestrictionCalendar(rules, hotelID, t, p.Code, from, to)})
					}
				}
			}
			return nil
		})
	if rows == nil {
		rows = []RestrictionRow{}
	}
	return rows, err
}

func planIn(plans []domain.RatePlan, code string) bool {
	for _, p := range plans {
		if p.Code == code {
			return true
		}
	}
	return false
}
