package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// groupBlock is a block of rooms doubles a night at h1 over stay3, at 90.00 a night, released
// by hand only.
func groupBlock(code string, rooms ...int) domain.BlockRequest {
	r := domain.BlockRequest{GroupCode: code, Name: "Wedding " + code, RoomTypeID: "double", Currency: "EUR",
		Owner: domain.BlockOwner{Name: "Ada Organiser", Contact: "ada@example.com"}}
	for i, n := range rooms {
		r.Nights = append(r.Nights, domain.BlockNight{Date: dec10.AddDays(i), Rooms: n, Price: new(int64(9000))})
	}
	return r
}

// definiteBlock creates a block and makes it definite.
func definiteBlock(t *testing.T, d *testsuite.Database, r domain.BlockRequest) db.Block {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, r.Validate())
	b, err := d.Store.CreateBlock(ctx, "h1", "admin-1", r)
	require.NoError(t, err)
	b, err = d.Store.MakeBlockDefinite(ctx, b.ID, "admin-1")
	require.NoError(t, err)
	require.Equal(t, domain.BlockDefinite, b.Status)
	return b
}

// pickup is a guest's reservation under a group code.
func pickup(customer, code string, stay domain.Stay, qty int) db.ReserveParams {
	p := holdParams(customer, "k", stay, qty)
	p.Request.GroupCode = code
	return p
}

// nightCounts reads a block's remaining, picked and released rooms per night.
func nightCounts(t *testing.T, d *testsuite.Database, id string) (remaining, picked, released []int) {
	t.Helper()
	b, err := d.Store.GetBlock(context.Background(), id)
	require.NoError(t, err)
	for _, n := range b.Nights {
		remaining, picked, released = append(remaining, n.Remaining), append(picked, n.Picked), append(released, n.Released)
	}
	return remaining, picked, released
}

func TestABlockMadeDefiniteWithOneNightShortIsRefusedNamingItAndTakesNothing(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	holdRooms(t, d, "c1", domain.Stay{CheckIn: dec10.AddDays(1), CheckOut: dec10.AddDays(2)}, 3)

	r := groupBlock("SMITH", 4, 4, 4)
	require.NoError(t, r.Validate())
	b, err := d.Store.CreateBlock(ctx, "h1", "admin-1", r)
	require.NoError(t, err)
	assert.Equal(t, []int{5, 5, 5}, []int{b.Nights[0].Tentative + 1, b.Nights[1].Tentative + 1, b.Nights[2].Tentative + 1},
		"a tentative block shows what it would take")
	assert.Equal(t, []int{0, 3, 0}, d.Reserved(t, "h1", "double", stay3), "a tentative block takes nothing")

	_, err = d.Store.MakeBlockDefinite(ctx, b.ID, "admin-1")
	require.ErrorIs(t, err, domain.ErrConflict)
	assert.Contains(t, err.Error(), "2030-12-11 (2 of 4 rooms left)")
	assert.Equal(t, []int{0, 3, 0}, d.Reserved(t, "h1", "double", stay3), "nothing was set aside")
	got, err := d.Store.GetBlock(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.BlockInquiry, got.Status)
	d.AssertInventoryMatchesBookings(t)
}

func TestADefiniteBlockTakesItsRoomsFromSaleAndItsGuestsPickThemUpAtItsRate(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := definiteBlock(t, d, groupBlock("JONES", 4, 4, 4))
	assert.Equal(t, []int{4, 4, 4}, d.Reserved(t, "h1", "double", stay3))

	public, err := d.Store.Reserve(ctx, holdParams("walk-in", "k", stay3, 2))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, public.Status, "the block's rooms are not on open sale")

	guest, err := d.Store.Reserve(ctx, pickup("guest-1", "jones", stay3, 2)) // codes are typed in any case
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, guest.Status, guest.Refusal)
	assert.Equal(t, b.ID, guest.BlockID)
	assert.Equal(t, "JONES", guest.GroupCode)
	assert.Equal(t, "EUR", guest.Price.Currency)
	assert.Equal(t, int64(3*2*9000), guest.Price.Total, "at the block's negotiated rate")
	assert.Equal(t, []int{4, 4, 4}, d.Reserved(t, "h1", "double", stay3), "the rooms were the block's already")
	remaining, picked, _ := nightCounts(t, d, b.ID)
	assert.Equal(t, []int{2, 2, 2}, remaining)
	assert.Equal(t, []int{2, 2, 2}, picked)

	more, err := d.Store.Reserve(ctx, pickup("guest-2", "JONES", stay3, 3))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, more.Status, "no overflow: the block alone")
	assert.Contains(t, more.Refusal, "group JONES has 2 rooms left on the night of 2030-12-10")
	d.AssertInventoryMatchesBookings(t)
}

