package db

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// ratePlanColumns are what scanRatePlan reads, in its order.
const ratePlanColumns = `hotel_id, code, name, is_default, room_types, board, includes, policy, payment_rule,
	deposit_percent, balance_due_days, channels, parent, percent_bp, amount, rounding_mode, rounding_step, updated_by,
	updated_at`

func scanRatePlan(row pgx.CollectableRow) (domain.RatePlan, error) {
	var p domain.RatePlan
	var depositPercent, percentBP *int
	var parent, mode *string
	var step, amount *int64
	err := row.Scan(&p.HotelID, &p.Code, &p.Name, &p.Default, &p.RoomTypes, &p.Board, &p.Includes, &p.Policy,
		&p.Payment.Kind, &depositPercent, &p.Payment.BalanceDueDays, &p.Channels, &parent, &percentBP, &amount,
		&mode, &step, &p.UpdatedBy, &p.UpdatedAt)
	if err != nil {
		return p, err
	}
	if depositPercent != nil {
		p.Payment.DepositPercent = *depositPercent
	}
	if parent != nil {
		p.DerivedFrom = &domain.Derivation{Parent: *parent, Amount: amount,
			Rounding: domain.Rounding{Mode: domain.RoundingMode(*mode), Step: *step}}
		if percentBP != nil {
			p.DerivedFrom.Percent = formatBasisPoints(*percentBP)
		}
	}
	return p, nil
}

// formatBasisPoints writes hundredths of a percent as the shortest decimal that reads back to
// them ("-10", "7.5", "-12.25"): how the plan's percent was given, in its canonical form.
func formatBasisPoints(bp int) string {
	sign, v := "", bp
	if v < 0 {
		sign, v = "-", -v
	}
	whole, frac := v/100, v%100
	switch {
	case frac == 0:
		return sign + strconv.Itoa(whole)
	case frac%10 == 0:
		return fmt.Sprintf("%s%d.%d", sign, whole, frac/10)
	default:
		return fmt.Sprintf("%s%d.%02d", sign, whole, frac)
	}
}

// RatePlans lists a hotel's plans by code; ErrNotFound for an unknown hotel.
func (s *Store) RatePlans(ctx context.Context, hotelID string) ([]domain.RatePlan, error) {
	return ratePlans(ctx, s.pool, hotelID)
}

// ratePlans reads a hotel's plans through q (the pool, or a transaction reading more beside them).
func ratePlans(ctx context.Context, q querier, hotelID string) ([]domain.RatePlan, error) {
	rows, err := q.Query(ctx, `SELECT `+ratePlanColumns+` FROM rate_plans WHERE hotel_id = $1 ORDER BY code`, hotelID)
	if err != nil {
		return nil, err
	}
	plans, err := pgx.CollectRows(rows, scanRatePlan)
	if err == nil && len(plans) == 0 {
		// every hotel has its default plan: none means no hotel
		return nil, fmt.Errorf("%w: hotel %s", domain.ErrNotFound, hotelID)
	}
	return plans, err
}

// GetRatePlan loads one plan of a hotel.
func (s *Store) GetRatePlan(ctx context.Context, hotelID, code string) (domain.RatePlan, error) {
	return getRatePlan(ctx, s.pool, hotelID, code)
}

// getRatePlan reads one plan through q (the pool, or a transaction that wrote it), or ErrNotFound.
func getRatePlan(ctx context.Context, q querier, hotelID, code string) (domain.RatePlan, error) {
	rows, err := q.Query(ctx, `SELECT `+ratePlanColumns+` FROM rate_plans WHERE hotel_id = $1 AND code = $2`,
		hotelID, code)
	if err != nil {
		return domain.RatePlan{}, err
	}
	p, err := pgx.CollectExactlyOneRow(rows, scanRatePlan)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, fmt.Errorf("%w: rate plan %s of hotel %s", domain.ErrNotFound, code, hotelID)
	}
	return p, err
}

