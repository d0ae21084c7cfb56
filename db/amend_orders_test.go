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

// amendVenue is openVenue open 07:00-14:00 on orderDay, with a second court at 30.00 an hour
// (everything else 20.00).
func amendVenue(t *testing.T) *testsuite.Database {
	t.Helper()
	ctx := context.Background()
	d := openVenue(t)
	c2 := court
	c2.ID, c2.VenueID, c2.Name = "court-2", "v1", "Court 2"
	require.NoError(t, c2.Validate())
	_, err := d.Store.PutVenueResource(ctx, c2)
	require.NoError(t, err)
	for _, id := range []string{"court-1", "court-2", "lane-1", "rackets"} {
		s := schedule(orderDay, orderDay.AddDays(1), "07:00", "14:00", 60)
		if id == "court-2" {
			s.Price.Amount = 3000
		}
		_, err := d.Store.ApplySchedule(ctx, "v1", id, s)
		require.NoError(t, err)
	}
	return d
}

// hours is qty units of resource from one hour to another on orderDay.
func hours(resource string, from, to, qty int) domain.OrderLine {
	return domain.OrderLine{ResourceID: resource, Start: at(from), End: at(to), Quantity: qty}
}

// heldOrder is a customer's order, required to be held.
func heldOrder(t *testing.T, d *testsuite.Database, customer, key string, lines ...domain.OrderLine) domain.Booking {
	t.Helper()
	b, err := d.Store.ReserveOrder(context.Background(), order(customer, key, lines...))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, b.Status)
	return b
}

// paidOrder is a customer's order confirmed with a provider payment of its price.
func paidOrder(t *testing.T, d *testsuite.Database, customer string, lines ...domain.OrderLine) domain.Booking {
	t.Helper()
	b := heldOrder(t, d, customer, "k", lines...)
	b, err := d.Store.Confirm(context.Background(), b.ID, &domain.Payment{ID: "pi_" + customer, Amount: b.Price.Total, Currency: "EUR"})
	require.NoError(t, err)
	return b
}

func relines(lines ...domain.OrderLine) domain.Change { return domain.Change{Lines: lines} }

// reservedHours is what resource has reserved on each hour of [from, to).
func reservedHours(t *testing.T, d *testsuite.Database, resource string, from, to int) []int {
	t.Helper()
	var out []int
	for h := from; h < to; h++ {
		out = append(out, reserved(t, d, resource, h))
	}
	return out
}

func TestAnOrderLineMovedOntoAClosedSlotIsRefusedNamingItAndNothingChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := amendVenue(t)
	b := heldOrder(t, d, "g1", "k", hours("court-1", 10, 11, 1), hours("rackets", 10, 11, 1))
	_, err := d.Store.CloseUnits(ctx, db.Closure{VenueID: "v1", ResourceID: "court-1", From: at(11), To: at(12), Reason: "leak", By: "ops"})
	require.NoError(t, err)

	a, got := amend(t, d, amendParams(b, "k1", relines(hours("court-1", 11, 12, 1), hours("rackets", 11, 12, 1))))

	assert.Equal(t, domain.AmendmentRefused, a.Status)
	assert.Equal(t, "the slot of court-1 at 2030-06-03T11:00:00Z is not available", a.Reason)
	assert.Equal(t, b.Price, a.PriceAfter, "a refusal prices nothing")
	assert.Equal(t, b, got, "the order is as it was")
	assert.Equal(t, []int{1, 0}, reservedHours(t, d, "court-1", 10, 12))
	assert.Equal(t, []int{1, 0}, reservedHours(t, d, "rackets", 10, 12), "the rackets taken before the refusal went back")
	stored := amendments(t, d, b.ID)
	require.Len(t, stored, 1)
	assert.Equal(t, domain.AmendmentRefused, stored[0].Status)
	d.AssertInventoryMatchesBookings(t)
}