func TestAPickupOverflowsIntoOpenStockOnlyWhenTheBlockAllowsIt(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	r := groupBlock("OVER", 2, 2, 2)
	r.Overflow = true
	b := definiteBlock(t, d, r)

	guest, err := d.Store.Reserve(ctx, pickup("guest-1", "OVER", stay3, 4))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, guest.Status, guest.Refusal)
	assert.Equal(t, []int{4, 4, 4}, d.Reserved(t, "h1", "double", stay3), "2 from the block, 2 from open stock")
	remaining, picked, _ := nightCounts(t, d, b.ID)
	assert.Equal(t, []int{0, 0, 0}, remaining)
	assert.Equal(t, []int{2, 2, 2}, picked)

	_, err = d.Store.Release(ctx, guest.ID, domain.StatusCancelled)
	require.NoError(t, err)
	assert.Equal(t, []int{2, 2, 2}, d.Reserved(t, "h1", "double", stay3), "the block's two go back to it, the rest to sale")
	remaining, picked, _ = nightCounts(t, d, b.ID)
	assert.Equal(t, []int{2, 2, 2}, remaining)
	assert.Equal(t, []int{0, 0, 0}, picked)
	d.AssertInventoryMatchesBookings(t)
}

func TestThirtyPickupsRacingForABlockOfTenWithOpenStockSoldOutGetExactlyTen(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 10)
	b := definiteBlock(t, d, groupBlock("RACE", 10, 10, 10))

	statuses := make([]domain.Status, 30)
	errs := make([]error, 30)
	testsuite.Race(30, func(i int) {
		g, err := d.Store.Reserve(ctx, pickup(fmt.Sprintf("guest-%d", i), "RACE", stay3, 1))
		statuses[i], errs[i] = g.Status, err
	})
	held := 0
	for i := range statuses {
		require.NoError(t, errs[i])
		if statuses[i] == domain.StatusHold {
			held++
		}
	}
	assert.Equal(t, 10, held)
	assert.Equal(t, []int{10, 10, 10}, d.Reserved(t, "h1", "double", stay3))
	remaining, picked, _ := nightCounts(t, d, b.ID)
	assert.Equal(t, []int{0, 0, 0}, remaining)
	assert.Equal(t, []int{10, 10, 10}, picked)
	d.AssertInventoryMatchesBookings(t)
}

// The control of the race above: a pickup that decides on the block's held rooms before it holds
// the units' locks, and writes what it decided, draws more than the block has.
func TestControlAPickupThatDecidesBeforeItsLocksOverdrawsTheBlock(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec11, 10)
	b := definiteBlock(t, d, groupBlock("NAIVE", 10))
	wins := make([]bool, 30)
	testsuite.Race(30, func(i int) {
		var held int
		require.NoError(t, d.Pool.QueryRow(ctx, `SELECT held FROM block_nights WHERE block_id = $1`, b.ID).Scan(&held))
		if held < 1 {
			return
		}
		time.Sleep(20 * time.Millisecond) // the think time between the read and the write
		_, err := d.Pool.Exec(ctx, `UPDATE block_nights SET held = $2, picked = picked + 1 WHERE block_id = $1`, b.ID, held-1)
		require.NoError(t, err)
		wins[i] = true
	})
	won := 0
	for _, w := range wins {
		if w {
			won++
		}
	}
	assert.Greater(t, won, 10, "the naive pickup must overdraw, or this control proves nothing")
}

