package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// The price columns of an inventory row i: its rate, currency and free mark, and its root plans'
// own rates as text, "code=amount:currency,..." (domain.PlanRatesText; empty when none): cheaper
// for the database to build, and for the search to read, than the JSON object a night they were.
// Searches, the cache's unit states and plan prices read them alike and price with
// domain.PlanPricer.
const nightRatesColumns = `i.rate, i.currency, COALESCE(i.free, false),
	COALESCE((SELECT string_agg(p.plan_code || '=' || p.rate || ':' || p.currency, ',')
		FROM plan_rates p WHERE p.resource_id = i.resource_id AND p.unit_start = i.unit_start), '')`

// nightRatesScan holds one row's nightRatesColumns while it is scanned. Kept over a query's
// rows, it decodes a run of nights carrying the same plan rates once (they share the map, which
// nothing writes to): rates are set over ranges of nights.
type nightRatesScan struct {
	rate     *int64
	currency *string
	free     bool
	plans    planRatesText
}

func (n *nightRatesScan) targets() []any { return []any{&n.rate, &n.currency, &n.free, &n.plans} }

// planRatesText scans the plans' rates column, keeping the last text it decoded.
type planRatesText struct {
	text  string
	plans map[string]domain.Money
}

// Scan implements sql.Scanner.
func (p *planRatesText) Scan(src any) error {
	s, ok := src.(string)
	switch {
	case !ok:
		return fmt.Errorf("plan rates: want text, got %T", src)
	case s == p.text && (s == "" || p.plans != nil):
		return nil
	}
	plans, err := domain.ParsePlanRates(s)
	*p = planRatesText{text: s, plans: plans}
	return err
}

// rates is the scanned row as the night of date.
func (n *nightRatesScan) rates(date domain.Date) domain.NightRates {
	out := domain.NightRates{Date: date, Free: n.free}
	if n.rate != nil {
		out.Rate = *n.rate
	}
	if n.currency != nil {
		out.Currency = *n.currency
	}
	if len(n.plans.plans) > 0 {
		out.Plans = n.plans.plans
	}
	return out
}

// roomNightRates reads the nights in [from, to) of a hotel's room types (one, or all when
// roomTypeID is empty) that have an inventory row, with their rates, by room type code.
func roomNightRates(ctx context.Context, q querier, hotelID, roomTypeID string, from, to domain.Date) (map[string][]domain.NightRates, error) {
	rows, err := q.Query(ctx, `SELECT r.code, i.unit_start, `+nightRatesColumns+`
		FROM resources r JOIN inventory i ON i.resource_id = r.id
		WHERE r.hotel_id = $1 AND ($2 = '' OR r.code = $2) AND i.unit_start >= $3 AND i.unit_start < $4
		ORDER BY r.code, i.unit_start`, hotelID, roomTypeID, from.Time(), to.Time())
	if err != nil {
		return nil, err
	}
	out := map[string][]domain.NightRates{}
	var code string
	var night time.Time
	var n nightRatesScan
	_, err = pgx.ForEachRow(rows, append([]any{&code, &night}, n.targets()...), func() error {
		out[code] = append(out[code], n.rates(domain.DateOf(night, time.UTC)))
		return nil
	})
	return out, err
}