// TestAnOrderMovedOntoASlotTheCustomerHoldsInAnotherOrderIsRefused: the unique index on the
// customer's active orders refuses the new first line; the transaction survives it.
func TestAnOrderMovedOntoASlotTheCustomerHoldsInAnotherOrderIsRefused(t *testing.T) {
	t.Parallel()
	d := amendVenue(t)
	heldOrder(t, d, "g1", "first", hours("lane-1", 11, 12, 1))
	b := heldOrder(t, d, "g1", "second", hours("lane-1", 10, 11, 1))

	a, got := amend(t, d, amendParams(b, "k1", relines(hours("lane-1", 11, 12, 1))))
	assert.Equal(t, domain.AmendmentRefused, a.Status)
	assert.Equal(t, "you already hold an order for that slot", a.Reason)
	assert.Equal(t, b, got)
	assert.Equal(t, []int{1, 1}, reservedHours(t, d, "lane-1", 10, 12))
	require.Len(t, amendments(t, d, b.ID), 1, "the refusal is stored")

	// A paid order that would cost more is judged against the other orders before it waits.
	paid := paidOrder(t, d, "g1", hours("lane-1", 9, 10, 1))
	a, _ = amend(t, d, amendParams(paid, "k1", relines(hours("lane-1", 11, 12, 2))))
	assert.Equal(t, domain.AmendmentRefused, a.Status)
	assert.Equal(t, "you already hold an order for that slot", a.Reason)
	assert.Equal(t, []int{1, 1, 1}, reservedHours(t, d, "lane-1", 9, 12))
	d.AssertInventoryMatchesBookings(t)
}

// TestAnOrderMovedAnHourLaterKeepsTheHourBothSlotsShare: 10-12 moved to 11-13 on a court of one
// place. Were the 11:00 unit counted again, or given back and taken again, it would be found
// full or recorded twice; a rival never gets it.
func TestAnOrderMovedAnHourLaterKeepsTheHourBothSlotsShare(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := amendVenue(t)
	b := heldOrder(t, d, "g1", "k", hours("court-1", 10, 12, 1))

	a, got := amend(t, d, amendParams(b, "k1", relines(hours("court-1", 11, 13, 1))))

	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.Equal(t, []int{0, 1, 1}, reservedHours(t, d, "court-1", 10, 13))
	assert.Equal(t, []domain.LinePrice{{OrderLine: hours("court-1", 11, 13, 1), UnitPrice: 4000, Total: 4000}}, got.Price.Lines)
	assert.Equal(t, a.PriceAfter, got.Price)
	assert.Zero(t, a.Difference)
	_, units, err := d.Store.BookingHistory(ctx, b.ID)
	require.NoError(t, err)
	var shared []db.UnitChange
	for _, u := range units {
		if u.Unit.Equal(at(11)) {
			shared = append(shared, u)
		}
	}
	require.Len(t, shared, 1, "the shared hour changed once: when the order took it")
	assert.Equal(t, []int{0, 1}, []int{*shared[0].ReservedBefore, *shared[0].ReservedAfter})
	rival, err := d.Store.ReserveOrder(ctx, order("rival", "k", hours("court-1", 11, 12, 1)))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, rival.Status)
	d.AssertInventoryMatchesBookings(t)
}

// TestControlAnOrderMovedAsReleaseThenRetakeLosesTheSharedHourToARacingOrder is the control for
// the test above: in two steps, an order that comes between them takes 11:00.
func TestControlAnOrderMovedAsReleaseThenRetakeLosesTheSharedHourToARacingOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := amendVenue(t)
	b := heldOrder(t, d, "g1", "k", hours("court-1", 10, 12, 1))

	_, err := d.Store.Release(ctx, b.ID, domain.StatusCancelled) // step 1
	require.NoError(t, err)
	rival := heldOrder(t, d, "rival", "k", hours("court-1", 11, 12, 1)) // between the steps
	retake, err := d.Store.ReserveOrder(ctx, order("g1", "retake", hours("court-1", 11, 13, 1)))
	require.NoError(t, err)

	assert.Equal(t, domain.StatusRejected, retake.Status, "the retake must fail, or this control proves nothing")
	assert.Equal(t, domain.StatusHold, rival.Status, "the racing order took the hour the guest held")
	assert.Equal(t, []int{0, 1, 0}, reservedHours(t, d, "court-1", 10, 13))
	d.AssertInventoryMatchesBookings(t)
}

