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

// waitFor is a customer joining the waitlist of qty doubles at h1 over stay.
func waitFor(t *testing.T, d *testsuite.Database, customer string, stay domain.Stay, qty int) domain.WaitlistEntry {
	t.Helper()
	e, joined, err := d.Store.JoinWaitlist(context.Background(), db.WaitlistJoin{CreatedBy: customer,
		Request: domain.WaitlistRequest{CustomerID: customer, HotelID: "h1", RoomTypeID: "double", Stay: stay, Quantity: qty}})
	require.NoError(t, err)
	require.True(t, joined)
	return e
}

// holdRooms is a customer's hold of qty doubles over stay, which must be taken.
func holdRooms(t *testing.T, d *testsuite.Database, customer string, stay domain.Stay, qty int) domain.Booking {
	t.Helper()
	b, err := d.Store.Reserve(context.Background(), holdParams(customer, "k", stay, qty))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, b.Status)
	return b
}

// entryStates reads each entry's status and offer booking.
func entryStates(t *testing.T, d *testsuite.Database, entries []domain.WaitlistEntry) (statuses []string, offers []string) {
	t.Helper()
	for _, e := range entries {
		got, err := d.Store.WaitlistEntry(context.Background(), e.ID)
		require.NoError(t, err)
		statuses = append(statuses, got.Status)
		offers = append(offers, got.OfferBookingID)
	}
	return statuses, offers
}

func TestOneUnitFreedWithAHundredWaitingIsOfferedOnceToTheFirst(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)
	taken := holdRooms(t, d, "c0", stay3, 1)
	var entries []domain.WaitlistEntry
	for i := range 100 {
		e := waitFor(t, d, fmt.Sprintf("w%03d", i), stay3, 1)
		require.Equal(t, i+1, e.Place)
		entries = append(entries, e)
	}

	_, err := d.Store.Release(ctx, taken.ID, domain.StatusExpired)
	require.NoError(t, err)

	statuses, offers := entryStates(t, d, entries)
	assert.Equal(t, domain.WaitlistOffered, statuses[0])
	for i := 1; i < 100; i++ {
		require.Equal(t, domain.WaitlistWaiting, statuses[i], "entry %d", i)
	}
	offer, err := d.Store.GetBooking(ctx, offers[0])
	require.NoError(t, err)
	assert.Equal(t, domain.StatusHold, offer.Status)
	assert.Equal(t, "w000", offer.CustomerID)
	assert.Equal(t, db.CreatedByWaitlist, offer.CreatedBy)
	assert.Equal(t, int64(30000), offer.Price.Total, "priced as any hold of the stay")
	assert.Equal(t, []int{1, 1, 1}, d.Reserved(t, "h1", "double", stay3))
	mine, err := d.Store.CustomerWaitlist(ctx, "w001")
	require.NoError(t, err)
	require.Len(t, mine, 1)
	assert.Equal(t, 1, mine[0].Place, "the second in line is now first")
	starts, err := d.Store.ClaimOfferStarts(ctx, 10, time10s)
	require.NoError(t, err)
	require.Len(t, starts, 1, "one workflow to start")
	assert.Equal(t, offers[0], starts[0].ID)
	d.AssertInventoryMatchesBookings(t)
}

func TestTenFreedAreOfferedToTheFirstTenInOrder(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 10)
	taken := holdRooms(t, d, "c0", stay3, 10)
	var entries []domain.WaitlistEntry
	for i := range 15 {
		entries = append(entries, waitFor(t, d, fmt.Sprintf("w%02d", i), stay3, 1))
	}

	_, err := d.Store.Release(ctx, taken.ID, domain.StatusCancelled)
	require.NoError(t, err)

	statuses, offers := entryStates(t, d, entries)
	for i := range 15 {
		want := domain.WaitlistWaiting
		if i < 10 {
			want = domain.WaitlistOffered
			require.NotEmpty(t, offers[i])
		}
		assert.Equal(t, want, statuses[i], "entry %d", i)
	}
	assert.Equal(t, []int{10, 10, 10}, d.Reserved(t, "h1", "double", stay3))
	d.AssertInventoryMatchesBookings(t)

	// The checker's conservation counts the offered units as the holds they are; the control, an
	// offer ended without its units given back, is found.
	findings, err := d.Store.InventoryMismatches(ctx)
	require.NoError(t, err)
	assert.Empty(t, findings)
	_, err = d.Pool.Exec(ctx, `UPDATE bookings SET status = 'EXPIRED' WHERE id = $1`, offers[0])
	require.NoError(t, err)
	findings, err = d.Store.InventoryMismatches(ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, findings, "an offered unit the bookings no longer hold")
}

