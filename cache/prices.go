package cache

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// A night's price lives beside its unit, under its own key, written by the same relay rounds and
// read-throughs with the same versions: a searcher of the previous release keeps reading the
// unit's value as it was, and a relay of the previous release, which writes units only, leaves
// the price to expire within the TTL, when the next search reads it through.

// priceKey is a unit's price key.
func (u *Units) priceKey(k db.UnitKey) string {
	return u.Prefix + "bf:p:" + strconv.FormatInt(k.ResourceID, 10) + ":" + strconv.FormatInt(k.Start.Unix(), 10)
}

// A price value is "version|rate|currency|free|plan=amount:currency,...": the room type's own
// rate and its root plans' own rates (plan codes are ids: no '|', ',', '=' or ':').
func encodePrices(st db.CachedUnit) string {
	p := st.Prices
	free := "0"
	if p.Free {
		free = "1"
	}
	return strconv.FormatInt(st.Version, 10) + "|" + strconv.FormatInt(p.Rate, 10) + "|" + p.Currency + "|" + free + "|" +
		domain.PlanRatesText(p.Plans)
}

// planMemo is the last plan rates a read decoded: rates are set over ranges of nights, so a
// stay's nights often carry the same, and their nights share one map (never written to).
type planMemo struct {
	text  string
	plans map[string]domain.Money
}

func decodePrices(k db.UnitKey, v string, memo *planMemo) (domain.NightRates, error) {
	out := domain.NightRates{Date: domain.DateOf(k.Start, time.UTC)}
	parts := strings.Split(v, "|")
	if len(parts) != 5 {
		return out, fmt.Errorf("malformed cached price %q", v)
	}
	var err error
	if out.Rate, err = strconv.ParseInt(parts[1], 10, 64); err != nil {
		return out, fmt.Errorf("malformed cached price %q: %w", v, err)
	}
	out.Currency, out.Free = parts[2], parts[3] == "1"
	if parts[4] == memo.text {
		out.Plans = memo.plans
		return out, nil
	}
	if out.Plans, err = domain.ParsePlanRates(parts[4]); err != nil {
		return out, fmt.Errorf("malformed cached price %q: %w", v, err)
	}
	*memo = planMemo{text: parts[4], plans: out.Plans}
	return out, nil
}

// GetPriced reads units with their prices in one round trip; found is false when any unit or
// price is not cached (the caller asks the database).
func (u *Units) GetPriced(ctx context.Context, keys []db.UnitKey) (states []db.CachedUnit, found bool, err error) {
	if len(keys) == 0 {
		return nil, true, nil
	}
	units, prices := make([]string, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		units[i], prices[i] = u.key(k), u.priceKey(k)
	}
	pipe := u.Redis.Pipeline()
	unitVals, priceVals := pipe.MGet(ctx, units...), pipe.MGet(ctx, prices...)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, false, err
	}
	states = make([]db.CachedUnit, len(keys))
	var memo planMemo
	for i := range keys {
		unit, ok1 := unitVals.Val()[i].(string)
		price, ok2 := priceVals.Val()[i].(string)
		if !ok1 || !ok2 {
			return nil, false, nil
		}
		if states[i], err = decode(keys[i], unit); err != nil {
			return nil, false, err
		}
		if states[i].Prices, err = decodePrices(keys[i], price, &memo); err != nil {
			return nil, false, err
		}
	}
	return states, true, nil
}