func TestAnOrderAddsARacketLineAndRemovesIt(t *testing.T) {
	t.Parallel()
	d := amendVenue(t)
	b := heldOrder(t, d, "g1", "k", hours("court-1", 10, 11, 1))

	a, got := amend(t, d, amendParams(b, "add", relines(hours("court-1", 10, 11, 1), hours("rackets", 10, 12, 2))))
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.Equal(t, []domain.LinePrice{
		{OrderLine: hours("court-1", 10, 11, 1), UnitPrice: 2000, Total: 2000},
		{OrderLine: hours("rackets", 10, 12, 2), UnitPrice: 4000, Total: 8000},
	}, got.Price.Lines)
	assert.Equal(t, int64(10000), got.Price.Total)
	assert.Equal(t, int64(8000), a.Difference)
	assert.Equal(t, []int{2, 2}, reservedHours(t, d, "rackets", 10, 12))
	d.AssertInventoryMatchesBookings(t)

	a, got = amend(t, d, amendParams(b, "remove", relines(hours("court-1", 10, 11, 1))))
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.Equal(t, []domain.LinePrice{{OrderLine: hours("court-1", 10, 11, 1), UnitPrice: 2000, Total: 2000}}, got.Price.Lines)
	assert.Equal(t, int64(2000), got.Price.Total)
	assert.Equal(t, []int{0, 0}, reservedHours(t, d, "rackets", 10, 12))
	assert.Equal(t, 1, reserved(t, d, "court-1", 10))
	d.AssertInventoryMatchesBookings(t)
}

// TestAnAmendedLanesQuantityChangesByTheDifferenceOnly: the kept places keep their price; the added
// ones are priced at the rate in force; more than is left is refused.
func TestAnAmendedLanesQuantityChangesByTheDifferenceOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := amendVenue(t)
	b := heldOrder(t, d, "g1", "k", hours("lane-1", 8, 9, 2))
	heldOrder(t, d, "other", "k", hours("lane-1", 8, 9, 3))
	repriced := schedule(orderDay, orderDay.AddDays(1), "07:00", "14:00", 60)
	repriced.Price.Amount = 2500
	_, err := d.Store.ApplySchedule(ctx, "v1", "lane-1", repriced)
	require.NoError(t, err)

	a, got := amend(t, d, amendParams(b, "k1", relines(hours("lane-1", 8, 9, 3))))
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.Equal(t, 6, reserved(t, d, "lane-1", 8), "the lane is full: only the added place was checked")
	assert.Equal(t, int64(2*2000+2500), got.Price.Total)
	require.Len(t, got.Price.Lines, 1)
	assert.Equal(t, int64(2000), got.Price.Lines[0].UnitPrice, "the kept places' price")

	a, _ = amend(t, d, amendParams(got, "k2", relines(hours("lane-1", 8, 9, 4))))
	assert.Equal(t, domain.AmendmentRefused, a.Status)
	assert.Equal(t, "the slot of lane-1 at 2030-06-03T08:00:00Z is not available", a.Reason)
	assert.Equal(t, 6, reserved(t, d, "lane-1", 8))

	a, got = amend(t, d, amendParams(got, "k3", relines(hours("lane-1", 8, 9, 1))))
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.Equal(t, 4, reserved(t, d, "lane-1", 8))
	assert.Equal(t, int64(2000), got.Price.Total, "one kept place at its price")
	d.AssertInventoryMatchesBookings(t)
}

func TestAnAmendedCourtCannotBecomeARacketNorAResourceTheVenueHasNot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := amendVenue(t)
	b := heldOrder(t, d, "g1", "k", hours("court-1", 10, 11, 1))

	_, _, err := d.Store.Amend(ctx, amendParams(b, "k1", relines(hours("rackets", 10, 11, 1))))
	assert.ErrorIs(t, err, domain.ErrInvalid)
	_, _, err = d.Store.Amend(ctx, amendParams(b, "k2", relines(hours("court-9", 10, 11, 1))))
	assert.ErrorIs(t, err, domain.ErrNotFound)
	a, _ := amend(t, d, amendParams(b, "k3", relines(hours("court-2", 10, 11, 1))))
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.Equal(t, []int{0, 1}, []int{reserved(t, d, "court-1", 10), reserved(t, d, "court-2", 10)}, "a court may become another court")
	assert.Len(t, amendments(t, d, b.ID), 1, "what is invalid is not stored")
	d.AssertInventoryMatchesBookings(t)
}

