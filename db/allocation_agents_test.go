package db_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// agentSplit is splitStock with channel A's 10 rooms split: 4 for its agent agent-a alone, 6 for
// every agent of A (agent-a and agent-a2); B keeps 5 and the pool 3.
func agentSplit(t *testing.T, d *testsuite.Database) {
	t.Helper()
	splitStock(t, d)
	ctx := context.Background()
	require.NoError(t, d.Store.PutAgent(ctx, db.Agent{ID: "agent-a2", ChannelID: "A"}))
	require.NoError(t, d.Store.SetAllocations(ctx, []db.AllocationSet{
		{HotelID: "h1", RoomTypeID: "double", ChannelID: "A", From: soon, To: soonStay.CheckOut, Allotted: 6},
		{HotelID: "h1", RoomTypeID: "double", ChannelID: "A", AgentID: "agent-a", From: soon, To: soonStay.CheckOut, Allotted: 4},
	}))
}

func held(t *testing.T, d *testsuite.Database, p db.ReserveParams) domain.Booking {
	t.Helper()
	b, err := d.Store.Reserve(context.Background(), p)
	require.NoError(t, err)
	return b
}

func TestAnAgentSellsItsOwnAllocationThenItsChannelsThenThePool(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	agentSplit(t, d)
	ctx := context.Background()
	assert.Equal(t, []db.ChannelShare{{ChannelID: "A", Allotted: 6}, {ChannelID: "A", AgentID: "agent-a", Allotted: 4},
		{ChannelID: "B", Allotted: 5}}, shares(t, d).Channels)

	// agent-a's 5 rooms: its own 4, then 1 of the channel's.
	first := held(t, d, channelHold("g1", "A", "agent-a", soonStay, 5))
	require.Equal(t, domain.StatusHold, first.Status)
	assert.Equal(t, []db.ChannelShare{{ChannelID: "A", Allotted: 6, Used: 1}, {ChannelID: "A", AgentID: "agent-a", Allotted: 4, Used: 4, Exhausted: true},
		{ChannelID: "B", Allotted: 5}}, shares(t, d).Channels)
	// agent-a2 never takes agent-a's rooms: the channel's 5 left, then the pool.
	require.Equal(t, domain.StatusHold, held(t, d, channelHold("g2", "A", "agent-a2", soonStay, 6)).Status)
	n := shares(t, d)
	assert.Equal(t, 6, n.Channels[0].Used)
	assert.Equal(t, 2, n.PoolLeft)
	assert.Equal(t, domain.StatusRejected, held(t, d, channelHold("g3", "A", "agent-a2", soonStay, 3)).Status,
		"the pool has 2 left, and B's rooms are B's")
	require.Equal(t, domain.StatusHold, held(t, d, channelHold("g4", "A", "agent-a2", soonStay, 2)).Status)
	assert.Equal(t, domain.StatusRejected, held(t, d, channelHold("g5", "A", "agent-a", soonStay, 1)).Status)

	// A release gives back where it took: agent-a's own 4, the channel's 1.
	_, err := d.Store.Release(ctx, first.ID, domain.StatusCancelled)
	require.NoError(t, err)
	n = shares(t, d)
	assert.Equal(t, []db.ChannelShare{{ChannelID: "A", Allotted: 6, Used: 5}, {ChannelID: "A", AgentID: "agent-a", Allotted: 4},
		{ChannelID: "B", Allotted: 5}}, n.Channels)
	assert.Equal(t, 0, n.PoolLeft)
	d.AssertInventoryMatchesBookings(t)

	// An agent's allocation is its channel's: another channel's agent, or none, is refused.
	err = d.Store.SetAllocations(ctx, []db.AllocationSet{{HotelID: "h1", RoomTypeID: "double", ChannelID: "B", AgentID: "agent-a",
		From: soon, To: soonStay.CheckOut, Allotted: 1}})
	assert.ErrorIs(t, err, domain.ErrInvalid)
	err = d.Store.SetAllocations(ctx, []db.AllocationSet{{HotelID: "h1", RoomTypeID: "double", ChannelID: "A", AgentID: "nobody",
		From: soon, To: soonStay.CheckOut, Allotted: 1}})
	assert.ErrorIs(t, err, domain.ErrNotFound)
}

