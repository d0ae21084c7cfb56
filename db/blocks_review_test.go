package db_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// Tests from the adversarial review of group blocks (issue 37): each failed on the code as first written.

// rollingBlock is groupBlock released a day before each night (the nights are in 2030), so
// the tests below are not stopped by the release-kind-none defect.
func rollingBlock(code string, rooms ...int) domain.BlockRequest {
	r := groupBlock(code, rooms...)
	r.Release = domain.BlockRelease{Kind: domain.ReleaseRolling, Days: new(1)}
	return r
}

// releaseBlockNights scans "released_at IS NULL AND release_at <= now()" into a bool; for a
// block released by hand only (release.kind none, the default: release_at NULL) it is NULL, so
// cancelling the block, an early release and a wash all fail with a scan error (a 500).
func TestABlockWithoutACutOffCanBeCancelledAndReleasedEarly(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := definiteBlock(t, d, groupBlock("NONE", 3, 3, 3))

	got, err := d.Store.ReleaseBlockRooms(ctx, b.ID, "admin-1", domain.BlockRoomsChange{Rooms: 1})
	require.NoError(t, err, "early release")
	assert.Equal(t, 2, got.Nights[0].Remaining)
	_, err = d.Store.ReleaseBlockRooms(ctx, b.ID, "admin-1", domain.BlockRoomsChange{Percent: 50})
	require.NoError(t, err, "wash")
	got, err = d.Store.CancelBlock(ctx, b.ID, "admin-1", "called off")
	require.NoError(t, err, "cancel")
	assert.Equal(t, domain.BlockCancelled, got.Status)
	assert.Equal(t, []int{0, 0, 0}, d.Reserved(t, "h1", "double", stay3))
	d.AssertInventoryMatchesBookings(t)
}

// Cancelling a block that was never made definite leaves its nights with held + picked +
// released = 0 while its status is CANCELLED: the invariant checker (BlockMismatches, and the
// suite's AssertInventoryMatchesBookings) then reports every night of it as drifted.
func TestCancellingATentativeBlockIsNotReportedAsDrift(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	r := rollingBlock("TENT", 2, 2, 2)
	require.NoError(t, r.Validate())
	b, err := d.Store.CreateBlock(ctx, "h1", "admin-1", r)
	require.NoError(t, err)
	b, err = d.Store.CancelBlock(ctx, b.ID, "admin-1", "the couple eloped")
	require.NoError(t, err)
	require.Equal(t, domain.BlockCancelled, b.Status)
	assert.Equal(t, []int{0, 0, 0}, d.Reserved(t, "h1", "double", stay3), "a tentative block took nothing")

	found, err := d.Store.BlockMismatches(ctx)
	require.NoError(t, err)
	assert.Empty(t, found, "a tentative block cancelled has nothing to account for")
	d.AssertInventoryMatchesBookings(t)
}

// takeGroupLine ranges over a map to name the short night, so which night a refusal names is
// random (blocks_test.go's TestADefiniteBlockTakesItsRoomsFromSale... fails now and then on it).
func TestAShortPickupNamesTheFirstShortNightEveryTime(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	definiteBlock(t, d, groupBlock("ORDER", 2, 2, 2))
	for i := range 12 {
		p := pickup("guest", "ORDER", stay3, 3)
		p.BookingID = "bk-order-" + string(rune('a'+i))
		p.IdempotencyKey = p.BookingID
		g, err := d.Store.Reserve(ctx, p)
		require.NoError(t, err)
		require.Equal(t, domain.StatusRejected, g.Status)
		require.Equal(t, "group ORDER has 2 rooms left on the night of 2030-12-10", g.Refusal, "attempt %d", i)
	}
}

