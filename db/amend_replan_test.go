package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// An amendment that changes the plan (issue 35): every booking here is three nights of
// h1/double at BAR, 10000 a night, paid online (30000), unless it says otherwise.

// putPlan stores plan p of h1.
func putPlan(t *testing.T, d *testsuite.Database, p domain.RatePlan) {
	t.Helper()
	_, err := d.Store.PutRatePlan(context.Background(), p)
	require.NoError(t, err)
}

// derived is a plan derived from BAR by percent, free to cancel until 48 hours before arrival.
func derived(code, percent string) domain.RatePlan {
	p := flexible(code, domain.DefaultRatePlan)
	p.DerivedFrom.Percent = percent
	return p
}

// TestAMoveToACheaperPlanIsRefundedByTheBookingsPolicy: BAR to a plan at 10% off re-prices every
// night (27000) and gives back what the booking's policy (BAR's, as it was before the move) gives
// of the fall; the booking takes the plan's terms and policy, and the amendment records both
// plans. The same key again answers the same amendment.
func TestAMoveToACheaperPlanIsRefundedByTheBookingsPolicy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 3)
	putPlan(t, d, derived("FLEX", "-10"))
	b := paidBooking(t, d, "c1", stay3, 1, 0)
	require.Equal(t, int64(30000), b.Price.Total)

	p := amendParams(b, "cheaper", domain.Change{RatePlan: "FLEX"})
	var judgedUnder string
	p.RefundOf = func(was domain.Booking, fallsBy int64) int64 { judgedUnder = was.RatePlan; return fallsBy / 2 }
	a, after := amend(t, d, p)
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.Equal(t, domain.DefaultRatePlan, judgedUnder, "the fall is judged by the policy the booking had")
	assert.Equal(t, int64(-3000), a.Difference)
	assert.Equal(t, int64(1500), a.Refund)
	assert.Equal(t, domain.DefaultRatePlan, a.Before.RatePlan)
	assert.Equal(t, "FLEX", a.After.RatePlan)
	require.NotNil(t, a.PlanTerms)
	assert.Equal(t, "Plan FLEX", a.PlanTerms.Name)

	assert.Equal(t, "FLEX", after.RatePlan)
	assert.Equal(t, int64(27000), after.Price.Total)
	for _, n := range after.Price.Nights {
		assert.Equal(t, int64(9000), n.Amount, "every night at the plan's price, not only added ones")
	}
	require.NotNil(t, after.PlanTerms)
	assert.Equal(t, "Plan FLEX", after.PlanTerms.Name)
	assert.Equal(t, 48, after.CancellationPolicy.FreeUntilHours, "the plan's policy")
	assert.Equal(t, int64(30000-1500), after.Paid)

	again, _ := amend(t, d, p)
	assert.Equal(t, a.ID, again.ID, "the same key and change: the same amendment")
	list, err := d.Store.Amendments(ctx, b.ID)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, "FLEX", list[0].After.RatePlan, "the record keeps the plans")
	require.NotNil(t, list[0].Policy)
	assert.Equal(t, 48, list[0].Policy.FreeUntilHours)
	d.AssertInventoryMatchesBookings(t)
	d.AssertLedgerAgrees(t)
}

// TestAMoveToAPricierPlanWaitsForItsBalance: BAR to a plan at 20% more with a night added: the
// whole new stay at the plan's price (4 × 12000) less what was paid waits for its balance, the
// booking unchanged; paid, the booking takes the plan, its price and its terms. Back to BAR (a
// hold), the booking takes the hotel's policy and no terms.
func TestAMoveToAPricierPlanWaitsForItsBalance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13.AddDays(1), 3)
	putPlan(t, d, derived("PLUS", "20"))
	b := paidBooking(t, d, "c1", stay3, 1, 0)

	a, same := amend(t, d, amendParams(b, "pricier", domain.Change{RatePlan: "PLUS", CheckOut: dec13.AddDays(1)}))
	require.Equal(t, domain.AmendmentBalanceDue, a.Status, a.Reason)
	assert.Equal(t, int64(4*12000-30000), a.Difference)
	assert.Equal(t, domain.DefaultRatePlan, same.RatePlan, "the booking keeps its plan until the balance is paid")
	assert.Equal(t, int64(30000), same.Price.Total)

	_, got, err := d.Store.SettleAmendment(ctx, b.ID, a.ID, domain.Payment{ID: "pi_balance", Amount: a.Difference, Currency: "EUR"})
	require.NoError(t, err)
	assert.Equal(t, "PLUS", got.RatePlan)
	assert.Equal(t, int64(48000), got.Price.Total)
	assert.Equal(t, int64(48000), got.Paid)
	require.NotNil(t, got.PlanTerms)
	assert.Equal(t, "Plan PLUS", got.PlanTerms.Name)
	assert.Equal(t, 48, got.CancellationPolicy.FreeUntilHours)
	d.AssertInventoryMatchesBookings(t)

	h := hold(t, d, "c2", stay3, 1)
	p := amendParams(h, "k", domain.Change{RatePlan: "PLUS"})
	a, h = amend(t, d, p)
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	require.Equal(t, int64(36000), h.Price.Total)
	a, h = amend(t, d, amendParams(h, "back", domain.Change{RatePlan: domain.DefaultRatePlan}))
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.Equal(t, domain.DefaultRatePlan, h.RatePlan)
	assert.Nil(t, h.PlanTerms, "the default plan's booking keeps no terms")
	assert.Equal(t, b.CancellationPolicy, h.CancellationPolicy, "and the hotel's policy")
	assert.Equal(t, int64(30000), h.Price.Total)
	d.AssertInventoryMatchesBookings(t)
}

