package db_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// judgeAs judges a direct sale of stay3 of h1's double under plan (empty: none named).
func judgeAs(t *testing.T, d *testsuite.Database, plan string) domain.SaleVerdict {
	t.Helper()
	v, err := d.Store.JudgeSale(context.Background(), domain.SaleContext{HotelID: "h1", RoomTypeID: "double",
		RatePlan: plan, Stay: stay3})
	require.NoError(t, err)
	return v
}

// TestAPlansRuleRefusesThatPlansSalesOnly: a closed arrival of plan NR refuses NR's sale and not
// FLEX's nor a sale naming no plan (BAR's: a hold today names none, and is sold); one of BAR
// refuses a hold; one naming no plan refuses every plan.
func TestAPlansRuleRefusesThatPlansSalesOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	for _, code := range []string{"NR", "FLEX"} {
		_, err := d.Store.PutRatePlan(ctx, flexible(code, ""))
		require.NoError(t, err)
	}
	nr := createRule(t, d, domain.SaleRule{Kind: domain.RuleClosedToArrival, HotelID: "h1", RoomTypeID: "double",
		RatePlan: "NR", From: dec10, To: dec10.AddDays(1)})
	assert.Equal(t, "NR", nr.RatePlan, "stored with its plan")
	rules, err := d.Store.SaleRulesInForce(ctx, "h1")
	require.NoError(t, err)
	assert.Equal(t, "NR", rules[0].RatePlan, "read with its plan")

	assert.False(t, judgeAs(t, d, "NR").Allowed)
	assert.Contains(t, judgeAs(t, d, "NR").Refusal.Why, "closed to arrival on "+dec10.String())
	assert.True(t, judgeAs(t, d, "FLEX").Allowed)
	assert.True(t, judgeAs(t, d, "").Allowed)
	b, err := d.Store.Reserve(ctx, holdParams("c1", "k", stay3, 1))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusHold, b.Status, "a hold names no plan: BAR's, which NR's rule leaves alone")

	bar := createRule(t, d, domain.SaleRule{Kind: domain.RuleStopSell, HotelID: "h1", RatePlan: domain.DefaultRatePlan,
		From: dec10.AddDays(1), To: dec10.AddDays(2), Reason: "event"})
	assert.False(t, judgeAs(t, d, "").Allowed, "a sale naming no plan is BAR's")
	assert.True(t, judgeAs(t, d, "FLEX").Allowed)
	b, err = d.Store.Reserve(ctx, holdParams("c2", "k", stay3, 1))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, b.Status)
	assert.Contains(t, b.Refusal, "stop-sell (event)")
	require.NoError(t, d.Store.EndSaleRule(ctx, bar.ID))

	createRule(t, d, domain.SaleRule{Kind: domain.RuleStayThrough, HotelID: "h1", From: dec10, To: dec10.AddDays(1),
		MinLOS: intp(4)})
	for _, plan := range []string{"", "NR", "FLEX"} {
		assert.False(t, judgeAs(t, d, plan).Allowed, "a rule naming no plan refuses %q", plan)
	}
}

// TestARuleNamesAPlanOfItsHotelThatSellsItsRoomType: an unknown plan is 404 (as an unknown room
// type is), a plan not selling the rule's room type 400, and nothing is stored; a plan may not be
// narrowed away from a room type an active rule of it names (409, naming the rule) until the rule ends.
func TestARuleNamesAPlanOfItsHotelThatSellsItsRoomType(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	d.SetInventory(t, "h1", "single", dec10, dec13, 5)
	d.SetInventory(t, "h2", "double", dec10, dec13, 5)
	nr := flexible("NR", "")
	nr.RoomTypes = []string{"double"}
	_, err := d.Store.PutRatePlan(ctx, nr)
	require.NoError(t, err)
	cta := domain.SaleRule{Kind: domain.RuleClosedToArrival, HotelID: "h1", From: dec10, To: dec10.AddDays(1), SetBy: "t"}

	for _, c := range []struct {
		hotel, roomType, plan string
		want                  error
	}{
		{"h1", "double", "NOPE", domain.ErrNotFound},
		{"h2", "double", "NR", domain.ErrNotFound}, // another hotel's plan
		{"h1", "single", "NR", domain.ErrInvalid},
	} {
		r := cta
		r.HotelID, r.RoomTypeID, r.RatePlan = c.hotel, c.roomType, c.plan
		_, err := d.Store.CreateSaleRules(ctx, []domain.SaleRule{cta, r})
		assert.ErrorIs(t, err, c.want, "%+v", c)
	}
	rules, err := d.Store.SaleRulesInForce(ctx, "h1")
	require.NoError(t, err)
	assert.Empty(t, rules, "all or none")

	r := cta
	r.RoomTypeID, r.RatePlan = "double", "NR"
	stored, err := d.Store.CreateSaleRules(ctx, []domain.SaleRule{r})
	require.NoError(t, err)
	r.RoomTypeID = "single"
	_, err = d.Store.ReplaceSaleRule(ctx, stored[0].ID, r)
	assert.ErrorIs(t, err, domain.ErrInvalid, "a replaced rule is checked too")

	nr.RoomTypes = []string{"single"}
	_, err = d.Store.PutRatePlan(ctx, nr)
	require.ErrorIs(t, err, domain.ErrConflict)
	assert.Contains(t, err.Error(), fmt.Sprintf("sale rule %d", stored[0].ID))
	nr.RoomTypes = nil // every room type: still sells double
	_, err = d.Store.PutRatePlan(ctx, nr)
	require.NoError(t, err)
	require.NoError(t, d.Store.EndSaleRule(ctx, stored[0].ID))
	nr.RoomTypes = []string{"single"}
	_, err = d.Store.PutRatePlan(ctx, nr)
	assert.NoError(t, err, "an ended rule holds nothing")
}

// TestARollbackOfRulesPlansKeepsThemForEveryPlan: migration 00043 undone and done again keeps a
// plan's rule, now for every plan (stricter, as a previous release reads it), and the plans'
// foreign key comes back.
func TestARollbackOfRulesPlansKeepsThemForEveryPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	_, err := d.Store.PutRatePlan(ctx, flexible("NR", ""))
	require.NoError(t, err)
	r := createRule(t, d, domain.SaleRule{Kind: domain.RuleClosedToArrival, HotelID: "h1", RatePlan: "NR", From: dec10,
		To: dec10.AddDays(1)})
	require.NoError(t, db.RedoMigration(ctx, d.Pool, 43))
	var plan *string
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT rate_plan FROM sale_rules WHERE id = $1 AND cancelled_at IS NULL`,
		r.ID).Scan(&plan))
	assert.Nil(t, plan, "kept, for every plan")
	_, err = d.Pool.Exec(ctx, `UPDATE sale_rules SET rate_plan = 'NOPE' WHERE id = $1`, r.ID)
	assert.Error(t, err, "the foreign key is back")
}