// TestAnOrderLineThatHasStartedCannotMove: the court's hour began (by the database's clock); the
// rackets, later, may still change, and no line may move onto time that has begun.
func TestAnOrderLineThatHasStartedCannotMove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := amendVenue(t)
	today := domain.DateOf(time.Now(), time.UTC)
	for _, id := range []string{"court-1", "rackets"} {
		_, err := d.Store.ApplySchedule(ctx, "v1", id, schedule(today.AddDays(-1), today.AddDays(2), "00:00", "24:00", 60))
		require.NoError(t, err)
	}
	hour := time.Now().UTC().Truncate(time.Hour)
	line := func(resource string, from, to, qty int) domain.OrderLine {
		return domain.OrderLine{ResourceID: resource, Start: hour.Add(time.Duration(from) * time.Hour),
			End: hour.Add(time.Duration(to) * time.Hour), Quantity: qty}
	}
	b := heldOrder(t, d, "g1", "k", line("court-1", 0, 1, 1), line("rackets", 2, 3, 1))

	_, _, err := d.Store.Amend(ctx, amendParams(b, "move", relines(line("court-1", 1, 2, 1), line("rackets", 2, 3, 1))))
	assert.ErrorIs(t, err, db.ErrStayStarted)
	assert.ErrorContains(t, err, "a line that has started cannot move")
	_, _, err = d.Store.Amend(ctx, amendParams(b, "drop", relines(line("rackets", 2, 3, 1))))
	assert.ErrorIs(t, err, db.ErrStayStarted)
	_, _, err = d.Store.Amend(ctx, amendParams(b, "past", relines(line("court-1", 0, 1, 1), line("rackets", -1, 0, 1))))
	assert.ErrorIs(t, err, db.ErrStayStarted)

	a, got := amend(t, d, amendParams(b, "more", relines(line("court-1", 0, 1, 1), line("rackets", 2, 3, 2))))
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.Equal(t, int64(2000+2*2000), got.Price.Total)
	d.AssertInventoryMatchesBookings(t)
}

// TestAPaidOrderAmendedToCostMoreWaitsForItsBalance: the court moves to the dearer court and
// gains a racket. The new units are held beside the order's own until the balance is paid; a
// lapse gives back exactly them, a settlement the old court.
func TestAPaidOrderAmendedToCostMoreWaitsForItsBalance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := amendVenue(t)
	b := paidOrder(t, d, "g1", hours("court-1", 10, 11, 1), hours("lane-1", 10, 11, 1))
	change := relines(hours("court-2", 10, 11, 1), hours("lane-1", 10, 11, 1), hours("rackets", 10, 11, 1))
	counts := func() []int {
		return []int{reserved(t, d, "court-1", 10), reserved(t, d, "court-2", 10), reserved(t, d, "lane-1", 10), reserved(t, d, "rackets", 10)}
	}

	a, got := amend(t, d, amendParams(b, "k1", change))
	require.Equal(t, domain.AmendmentBalanceDue, a.Status, a.Reason)
	assert.Equal(t, int64(3000), a.Difference)
	assert.Equal(t, int64(7000), a.PriceAfter.Total)
	assert.Equal(t, int64(3000), got.BalanceDue)
	got.BalanceDue, got.BalanceDueBy = 0, time.Time{}
	assert.Equal(t, b, got, "the order is unchanged until its balance is paid")
	assert.Equal(t, []int{1, 1, 1, 1}, counts(), "the added units are held beside its own")
	d.AssertInventoryMatchesBookings(t)

	lapsed, got, err := d.Store.LapseAmendment(ctx, b.ID, a.ID, "not paid in time")
	require.NoError(t, err)
	assert.Equal(t, domain.AmendmentLapsed, lapsed.Status)
	assert.Equal(t, b, got, "the order is exactly as it was")
	assert.Equal(t, []int{1, 0, 1, 0}, counts())
	d.AssertInventoryMatchesBookings(t)

	a, _ = amend(t, d, amendParams(b, "k2", change))
	require.Equal(t, domain.AmendmentBalanceDue, a.Status, a.Reason)
	settled, got, err := d.Store.SettleAmendment(ctx, b.ID, a.ID, domain.Payment{ID: "pi_balance", Amount: 3000, Currency: "EUR"})
	require.NoError(t, err)
	assert.Equal(t, domain.AmendmentApplied, settled.Status)
	assert.Equal(t, []int{0, 1, 1, 1}, counts(), "the old court went back")
	assert.Equal(t, a.PriceAfter.Lines, got.Price.Lines)
	assert.Equal(t, int64(7000), got.Price.Total)
	assert.Equal(t, int64(7000), got.Paid)
	assert.Equal(t, "court-2", got.RoomTypeID, "the first line is on the booking row")
	assert.Equal(t, change.Lines, domain.UnitsOf(got).Lines)
	d.AssertInventoryMatchesBookings(t)
}

