package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestAnOfferMadeWhileItsCustomerIsErasedIsNotLeftNamingThem: an erasure checks the
// customer's open bookings first; a give-back that offers one of their entries after that check
// and before the erasure reaches the entries makes a HOLD booking the erasure never sees. Either
// the erasure refuses (an open booking) or no booking names the erased customer.
func TestAnOfferMadeWhileItsCustomerIsErasedIsNotLeftNamingThem(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	dec16 := domain.NewDate(2030, 12, 16)
	later := domain.Stay{CheckIn: dec13, CheckOut: dec16}
	d.SetInventory(t, "h1", "double", dec10, dec16, 1)
	holdRooms(t, d, "c0", stay3, 1)
	taken := holdRooms(t, d, "c9", later, 1)
	a := waitFor(t, d, "ann", later, 1) // freed while the erasure waits on b
	b := waitFor(t, d, "ann", stay3, 1) // scanned first by the erasure's update

	// Another transaction holds entry b's row, so the erasure stops there, past its bookings check.
	x, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer x.Rollback(ctx) //nolint:errcheck
	_, err = x.Exec(ctx, `SELECT 1 FROM waitlist_entries WHERE id = $1 FOR UPDATE`, b.ID)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := d.Store.EraseCustomer(ctx, db.ErasureRequest{CustomerID: "ann",
			Pseudonym: domain.ErasurePseudonym(idKey, "ann"), By: "admin", Reason: "ticket 36"})
		done <- err
	}()
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE wait_event_type = 'Lock' AND query LIKE '%UPDATE waitlist_entries%'`).Scan(&n))
		return n > 0
	}, 10*time.Second, 10*time.Millisecond, "the erasure waits on entry b")

	_, err = d.Store.Release(ctx, taken.ID, domain.StatusExpired) // offers later to ann's entry a
	require.NoError(t, err)
	got, err := d.Store.WaitlistEntry(ctx, a.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.WaitlistWaiting, got.Status, "passed over: the erasure holds ann's hold lock")
	require.NoError(t, x.Commit(ctx))
	eraseErr := <-done

	var naming int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM bookings WHERE customer_id = 'ann'`).Scan(&naming))
	t.Logf("erasure error: %v; bookings still naming ann: %d", eraseErr, naming)
	if eraseErr == nil {
		assert.Zero(t, naming, "the erasure succeeded yet the offer's booking names the erased customer")
	}
}

// TestAnOrderConfirmedWithTheWaitedResourceAsASecondLineClosesTheEntry: docs say an
// entry closes (booked_elsewhere) when its customer's booking of the same resource over any of
// its units is confirmed. The control: the same order with lane-1 as its first line closes it.
func TestAnOrderConfirmedWithTheWaitedResourceAsASecondLineClosesTheEntry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, laneFirst := range []bool{true, false} {
		d := openVenue(t)
		full, err := d.Store.ReserveOrder(ctx, order("c0", "k", slotLine("lane-1", 8, 5)))
		require.NoError(t, err)
		require.Equal(t, domain.StatusHold, full.Status)
		e, joined, err := d.Store.JoinWaitlist(ctx, db.WaitlistJoin{CreatedBy: "swimmer", Request: domain.WaitlistRequest{
			CustomerID: "swimmer", VenueID: "v1", ResourceID: "lane-1", Start: at(8), End: at(9), Quantity: 2}})
		require.NoError(t, err)
		require.True(t, joined)
		lines := []domain.OrderLine{slotLine("rackets", 8, 1), slotLine("lane-1", 8, 1)}
		if laneFirst {
			lines[0], lines[1] = lines[1], lines[0]
		}
		own, err := d.Store.ReserveOrder(ctx, order("swimmer", "k", lines...))
		require.NoError(t, err)
		require.Equal(t, domain.StatusHold, own.Status)
		_, err = d.Store.Confirm(ctx, own.ID, &domain.Payment{ID: "pi_s", Amount: own.Price.Total, Currency: own.Price.Currency})
		require.NoError(t, err)
		got, err := d.Store.WaitlistEntry(ctx, e.ID)
		require.NoError(t, err)
		assert.Equal(t, domain.WaitlistBookedElsewhere, got.ClosedReason, "lane-1 first: %v", laneFirst)
	}
}

// TestNoOfferIsMadeWithoutTheSupplierOfAHotelThatGotOne: entries joined while the hotel
// sold its own rooms; the hotel is then sold through a supplier, whose holds the supplier
// confirms (docs: a supplier's hotel has no waitlist, its offer cannot wait for the supplier). A
// give-back must not make a local offer that a payment then confirms without the supplier.
func TestNoOfferIsMadeWithoutTheSupplierOfAHotelThatGotOne(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)
	taken := holdRooms(t, d, "c0", stay3, 1)
	e := waitFor(t, d, "bea", stay3, 1)
	supplierHotel(t, d, "sup", db.ModeDirectProcure, "h1")

	_, err := d.Store.Release(ctx, taken.ID, domain.StatusCancelled)
	require.NoError(t, err)
	got, err := d.Store.WaitlistEntry(ctx, e.ID)
	require.NoError(t, err)
	if got.Status == domain.WaitlistOffered {
		offer, err := d.Store.GetBooking(ctx, got.OfferBookingID)
		require.NoError(t, err)
		assert.Equal(t, "sup", offer.SupplierID, "an offer at a supplier's hotel held with no supplier: confirmed on payment alone")
	}
}

// TestAVenueEntryWhoseCustomerHoldsTheSlotDoesNotBlockTheLine: a swimmer holding one
// place of a full slot joins its waitlist for one more. Their offer can never be made (one
// active order per customer and slot), so with fit wait the whole line behind them must not be
// stopped and the places must not go back on public sale while another entry waits.
func TestAVenueEntryWhoseCustomerHoldsTheSlotDoesNotBlockTheLine(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := openVenue(t)
	require.NoError(t, d.Store.SetWaitlistSettings(ctx, "v1", true, domain.WaitlistSettings{OfferSeconds: 1800, Fit: domain.WaitlistFitWait}))
	big, err := d.Store.ReserveOrder(ctx, order("c0", "k", slotLine("lane-1", 8, 5)))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, big.Status)
	own, err := d.Store.ReserveOrder(ctx, order("swimmer", "k", slotLine("lane-1", 8, 1)))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, own.Status)
	join := func(customer string) domain.WaitlistEntry {
		e, joined, err := d.Store.JoinWaitlist(ctx, db.WaitlistJoin{CreatedBy: customer, Request: domain.WaitlistRequest{
			CustomerID: customer, VenueID: "v1", ResourceID: "lane-1", Start: at(8), End: at(9), Quantity: 1}})
		require.NoError(t, err)
		require.True(t, joined)
		return e
	}
	first, second := join("swimmer"), join("other")

	_, err = d.Store.Release(ctx, big.ID, domain.StatusCancelled)
	require.NoError(t, err)

	statuses, _ := entryStates(t, d, []domain.WaitlistEntry{first, second})
	t.Logf("entries after the give-back: %v; reserved %d", statuses, reserved(t, d, "lane-1", 8))
	assert.Equal(t, domain.WaitlistOffered, statuses[1],
		"the next entry is offered: the first can never be (its customer holds an order for the slot)")
	assert.Equal(t, 2, reserved(t, d, "lane-1", 8), "the freed places stay off public sale while someone waits")
}
