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

// Every change that frees units without a give-back offers them to the waitlist in its own
// transaction: a raise, fewer blocked rooms, an allocation lowered or removed, a sale rule
// ended, a venue's capacity raised, units laid out or reopened.

// raiseOffered checks that the entry holds its offer: an ordinary HOLD booking of its customer.
func raiseOffered(t *testing.T, d *testsuite.Database, e domain.WaitlistEntry) {
	t.Helper()
	got, err := d.Store.WaitlistEntry(context.Background(), e.ID)
	require.NoError(t, err)
	require.Equal(t, domain.WaitlistOffered, got.Status, "entry %d", e.ID)
	offer, err := d.Store.GetBooking(context.Background(), got.OfferBookingID)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusHold, offer.Status)
	assert.Equal(t, e.CustomerID, offer.CustomerID)
	assert.Equal(t, db.CreatedByWaitlist, offer.CreatedBy)
}

// raiseWaiting checks that the entry still waits, with nothing offered.
func raiseWaiting(t *testing.T, d *testsuite.Database, e domain.WaitlistEntry) {
	t.Helper()
	got, err := d.Store.WaitlistEntry(context.Background(), e.ID)
	require.NoError(t, err)
	require.Equal(t, domain.WaitlistWaiting, got.Status, "entry %d", e.ID)
}

func TestARaisedTotalIsOfferedToTheWaitlistInItsTransaction(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)
	holdRooms(t, d, "c0", stay3, 1)
	first, second := waitFor(t, d, "w1", stay3, 1), waitFor(t, d, "w2", stay3, 1)

	d.SetInventory(t, "h1", "double", dec10, dec13, 2)

	raiseOffered(t, d, first)
	raiseWaiting(t, d, second)
	assert.Equal(t, []int{2, 2, 2}, d.Reserved(t, "h1", "double", stay3))
	d.AssertInventoryMatchesBookings(t)
}

func TestNightsOpenedAreOfferedToTheWaitlist(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec10.AddDays(2), 1) // the stay's last night is not on sale
	e := waitFor(t, d, "w1", stay3, 1)

	d.SetInventory(t, "h1", "double", dec10.AddDays(2), dec13, 1)

	raiseOffered(t, d, e)
	assert.Equal(t, []int{1, 1, 1}, d.Reserved(t, "h1", "double", stay3))
	d.AssertInventoryMatchesBookings(t)
}

func TestRoomsUnblockedAreOfferedToTheWaitlist(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 2)
	block := db.BlockRooms{HotelID: "h1", RoomTypeID: "double", From: dec10, To: dec13, Blocked: 1}
	_, err := d.Store.SetBlockedRooms(ctx, block)
	require.NoError(t, err)
	holdRooms(t, d, "c0", stay3, 1)
	e := waitFor(t, d, "w1", stay3, 1)

	block.Blocked = 0
	_, err = d.Store.SetBlockedRooms(ctx, block)
	require.NoError(t, err)

	raiseOffered(t, d, e)
	assert.Equal(t, []int{2, 2, 2}, d.Reserved(t, "h1", "double", stay3))
	d.AssertInventoryMatchesBookings(t)
}

// TestRoomsAnAllocationGivesBackAreOfferedToTheWaitlist: a channel's allotment lowered or
// removed gives rooms back to the shared pool, where a direct entry fits.
func TestRoomsAnAllocationGivesBackAreOfferedToTheWaitlist(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, how := range []string{"lowered", "deleted"} {
		t.Run(how, func(t *testing.T) {
			d := testsuite.NewDatabase(t)
			d.SetInventory(t, "h1", "double", dec10, dec13, 2)
			require.NoError(t, d.Store.PutChannel(ctx, db.Channel{ID: "A"}))
			set := db.AllocationSet{HotelID: "h1", RoomTypeID: "double", ChannelID: "A", From: dec10, To: dec13, Allotted: 2}
			require.NoError(t, d.Store.SetAllocations(ctx, []db.AllocationSet{set}))
			public, err := d.Store.Reserve(ctx, holdParams("p", "k", stay3, 1))
			require.NoError(t, err)
			require.Equal(t, domain.StatusRejected, public.Status, "the pool is empty")
			e := insertRaiseEntry(t, d, "w1", stay3, 1)

			if how == "lowered" {
				set.Allotted = 1
				require.NoError(t, d.Store.SetAllocations(ctx, []db.AllocationSet{set}))
			} else {
				_, err := d.Store.DeleteAllocation(ctx, set)
				require.NoError(t, err)
			}

			raiseOffered(t, d, e)
			assert.Equal(t, []int{1, 1, 1}, d.Reserved(t, "h1", "double", stay3))
			d.AssertInventoryMatchesBookings(t)
		})
	}
}

