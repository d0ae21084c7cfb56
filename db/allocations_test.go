package db_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// Channel sales are judged by the default booking window (1 to 365 days ahead), so these tests
// sell a stay a month from now.
var (
	soon     = domain.DateOf(time.Now(), time.UTC).AddDays(30)
	soonStay = domain.Stay{CheckIn: soon, CheckOut: soon.AddDays(3)}
)

// splitStock opens 18 rooms of h1/double on soonStay's nights, 10 allotted to channel A, 5 to B,
// leaving a shared pool of 3.
func splitStock(t *testing.T, d *testsuite.Database) {
	t.Helper()
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", soon, soonStay.CheckOut, 18)
	for _, c := range []string{"A", "B"} {
		require.NoError(t, d.Store.PutChannel(ctx, db.Channel{ID: c}))
	}
	require.NoError(t, d.Store.PutAgent(ctx, db.Agent{ID: "agent-a", ChannelID: "A"}))
	require.NoError(t, d.Store.SetAllocations(ctx, []db.AllocationSet{
		{HotelID: "h1", RoomTypeID: "double", ChannelID: "A", From: soon, To: soonStay.CheckOut, Allotted: 10},
		{HotelID: "h1", RoomTypeID: "double", ChannelID: "B", From: soon, To: soonStay.CheckOut, Allotted: 5},
	}))
}

// channelHold is a hold by channel's agent for a guest.
func channelHold(customer, channel, agent string, stay domain.Stay, qty int) db.ReserveParams {
	p := holdParams(customer, "k", stay, qty)
	p.ChannelID, p.AgentID = channel, agent
	return p
}

func shares(t *testing.T, d *testsuite.Database) db.NightShares {
	t.Helper()
	nights, err := d.Store.Allocations(context.Background(), "h1", "double", soon, soonStay.CheckOut)
	require.NoError(t, err)
	require.Len(t, nights, 3)
	return nights[0]
}