func TestAPickupCancelledBeforeTheCutOffGoesBackToTheBlockAndAfterItToSale(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := definiteBlock(t, d, groupBlock("CUT", 3, 3, 3))
	before, err := d.Store.Reserve(ctx, pickup("guest-1", "CUT", stay3, 1))
	require.NoError(t, err)
	after, err := d.Store.Reserve(ctx, pickup("guest-2", "CUT", stay3, 1))
	require.NoError(t, err)

	_, err = d.Store.Release(ctx, before.ID, domain.StatusCancelled)
	require.NoError(t, err)
	remaining, picked, released := nightCounts(t, d, b.ID)
	assert.Equal(t, []int{2, 2, 2}, remaining, "before the cut-off: back to the block")
	assert.Equal(t, []int{1, 1, 1}, picked)
	assert.Equal(t, []int{0, 0, 0}, released)
	assert.Equal(t, []int{3, 3, 3}, d.Reserved(t, "h1", "double", stay3))

	// The cut-off passes and the sweep releases what the block holds.
	_, err = d.Pool.Exec(ctx, `UPDATE block_nights SET release_at = now() - interval '1 second' WHERE block_id = $1`, b.ID)
	require.NoError(t, err)
	n, err := d.Store.ReleaseDueBlocks(ctx)
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	assert.Equal(t, []int{1, 1, 1}, d.Reserved(t, "h1", "double", stay3), "the unpicked rooms went back to sale")
	again, err := d.Store.ReleaseDueBlocks(ctx)
	require.NoError(t, err)
	assert.Zero(t, again, "a night is released once")

	_, err = d.Store.Release(ctx, after.ID, domain.StatusCancelled)
	require.NoError(t, err)
	remaining, picked, released = nightCounts(t, d, b.ID)
	assert.Equal(t, []int{0, 0, 0}, remaining, "after the cut-off: to sale")
	assert.Equal(t, []int{0, 0, 0}, picked)
	assert.Equal(t, []int{3, 3, 3}, released)
	assert.Equal(t, []int{0, 0, 0}, d.Reserved(t, "h1", "double", stay3))
	got, err := d.Store.GetBlock(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.BlockReleased, got.Status)
	d.AssertInventoryMatchesBookings(t)

	late, err := d.Store.Reserve(ctx, pickup("guest-3", "CUT", stay3, 1))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, late.Status)
	assert.Equal(t, "group CUT's block is released", late.Refusal)
}

func TestAReleaseRacingAPickupHasOneOutcomeAndCountsNothingTwice(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	for round := range 10 {
		code := fmt.Sprintf("RR%d", round)
		from := dec10.AddDays(3 * round)
		stay := domain.Stay{CheckIn: from, CheckOut: from.AddDays(1)}
		d.SetInventory(t, "h1", "double", from, stay.CheckOut, 1)
		r := groupBlock(code, 1)
		r.Nights[0].Date = from
		b := definiteBlock(t, d, r)
		_, err := d.Pool.Exec(ctx, `UPDATE block_nights SET release_at = now() WHERE block_id = $1`, b.ID)
		require.NoError(t, err)

		var guest domain.Booking
		var pickErr, sweepErr error
		testsuite.Race(2, func(i int) {
			if i == 0 {
				guest, pickErr = d.Store.Reserve(ctx, pickup("guest-"+code, code, stay, 1))
			} else {
				_, sweepErr = d.Store.ReleaseDueBlocks(ctx)
			}
		})
		require.NoError(t, pickErr)
		require.NoError(t, sweepErr)
		remaining, picked, released := nightCounts(t, d, b.ID)
		if guest.Status == domain.StatusHold {
			assert.Equal(t, []int{0, 1, 0}, []int{remaining[0], picked[0], released[0]}, "round %d: picked before the release", round)
			assert.Equal(t, []int{1}, d.Reserved(t, "h1", "double", stay), "round %d", round)
		} else {
			assert.Equal(t, []int{0, 0, 1}, []int{remaining[0], picked[0], released[0]}, "round %d: released first", round)
			assert.Equal(t, []int{0}, d.Reserved(t, "h1", "double", stay), "round %d", round)
		}
		d.AssertInventoryMatchesBookings(t)
	}
}

func TestTheCheckerCountsWhatBlocksSetAsideAndFindsABlockWhoseCountsDrift(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := definiteBlock(t, d, groupBlock("CHECK", 3, 3, 3))
	_, err := d.Store.Reserve(ctx, pickup("guest-1", "CHECK", stay3, 1))
	require.NoError(t, err)

	inventory, err := d.Store.InventoryMismatches(ctx)
	require.NoError(t, err)
	assert.Empty(t, inventory, "a definite block's rooms are counted with the bookings")
	blocks, err := d.Store.BlockMismatches(ctx)
	require.NoError(t, err)
	assert.Empty(t, blocks)

	// Control: a night's held count changed by hand is found by both.
	_, err = d.Pool.Exec(ctx, `UPDATE block_nights SET held = held - 1 WHERE block_id = $1 AND unit_start = $2`, b.ID, dec10.Time())
	require.NoError(t, err)
	inventory, err = d.Store.InventoryMismatches(ctx)
	require.NoError(t, err)
	require.Len(t, inventory, 1)
	assert.Contains(t, inventory[0].Detail, "reserved 3, held by bookings 2")
	blocks, err = d.Store.BlockMismatches(ctx)
	require.NoError(t, err)
	require.Len(t, blocks, 1)
	assert.Contains(t, blocks[0].Detail, "rooms 3, held 1, picked 1 (bookings drew 1), released 0")
}