func TestDeletingAnAllocationIsRefusedWhileRoomsAreSoldFromIt(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	agentSplit(t, d)
	ctx := context.Background()
	own := db.AllocationSet{HotelID: "h1", RoomTypeID: "double", ChannelID: "A", AgentID: "agent-a", From: soon, To: soonStay.CheckOut}
	oneNight := domain.Stay{CheckIn: soon, CheckOut: soon.AddDays(1)}
	b := held(t, d, channelHold("g1", "A", "agent-a", oneNight, 1))
	require.Equal(t, domain.StatusHold, b.Status)

	_, err := d.Store.DeleteAllocation(ctx, own)
	require.ErrorIs(t, err, domain.ErrConflict)
	assert.Contains(t, err.Error(), "on 1 nights (the first "+soon.String()+")")
	later := own
	later.From = soon.AddDays(1)
	n, err := d.Store.DeleteAllocation(ctx, later)
	require.NoError(t, err)
	assert.Equal(t, 2, n, "the nights nothing was sold from")
	nights, err := d.Store.Allocations(ctx, "h1", "double", soon, soonStay.CheckOut)
	require.NoError(t, err)
	assert.Len(t, nights[1].Channels, 2, "only the channels' own allocations are left on the second night")
	assert.Equal(t, 7, nights[1].PoolLeft, "its 4 rooms went back to the pool")

	_, err = d.Store.Release(ctx, b.ID, domain.StatusCancelled)
	require.NoError(t, err)
	n, err = d.Store.DeleteAllocation(ctx, own)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	_, err = d.Store.DeleteAllocation(ctx, own)
	assert.ErrorIs(t, err, domain.ErrNotFound)
	d.AssertInventoryMatchesBookings(t)
}

// TestDeletesRacingSalesNeverStrandTheRoomsTaken races deletions of agent-a's allocation with its
// sales: each sale takes from the allocation or, once it is gone, from the channel's and the
// pool; a deletion either finds rooms sold from it and refuses, or none and deletes. No room is
// ever left taken from an allocation that is gone.
func TestDeletesRacingSalesNeverStrandTheRoomsTaken(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	agentSplit(t, d)
	ctx := context.Background()
	own := db.AllocationSet{HotelID: "h1", RoomTypeID: "double", ChannelID: "A", AgentID: "agent-a", From: soon, To: soonStay.CheckOut}
	errs := make([]error, 24)
	testsuite.Race(24, func(i int) {
		if i%4 == 0 {
			_, err := d.Store.DeleteAllocation(ctx, own)
			if errors.Is(err, domain.ErrConflict) || errors.Is(err, domain.ErrNotFound) {
				err = nil
			}
			errs[i] = err
			return
		}
		_, errs[i] = d.Store.Reserve(ctx, channelHold(fmt.Sprintf("g%d", i), "A", "agent-a", soonStay, 1))
	})
	require.NoError(t, errors.Join(errs...))
	d.AssertInventoryMatchesBookings(t)
}

// TestNaiveDeleteOfAnAllocationStrandsTheRoomsTakenFromIt is the control for the tests above: a
// deletion that checks that nothing was sold from the allocation without the nights' lock, then
// deletes, lets a sale commit in between, and leaves a booking holding a room of an allocation
// that is gone (its release would give it back to nobody's allocation).
func TestNaiveDeleteOfAnAllocationStrandsTheRoomsTakenFromIt(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	agentSplit(t, d)
	ctx := context.Background()
	tx, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	var used int
	require.NoError(t, tx.QueryRow(ctx, `SELECT COALESCE(sum(used), 0) FROM allocations WHERE agent_id = 'agent-a'`).Scan(&used))
	require.Zero(t, used, "nothing sold from it yet: the naive deletion goes ahead")

	require.Equal(t, domain.StatusHold, held(t, d, channelHold("g1", "A", "agent-a", soonStay, 1)).Status, "a sale commits meanwhile")
	_, err = tx.Exec(ctx, `DELETE FROM allocations WHERE agent_id = 'agent-a'`)
	require.NoError(t, err)
	require.NoError(t, tx.Commit(ctx))
	var stranded int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM booking_allocations ba WHERE NOT EXISTS (SELECT 1 FROM allocations a
		WHERE a.resource_id = ba.resource_id AND a.unit_start = ba.unit_start AND a.agent_id IS NOT DISTINCT FROM ba.agent_id)`).Scan(&stranded))
	assert.Positive(t, stranded, "the naive deletion must strand the sale's rooms, or this control proves nothing")
}
