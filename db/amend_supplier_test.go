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

// procuredAmendedBooking is a confirmed hold at direct_procure supplier "sup" (hotel h1), amended
// to a night longer and confirmed by the supplier: it is applied and moved to its new hold.
func procuredAmendedBooking(t *testing.T) (*testsuite.Database, domain.Booking, domain.Amendment, string) {
	t.Helper()
	ctx := context.Background()
	d, b := supplierConfirmedHold(t)

	a, _ := amend(t, d, amendParams(b, "k1", domain.Change{CheckOut: dec13}))
	require.Equal(t, domain.AmendmentSupplierPending, a.Status)
	a, _, oldRef, err := d.Store.SupplierAnswered(ctx, b.ID, a.ID, db.SupplierAnswer{Confirmed: true, Confirmation: "C-2"},
		time.Hour, func(domain.Booking, int64) int64 { return 0 })
	require.NoError(t, err)
	require.Equal(t, domain.AmendmentApplied, a.Status)
	require.Equal(t, b.ID, oldRef, "the hold the booking left is for the supplier to cancel")
	return d, b, a, oldRef
}

// The workflow's SupplierAnswered activity is retried when its answer is lost (the database
// committed, the worker died): the retry must still name the hold the booking left, or nobody
// cancels it at the supplier.
func TestASupplierAnswerAskedAgainStillNamesTheHoldTheBookingLeft(t *testing.T) {
	t.Parallel()
	d, b, a, oldRef := procuredAmendedBooking(t)

	again, _, oldAgain, err := d.Store.SupplierAnswered(context.Background(), b.ID, a.ID,
		db.SupplierAnswer{Confirmed: true, Confirmation: "C-2"}, time.Hour, func(domain.Booking, int64) int64 { return 0 })
	require.NoError(t, err)
	assert.Equal(t, domain.AmendmentApplied, again.Status)
	assert.Equal(t, oldRef, oldAgain, "asked again, the answer must name the old hold as the first did")
}

// flushSupplierCancels logs a hold it could not cancel and trusts "a cancel of the booking tells
// it again (db.Store.SupplierRefs)": the hold an applied amendment left must be among the refs.
func TestACancelOfAnAmendedSupplierBookingStillTellsTheSupplierOfTheHoldItLeft(t *testing.T) {
	t.Parallel()
	d, b, a, oldRef := procuredAmendedBooking(t)

	refs, err := d.Store.SupplierRefs(context.Background(), b.ID)
	require.NoError(t, err)
	assert.Equal(t, a.SupplierHoldRef, refs[0], "the booking's own hold first")
	assert.Contains(t, refs, oldRef, "the hold the booking left, whose cancel may have been lost, is never told again")
}

// quote is a direct_connect supplier's price of n nights from dec10 at rate a night.
func quote(n int, rate int64) *domain.Price {
	p := domain.Price{Currency: "EUR"}
	for i := range n {
		p.Nights = append(p.Nights, domain.NightRate{Date: dec10.AddDays(i), Amount: rate})
		p.Total += rate
	}
	return &p
}

// A direct_connect amendment is priced by the supplier's quote for the whole new stay, and the
// length-of-stay discount taken off all of it: the booking's discount is then that, not that
// added to the discount its first stay had (counted twice for the nights it keeps).
func TestADirectConnectAmendmentCountsTheDiscountOfTheNightsItKeepsOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec14, 5) // the room type; its stock is not the supplier's
	supplierHotel(t, d, "sup", db.ModeDirectConnect, "h1")
	createRule(t, d, domain.SaleRule{Kind: domain.RuleLengthOfStay, HotelID: "h1", MinLOS: intp(1),
		DiscountFrom: intp(3), DiscountPercent: intp(10)})
	hp := holdParams("g1", "k", nights(dec10, 3), 1)
	hp.SupplierID = "sup"
	b, err := d.Store.ReserveAtSupplier(ctx, hp, quote(3, 10000))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, b.Status)
	require.Equal(t, int64(27000), b.Price.Total)
	require.Equal(t, int64(3000), b.Discount)

	p := amendParams(b, "k1", domain.Change{CheckOut: dec14})
	p.SupplierPrice = quote(4, 10000)
	a, _ := amend(t, d, p)
	require.Equal(t, domain.AmendmentSupplierPending, a.Status)
	a, got, _, err := d.Store.SupplierAnswered(ctx, b.ID, a.ID, db.SupplierAnswer{Confirmed: true, Confirmation: "C-2"},
		time.Hour, func(domain.Booking, int64) int64 { return 0 })
	require.NoError(t, err)
	require.Equal(t, domain.AmendmentApplied, a.Status)
	assert.Equal(t, int64(36000), got.Price.Total, "10% off the 4 nights quoted")
	assert.Equal(t, int64(4000), got.Discount, "the discount in the price of the 4 nights, as a booking of them would have")
	assert.Equal(t, []int{0, 0, 0, 0}, d.Reserved(t, "h1", "double", nights(dec10, 4)), "the supplier holds the rooms, not our stock")
}