func TestRoomsABlockReleasesAreOfferedToTheWaitlistFirst(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 3)
	b := definiteBlock(t, d, groupBlock("WAIT", 2, 2, 2))
	holdRooms(t, d, "public", stay3, 1) // the open room: sold out
	entry := waitFor(t, d, "waiting", stay3, 1)

	_, err := d.Store.ReleaseBlockRooms(ctx, b.ID, "desk-1", domain.BlockRoomsChange{Rooms: 1, Reason: "one room fewer"})
	require.NoError(t, err)
	got, err := d.Store.WaitlistEntry(ctx, entry.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.WaitlistOffered, got.Status, "the released room is held for the first in line")
	assert.Equal(t, []int{3, 3, 3}, d.Reserved(t, "h1", "double", stay3), "never on open sale")
	d.AssertInventoryMatchesBookings(t)
}

func TestTheStockViewShowsEachNightsGroupRooms(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 10)
	definiteBlock(t, d, groupBlock("STOCK", 4, 4, 4))
	tentative := groupBlock("MAYBE", 2, 0, 2)
	require.NoError(t, tentative.Validate())
	_, err := d.Store.CreateBlock(ctx, "h1", "admin-1", tentative)
	require.NoError(t, err)
	_, err = d.Store.Reserve(ctx, pickup("guest-1", "STOCK", stay3, 1))
	require.NoError(t, err)

	nights, err := d.Store.HotelStock(ctx, "h1", dec10, dec13)
	require.NoError(t, err)
	require.Len(t, nights, 3)
	n := nights[1]
	assert.Equal(t, []int{4, 0, 1, 3}, []int{n.GroupDefinite, n.GroupTentative, n.GroupPicked, n.GroupRemaining})
	assert.Equal(t, 2, nights[0].GroupTentative)
	assert.Equal(t, 10, n.Held+n.Sold+n.BlockedRooms+n.GroupRemaining+n.Available, "the total adds up")
}

func TestErasingAGroupGuestDeletesTheNameTheRoomingListGave(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := definiteBlock(t, d, groupBlock("NAMES", 2, 2, 2))
	g, err := d.Store.Reserve(ctx, pickup("group-guest-1", "NAMES", stay3, 1))
	require.NoError(t, err)
	require.NoError(t, d.Store.NoteBlockGuest(ctx, b.ID, g.ID, "Zsófia Kertész"))
	_, err = d.Store.Release(ctx, g.ID, domain.StatusCancelled)
	require.NoError(t, err)

	e := erase(t, d, "group-guest-1")
	assert.Equal(t, int64(1), e.Rows.BlockGuests)
	assert.Empty(t, testsuite.ColumnsHolding(t, d.Pool, "Zsófia Kertész"))
}

func TestABlockSoldUnderARatePlanPricesItsPickupsByThePlan(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)                          // BAR: 100.00 a night
	_, err := d.Store.PutRatePlan(ctx, flexible("GRP", domain.DefaultRatePlan)) // 10% off BAR
	require.NoError(t, err)
	r := groupBlock("PLAN", 2, 2, 2)
	r.Currency, r.RatePlan = "", "GRP"
	for i := range r.Nights {
		r.Nights[i].Price = nil
	}
	b := definiteBlock(t, d, r)
	assert.Equal(t, "GRP", b.RatePlan)

	g, err := d.Store.Reserve(ctx, pickup("guest-1", "PLAN", stay3, 1))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, g.Status, g.Refusal)
	assert.Equal(t, "GRP", g.RatePlan)
	assert.Equal(t, int64(3*9000), g.Price.Total, "the plan's price, 10% off BAR")

	other := pickup("guest-2", "PLAN", stay3, 1)
	other.Request.RatePlan = domain.DefaultRatePlan
	refused, err := d.Store.Reserve(ctx, other)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, refused.Status)
	assert.Equal(t, "group PLAN is sold at its own rate, not under rate plan BAR", refused.Refusal)
	d.AssertInventoryMatchesBookings(t)
}