// TestAPublicHoldRacingTheGiveBackNeverGetsTheOfferedUnit: the unit freed is held for the entry
// in the give-back's own transaction, so 20 public holds racing it all lose.
func TestAPublicHoldRacingTheGiveBackNeverGetsTheOfferedUnit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for round := range 5 {
		d := testsuite.NewDatabase(t)
		d.SetInventory(t, "h1", "double", dec10, dec13, 1)
		taken := holdRooms(t, d, "c0", stay3, 1)
		entry := waitFor(t, d, "waiter", stay3, 1)
		statuses := make([]domain.Status, 21)
		errs := make([]error, 21)
		testsuite.Race(21, func(i int) {
			if i == 0 {
				_, errs[i] = d.Store.Release(ctx, taken.ID, domain.StatusExpired)
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
		got, err := d.Store.WaitlistEntry(ctx, entry.ID)
		require.NoError(t, err)
		require.Equal(t, domain.WaitlistOffered, got.Status, "round %d", round)
		d.AssertInventoryMatchesBookings(t)
	}
}

// TestAGiveBackThatOffersInASecondStepLosesTheUnit is the control: freed in one transaction and
// offered in the next, the unit goes to the public hold in between, and the entry gets nothing.
func TestAGiveBackThatOffersInASecondStepLosesTheUnit(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)
	taken := holdRooms(t, d, "c0", stay3, 1)
	entry := waitFor(t, d, "waiter", stay3, 1)

	var public domain.Booking
	require.NoError(t, d.Store.ReleaseInTwoSteps(ctx, taken.ID, func() {
		var err error
		public, err = d.Store.Reserve(ctx, holdParams("p1", "k", stay3, 1))
		require.NoError(t, err)
	}))

	assert.Equal(t, domain.StatusHold, public.Status, "the public took the unit between the steps")
	got, err := d.Store.WaitlistEntry(ctx, entry.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.WaitlistWaiting, got.Status, "nothing was left to offer")
}

func TestAnEntryAskingMoreThanIsFreeIsSkippedOrWaitedForByTheSitesRule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, fit := range []string{domain.WaitlistFitSkip, domain.WaitlistFitWait} {
		t.Run(fit, func(t *testing.T) {
			d := testsuite.NewDatabase(t)
			d.SetInventory(t, "h1", "double", dec10, dec13, 3)
			require.NoError(t, d.Store.SetWaitlistSettings(ctx, "h1", false, domain.WaitlistSettings{OfferSeconds: 1800, Fit: fit}))
			taken := holdRooms(t, d, "c0", stay3, 2)
			holdRooms(t, d, "other", stay3, 1)
			entries := []domain.WaitlistEntry{waitFor(t, d, "big", stay3, 3), waitFor(t, d, "one", stay3, 1),
				waitFor(t, d, "two", stay3, 1), waitFor(t, d, "three", stay3, 1)}

			_, err := d.Store.Release(ctx, taken.ID, domain.StatusExpired)
			require.NoError(t, err)

			statuses, offers := entryStates(t, d, entries)
			if fit == domain.WaitlistFitSkip {
				assert.Equal(t, []string{"waiting", "offered", "offered", "waiting"}, statuses)
				offer, err := d.Store.GetBooking(ctx, offers[1])
				require.NoError(t, err)
				assert.WithinDuration(t, offer.CreatedAt.Add(30*time60s), offer.ExpiresAt, time10s, "the site's offer time")
			} else {
				assert.Equal(t, []string{"waiting", "waiting", "waiting", "waiting"}, statuses)
				assert.Equal(t, []int{1, 1, 1}, d.Reserved(t, "h1", "double", stay3), "the units went back on sale")
			}
			big, err := d.Store.WaitlistEntry(ctx, entries[0].ID)
			require.NoError(t, err)
			assert.Equal(t, 1, big.Place, "a skipped entry keeps its place")
			d.AssertInventoryMatchesBookings(t)
		})
	}
}