// A pickup reads the block's status (blockForPickup) before it locks the nights, and the
// draw does not look at it again. A CancelBlock committing in between (it holds the units the
// pickup waits for) leaves the pickup drawing nothing and, with overflow, taking open stock at
// the cancelled block's negotiated rate, as a HOLD tied to a CANCELLED block. The same pickup
// asked a moment later is refused ("group ...'s block is cancelled").
func TestAPickupRacingTheBlocksCancelIsNotSoldUnderTheCancelledBlock(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	r := rollingBlock("GONE", 2, 2, 2)
	r.Overflow = true
	b := definiteBlock(t, d, r)

	// Hold the nights' locks so both writers queue behind them: the cancel first, then the pickup.
	holder, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer holder.Rollback(ctx) //nolint:errcheck
	_, err = holder.Exec(ctx, `SELECT 1 FROM inventory i JOIN resources r ON r.id = i.resource_id
		WHERE r.hotel_id = 'h1' AND r.code = 'double' ORDER BY i.unit_start FOR UPDATE OF i`)
	require.NoError(t, err)

	cancelled := make(chan error, 1)
	go func() {
		_, err := d.Store.CancelBlock(ctx, b.ID, "admin-1", "called off")
		cancelled <- err
	}()
	waitForLockWaiters(t, d, 1)
	type result struct {
		b   domain.Booking
		err error
	}
	picked := make(chan result, 1)
	go func() {
		g, err := d.Store.Reserve(ctx, pickup("guest-1", "GONE", stay3, 1))
		picked <- result{g, err}
	}()
	waitForLockWaiters(t, d, 2)
	require.NoError(t, holder.Rollback(ctx))
	require.NoError(t, <-cancelled)
	got := <-picked
	require.NoError(t, got.err)

	blk, err := d.Store.GetBlock(ctx, b.ID)
	require.NoError(t, err)
	require.Equal(t, domain.BlockCancelled, blk.Status)
	assert.Equal(t, domain.StatusRejected, got.b.Status,
		"a pickup committing after the block's cancel must be refused, not sold at its rate (got total %d, block %q)",
		got.b.Price.Total, got.b.BlockID)
	d.AssertInventoryMatchesBookings(t)

	// Control: asked after the cancel, the same pickup is refused.
	late, err := d.Store.Reserve(ctx, pickup("guest-2", "GONE", stay3, 1))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, late.Status)
	assert.Equal(t, "group GONE's block is cancelled", late.Refusal)
}

// A pickup is priced in the block's currency, at its negotiated rate. Adding a night or a room by
// amendment would price it at the inventory's rate, in the inventory's currency, from open stock:
// refused, with the way to do it instead, and nothing changes. Giving back a night is applied at
// the block's price.
func TestAPickupAmendedOnlyGivesBackAndAnAddedNightIsRefused(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5) // 100.00 EUR a night
	r := groupBlock("DOLLAR", 2, 2, 2)
	r.Currency = "USD"
	b := definiteBlock(t, d, r)
	g, err := d.Store.Reserve(ctx, pickup("guest-1", "DOLLAR", domain.Stay{CheckIn: dec10, CheckOut: dec10.AddDays(2)}, 1))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, g.Status, g.Refusal)
	require.Equal(t, "USD", g.Price.Currency)
	require.Equal(t, int64(2*9000), g.Price.Total)

	a, after := amend(t, d, amendParams(g, "one-more", domain.Change{CheckOut: dec13}))
	require.Equal(t, domain.AmendmentRefused, a.Status)
	assert.Equal(t, "a group's booking only gives back rooms or nights: book more under group DOLLAR", a.Reason)
	assert.Equal(t, int64(2*9000), after.Price.Total)
	remaining, picked, _ := nightCounts(t, d, b.ID)
	assert.Equal(t, []int{1, 1, 0}, picked)
	assert.Equal(t, []int{1, 1, 2}, remaining)

	a, after = amend(t, d, amendParams(g, "one-less", domain.Change{CheckOut: dec10.AddDays(1)}))
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.Equal(t, "USD", after.Price.Currency)
	assert.Equal(t, int64(9000), after.Price.Total, "the night kept at the block's price")
	remaining, picked, _ = nightCounts(t, d, b.ID)
	assert.Equal(t, []int{1, 0, 0}, picked)
	assert.Equal(t, []int{1, 2, 2}, remaining, "the night given back goes back to the block")
	d.AssertInventoryMatchesBookings(t)
}

// A negotiated price is only checked to be >= 0: a price near the int64 limit is accepted,
// and a pickup of 2 rooms multiplies it past the limit (blockSale.price) into a negative total.
func TestABlockPriceThatOverflowsAPickupsTotalIsRefused(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	r := groupBlock("HUGE", 2)
	r.Nights[0].Price = new(int64(math.MaxInt64/2 + 1))
	if err := r.Validate(); err != nil {
		return // refused as it should be
	}
	b, err := d.Store.CreateBlock(ctx, "h1", "admin-1", r)
	require.NoError(t, err)
	_, err = d.Store.MakeBlockDefinite(ctx, b.ID, "admin-1")
	require.NoError(t, err)
	g, err := d.Store.Reserve(ctx, pickup("guest-1", "HUGE", domain.Stay{CheckIn: dec10, CheckOut: dec10.AddDays(1)}, 2))
	if err != nil || g.Status != domain.StatusHold {
		return
	}
	assert.GreaterOrEqual(t, g.Price.Total, int64(0), "a pickup's total wrapped around int64")
}

