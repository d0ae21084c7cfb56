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

// Blocked rooms are out of order: neither sold nor for sale. A night has total - reserved -
// blocked left, for the reservation, searches, the cache and the supplier's stock view alike.

func block(d *testsuite.Database, hotel string, from, to domain.Date, n int) error {
	_, err := d.Store.SetBlockedRooms(context.Background(), db.BlockRooms{HotelID: hotel, RoomTypeID: "double",
		From: from, To: to, Blocked: n})
	return err
}

func TestBlockingNeverTakesRoomsThatAreSoldHeldOrAllotted(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 3)
	b, err := d.Store.Reserve(ctx, holdParams("c1", "k", stay3, 2))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, b.Status)

	err = block(d, "h1", dec10, dec13, 2)
	assert.ErrorIs(t, err, domain.ErrConflict, "2 rooms are held, 1 is free")
	assert.Contains(t, err.Error(), "fewer than 2 rooms are free to block (1 on the scarcest")
	require.NoError(t, block(d, "h1", dec10.AddDays(1), dec10.AddDays(2), 1))

	b, err = d.Store.Reserve(ctx, holdParams("c2", "k", stay3, 1))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, b.Status, "the free room of Dec 11 is blocked")
	assert.Equal(t, []int{2, 2, 2}, d.Reserved(t, "h1", "double", stay3))

	err = d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: "h1", RoomTypeID: "double", From: dec10, To: dec13, TotalRooms: 2})
	assert.ErrorIs(t, err, domain.ErrConflict, "a total under reserved + blocked")
	assert.Contains(t, err.Error(), "unblock rooms first")

	require.NoError(t, block(d, "h1", dec10, dec13, 0), "unblocking is always allowed")
	b, err = d.Store.Reserve(ctx, holdParams("c3", "k", stay3, 1))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusHold, b.Status, "sellable again once unblocked")

	assert.ErrorIs(t, block(d, "h1", dec10, dec10.AddDays(5), 1), domain.ErrConflict, "nights not on sale")
	_, err = d.Store.SetBlockedRooms(ctx, db.BlockRooms{HotelID: "h1", RoomTypeID: "suite", From: dec10, To: dec13, Blocked: 1})
	assert.ErrorIs(t, err, domain.ErrNotFound)
	require.NoError(t, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: "h2", RoomTypeID: "double", From: dec10,
		To: dec13, Unlimited: true, Rate: &testsuite.TestRate}))
	assert.ErrorIs(t, block(d, "h2", dec10, dec13, 1), domain.ErrConflict, "unlimited stock has no rooms to block")
	d.AssertInventoryMatchesBookings(t)
}

func TestBlockedRoomsComeOutOfThePoolNeverOutOfAChannelsAllocation(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	splitStock(t, d) // 18 rooms: A 10, B 5, a pool of 3
	ctx := context.Background()
	assert.ErrorIs(t, block(d, "h1", soon, soonStay.CheckOut, 4), domain.ErrConflict, "the allotments are promised")
	require.NoError(t, block(d, "h1", soon, soonStay.CheckOut, 2))

	n := shares(t, d)
	assert.Equal(t, 2, n.Blocked)
	assert.Equal(t, 1, n.PoolLeft)
	b, err := d.Store.Reserve(ctx, holdParams("g1", "k", soonStay, 2))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, b.Status, "a direct sale has 1 room of the pool left")
	b, err = d.Store.Reserve(ctx, holdParams("g2", "k", soonStay, 1))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusHold, b.Status)
	b, err = d.Store.Reserve(ctx, channelHold("g3", "B", "", soonStay, 5))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusHold, b.Status, "B's allocation is whole")
	b, err = d.Store.Reserve(ctx, channelHold("g4", "B", "", soonStay, 1))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, b.Status, "and the pool is empty: its last rooms are blocked")

	err = d.Store.SetAllocations(ctx, []db.AllocationSet{{HotelID: "h1", RoomTypeID: "double", ChannelID: "B",
		From: soon, To: soonStay.CheckOut, Allotted: 7}})
	assert.ErrorIs(t, err, domain.ErrConflict, "an allocation may not promise the blocked rooms")
	d.AssertInventoryMatchesBookings(t)
}

func TestSearchesTheCacheAndTheStockViewCountBlockedRooms(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	_, err := d.Pool.Exec(ctx, `DELETE FROM availability_outbox`)
	require.NoError(t, err)
	require.NoError(t, block(d, "h1", dec10, dec10.AddDays(1), 3))

	rooms, err := d.Store.Availability(ctx, "h1", "", stay3)
	require.NoError(t, err)
	require.Len(t, rooms, 1)
	assert.Equal(t, 2, rooms[0].Available)
	assert.Equal(t, 2, rooms[0].Nights[0].Available)
	assert.Equal(t, 5, rooms[0].Nights[1].Available)

	var states []db.CachedUnit
	_, err = d.Store.DrainOutbox(ctx, 100, func(s []db.CachedUnit) error { states = s; return nil })
	require.NoError(t, err)
	require.Len(t, states, 1, "blocking writes the outbox for the cache")
	assert.Equal(t, 2, states[0].Left)

	nights, err := d.Store.HotelStock(ctx, "h1", dec10, dec13)
	require.NoError(t, err)
	require.Len(t, nights, 3)
	assert.Equal(t, 3, nights[0].BlockedRooms)
	assert.Equal(t, 2, nights[0].Available)
	assert.False(t, nights[0].Blocked, "some rooms out of order do not close the night")
}

// TestTheStockViewShowsAStopSoldNightClosed: a stop-sell for every sale (the hotel's, or the
// room type's) closes the night in the supplier's stock view; one channel's does not.
func TestTheStockViewShowsAStopSoldNightClosed(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	d.SetInventory(t, "h1", "suite", dec10, dec13, 5)
	require.NoError(t, d.Store.PutChannel(ctx, db.Channel{ID: "A"}))
	hotelWide := createRule(t, d, domain.SaleRule{Kind: domain.RuleStopSell, HotelID: "h1", From: dec10, To: dec10.AddDays(1), Reason: "event"})
	suite := createRule(t, d, domain.SaleRule{Kind: domain.RuleStopSell, HotelID: "h1", RoomTypeID: "suite",
		From: dec10.AddDays(1), To: dec10.AddDays(2), Reason: "maintenance"})
	createRule(t, d, domain.SaleRule{Kind: domain.RuleStopSell, HotelID: "h1", ChannelID: "A",
		From: dec10.AddDays(2), To: dec13, Reason: "full"})

	nights, err := d.Store.HotelStock(ctx, "h1", dec10, dec13)
	require.NoError(t, err)
	require.Len(t, nights, 6)
	type closed struct {
		blocked   bool
		rule      int64
		available int
	}
	var got []closed
	for _, n := range nights {
		got = append(got, closed{n.Blocked, n.StopSellID, n.Available})
	}
	assert.Equal(t, []closed{
		{true, hotelWide.ID, 0}, {false, 0, 5}, {false, 0, 5}, // double
		{true, hotelWide.ID, 0}, {true, suite.ID, 0}, {false, 0, 5}, // suite
	}, got)
}