func TestChannelSellsItsAllocationThenThePoolAndNeverAnotherChannels(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	splitStock(t, d)
	ctx := context.Background()

	statuses := make([]domain.Status, 20)
	ids := make([]string, 20)
	errs := make([]error, 20)
	testsuite.Race(20, func(i int) {
		b, err := d.Store.Reserve(ctx, channelHold(fmt.Sprintf("guest%d", i), "A", "agent-a", soonStay, 1))
		statuses[i], ids[i], errs[i] = b.Status, b.ID, err
	})
	require.NoError(t, errors.Join(errs...))
	count := map[domain.Status]int{}
	for _, s := range statuses {
		count[s]++
	}
	assert.Equal(t, map[domain.Status]int{domain.StatusHold: 13, domain.StatusRejected: 7}, count,
		"10 from A's allocation and 3 from the pool")
	assert.Equal(t, []int{13, 13, 13}, d.Reserved(t, "h1", "double", soonStay))
	n := shares(t, d)
	assert.Equal(t, []db.ChannelShare{{ChannelID: "A", Allotted: 10, Used: 10, Exhausted: true},
		{ChannelID: "B", Allotted: 5, Used: 0}}, n.Channels, "A's allocation is exhausted, B's untouched")
	assert.Equal(t, 0, n.PoolLeft)

	// B still sells its 5; a direct sale finds the pool empty.
	for i := range 5 {
		b, err := d.Store.Reserve(ctx, channelHold(fmt.Sprintf("b-guest%d", i), "B", "", soonStay, 1))
		require.NoError(t, err)
		assert.Equal(t, domain.StatusHold, b.Status)
	}
	direct, err := d.Store.Reserve(ctx, holdParams("walk-up", "k", soonStay, 1))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, direct.Status, "the pool is spent and allocations are not for direct sales")

	// A cancellation gives its room back where it came from. The first A hold to commit took
	// from A's allocation (the pool is used only once the allocation is spent).
	var fromAllocation string
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT booking_id FROM booking_allocations WHERE channel_id = 'A' LIMIT 1`).Scan(&fromAllocation))
	_, err = d.Store.Release(ctx, fromAllocation, domain.StatusCancelled)
	require.NoError(t, err)
	n = shares(t, d)
	assert.Equal(t, db.ChannelShare{ChannelID: "A", Allotted: 10, Used: 9, Exhausted: false}, n.Channels[0], "A's allocation is active again")
	again, err := d.Store.Reserve(ctx, channelHold("late-guest", "A", "agent-a", soonStay, 1))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusHold, again.Status)
	d.AssertInventoryMatchesBookings(t)
}

// TestNaiveAllocationCheckSellsAnotherChannelsRooms is the control for the test above: the same
// 20 sales through A, deciding from an unlocked read of what A and the pool have left, sell more
// than 13 and so take rooms allotted to B. It proves the race is real and visible here.
func TestNaiveAllocationCheckSellsAnotherChannelsRooms(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	splitStock(t, d)
	ctx := context.Background()

	sold := make([]bool, 20)
	testsuite.Race(20, func(i int) {
		var own, pool int
		require.NoError(t, d.Pool.QueryRow(ctx, `SELECT
				(SELECT allotted - used FROM allocations WHERE channel_id = 'A' AND unit_start = $1),
				(SELECT i.total - sum(a.allotted) - (i.reserved - sum(a.used)) FROM inventory i
					JOIN allocations a USING (resource_id, unit_start) WHERE i.unit_start = $1 GROUP BY i.total, i.reserved)`,
			soon.Time()).Scan(&own, &pool))
		if own+pool < 1 {
			return
		}
		time.Sleep(20 * time.Millisecond)
		_, err := d.Pool.Exec(ctx, `UPDATE inventory SET reserved = reserved + 1 WHERE unit_start = $1`, soon.Time())
		sold[i] = err == nil
	})
	n := 0
	for _, s := range sold {
		if s {
			n++
		}
	}
	assert.Greater(t, n, 13, "the naive check must sell into B's allocation, or this control proves nothing")
}

func TestAllocationsNeverAddUpToMoreThanTheStock(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	splitStock(t, d)
	ctx := context.Background()

	err := d.Store.SetAllocations(ctx, []db.AllocationSet{{HotelID: "h1", RoomTypeID: "double", ChannelID: "B", From: soon, To: soonStay.CheckOut, Allotted: 9}})
	assert.ErrorIs(t, err, domain.ErrConflict, "10 + 9 > 18")
	// All or none: a valid set beside an invalid one changes nothing.
	err = d.Store.SetAllocations(ctx, []db.AllocationSet{
		{HotelID: "h1", RoomTypeID: "double", ChannelID: "B", From: soon, To: soonStay.CheckOut, Allotted: 8},
		{HotelID: "h1", RoomTypeID: "double", ChannelID: "A", From: soon, To: soon.AddDays(4), Allotted: 10},
	})
	assert.ErrorIs(t, err, domain.ErrConflict, "the 13th is not on sale")
	assert.Equal(t, 5, shares(t, d).Channels[1].Allotted)

	for i := range 3 {
		_, err := d.Store.Reserve(ctx, channelHold(fmt.Sprintf("g%d", i), "B", "", soonStay, 1))
		require.NoError(t, err)
	}
	err = d.Store.SetAllocations(ctx, []db.AllocationSet{{HotelID: "h1", RoomTypeID: "double", ChannelID: "B", From: soon, To: soonStay.CheckOut, Allotted: 2}})
	assert.ErrorIs(t, err, domain.ErrConflict, "B already sold 3 from its allocation")
	// The total is never set below what the nights promised their channels.
	err = d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: "h1", RoomTypeID: "double", From: soon,
		To: soonStay.CheckOut, TotalRooms: 14, Rate: &testsuite.TestRate})
	assert.ErrorIs(t, err, domain.ErrConflict, "A 10 + B 5 = 15 rooms are allotted")
	assert.Equal(t, 18, *shares(t, d).Total)

	// Nor may an allocation promise more than is left unsold. Direct sales take the pool's 3:
	// 18 - 6 sold leaves 12 unsold rooms, 7 of them promised to A and 2 to B... so A may have
	// 10 (its 10 unsold) but not 13, although 13 + 5 allotted is still the total of 18.
	for i := range 3 {
		b, err := d.Store.Reserve(ctx, holdParams(fmt.Sprintf("direct%d", i), "k", soonStay, 1))
		require.NoError(t, err)
		require.Equal(t, domain.StatusHold, b.Status)
	}
	err = d.Store.SetAllocations(ctx, []db.AllocationSet{{HotelID: "h1", RoomTypeID: "double", ChannelID: "A", From: soon, To: soonStay.CheckOut, Allotted: 13}})
	assert.ErrorIs(t, err, domain.ErrConflict)
	assert.Contains(t, err.Error(), "promise more rooms than are left unsold")
	require.NoError(t, d.Store.SetAllocations(ctx, []db.AllocationSet{{HotelID: "h1", RoomTypeID: "double", ChannelID: "A", From: soon, To: soonStay.CheckOut, Allotted: 10}}))
	// Likewise the total: 6 sold and 12 unsold rooms promised need 18, although the allotments
	// (15) would fit in 17.
	err = d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: "h1", RoomTypeID: "double", From: soon,
		To: soonStay.CheckOut, TotalRooms: 17, Rate: &testsuite.TestRate})
	assert.ErrorIs(t, err, domain.ErrConflict)
	assert.Equal(t, 18, *shares(t, d).Total)
	d.AssertInventoryMatchesBookings(t)
}

func TestUnlimitedStockSellsWithoutEnd(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	require.NoError(t, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: "h1", RoomTypeID: "double",
		From: soon, To: soonStay.CheckOut, Unlimited: true, Rate: &testsuite.TestRate}))
	for i := range 30 {
		b, err := d.Store.Reserve(ctx, holdParams(fmt.Sprintf("g%d", i), "k", soonStay, 20))
		require.NoError(t, err)
		require.Equal(t, domain.StatusHold, b.Status)
	}
	assert.Equal(t, []int{600, 600, 600}, d.Reserved(t, "h1", "double", soonStay), "what is sold is still counted")
	avail, err := d.Store.Availability(ctx, "h1", "", soonStay)
	require.NoError(t, err)
	require.Len(t, avail, 1)
	assert.True(t, avail[0].Unlimited)
	err = d.Store.SetAllocations(ctx, []db.AllocationSet{{HotelID: "h1", RoomTypeID: "double", ChannelID: "A", From: soon, To: soonStay.CheckOut, Allotted: 1}})
	assert.ErrorIs(t, err, domain.ErrConflict, "unlimited stock is not split")
	d.AssertInventoryMatchesBookings(t)
}

// TestCheckerReportsUnlimitedNightsAndSkipsSupplierHeldBookings: a mismatch on a night without a
// total is reported (not a crash), and a booking a direct_connect supplier holds is no mismatch.
func TestCheckerReportsUnlimitedNightsAndSkipsSupplierHeldBookings(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	require.NoError(t, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: "h1", RoomTypeID: "double",
		From: soon, To: soonStay.CheckOut, Unlimited: true, Rate: &testsuite.TestRate}))
	supplierHotel(t, d, "live", db.ModeDirectConnect, "h2")
	_, err := d.Pool.Exec(ctx, `INSERT INTO resources (kind, hotel_id, code) VALUES ('hotel_room_type', 'h2', 'double')`)
	require.NoError(t, err)
	p := holdParams("g", "k", soonStay, 2)
	p.Request.HotelID, p.SupplierID = "h2", "live"
	price := domain.Price{Currency: "EUR", Total: 300, Nights: []domain.NightRate{{Date: soon, Amount: 100},
		{Date: soon.AddDays(1), Amount: 100}, {Date: soon.AddDays(2), Amount: 100}}}
	b, err := d.Store.ReserveAtSupplier(ctx, p, &price)
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, b.Status)

	findings, err := d.Store.InventoryMismatches(ctx)
	require.NoError(t, err)
	assert.Empty(t, findings, "a supplier-held booking takes no stock here")
	_, err = d.Pool.Exec(ctx, `UPDATE inventory SET reserved = 5 WHERE unit_start = $1`, soon.Time())
	require.NoError(t, err)
	findings, err = d.Store.InventoryMismatches(ctx)
	require.NoError(t, err)
	require.Len(t, findings, 1)
	assert.Contains(t, findings[0].Detail, "total unlimited")
}