func TestAPaidOrderAmendedToCostLessIsRefundedByItsPolicy(t *testing.T) {
	t.Parallel()
	d := amendVenue(t)
	b := paidOrder(t, d, "g1", hours("court-2", 10, 11, 1), hours("rackets", 10, 11, 2))
	require.Equal(t, int64(7000), b.Paid)

	p := amendParams(b, "k1", relines(hours("court-1", 10, 11, 1)))
	p.RefundOf = func(_ domain.Booking, fallsBy int64) int64 { return fallsBy / 2 }
	a, got := amend(t, d, p)
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.Equal(t, int64(-5000), a.Difference)
	assert.Equal(t, int64(2500), a.Refund)
	assert.Equal(t, int64(4500), got.Paid)
	assert.Equal(t, int64(2000), got.Price.Total)
	assert.Equal(t, []int{1, 0, 0}, []int{reserved(t, d, "court-1", 10), reserved(t, d, "court-2", 10), reserved(t, d, "rackets", 10)})
	d.AssertInventoryMatchesBookings(t)
}

// TestAnAmendmentExtendingAStayKeepsItsDiscountedNightsAtTheirExactSnapshot is a stay's, found while
// pricing orders: three rooms at 33.33 with 15% off for three nights or more cost 85.00 a night
// (99.99 less 14.99). Extended by a night with the same rooms, the kept nights should keep 85.00,
// but stayPrice takes each night's amount over its quantity in whole minor units and multiplies
// back (8500/3*3 = 8499), losing the remainder on every kept night. Left failing on purpose.
func TestAnAmendmentExtendingAStayKeepsItsDiscountedNightsAtTheirExactSnapshot(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	rate := domain.Money{Amount: 3333, Currency: "EUR"}
	require.NoError(t, d.Store.SetInventory(context.Background(), db.SetInventoryParams{
		HotelID: "h1", RoomTypeID: "double", From: dec10, To: dec14, TotalRooms: 5, Rate: &rate}))
	createRule(t, d, domain.SaleRule{Kind: domain.RuleLengthOfStay, HotelID: "h1", MinLOS: intp(2),
		DiscountFrom: intp(3), DiscountPercent: intp(15)})
	b := hold(t, d, "g1", stay3, 3)
	require.Equal(t, int64(3*8500), b.Price.Total)

	a, got := amend(t, d, amendParams(b, "k1", domain.Change{CheckOut: dec14}))
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	for _, n := range got.Price.Nights {
		assert.Equal(t, int64(8500), n.Amount, "night of %s", n.Date)
	}
	assert.Equal(t, int64(4*8500), got.Price.Total)
	assert.Equal(t, int64(8500), a.Difference, "the added night costs what it adds")
	d.AssertInventoryMatchesBookings(t)
}

// TestAPendingOrderAmendmentCannotBeSettledOntoASlotTheCustomerOrderedMeanwhile: the booking
// row keeps its first line while the balance is due, so the customer may order the new first
// slot again; settling then answers a conflict and changes nothing.
func TestAPendingOrderAmendmentCannotBeSettledOntoASlotTheCustomerOrderedMeanwhile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := amendVenue(t)
	b := paidOrder(t, d, "g1", hours("lane-1", 10, 11, 1))
	a, _ := amend(t, d, amendParams(b, "k1", relines(hours("lane-1", 11, 12, 2))))
	require.Equal(t, domain.AmendmentBalanceDue, a.Status, a.Reason)
	heldOrder(t, d, "g1", "again", hours("lane-1", 11, 12, 1))

	_, _, err := d.Store.SettleAmendment(ctx, b.ID, a.ID, domain.Payment{ID: "pi_balance", Amount: a.Difference, Currency: "EUR"})
	assert.ErrorIs(t, err, db.ErrAlreadyOrdered)
	pending, err := d.Store.PendingAmendment(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, a.ID, pending.ID, "it still waits")
	assert.Equal(t, []int{1, 3}, reservedHours(t, d, "lane-1", 10, 12))
	d.AssertInventoryMatchesBookings(t)
}