// TestACustomerHasOneLiveOfferAtATime: two of the customer's entries freed at once get one
// offer; the other keeps waiting. The unique index is the guard under the code's own check.
func TestACustomerHasOneLiveOfferAtATime(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	dec16 := domain.NewDate(2030, 12, 16)
	d.SetInventory(t, "h1", "double", dec10, dec16, 1)
	taken := holdRooms(t, d, "c0", domain.Stay{CheckIn: dec10, CheckOut: dec16}, 1)
	first := waitFor(t, d, "w", stay3, 1)
	second := waitFor(t, d, "w", domain.Stay{CheckIn: dec13, CheckOut: dec16}, 1)
	other := waitFor(t, d, "x", domain.Stay{CheckIn: dec13, CheckOut: dec16}, 1)

	_, err := d.Store.Release(ctx, taken.ID, domain.StatusExpired)
	require.NoError(t, err)

	statuses, offers := entryStates(t, d, []domain.WaitlistEntry{first, second, other})
	assert.Equal(t, []string{"offered", "waiting", "offered"}, statuses)

	// The control: a second live offer written by hand is refused by the index.
	_, err = d.Pool.Exec(ctx, `UPDATE bookings SET waitlist_entry_id = $2 WHERE id = $1`, offers[2], second.ID)
	require.NoError(t, err, "another customer's offer may name any entry")
	_, err = d.Pool.Exec(ctx, `UPDATE bookings SET customer_id = 'w' WHERE id = $1`, offers[2])
	require.Error(t, err, "two live offers of one customer")
	assert.Contains(t, err.Error(), "bookings_one_live_offer")
}

func TestAnOfferExpiredGoesToTheNextAndAPaidOneClosesItsEntry(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)
	taken := holdRooms(t, d, "c0", stay3, 1)
	a, b := waitFor(t, d, "a", stay3, 1), waitFor(t, d, "b", stay3, 1)
	_, err := d.Store.Release(ctx, taken.ID, domain.StatusExpired)
	require.NoError(t, err)
	_, offers := entryStates(t, d, []domain.WaitlistEntry{a, b})

	_, err = d.Store.Release(ctx, offers[0], domain.StatusExpired) // a did not pay
	require.NoError(t, err)
	got, err := d.Store.WaitlistEntry(ctx, a.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.WaitlistClosed, got.Status)
	assert.Equal(t, domain.WaitlistOfferExpired, got.ClosedReason)
	statuses, offers := entryStates(t, d, []domain.WaitlistEntry{a, b})
	require.Equal(t, domain.WaitlistOffered, statuses[1], "the next entry at once")
	assert.Equal(t, []int{1, 1, 1}, d.Reserved(t, "h1", "double", stay3), "never back on public sale")

	offer, err := d.Store.GetBooking(ctx, offers[1])
	require.NoError(t, err)
	_, err = d.Store.Confirm(ctx, offer.ID, &domain.Payment{ID: "pi_b", Amount: offer.Price.Total, Currency: "EUR"})
	require.NoError(t, err)
	got, err = d.Store.WaitlistEntry(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.WaitlistBooked, got.ClosedReason)
	d.AssertInventoryMatchesBookings(t)
}

func TestAnEntryClosesWhenItsCustomerBooksTheProductAnotherWay(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)
	taken := holdRooms(t, d, "c0", stay3, 1)
	e := waitFor(t, d, "c1", stay3, 1)
	_, err := d.Store.Release(ctx, taken.ID, domain.StatusExpired) // offered to c1...
	require.NoError(t, err)
	offered, err := d.Store.WaitlistEntry(ctx, e.ID)
	require.NoError(t, err)
	_, err = d.Store.Release(ctx, offered.OfferBookingID, domain.StatusCancelled) // ...who declines
	require.NoError(t, err)
	declined, err := d.Store.WaitlistEntry(ctx, e.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.WaitlistDeclined, declined.ClosedReason)

	assert.Equal(t, []int{0, 0, 0}, d.Reserved(t, "h1", "double", stay3), "nobody else waits: back on sale")
	holdRooms(t, d, "c3", stay3, 1)
	again := waitFor(t, d, "c2", stay3, 1)
	_, err = d.Pool.Exec(ctx, `UPDATE inventory SET total = 2`) // a room more: c2 holds and pays it
	require.NoError(t, err)
	own := holdRooms(t, d, "c2", stay3, 1)
	_, err = d.Store.Confirm(ctx, own.ID, &domain.Payment{ID: "pi_c2", Amount: own.Price.Total, Currency: "EUR"})
	require.NoError(t, err)
	got, err := d.Store.WaitlistEntry(ctx, again.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.WaitlistBookedElsewhere, got.ClosedReason)
}