// PutRatePlan creates or replaces a validated plan of an existing hotel, under the hotel's sale
// lock (lockSaleRules): a plan answered 2xx is what every sale from then on sees. Its room types
// must be the hotel's, its parent one of its plans, and its chain of parents free of cycles and at
// most domain.MaxDerivationDepth deep; the default plan keeps the hotel's price, policy and
// channels (domain.RatePlan.Validate). A plan made derived drops its own rates (plan_rates), a
// plan narrowed those of the room types it no longer sells. It answers the plan as stored.
func (s *Store) PutRatePlan(ctx context.Context, p domain.RatePlan) (domain.RatePlan, error) {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockSaleRules(ctx, tx, p.HotelID); err != nil {
			return err
		}
		if err := checkRatePlanScope(ctx, tx, p); err != nil {
			return err
		}
		var depositPercent, percentBP *int
		var amount, step *int64
		var parent, mode *string
		if p.Payment.Kind == domain.PayDeposit {
			depositPercent = &p.Payment.DepositPercent
		}
		if d := p.DerivedFrom; d != nil {
			// stored as it applies: nearest to the minor unit when the request left them out
			m, st := string(d.Rounding.Mode), d.Rounding.Step
			if m == "" {
				m = string(domain.RoundNearest)
			}
			if st == 0 {
				st = 1
			}
			parent, mode, step, amount = &d.Parent, &m, &st, d.Amount
			if d.Percent != "" {
				bp, err := domain.ParsePercent(d.Percent)
				if err != nil {
					return err
				}
				percentBP = new(int)
				*percentBP = int(bp)
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO rate_plans (hotel_id, code, name, is_default, room_types, board, includes,
				policy, payment_rule, deposit_percent, balance_due_days, channels, parent, percent_bp, amount, rounding_mode,
				rounding_step, updated_by)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
			ON CONFLICT (hotel_id, code) DO UPDATE SET name = EXCLUDED.name, room_types = EXCLUDED.room_types,
				board = EXCLUDED.board, includes = EXCLUDED.includes, policy = EXCLUDED.policy,
				payment_rule = EXCLUDED.payment_rule, deposit_percent = EXCLUDED.deposit_percent,
				balance_due_days = EXCLUDED.balance_due_days, channels = EXCLUDED.channels, parent = EXCLUDED.parent,
				percent_bp = EXCLUDED.percent_bp, amount = EXCLUDED.amount, rounding_mode = EXCLUDED.rounding_mode,
				rounding_step = EXCLUDED.rounding_step, updated_by = EXCLUDED.updated_by, updated_at = now()`,
			p.HotelID, p.Code, p.Name, p.Default, nonNil(p.RoomTypes), p.Board, p.Includes, p.Policy, p.Payment.Kind,
			depositPercent, p.Payment.BalanceDueDays, nonNil(p.Channels), parent, percentBP, amount, mode, step, p.UpdatedBy)
		if err != nil {
			return err
		}
		// A plan made derived drops the rates it had as a root (its price follows its parent's), and
		// a plan narrowed drops those of the room types it no longer sells: none comes back later.
		if _, err := tx.Exec(ctx, `DELETE FROM plan_rates p USING resources r
			WHERE p.hotel_id = $1 AND p.plan_code = $2 AND r.id = p.resource_id
				AND ($3 OR cardinality($4::text[]) > 0 AND r.code <> ALL ($4))`,
			p.HotelID, p.Code, p.DerivedFrom != nil, nonNil(p.RoomTypes)); err != nil {
			return err
		}
		if err := checkPlanRules(ctx, tx, p); err != nil {
			return err
		}
		return checkDerivationChains(ctx, tx, p.HotelID)
	})
	if err != nil {
		return domain.RatePlan{}, err
	}
	return s.GetRatePlan(ctx, p.HotelID, p.Code)
}

// checkRatePlanScope refuses a plan of an unknown hotel (404), one that would change whether a
// plan is the hotel's default, one naming a room type the hotel does not have, or derived from a
// plan the hotel does not have (422).
func checkRatePlanScope(ctx context.Context, tx pgx.Tx, p domain.RatePlan) error {
	var hotel, wasDefault, parentFound bool
	var missing []string
	parent := ""
	if p.DerivedFrom != nil {
		parent = p.DerivedFrom.Parent
	}
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM hotels WHERE id = $1),
			COALESCE((SELECT is_default FROM rate_plans WHERE hotel_id = $1 AND code = $2), $4),
			$3 = '' OR EXISTS (SELECT 1 FROM rate_plans WHERE hotel_id = $1 AND code = $3),
			ARRAY(SELECT t FROM unnest($5::text[]) t
				WHERE NOT EXISTS (SELECT 1 FROM resources r WHERE r.hotel_id = $1 AND r.code = t) ORDER BY t)`,
		p.HotelID, p.Code, parent, p.Default, nonNil(p.RoomTypes)).Scan(&hotel, &wasDefault, &parentFound, &missing)
	switch {
	case err != nil:
		return err
	case !hotel:
		return fmt.Errorf("%w: hotel %s", domain.ErrNotFound, p.HotelID)
	case wasDefault != p.Default:
		return fmt.Errorf("%w: the hotel's default plan is %s, and only it", domain.ErrInvalid, domain.DefaultRatePlan)
	case !parentFound:
		return fmt.Errorf("%w: rate plan %s: its parent %s is not a plan of hotel %s", domain.ErrInvalid, p.Code, parent,
			p.HotelID)
	case len(missing) > 0:
		return fmt.Errorf("%w: rate plan %s: hotel %s has no room type %v", domain.ErrInvalid, p.Code, p.HotelID, missing)
	}
	return nil
}

// checkPlanRules refuses (ErrConflict, naming the rule) a plan narrowed so that it no longer sells
// a room type an active sale rule of the plan names: the rule would restrict sales that cannot be
// made. End or change the rule first.
func checkPlanRules(ctx context.Context, tx pgx.Tx, p domain.RatePlan) error {
	if len(p.RoomTypes) == 0 {
		return nil
	}
	var id int64
	var roomType string
	err := tx.QueryRow(ctx, `SELECT id, room_type FROM sale_rules
		WHERE hotel_id = $1 AND rate_plan = $2 AND room_type <> ALL ($3) AND cancelled_at IS NULL AND expired_at IS NULL
		ORDER BY id LIMIT 1`, p.HotelID, p.Code, p.RoomTypes).Scan(&id, &roomType)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil
	case err != nil:
		return err
	}
	return fmt.Errorf("%w: rate plan %s would no longer sell room type %s, which its sale rule %d names: end or change the rule first",
		domain.ErrConflict, p.Code, roomType, id)
}