// insertRaiseEntry writes a direct entry as JoinWaitlist would. It is written by hand because
// JoinWaitlist reads a night's rooms without its allocations, and so answers on sale while every
// free room is allotted to a channel.
func insertRaiseEntry(t *testing.T, d *testsuite.Database, customer string, stay domain.Stay, qty int) domain.WaitlistEntry {
	t.Helper()
	var id int64
	require.NoError(t, d.Pool.QueryRow(context.Background(), `INSERT INTO waitlist_entries (customer_id, created_by,
			resource_id, unit_from, unit_to, quantity)
		SELECT $1, $1, id, $2, $3, $4 FROM resources WHERE hotel_id = 'h1' AND code = 'double' RETURNING id`,
		customer, stay.CheckIn.Time(), stay.CheckOut.Time(), qty).Scan(&id))
	e, err := d.Store.WaitlistEntry(context.Background(), id)
	require.NoError(t, err)
	return e
}

// TestAStopSellEndedIsOfferedToTheWaitlist: the rule write holds the sale lock, and the offer's
// hold, judged in the same transaction, finds the rule gone.
func TestAStopSellEndedIsOfferedToTheWaitlist(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, how := range []string{"ended", "replaced", "cleared"} {
		t.Run(how, func(t *testing.T) {
			d := testsuite.NewDatabase(t)
			d.SetInventory(t, "h1", "double", dec10, dec13, 1)
			rule := createRule(t, d, domain.SaleRule{Kind: domain.RuleStopSell, HotelID: "h1", From: dec10, To: dec13, Reason: "event"})
			e := waitFor(t, d, "w1", stay3, 1)
			raiseWaiting(t, d, e)

			switch how {
			case "ended":
				require.NoError(t, d.Store.EndSaleRule(ctx, rule.ID))
			case "replaced":
				rule.From, rule.To = dec13.AddDays(7), dec13.AddDays(8)
				_, err := d.Store.ReplaceSaleRule(ctx, rule.ID, rule)
				require.NoError(t, err)
			case "cleared":
				open := false
				_, err := d.Store.SetRestrictions(ctx, "h1", "cm", []domain.RestrictionSet{{From: dec10, To: dec13, Closed: &open}})
				require.NoError(t, err)
			}

			raiseOffered(t, d, e)
			assert.Equal(t, []int{1, 1, 1}, d.Reserved(t, "h1", "double", stay3))
			d.AssertInventoryMatchesBookings(t)
		})
	}
}

// joinLaneWaitlist is a customer joining the waitlist of qty places of lane-1 at hour.
func joinLaneWaitlist(t *testing.T, d *testsuite.Database, customer string, hour, qty int) domain.WaitlistEntry {
	t.Helper()
	e, joined, err := d.Store.JoinWaitlist(context.Background(), db.WaitlistJoin{CreatedBy: customer, Request: domain.WaitlistRequest{
		CustomerID: customer, VenueID: "v1", ResourceID: "lane-1", Start: at(hour), End: at(hour + 1), Quantity: qty}})
	require.NoError(t, err)
	require.True(t, joined)
	return e
}

