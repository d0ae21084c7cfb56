package db

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// PlanNight is one night of a room type as a rate plan sells it (domain.PlanNight).
type PlanNight = domain.PlanNight

// SetPlanRates sets a root plan's nightly rate for a room type over the nights [from, to) that are
// on sale, under the hotel's sale lock, and answers how many nights it set. The default plan's
// rates are the room type's own (SetRates) and a derived plan's follow its parent: both are 400,
// as a room type the plan does not sell; an unknown plan or room type is 404; a currency other
// than the one the room type's nights are priced in is a conflict.
func (s *Store) SetPlanRates(ctx context.Context, hotelID, planCode, roomTypeID string, from, to domain.Date,
	rate domain.Money) (int, error) {
	var n int
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockSaleRules(ctx, tx, hotelID); err != nil {
			return err
		}
		plan, err := getRatePlan(ctx, tx, hotelID, planCode)
		if err != nil {
			return err
		}
		switch {
		case plan.Default:
			return fmt.Errorf("%w: the default plan's rates are the room type's own: PUT .../room-types/%s/rates",
				domain.ErrInvalid, roomTypeID)
		case plan.DerivedFrom != nil:
			return fmt.Errorf("%w: rate plan %s is derived from %s: its price follows its parent's", domain.ErrInvalid,
				planCode, plan.DerivedFrom.Parent)
		case !plan.Sells(roomTypeID):
			return fmt.Errorf("%w: rate plan %s does not sell room type %s", domain.ErrInvalid, planCode, roomTypeID)
		}
		var resource int64
		var otherCurrency bool
		// The nights' rows are read FOR SHARE: a change of their currency (SetRates) waits for this
		// write, or this write sees it, and the one after refuses (409) what would disagree.
		err = tx.QueryRow(ctx, `SELECT r.id, EXISTS (SELECT 1 FROM (SELECT i.currency FROM inventory i
					WHERE i.resource_id = r.id AND i.unit_start >= $3 AND i.unit_start < $4 FOR SHARE) n
				WHERE n.currency <> $5)
			FROM resources r WHERE r.hotel_id = $1 AND r.code = $2`,
			hotelID, roomTypeID, from.Time(), to.Time(), rate.Currency).Scan(&resource, &otherCurrency)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return fmt.Errorf("%w: hotel %s has no room type %s", domain.ErrNotFound, hotelID, roomTypeID)
		case err != nil:
			return err
		case otherCurrency:
			return fmt.Errorf("%w: room type %s has nights priced in another currency than %s", domain.ErrConflict,
				roomTypeID, rate.Currency)
		}
		tag, err := tx.Exec(ctx, `INSERT INTO plan_rates (hotel_id, plan_code, resource_id, unit_start, rate, currency)
			SELECT $1, $2, i.resource_id, i.unit_start, $6, $7 FROM inventory i
			WHERE i.resource_id = $3 AND i.unit_start >= $4 AND i.unit_start < $5
			ON CONFLICT (resource_id, plan_code, unit_start) DO UPDATE SET rate = EXCLUDED.rate, currency = EXCLUDED.currency`,
			hotelID, planCode, resource, from.Time(), to.Time(), rate.Amount, rate.Currency)
		n = int(tag.RowsAffected())
		return err
	})
	return n, err
}

// PlanNightlyPrices answers the nights [from, to) of a room type as a plan sells them: the rates
// of its chain's root (the room type's own for the default plan, a free night at 0 only when
// marked free; the plan's rates for another root), run through each derivation of the chain,
// each level rounding (domain.DerivedPrice). A night without a root rate, or whose derived
// price is below zero, has no price and says why. A plan that does not sell the room type is
// 400; an unknown plan or room type 404.
func (s *Store) PlanNightlyPrices(ctx context.Context, hotelID, planCode, roomTypeID string, from, to domain.Date) ([]PlanNight, error) {
	var out []PlanNight
	// The plans and the rates are read in one snapshot: a plan made derived, its rates dropped, in
	// between two reads would look like a root without rates.
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) (err error) {
			out, err = planNightlyPrices(ctx, tx, hotelID, planCode, roomTypeID, from, to)
			return err
		})
	return out, err
}

func planNightlyPrices(ctx context.Context, tx pgx.Tx, hotelID, planCode, roomTypeID string, from, to domain.Date) ([]PlanNight, error) {
	plans, err := ratePlans(ctx, tx, hotelID)
	if err != nil {
		return nil, err
	}
	pricer := domain.NewPlanPricer(plans)
	plan, ok := pricer.Plan(planCode)
	switch {
	case !ok:
		return nil, fmt.Errorf("%w: rate plan %s of hotel %s", domain.ErrNotFound, planCode, hotelID)
	case !plan.Sells(roomTypeID):
		return nil, fmt.Errorf("%w: rate plan %s does not sell room type %s", domain.ErrInvalid, planCode, roomTypeID)
	}
	nights, err := roomNightRates(ctx, tx, hotelID, roomTypeID, from, to)
	if err != nil {
		return nil, err
	}
	if len(nights[roomTypeID]) == 0 {
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM resources WHERE hotel_id = $1 AND code = $2)`, hotelID,
			roomTypeID).Scan(&exists); err != nil {
			return nil, err
		}
		if !exists {
			return nil, fmt.Errorf("%w: hotel %s has no room type %s", domain.ErrNotFound, hotelID, roomTypeID)
		}
	}
	return pricer.Nightly(planCode, nights[roomTypeID])
}