// checkDerivationChains walks the chain of parents from every derived plan of the hotel, as
// written in this transaction, and refuses a cycle or a chain too deep (domain.DerivationChain):
// a plan given a new parent deepens its children's chains too. It refuses a derived plan selling a
// room type its parent does not (no parent price to derive from), also when the parent is the
// plan written. The caller rolls back.
func checkDerivationChains(ctx context.Context, tx pgx.Tx, hotelID string) error {
	rows, err := tx.Query(ctx, `SELECT code, parent, room_types FROM rate_plans WHERE hotel_id = $1`, hotelID)
	if err != nil {
		return err
	}
	parents, plans := map[string]string{}, map[string]domain.RatePlan{}
	var code string
	var parent *string
	var types []string
	if _, err := pgx.ForEachRow(rows, []any{&code, &parent, &types}, func() error {
		if parent != nil {
			parents[code] = *parent
		}
		plans[code] = domain.RatePlan{Code: code, RoomTypes: types}
		return nil
	}); err != nil {
		return err
	}
	for code, parent := range parents {
		if _, err := domain.DerivationChain(code, func(c string) (domain.Derivation, bool) {
			p, ok := parents[c]
			return domain.Derivation{Parent: p}, ok
		}); err != nil {
			return err
		}
		if missing := notSoldBy(plans[code], plans[parent]); missing != "" {
			return fmt.Errorf("%w: rate plan %s sells %s, which its parent %s does not sell", domain.ErrInvalid, code, missing,
				parent)
		}
	}
	return nil
}

// notSoldBy names what a child plan sells that its parent does not, or "".
func notSoldBy(child, parent domain.RatePlan) string {
	if len(child.RoomTypes) == 0 && len(parent.RoomTypes) > 0 {
		return "every room type"
	}
	for _, t := range child.RoomTypes {
		if !parent.Sells(t) {
			return "room type " + t
		}
	}
	return ""
}

// nonNil is s, or an empty slice for nil (the columns are NOT NULL arrays).
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
