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

// Give-backs that do not end a booking (an early departure, an amendment down, a lapsed balance)
// offer what they free to the waitlist in their own transaction, as giveBack does.

// requireOffered requires entry e to be offered a HOLD of customer's, and returns the offer.
func requireOffered(t *testing.T, d *testsuite.Database, e domain.WaitlistEntry) domain.Booking {
	t.Helper()
	got, err := d.Store.WaitlistEntry(context.Background(), e.ID)
	require.NoError(t, err)
	require.Equal(t, domain.WaitlistOffered, got.Status)
	offer, err := d.Store.GetBooking(context.Background(), got.OfferBookingID)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusHold, offer.Status)
	assert.Equal(t, e.CustomerID, offer.CustomerID)
	assert.Equal(t, db.CreatedByWaitlist, offer.CreatedBy)
	return offer
}

func TestAnEarlyDeparturesFreedNightsAreOfferedToAnEntry(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	four := nights(dec10, 4)
	d.SetInventory(t, "h1", "double", four.CheckIn, four.CheckOut, 1)
	b := paidBooking(t, d, "g1", four, 1, 0)
	e := waitFor(t, d, "w1", nights(dec11, 3), 1)

	left, err := d.Store.DepartEarly(ctx, b.ID, dec10.Time().Add(20*time.Hour))
	require.NoError(t, err)
	require.True(t, left.Begun)
	assert.Equal(t, dec11, left.Booking.CheckOut)

	offer := requireOffered(t, d, e)
	assert.Equal(t, nights(dec11, 3), offer.Stay)
	assert.Equal(t, []int{1, 1, 1, 1}, d.Reserved(t, "h1", "double", four), "the nights freed are the offer's")
	d.AssertInventoryMatchesBookings(t)
}

// TestAnAmendmentThatShortensAStayOrLowersItsQuantityOffersTheFreedNights: a hold shortened
// gives back before any unit is locked; a paid booking that costs less gives back after its
// units are locked (the entry's locks are then only tried). Both offer the freed nights.
func TestAnAmendmentThatShortensAStayOrLowersItsQuantityOffersTheFreedNights(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)
	b := hold(t, d, "g1", stay3, 1)
	e := waitFor(t, d, "w1", nights(dec12, 1), 1)

	a, got := amend(t, d, amendParams(b, "shorter", domain.Change{CheckOut: dec12}))
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.Equal(t, nights(dec10, 2), got.Stay)
	assert.Equal(t, nights(dec12, 1), requireOffered(t, d, e).Stay)
	assert.Equal(t, []int{1, 1, 1}, d.Reserved(t, "h1", "double", stay3))
	d.AssertInventoryMatchesBookings(t)

	p := testsuite.NewDatabase(t)
	p.SetInventory(t, "h1", "double", dec10, dec13, 2)
	paid := paidBooking(t, p, "g2", stay3, 2, 0)
	first := waitFor(t, p, "w2", stay3, 1)
	second := waitFor(t, p, "w3", stay3, 1)

	a, got = amend(t, p, amendParams(paid, "fewer", domain.Change{Quantity: 1}))
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.Equal(t, 1, got.Quantity)
	assert.Positive(t, a.Refund)
	assert.Equal(t, stay3, requireOffered(t, p, first).Stay)
	again, err := p.Store.WaitlistEntry(context.Background(), second.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.WaitlistWaiting, again.Status, "one room freed: one offer")
	assert.Equal(t, []int{2, 2, 2}, p.Reserved(t, "h1", "double", stay3))
	p.AssertInventoryMatchesBookings(t)
}

func TestALapsedAmendmentsAddedNightGoesToAWaitingEntry(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)
	b := paidBooking(t, d, "g1", nights(dec10, 2), 1, 0)
	a, _ := amend(t, d, amendParams(b, "longer", domain.Change{CheckOut: dec13}))
	require.Equal(t, domain.AmendmentBalanceDue, a.Status, a.Reason)
	e := waitFor(t, d, "w1", nights(dec12, 1), 1) // the night the amendment holds is sold out

	lapsed, got, err := d.Store.LapseAmendment(ctx, b.ID, a.ID, "not paid in time")
	require.NoError(t, err)
	assert.Equal(t, domain.AmendmentLapsed, lapsed.Status)
	assert.Equal(t, b.Stay, got.Stay)

	assert.Equal(t, nights(dec12, 1), requireOffered(t, d, e).Stay)
	assert.Equal(t, []int{1, 1, 1}, d.Reserved(t, "h1", "double", stay3))
	d.AssertInventoryMatchesBookings(t)
}

func TestAVenueOrderAmendedDownOffersItsFreedPlaces(t *testing.T) {
	t.Parallel()
	d := amendVenue(t)
	ctx := context.Background()
	b := paidOrder(t, d, "g1", hours("lane-1", 8, 9, 6))
	e, joined, err := d.Store.JoinWaitlist(ctx, db.WaitlistJoin{CreatedBy: "swimmer", Request: domain.WaitlistRequest{
		CustomerID: "swimmer", VenueID: "v1", ResourceID: "lane-1", Start: at(8), End: at(9), Quantity: 2}})
	require.NoError(t, err)
	require.True(t, joined)

	a, got := amend(t, d, amendParams(b, "fewer", relines(hours("lane-1", 8, 9, 3))))
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.Equal(t, 3, got.Quantity)

	offer := requireOffered(t, d, e)
	assert.Equal(t, "v1", offer.VenueID)
	assert.Equal(t, 5, reserved(t, d, "lane-1", 8), "three freed, two offered")
	d.AssertInventoryMatchesBookings(t)
}