func TestJoiningIsRefusedWhileOnSaleAndAnsweredOnceARepeat(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)
	join := db.WaitlistJoin{CreatedBy: "c1", Request: domain.WaitlistRequest{CustomerID: "c1", HotelID: "h1",
		RoomTypeID: "double", Stay: stay3, Quantity: 1}}
	_, _, err := d.Store.JoinWaitlist(ctx, join)
	require.ErrorIs(t, err, db.ErrOnSale)

	holdRooms(t, d, "c0", stay3, 1)
	first, joined, err := d.Store.JoinWaitlist(ctx, join)
	require.NoError(t, err)
	require.True(t, joined)
	repeat, joined, err := d.Store.JoinWaitlist(ctx, join)
	require.NoError(t, err)
	assert.False(t, joined)
	assert.Equal(t, first.ID, repeat.ID)

	left, err := d.Store.LeaveWaitlist(ctx, "c1", first.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.WaitlistLeft, left.ClosedReason)
	_, err = d.Store.LeaveWaitlist(ctx, "someone-else", first.ID)
	require.ErrorIs(t, err, domain.ErrNotFound)

	join.Request.Quantity = 2
	_, _, err = d.Store.JoinWaitlist(ctx, join)
	require.ErrorIs(t, err, domain.ErrInvalid, "more than the room type has: it could never be offered")
	join.Request.Quantity = 1
	join.Request.RoomTypeID = "suite"
	_, _, err = d.Store.JoinWaitlist(ctx, join)
	require.ErrorIs(t, err, domain.ErrNotFound)
	join.Request.RoomTypeID, join.Request.Stay = "double", domain.Stay{CheckIn: domain.NewDate(2020, 1, 1), CheckOut: domain.NewDate(2020, 1, 2)}
	_, _, err = d.Store.JoinWaitlist(ctx, join)
	require.ErrorIs(t, err, domain.ErrInvalid, "a stay in the past")
}

// TestAVenueSlotsWaitlistIsOfferedTheFreedPlaces: a quota slot's freed places go to its entries
// as one-line orders.
func TestAVenueSlotsWaitlistIsOfferedTheFreedPlaces(t *testing.T) {
	t.Parallel()
	d := openVenue(t)
	ctx := context.Background()
	full, err := d.Store.ReserveOrder(ctx, order("c0", "k", slotLine("lane-1", 8, 6)))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, full.Status)
	e, joined, err := d.Store.JoinWaitlist(ctx, db.WaitlistJoin{CreatedBy: "swimmer", Request: domain.WaitlistRequest{
		CustomerID: "swimmer", VenueID: "v1", ResourceID: "lane-1", Start: at(8), End: at(9), Quantity: 2}})
	require.NoError(t, err)
	require.True(t, joined)

	_, err = d.Store.Release(ctx, full.ID, domain.StatusCancelled)
	require.NoError(t, err)

	got, err := d.Store.WaitlistEntry(ctx, e.ID)
	require.NoError(t, err)
	require.Equal(t, domain.WaitlistOffered, got.Status)
	offer, err := d.Store.GetBooking(ctx, got.OfferBookingID)
	require.NoError(t, err)
	assert.Equal(t, "v1", offer.VenueID)
	assert.Equal(t, domain.StatusHold, offer.Status)
	assert.Equal(t, 2, reserved(t, d, "lane-1", 8))
	d.AssertInventoryMatchesBookings(t)
}

const (
	time10s = 10 * time.Second
	time60s = time.Minute
)