// BlockRequest.Validate admits a name, owner or contact with a NUL character, which PostgreSQL's
// text refuses: the store fails with a raw database error (a 500 through the API) rather than
// ErrInvalid (400).
func TestABlockNameWithANulIsInvalidNotAServerError(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	r := groupBlock("NUL", 1)
	r.Name = "Wedding\x00"
	if err := r.Validate(); err != nil {
		assert.ErrorIs(t, err, domain.ErrInvalid)
		return
	}
	_, err := d.Store.CreateBlock(ctx, "h1", "admin-1", r)
	require.Error(t, err)
	assert.ErrorIs(t, err, domain.ErrInvalid, "got %v", err)
}

// A block whose fixed release date has passed is refused when created, and one whose every
// night's cut-off has passed (a rolling release) cannot be made definite: it would set nothing
// aside and sell at its rate from open stock.
func TestABlockPastEveryCutOffIsNeverMadeDefinite(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	r := groupBlock("LATE", 2, 2, 2)
	r.Overflow = true
	past := domain.DateOf(time.Now(), time.UTC).AddDays(-2)
	r.Release = domain.BlockRelease{Kind: domain.ReleaseFixed, Date: &past}
	require.NoError(t, r.Validate())
	_, err := d.Store.CreateBlock(ctx, "h1", "admin-1", r)
	require.ErrorIs(t, err, domain.ErrInvalid)
	assert.Contains(t, err.Error(), "is before the hotel's today")

	r.Release = domain.BlockRelease{Kind: domain.ReleaseRolling, Days: new(700)}
	require.NoError(t, r.Validate())
	b, err := d.Store.CreateBlock(ctx, "h1", "admin-1", r)
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `UPDATE block_nights SET release_at = now() - interval '1 minute' WHERE block_id = $1`, b.ID)
	require.NoError(t, err)
	_, err = d.Store.MakeBlockDefinite(ctx, b.ID, "admin-1")
	require.ErrorIs(t, err, domain.ErrConflict)
	assert.Contains(t, err.Error(), "past its cut-off")
	assert.Equal(t, []int{0, 0, 0}, d.Reserved(t, "h1", "double", stay3))
	g, err := d.Store.Reserve(ctx, pickup("guest-1", "LATE", stay3, 1))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, g.Status, "a tentative block sells nothing")
	d.AssertInventoryMatchesBookings(t)
}

// A pickup is sold under the block's contract, past the hotel's sale rules (a stop-sell here).
// An amendment of it is judged by those rules (amend.go's judgeSale) whatever it changes, so a
// guest who booked 2 of the group's rooms cannot give one back: refused by the stop-sell their
// booking was sold through.
func TestAPickupUnderAStopSellCanLowerItsRooms(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := definiteBlock(t, d, rollingBlock("STOP", 3, 3, 3))
	_, err := d.Store.CreateSaleRules(ctx, []domain.SaleRule{{Kind: domain.RuleStopSell, HotelID: "h1", RoomTypeID: "double",
		From: dec10, To: dec13, Reason: "event"}})
	require.NoError(t, err)
	g, err := d.Store.Reserve(ctx, pickup("guest-1", "STOP", stay3, 2))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, g.Status, "the block's contract, not the stop-sell: %s", g.Refusal)

	a, after := amend(t, d, amendParams(g, "one-fewer", domain.Change{Quantity: 1}))
	assert.Equal(t, domain.AmendmentApplied, a.Status, "refused: %s", a.Reason)
	assert.Equal(t, 1, after.Quantity)
	remaining, picked, _ := nightCounts(t, d, b.ID)
	assert.Equal(t, []int{2, 2, 2}, remaining)
	assert.Equal(t, []int{1, 1, 1}, picked)
	d.AssertInventoryMatchesBookings(t)
}

// Validate refuses a block spanning more than MaxBlockNights (366) nights, but its check
// (last.DaysUntil(first) < -366) lets the first and last nights lie 366 days apart: 367 nights.
func TestABlockSpanningMoreThanMaxBlockNightsIsInvalid(t *testing.T) {
	r := groupBlock("LONG", 1)
	r.Nights = append(r.Nights, domain.BlockNight{Date: dec10.AddDays(domain.MaxBlockNights), Rooms: 1, Price: new(int64(9000))})
	assert.ErrorIs(t, r.Validate(), domain.ErrInvalid, "%s to %s spans %d nights", r.Nights[0].Date,
		r.Nights[1].Date, domain.MaxBlockNights+1)
}
