package testsuite_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// searchOffers answers the offers of a room type in a search by caller, by plan code.
func searchOffers(t *testing.T, caller testsuite.Caller, hotel, roomType string, stay domain.Stay) map[string]map[string]any {
	t.Helper()
	res := caller.Do(t, http.MethodGet, fmt.Sprintf("/api/v1/hotels/%s/availability?checkIn=%s&checkOut=%s", hotel,
		stay.CheckIn, stay.CheckOut), nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	out := map[string]map[string]any{}
	for _, rt := range res.Body["roomTypes"].([]any) {
		if rt.(map[string]any)["roomTypeId"] != roomType {
			continue
		}
		for _, o := range rt.(map[string]any)["offers"].([]any) {
			out[o.(map[string]any)["ratePlan"].(string)] = o.(map[string]any)
		}
	}
	return out
}

// offerTotal is an offer's total, -1 without a price.
func offerTotal(o map[string]any) int64 {
	if p, ok := o["price"].(map[string]any); ok {
		return int64(p["total"].(float64))
	}
	return -1
}

// TestASearchAnswersAnOfferPerPlan: a customer's search offers every plan that sells the room
// type, priced exactly as derived (10% off rounded to whole euros, then 15.00 more), with its
// board, policy and payment rule; a plan without its rates says why; an agent sees its
// channel's plans only; a change of the parent's price moves its children. The same on the
// database path and on the cache path, where the outbox carries the price change.
func TestASearchAnswersAnOfferPerPlan(t *testing.T) {
	t.Parallel()
	for _, cached := range []bool{false, true} {
		t.Run(fmt.Sprintf("cache=%v", cached), func(t *testing.T) {
			t.Parallel()
			sys := testsuite.NewSystem(t, testsuite.SystemOptions{Cache: cached})
			hotel, stay := "h-offers", stayFromNow(30, 2)
			openRooms(t, sys, hotel, "double", stay, 3)
			rates := "/api/v1/admin/hotels/" + hotel + "/room-types/double/rates"
			res := sys.Admin(t, http.MethodPut, rates, map[string]any{"from": stay.CheckIn, "to": stay.CheckIn.AddDays(1),
				"rate": 12345, "currency": "EUR"})
			require.Equal(t, http.StatusOK, res.Status, res.Raw)
			putPlans(t, sys, hotel,
				planDef{"NR", map[string]any{"name": "Non-refundable", "policy": map[string]any{"nonRefundable": true},
					"channels": []string{"*"}, "derivedFrom": map[string]any{"parent": "BAR", "percent": "-10",
						"rounding": map[string]any{"mode": "nearest", "step": 100}}}},
				planDef{"NR-BB", map[string]any{"name": "Non-refundable with breakfast", "board": "breakfast",
					"policy": map[string]any{"nonRefundable": true}, "derivedFrom": map[string]any{"parent": "NR", "amount": 1500}}},
				planDef{"CORP", map[string]any{"name": "Corporate", "policy": map[string]any{"freeUntilHours": 24},
					"channels": []string{"*"}, "payment": map[string]any{"kind": "deposit", "depositPercent": 30, "balanceDueDays": 7}}})

			guest := sys.Guest(t, "searcher")
			var offers map[string]map[string]any
			require.Eventually(t, func() bool {
				offers = searchOffers(t, guest, hotel, "double", stay)
				return offerTotal(offers["BAR"]) == 12345+10000
			}, 10*time.Second, 20*time.Millisecond, "the first night's rate reached the search")
			require.Len(t, offers, 4, "%v", offers)
			// NR: 12345 * 0.9 = 11110.5 -> 11100; 10000 * 0.9 = 9000. NR-BB: 1500 more a night.
			assert.Equal(t, int64(11100+9000), offerTotal(offers["NR"]))
			assert.Equal(t, int64(11100+1500+9000+1500), offerTotal(offers["NR-BB"]))
			assert.Equal(t, []any{map[string]any{"date": stay.CheckIn.String(), "amount": float64(12600)},
				map[string]any{"date": stay.CheckIn.AddDays(1).String(), "amount": float64(10500)}},
				offers["NR-BB"]["price"].(map[string]any)["nights"])
			assert.Equal(t, "breakfast", offers["NR-BB"]["board"])
			assert.Equal(t, true, offers["NR"]["policy"].(map[string]any)["nonRefundable"])
			assert.Equal(t, true, offers["NR"]["sellable"])
			assert.Equal(t, false, offers["CORP"]["sellable"])
			assert.Contains(t, offers["CORP"]["unsellableBecause"], "no rate is set for CORP")
			assert.Equal(t, map[string]any{"kind": "deposit", "depositPercent": float64(30), "balanceDueDays": float64(7)},
				offers["CORP"]["payment"])

			// An agent of a channel sees the plans sold through every channel, not the direct-only NR-BB.
			res = sys.Admin(t, http.MethodPut, "/api/v1/admin/channels/wholesale", map[string]any{"name": "Wholesale"})
			require.Equal(t, http.StatusOK, res.Status, res.Raw)
			res = sys.Admin(t, http.MethodPut, "/api/v1/admin/agents/max", map[string]any{"channelId": "wholesale", "name": "Max"})
			require.Equal(t, http.StatusOK, res.Status, res.Raw)
			agent := sys.As(t, domain.Principal{Subject: "max-user", Roles: []domain.Role{domain.RoleAgent}, Agent: "max",
				Channel: "wholesale"})
			agentOffers := searchOffers(t, agent, hotel, "double", stay)
			assert.ElementsMatch(t, []string{"BAR", "NR", "CORP"}, keys(agentOffers))

			// The parent's price moves: its children follow, on the cache path through the outbox.
			res = sys.Admin(t, http.MethodPut, rates, map[string]any{"from": stay.CheckIn, "to": stay.CheckOut,
				"rate": 20000, "currency": "EUR"})
			require.Equal(t, http.StatusOK, res.Status, res.Raw)
			require.Eventually(t, func() bool {
				offers = searchOffers(t, guest, hotel, "double", stay)
				return offerTotal(offers["NR-BB"]) == 2*(18000+1500)
			}, 10*time.Second, 20*time.Millisecond, "the children of BAR moved with it: %v", offers["NR-BB"])
			if !cached {
				return
			}
			// The answer is the cache's: a (made-up) newer price in Redis is what the search offers.
			var id int64
			require.NoError(t, sys.DB.Pool.QueryRow(context.Background(), `SELECT id FROM resources WHERE hotel_id = $1`,
				hotel).Scan(&id))
			var planted []db.CachedUnit
			for _, n := range stay.NightDates() {
				planted = append(planted, db.CachedUnit{UnitKey: db.UnitKey{ResourceID: id, Start: n.Time()}, Left: 3,
					Version: 1 << 40, Prices: domain.NightRates{Rate: 5000, Currency: "EUR"}})
			}
			require.NoError(t, sys.Cache.Apply(context.Background(), planted))
			assert.Equal(t, int64(2*(4500+1500)), offerTotal(searchOffers(t, guest, hotel, "double", stay)["NR-BB"]))
		})
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