// TestAnOrderAmendmentQuoteTakesNothingAndAnotherCurrencyIsRefused: a quote prices the change
// and rolls it back; a line priced in another currency than the order's is not sold to it.
func TestAnOrderAmendmentQuoteTakesNothingAndAnotherCurrencyIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := amendVenue(t)
	b := heldOrder(t, d, "g1", "k", hours("court-1", 10, 11, 1))
	p := amendParams(b, "", relines(hours("court-1", 10, 11, 1), hours("rackets", 10, 11, 2)))
	p.DryRun = true
	q, got := amend(t, d, p)
	assert.Equal(t, domain.AmendmentQuoted, q.Status)
	assert.Equal(t, int64(6000), q.PriceAfter.Total)
	assert.Equal(t, b, got)
	assert.Zero(t, reserved(t, d, "rackets", 10))
	assert.Empty(t, amendments(t, d, b.ID))

	dollars := schedule(orderDay, orderDay.AddDays(1), "07:00", "14:00", 60)
	dollars.Price.Currency = "USD"
	_, err := d.Store.ApplySchedule(ctx, "v1", "court-2", dollars)
	require.NoError(t, err)
	a, _ := amend(t, d, amendParams(b, "k1", relines(hours("court-2", 10, 11, 1))))
	assert.Equal(t, domain.AmendmentRefused, a.Status)
	assert.Equal(t, "the slot of court-2 at 2030-06-03T10:00:00Z is not available", a.Reason)
	assert.Equal(t, []int{1, 0}, []int{reserved(t, d, "court-1", 10), reserved(t, d, "court-2", 10)})
	d.AssertInventoryMatchesBookings(t)
}

// TestAnOrderAmendmentAndANewOrderRacingForTheLastSlotHaveOneWinner: in each round an order
// moves its court an hour later while a rival orders that hour.
func TestAnOrderAmendmentAndANewOrderRacingForTheLastSlotHaveOneWinner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := amendVenue(t)
	wins := map[string]int{}
	for r := range 3 { // 07-08 to 08-09, 09-10 to 10-11, 11-12 to 12-13
		from := 7 + 2*r
		b := heldOrder(t, d, fmt.Sprintf("g%d", r), "k", hours("court-1", from, from+1, 1))
		var a domain.Amendment
		var rival domain.Booking
		var errs [2]error
		testsuite.Race(2, func(i int) {
			if i == 0 {
				a, _, errs[0] = d.Store.Amend(ctx, amendParams(b, "k", relines(hours("court-1", from+1, from+2, 1))))
			} else {
				rival, errs[1] = d.Store.ReserveOrder(ctx, order(fmt.Sprintf("rival%d", r), "k", hours("court-1", from+1, from+2, 1)))
			}
		})
		require.NoError(t, errors.Join(errs[:]...), "round %d", r)
		amended, held := a.Status == domain.AmendmentApplied, rival.Status == domain.StatusHold
		require.True(t, amended != held, "round %d: exactly one wins (amendment %s, order %s)", r, a.Status, rival.Status)
		if amended {
			wins["amendment"]++
			assert.Equal(t, []int{0, 1}, reservedHours(t, d, "court-1", from, from+2), "round %d", r)
		} else {
			wins["order"]++
			assert.Equal(t, fmt.Sprintf("the slot of court-1 at %s is not available", at(from+1).Format(time.RFC3339)), a.Reason)
			assert.Equal(t, []int{1, 1}, reservedHours(t, d, "court-1", from, from+2), "round %d", r)
		}
	}
	t.Logf("winners: %v", wins)
	d.AssertInventoryMatchesBookings(t)
}