// TestTheDesksManualOfferFollowsTheGiveBacksRules: units left on sale by a site whose fit
// waits are offered, once the rule skips, to the first entry that fits, and never past a live
// offer of the same customer.
func TestTheDesksManualOfferFollowsTheGiveBacksRules(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 3)
	require.NoError(t, d.Store.SetWaitlistSettings(ctx, "h1", false, domain.WaitlistSettings{OfferSeconds: 600, Fit: domain.WaitlistFitWait}))
	taken := holdRooms(t, d, "c0", stay3, 2)
	holdRooms(t, d, "other", stay3, 1)
	big, one := waitFor(t, d, "big", stay3, 3), waitFor(t, d, "one", stay3, 1)
	_, err := d.Store.Release(ctx, taken.ID, domain.StatusExpired)
	require.NoError(t, err)
	product := domain.WaitlistRequest{HotelID: "h1", RoomTypeID: "double", Stay: stay3, Quantity: 1}
	offered, err := d.Store.OfferWaitlist(ctx, product)
	require.NoError(t, err)
	assert.Empty(t, offered, "the first entry does not fit and the site waits for it")

	require.NoError(t, d.Store.SetWaitlistSettings(ctx, "h1", false, domain.WaitlistSettings{OfferSeconds: 600, Fit: domain.WaitlistFitSkip}))
	offered, err = d.Store.OfferWaitlist(ctx, product)
	require.NoError(t, err)
	require.Len(t, offered, 1)
	assert.Equal(t, one.ID, offered[0].ID)
	again, err := d.Store.OfferWaitlist(ctx, product)
	require.NoError(t, err)
	assert.Empty(t, again, "nothing fits the rest: one room left, and big asks three")
	statuses, _ := entryStates(t, d, []domain.WaitlistEntry{big, one})
	assert.Equal(t, []string{"waiting", "offered"}, statuses)
	assert.Equal(t, []int{2, 2, 2}, d.Reserved(t, "h1", "double", stay3))
	d.AssertInventoryMatchesBookings(t)
}

// TestAGiveBackDoesNotWaitLongForARuleWritesSaleLock: while a rule write holds the room type's
// sale lock, a release gives its room back after the bounded wait, offering nothing (the entry
// keeps its place) rather than waiting on a lock an amendment could hold in a cycle.
func TestAGiveBackDoesNotWaitLongForARuleWritesSaleLock(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)
	taken := holdRooms(t, d, "c0", stay3, 1)
	e := waitFor(t, d, "c1", stay3, 1)

	rule, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer rule.Rollback(ctx) //nolint:errcheck
	require.NoError(t, db.LockSaleRules(ctx, rule, "h1"))
	start := time.Now()
	_, err = d.Store.Release(ctx, taken.ID, domain.StatusExpired)
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 2*time.Second, "the release did not wait for the rule write")
	got, err := d.Store.WaitlistEntry(ctx, e.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.WaitlistWaiting, got.Status, "passed over, keeping its place")
	assert.Equal(t, 1, got.Place)
	require.NoError(t, rule.Rollback(ctx))

	offered, err := d.Store.OfferWaitlist(ctx, domain.WaitlistRequest{HotelID: "h1", RoomTypeID: "double", Stay: stay3, Quantity: 1})
	require.NoError(t, err)
	require.Len(t, offered, 1, "the desk's offer gives it the room once the rule write is done")
	d.AssertInventoryMatchesBookings(t)
}

// TestADirectCustomerJoinsWhileTheFreeRoomsAreChannelsAllocations: with the pool sold out and
// rooms free only in channels' allocations, a direct hold is refused, so a direct customer may
// join; channel A's agent, whose allocation has rooms, is told to hold instead.
func TestADirectCustomerJoinsWhileTheFreeRoomsAreChannelsAllocations(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	splitStock(t, d) // 18 rooms: 10 allotted to A, 5 to B, a pool of 3
	b, err := d.Store.Reserve(ctx, holdParams("pool", "k", soonStay, 3))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, b.Status)
	direct, err := d.Store.Reserve(ctx, holdParams("late", "k", soonStay, 1))
	require.NoError(t, err)
	require.Equal(t, domain.StatusRejected, direct.Status, "the pool is sold out")

	req := domain.WaitlistRequest{CustomerID: "late", HotelID: "h1", RoomTypeID: "double", Stay: soonStay, Quantity: 1}
	e, joined, err := d.Store.JoinWaitlist(ctx, db.WaitlistJoin{Request: req, CreatedBy: "late"})
	require.NoError(t, err)
	assert.True(t, joined)
	assert.Equal(t, domain.WaitlistWaiting, e.Status)
	req.CustomerID = "agent-guest"
	_, _, err = d.Store.JoinWaitlist(ctx, db.WaitlistJoin{Request: req, CreatedBy: "agent-a", ChannelID: "A", AgentID: "agent-a"})
	require.ErrorIs(t, err, db.ErrOnSale, "A's allocation has rooms")
}
