package db_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// flexible is a plan of hotel h1 with its own policy, derived from parent unless parent is empty.
func flexible(code, parent string) domain.RatePlan {
	p := domain.RatePlan{HotelID: "h1", Code: code, Name: "Plan " + code, Board: domain.BoardRoomOnly,
		Policy:  &domain.RatePlanPolicy{CancellationPolicy: domain.CancellationPolicy{FreeUntilHours: 48}},
		Payment: domain.PaymentRule{Kind: domain.PayInFull}, UpdatedBy: "admin-1"}
	if parent != "" {
		p.DerivedFrom = &domain.Derivation{Parent: parent, Percent: "-10"}
	}
	return p
}

// TestEveryHotelHasItsDefaultPlan: a hotel made before plans existed gets BAR from the migration,
// one made after from its trigger; BAR keeps the hotel's price, policy and channels.
func TestEveryHotelHasItsDefaultPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewEmptyDatabase(t)
	require.NoError(t, db.MigrateTo(ctx, d.Pool, 39))
	_, err := d.Pool.Exec(ctx, `INSERT INTO hotels (id) VALUES ('before-plans')`)
	require.NoError(t, err)
	require.NoError(t, db.Migrate(ctx, d.Pool))
	d.SetInventory(t, "after-plans", "double", dec10, dec13, 5)
	for _, hotel := range []string{"before-plans", "after-plans"} {
		plans, err := d.Store.RatePlans(ctx, hotel)
		require.NoError(t, err)
		require.Len(t, plans, 1, hotel)
		bar := plans[0]
		assert.Equal(t, domain.DefaultRatePlan, bar.Code)
		assert.True(t, bar.Default)
		assert.Nil(t, bar.Policy, "the hotel's policy")
		assert.Equal(t, []string{domain.AnyChannel}, bar.Channels)
		assert.Empty(t, bar.RoomTypes, "every room type")
		assert.Equal(t, domain.PayInFull, bar.Payment.Kind)
	}
	_, err = d.Store.RatePlans(ctx, "nowhere")
	assert.ErrorIs(t, err, domain.ErrNotFound)
}

// TestARatePlanIsStoredAsItApplies: a derived plan's percent reads back in its canonical form,
// its rounding as it applies when left out, a deposit's terms and a plan's own policy whole.
func TestARatePlanIsStoredAsItApplies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	nr := flexible("NR", domain.DefaultRatePlan)
	nr.DerivedFrom.Percent = "-12.50"
	nr.Policy.FreeUntilHours, nr.Policy.NoShow = 0, domain.NoShowKeepsFirstNight
	due := 14
	nr.Payment = domain.PaymentRule{Kind: domain.PayDeposit, DepositPercent: 30, BalanceDueDays: &due}
	nr.RoomTypes, nr.Channels, nr.Board, nr.Includes = []string{"double"}, []string{"A"}, domain.BoardBreakfast, "breakfast for two"
	got, err := d.Store.PutRatePlan(ctx, nr)
	require.NoError(t, err)
	assert.Equal(t, "-12.5", got.DerivedFrom.Percent)
	assert.Equal(t, domain.Rounding{Mode: domain.RoundNearest, Step: 1}, got.DerivedFrom.Rounding)
	assert.Equal(t, nr.Payment, got.Payment)
	assert.Equal(t, *nr.Policy, *got.Policy)
	assert.Equal(t, []string{"double"}, got.RoomTypes)
	assert.Equal(t, []string{"A"}, got.Channels)
	assert.Equal(t, "admin-1", got.UpdatedBy)

	// Replaced: by an amount, rounded up to whole units
	amount := int64(-500)
	nr.DerivedFrom = &domain.Derivation{Parent: domain.DefaultRatePlan, Amount: &amount,
		Rounding: domain.Rounding{Mode: domain.RoundUp, Step: 100}}
	got, err = d.Store.PutRatePlan(ctx, nr)
	require.NoError(t, err)
	assert.Equal(t, *nr.DerivedFrom, *got.DerivedFrom)
	plans, err := d.Store.RatePlans(ctx, "h1")
	require.NoError(t, err)
	assert.Len(t, plans, 2)
}