// TestAMoveThePlanCannotSellChangesNothing: a plan that does not sell the room type, one not
// sold through the booking's channel, and one whose rule (narrowed to it) refuses the stay are
// refused; the booking, its units and its plan are as they were.
func TestAMoveThePlanCannotSellChangesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 3)
	d.SetInventory(t, "h1", "suite", dec10, dec13, 3)
	suites := derived("SUITES", "-10")
	suites.RoomTypes = []string{"suite"}
	putPlan(t, d, suites)
	putPlan(t, d, derived("FLEX", "-10"))
	b := paidBooking(t, d, "c1", stay3, 1, 0)
	reserved := d.Reserved(t, "h1", "double", stay3)

	a, after := amend(t, d, amendParams(b, "k1", domain.Change{RatePlan: "SUITES"}))
	assert.Equal(t, domain.AmendmentRefused, a.Status)
	assert.Contains(t, a.Reason, "does not sell room type double")

	createRule(t, d, domain.SaleRule{Kind: domain.RuleClosedToArrival, HotelID: "h1", RatePlan: "FLEX", From: dec10,
		To: dec10.AddDays(1)})
	a, after = amend(t, d, amendParams(after, "k2", domain.Change{RatePlan: "FLEX"}))
	assert.Equal(t, domain.AmendmentRefused, a.Status, "the new plan's rule is judged for the new stay")
	assert.Contains(t, a.Reason, "closed to arrival")

	assert.Equal(t, domain.DefaultRatePlan, after.RatePlan)
	assert.Equal(t, b.Price, after.Price)
	assert.Equal(t, b.CancellationPolicy, after.CancellationPolicy)
	assert.Equal(t, reserved, d.Reserved(t, "h1", "double", stay3), "the inventory is intact")
	d.AssertInventoryMatchesBookings(t)
	got, err := d.Store.GetBooking(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.DefaultRatePlan, got.RatePlan)

	// The plan is sold direct only; a channel's booking cannot move to it.
	splitStock(t, d)
	c, err := d.Store.Reserve(ctx, channelHold("guest", "A", "agent-a", soonStay, 1))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, c.Status, c.Refusal)
	a, _ = amend(t, d, amendParams(c, "k3", domain.Change{RatePlan: "FLEX"}))
	assert.Equal(t, domain.AmendmentRefused, a.Status)
	assert.Contains(t, a.Reason, "is not sold through channel A")
}

// TestABookingMovesNeitherIntoNorOutOfADepositPlan: a deposit and a balance date cannot follow a
// change of plan: both moves are refused for the booking's state, nothing stored.
func TestABookingMovesNeitherIntoNorOutOfADepositPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 3)
	depositPlan(t, d)
	putPlan(t, d, derived("FLEX", "-10"))

	b := paidBooking(t, d, "c1", stay3, 1, 0)
	_, _, err := d.Store.Amend(ctx, amendParams(b, "into", domain.Change{RatePlan: "DEP"}))
	require.ErrorIs(t, err, db.ErrNotAmendable)
	assert.Contains(t, err.Error(), "paid by a deposit")

	dep := depositHold(t, d, "c2", stay3)
	_, _, err = d.Store.Amend(ctx, amendParams(dep, "out", domain.Change{RatePlan: "FLEX"}))
	require.ErrorIs(t, err, db.ErrNotAmendable)
	for _, id := range []string{b.ID, dep.ID} {
		list, err := d.Store.Amendments(ctx, id)
		require.NoError(t, err)
		assert.Empty(t, list)
	}
	d.AssertInventoryMatchesBookings(t)
}