// waitingForSupplier is a direct_procure supplier's confirmed 2-night booking whose amendment to
// 3 nights waits for its supplier.
func waitingForSupplier(t *testing.T) (*testsuite.Database, domain.Booking, domain.Amendment) {
	t.Helper()
	d, b := supplierConfirmedHold(t)
	a, _ := amend(t, d, amendParams(b, "k1", domain.Change{CheckOut: dec13}))
	require.Equal(t, domain.AmendmentSupplierPending, a.Status)
	return d, b, a
}

// A booking that ends while its amendment waits for its supplier (its workflow cut short
// between Amend and SupplierAnswered, then the booking released) gives back the rooms the
// amendment held; the amendment must end with them, as a BALANCE_DUE one lapses
// (lapsePending), not go on SUPPLIER_PENDING, for ever holding the booking's one waiting slot
// and its new hold counted as one the supplier may have.
func TestAnAmendmentWaitingForItsSupplierEndsWithTheBooking(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, b, a := waitingForSupplier(t)
	var err error

	_, err = d.Store.Release(ctx, b.ID, domain.StatusCancelled)
	require.NoError(t, err)

	assert.Equal(t, []int{0, 0, 0, 0}, d.Reserved(t, "h1", "double", nights(dec10, 4)), "every room went back")
	got, err := d.Store.Amendment(ctx, b.ID, a.ID)
	require.NoError(t, err)
	assert.NotEqual(t, domain.AmendmentSupplierPending, got.Status, "the amendment of a cancelled booking still waits")
}

// A booking's workflow ended (terminated, failed) between Amend and SupplierAnswered is resumed
// (worker.resumeInput): the amendment waiting for its supplier must not be left waiting, or
// nothing ever asks the supplier or ends it, and the booking refuses every later amendment with
// balance_due while its state shows none waiting. It is refused (EndSupplierPending), its rooms
// given back and its hold's reference handed to the resumed run to cancel.
func TestAResumedBookingIsHandedItsAmendmentWaitingForItsSupplier(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, b, a := waitingForSupplier(t)
	var err error

	_, _, err = d.Store.Amend(ctx, amendParams(b, "k2", domain.Change{CheckOut: dec14}))
	require.ErrorIs(t, err, db.ErrBalanceDue, "the waiting amendment blocks any other")
	refs, err := d.Store.EndSupplierPending(ctx, b.ID, "resumed")
	require.NoError(t, err)
	assert.Equal(t, []string{a.SupplierHoldRef}, refs, "the hold the supplier may have made, to cancel")
	got, err := d.Store.Amendment(ctx, b.ID, a.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.AmendmentRefused, got.Status)
	assert.Equal(t, []int{1, 1, 0, 0}, d.Reserved(t, "h1", "double", nights(dec10, 4)), "the night it held went back")
	pending, last, err := d.Store.AmendmentState(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, a.ID, last)
	assert.Nil(t, pending)
	next, _ := amend(t, d, amendParams(b, "k2", domain.Change{CheckOut: dec14}))
	assert.Equal(t, domain.AmendmentSupplierPending, next.Status, "a later amendment is not blocked")
}

// A direct_connect supplier's quote for the new stay may come in another currency than the
// booking was sold in (its quote's currency became the booking's): a difference taken across
// currencies charges or refunds a meaningless amount; such a quote must not price the amendment.
func TestADirectConnectAmendmentIsNotPricedByAQuoteInAnotherCurrency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec14, 5)
	supplierHotel(t, d, "sup", db.ModeDirectConnect, "h1")
	hp := holdParams("g1", "k", nights(dec10, 3), 1)
	hp.SupplierID = "sup"
	b, err := d.Store.ReserveAtSupplier(ctx, hp, quote(3, 10000))
	require.NoError(t, err)
	require.Equal(t, "EUR", b.Price.Currency)

	p := amendParams(b, "k1", domain.Change{CheckOut: dec14})
	p.SupplierPrice = quote(4, 10000)
	p.SupplierPrice.Currency = "USD"
	a, _ := amend(t, d, p)
	if a.Status == domain.AmendmentRefused {
		return
	}
	assert.Equal(t, a.Currency, a.PriceAfter.Currency, "the amendment's difference of %d %s is taken from a price in %s",
		a.Difference, a.Currency, a.PriceAfter.Currency)
}