// TestARatePlanThatDoesNotFitItsHotelIsRefusedWhole: a parent or a room type the hotel does not
// have, a cycle, a chain deeper than eight plans, and a plan made the default are refused, and
// the plans stay as they were.
func TestARatePlanThatDoesNotFitItsHotelIsRefusedWhole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	put := func(p domain.RatePlan) error {
		require.NoError(t, p.Validate())
		_, err := d.Store.PutRatePlan(ctx, p)
		return err
	}
	require.NoError(t, put(flexible("A", "")))
	require.NoError(t, put(flexible("B", "A")))
	before, err := d.Store.RatePlans(ctx, "h1")
	require.NoError(t, err)

	assert.ErrorIs(t, put(flexible("C", "missing")), domain.ErrInvalid, "an unknown parent")
	suite := flexible("C", "")
	suite.RoomTypes = []string{"double", "suite"}
	assert.ErrorContains(t, put(suite), "suite", "an unknown room type")
	assert.ErrorContains(t, put(flexible("A", "B")), "cycle", "A from B from A")
	doubles := flexible("D", "")
	doubles.RoomTypes = []string{"double"}
	require.NoError(t, put(doubles))
	everything := flexible("E", "D")
	assert.ErrorContains(t, put(everything), "every room type", "a child selling what its parent does not")
	doubles.RoomTypes = nil
	require.NoError(t, put(doubles))
	require.NoError(t, put(everything))
	doubles.RoomTypes = []string{"double"}
	assert.ErrorContains(t, put(doubles), "which its parent D does not sell", "a parent narrowed under its child")
	other := flexible("A", "")
	other.HotelID = "h2"
	assert.ErrorIs(t, put(other), domain.ErrNotFound, "an unknown hotel")

	// eight plans in a chain, the root included, and not nine
	require.NoError(t, put(flexible("L1", domain.DefaultRatePlan)))
	for i := 2; i <= 7; i++ {
		require.NoError(t, put(flexible(fmt.Sprint("L", i), fmt.Sprint("L", i-1))))
	}
	assert.ErrorContains(t, put(flexible("L8", "L7")), "8", "a ninth plan in the chain")
	// a plan given a parent deepens its children's chains: refused too
	assert.ErrorContains(t, put(flexible("L1", "B")), "8", "L7's chain made ten deep")

	after, err := d.Store.RatePlans(ctx, "h1")
	require.NoError(t, err)
	assert.Len(t, after, len(before)+9, "only D, E and the seven chain plans were added")
	l1, err := d.Store.GetRatePlan(ctx, "h1", "L1")
	require.NoError(t, err)
	assert.Equal(t, domain.DefaultRatePlan, l1.DerivedFrom.Parent, "L1 as it was")

	// BAR stays the default, and no other plan becomes one
	notDefault := flexible("BAR", "")
	notDefault.Default = false
	assert.ErrorIs(t, notDefault.Validate(), domain.ErrInvalid)
	bar := domain.RatePlan{HotelID: "h1", Code: domain.DefaultRatePlan, Name: "Room only, best price", Default: true,
		Board: domain.BoardRoomOnly, Payment: domain.PaymentRule{Kind: domain.PayInFull}, Channels: []string{domain.AnyChannel}}
	require.NoError(t, put(bar), "BAR's name and board are its own")
	barWithPolicy := bar
	barWithPolicy.Policy = flexible("x", "").Policy
	assert.ErrorContains(t, barWithPolicy.Validate(), "cancellation-policy")
}

// TestTwoPlansWrittenAtOnceCannotMakeACycle: A from B and B from A, written at the same moment:
// the hotel's sale lock makes the second see the first, and one of them is refused. The control
// (by hand: PutRatePlan without lockSaleRules) stored both in round 1, a cycle.
func TestTwoPlansWrittenAtOnceCannotMakeACycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	for round := range 20 {
		a, b := fmt.Sprint("A", round), fmt.Sprint("B", round)
		_, err := d.Store.PutRatePlan(ctx, flexible(a, ""))
		require.NoError(t, err)
		_, err = d.Store.PutRatePlan(ctx, flexible(b, ""))
		require.NoError(t, err)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, p := range []domain.RatePlan{flexible(a, b), flexible(b, a)} {
			wg.Go(func() { _, errs[i] = d.Store.PutRatePlan(ctx, p) })
		}
		wg.Wait()
		failed := 0
		for _, err := range errs {
			if err != nil {
				assert.ErrorContains(t, err, "cycle")
				failed++
			}
		}
		require.Equal(t, 1, failed, "round %d: exactly one of the two is refused", round)
	}
}