func TestAVenuesPlacesAddedOrReopenedAreOfferedToTheWaitlist(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("capacity raised", func(t *testing.T) {
		d := openVenue(t)
		full, err := d.Store.ReserveOrder(ctx, order("c0", "k", slotLine("lane-1", 8, 6)))
		require.NoError(t, err)
		require.Equal(t, domain.StatusHold, full.Status)
		e := joinLaneWaitlist(t, d, "swimmer", 8, 2)

		lane := domain.VenueResource{ID: "lane-1", VenueID: "v1", Kind: domain.KindQuotaSlot, Capacity: 8}
		require.NoError(t, lane.Validate())
		_, err = d.Store.PutVenueResource(ctx, lane)
		require.NoError(t, err)

		raiseOffered(t, d, e)
		assert.Equal(t, 8, reserved(t, d, "lane-1", 8))
		d.AssertInventoryMatchesBookings(t)
	})
	t.Run("slot laid out", func(t *testing.T) {
		d := openVenue(t)
		e := joinLaneWaitlist(t, d, "swimmer", 11, 2) // the schedule ends at 10:00

		_, err := d.Store.ApplySchedule(ctx, "v1", "lane-1", schedule(orderDay, orderDay.AddDays(1), "07:00", "12:00", 60))
		require.NoError(t, err)

		raiseOffered(t, d, e)
		assert.Equal(t, 2, reserved(t, d, "lane-1", 11))
		d.AssertInventoryMatchesBookings(t)
	})
	t.Run("reopened", func(t *testing.T) {
		d := openVenue(t)
		closure := db.Closure{VenueID: "v1", ResourceID: "lane-1", From: at(8), To: at(9), Reason: "cleaning", By: "staff"}
		_, err := d.Store.CloseUnits(ctx, closure)
		require.NoError(t, err)
		e := joinLaneWaitlist(t, d, "swimmer", 8, 2)

		n, err := d.Store.ReopenUnits(ctx, closure)
		require.NoError(t, err)
		require.Equal(t, 1, n)

		raiseOffered(t, d, e)
		assert.Equal(t, 2, reserved(t, d, "lane-1", 8))
		d.AssertInventoryMatchesBookings(t)
	})
}

// TestAPublicHoldRacingARaiseNeverGetsTheRaisedRoom: the room a raise adds is held for the entry
// in the raise's own transaction, so 20 public holds racing it all lose.
func TestAPublicHoldRacingARaiseNeverGetsTheRaisedRoom(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for round := range 3 {
		d := testsuite.NewDatabase(t)
		d.SetInventory(t, "h1", "double", dec10, dec13, 1)
		holdRooms(t, d, "c0", stay3, 1)
		entry := waitFor(t, d, "waiter", stay3, 1)
		statuses := make([]domain.Status, 21)
		errs := make([]error, 21)
		testsuite.Race(21, func(i int) {
			if i == 0 {
				errs[i] = d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: "h1", RoomTypeID: "double",
					From: dec10, To: dec13, TotalRooms: 2})
				return
			}
			var b domain.Booking
			b, errs[i] = d.Store.Reserve(ctx, holdParams(fmt.Sprintf("p%d", i), "k", stay3, 1))
			statuses[i] = b.Status
		})
		require.NoError(t, errors.Join(errs...))
		for i := 1; i < 21; i++ {
			require.Equal(t, domain.StatusRejected, statuses[i], "round %d: public hold %d", round, i)
		}
		raiseOffered(t, d, entry)
		assert.Equal(t, []int{2, 2, 2}, d.Reserved(t, "h1", "double", stay3))
		d.AssertInventoryMatchesBookings(t)
	}
}

// TestARaiseThatOffersInASecondStepLosesTheRoom is the control: raised in one transaction and
// offered in the next, the room goes to the public hold in between, and the entry gets nothing.
func TestARaiseThatOffersInASecondStepLosesTheRoom(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)
	holdRooms(t, d, "c0", stay3, 1)
	entry := waitFor(t, d, "waiter", stay3, 1)

	var public domain.Booking
	require.NoError(t, d.Store.RaiseInTwoSteps(ctx, "h1", "double", dec10, dec13, 2, func() {
		var err error
		public, err = d.Store.Reserve(ctx, holdParams("p1", "k", stay3, 1))
		require.NoError(t, err)
	}))

	assert.Equal(t, domain.StatusHold, public.Status, "the public took the room between the steps")
	raiseWaiting(t, d, entry)
	d.AssertInventoryMatchesBookings(t)
}
