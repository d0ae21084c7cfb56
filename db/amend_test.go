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

var dec11, dec12, dec14 = dec10.AddDays(1), dec10.AddDays(2), dec10.AddDays(4)

// nights is the stay of n nights from check-in.
func nights(checkIn domain.Date, n int) domain.Stay {
	return domain.Stay{CheckIn: checkIn, CheckOut: checkIn.AddDays(n)}
}

// amendParams is booking b's guest asking for change c, to be given back the whole fall in price.
func amendParams(b domain.Booking, key string, c domain.Change) db.AmendParams {
	return db.AmendParams{BookingID: b.ID, IdempotencyKey: key, Change: c, Actor: b.CustomerID, BalanceWindow: time.Hour,
		RefundOf: func(_ domain.Booking, fallsBy int64) int64 { return fallsBy }}
}

// amend makes the amendment p and requires it to be answered.
func amend(t *testing.T, d *testsuite.Database, p db.AmendParams) (domain.Amendment, domain.Booking) {
	t.Helper()
	a, b, err := d.Store.Amend(context.Background(), p)
	require.NoError(t, err)
	return a, b
}

// hold is a customer's direct hold of h1/double, required to be held.
func hold(t *testing.T, d *testsuite.Database, customer string, stay domain.Stay, qty int) domain.Booking {
	t.Helper()
	b, err := d.Store.Reserve(context.Background(), holdParams(customer, "k", stay, qty))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, b.Status)
	return b
}

// paidBooking is a customer's hold confirmed with a provider payment of its price (amount 0), or
// with a deposit of amount the desk took, then confirmed by the desk.
func paidBooking(t *testing.T, d *testsuite.Database, customer string, stay domain.Stay, qty int, amount int64) domain.Booking {
	t.Helper()
	b := hold(t, d, customer, stay, qty)
	var pay *domain.Payment
	if amount == 0 {
		amount = b.Price.Total
		pay = &domain.Payment{ID: "pi_" + customer, Amount: amount, Currency: "EUR"}
	} else {
		_, err := d.Store.TakeDeskDepositKeepingTheHold(context.Background(), db.DeskPayment{BookingID: b.ID, Key: "deposit",
			Amount: amount, Currency: "EUR", Method: domain.MethodCash, TakenBy: "desk-1"})
		require.NoError(t, err)
	}
	b, err := d.Store.Confirm(context.Background(), b.ID, pay)
	require.NoError(t, err)
	require.Equal(t, amount, b.Paid)
	return b
}

func booking(t *testing.T, d *testsuite.Database, id string) domain.Booking {
	t.Helper()
	b, err := d.Store.GetBooking(context.Background(), id)
	require.NoError(t, err)
	return b
}

func amendments(t *testing.T, d *testsuite.Database, bookingID string) []domain.Amendment {
	t.Helper()
	list, err := d.Store.Amendments(context.Background(), bookingID)
	require.NoError(t, err)
	return list
}

func TestAnAmendmentOntoASoldOutNightIsRefusedNamingItAndChangesNothing(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 2)
	b := hold(t, d, "g1", nights(dec10, 2), 1)
	hold(t, d, "g2", nights(dec12, 1), 2) // the 12th is sold out
	before := d.Reserved(t, "h1", "double", stay3)

	a, got := amend(t, d, amendParams(b, "k1", domain.Change{CheckOut: dec13}))

	assert.Equal(t, domain.AmendmentRefused, a.Status)
	assert.Equal(t, "the night of 2030-12-12 is not available", a.Reason)
	assert.Equal(t, b.Price, a.PriceAfter, "a refusal prices nothing")
	assert.Equal(t, b, got, "the booking is as it was")
	assert.Equal(t, b, booking(t, d, b.ID))
	assert.Equal(t, before, d.Reserved(t, "h1", "double", stay3))
	assert.Equal(t, []int{1, 1, 2}, before)
	stored := amendments(t, d, b.ID)
	require.Len(t, stored, 1)
	assert.Equal(t, a.ID, stored[0].ID)
	assert.Equal(t, domain.AmendmentRefused, stored[0].Status)
	assert.Equal(t, a.Reason, stored[0].Reason)

	// A sale rule over the new night refuses it by name, and changes nothing either.
	createRule(t, d, domain.SaleRule{Kind: domain.RuleStopSell, HotelID: "h1", From: dec13, To: dec14, Reason: "maintenance"})
	d.SetInventory(t, "h1", "double", dec13, dec14, 2)
	a, _ = amend(t, d, amendParams(b, "k2", domain.Change{CheckIn: dec13, CheckOut: dec14}))
	assert.Equal(t, domain.AmendmentRefused, a.Status)
	assert.Contains(t, a.Reason, "stop-sell (maintenance)")
	assert.Equal(t, b, booking(t, d, b.ID))
	assert.Equal(t, []int{1, 1, 2, 0}, d.Reserved(t, "h1", "double", nights(dec10, 4)))
	d.AssertInventoryMatchesBookings(t)
}

// TestAnAmendmentExtendingASoldOutStayKeepsItsNightsAndTakesOnlyTheNewOne: the booking holds every
// room of its three nights; only the fourth, free, is taken. Counting the kept nights again (or
// giving them back and taking them again) would find them sold out.
func TestAnAmendmentExtendingASoldOutStayKeepsItsNightsAndTakesOnlyTheNewOne(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 2)
	d.SetInventory(t, "h1", "double", dec13, dec14, 2)
	b := hold(t, d, "g1", stay3, 2)

	a, got := amend(t, d, amendParams(b, "k1", domain.Change{CheckOut: dec14}))

	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.Equal(t, []int{2, 2, 2, 2}, d.Reserved(t, "h1", "double", nights(dec10, 4)), "the shared nights are held once")
	assert.Equal(t, nights(dec10, 4), got.Stay)
	assert.Equal(t, 2, got.Quantity)
	assert.Equal(t, int64(80000), got.Price.Total)
	assert.Equal(t, int64(20000), a.Difference)
	d.AssertInventoryMatchesBookings(t)
}

// TestControlAnAmendmentAsReleaseThenRetakeLosesASharedNightToARacingHold is the control for the test above:
// amended in two steps (give the old stay back, then reserve the new one), a hold that comes
// between the steps takes a shared night, and the guest loses the stay they had.
func TestControlAnAmendmentAsReleaseThenRetakeLosesASharedNightToARacingHold(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 2)
	d.SetInventory(t, "h1", "double", dec13, dec14, 2)
	b := hold(t, d, "g1", stay3, 2)

	_, err := d.Store.Release(ctx, b.ID, domain.StatusCancelled) // step 1: the old stay goes back
	require.NoError(t, err)
	rival := hold(t, d, "rival", nights(dec11, 1), 1) // between the steps
	retake, err := d.Store.Reserve(ctx, holdParams("g1", "retake", nights(dec10, 4), 2))
	require.NoError(t, err)

	assert.Equal(t, domain.StatusRejected, retake.Status, "the retake must fail, or this control proves nothing")
	assert.Equal(t, domain.StatusHold, rival.Status, "the racing hold took a night the guest held")
	assert.Equal(t, domain.StatusCancelled, booking(t, d, b.ID).Status, "and the guest's old stay is gone")
	assert.Equal(t, []int{0, 1, 0, 0}, d.Reserved(t, "h1", "double", nights(dec10, 4)))
	d.AssertInventoryMatchesBookings(t)
}

// channelUsed is what channel A's own allocation used on each of soonStay's nights.
func channelUsed(t *testing.T, d *testsuite.Database) (used []int, poolLeft []int) {
	t.Helper()
	list, err := d.Store.Allocations(context.Background(), "h1", "double", soon, soonStay.CheckOut)
	require.NoError(t, err)
	for _, n := range list {
		for _, c := range n.Channels {
			if c.ChannelID == "A" && c.AgentID == "" {
				used = append(used, c.Used)
			}
		}
		poolLeft = append(poolLeft, n.PoolLeft)
	}
	return used, poolLeft
}

func TestAnAmendedChannelBookingsRoomsGoBackToItsAllocation(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	splitStock(t, d) // 18 rooms: A 10, B 5, a pool of 3
	ctx := context.Background()
	b, err := d.Store.Reserve(ctx, channelHold("guest", "A", "agent-a", soonStay, 2))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, b.Status)
	used, _ := channelUsed(t, d)
	require.Equal(t, []int{2, 2, 2}, used)

	a, _ := amend(t, d, amendParams(b, "fewer", domain.Change{Quantity: 1}))
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	used, pool := channelUsed(t, d)
	assert.Equal(t, []int{1, 1, 1}, used, "the room given back is the allocation's again")
	assert.Equal(t, []int{3, 3, 3}, pool, "the pool was never touched")
	assert.Equal(t, []int{1, 1, 1}, d.Reserved(t, "h1", "double", soonStay))

	a, _ = amend(t, d, amendParams(b, "later", domain.Change{CheckIn: soon.AddDays(1)}))
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	used, _ = channelUsed(t, d)
	assert.Equal(t, []int{0, 1, 1}, used, "the night dropped goes back to the allocation")
	assert.Equal(t, []int{0, 1, 1}, d.Reserved(t, "h1", "double", soonStay))
	d.AssertInventoryMatchesBookings(t)
}

// TestAnAmendedChannelBookingGivesBackItsPoolRoomFirst: a booking that took one room from its channel's
// last allocated room and one from the pool gives back the pool's when it drops one.
func TestAnAmendedChannelBookingGivesBackItsPoolRoomFirst(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	splitStock(t, d)
	ctx := context.Background()
	for _, g := range []string{"g1", "g2", "g3", "g4", "g5", "g6", "g7", "g8", "g9"} {
		_, err := d.Store.Reserve(ctx, channelHold(g, "A", "agent-a", soonStay, 1))
		require.NoError(t, err)
	}
	b, err := d.Store.Reserve(ctx, channelHold("guest", "A", "agent-a", soonStay, 2))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, b.Status)
	used, pool := channelUsed(t, d)
	require.Equal(t, []int{10, 10, 10}, used)
	require.Equal(t, []int{2, 2, 2}, pool)

	a, _ := amend(t, d, amendParams(b, "fewer", domain.Change{Quantity: 1}))
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	used, pool = channelUsed(t, d)
	assert.Equal(t, []int{10, 10, 10}, used, "the allocation's room is kept")
	assert.Equal(t, []int{3, 3, 3}, pool, "the pool's room went back")
	d.AssertInventoryMatchesBookings(t)
}

// TestAPaidChannelBookingsPendingAmendmentGivesItsRoomsBackToItsAllocation: a paid channel booking that moves a
// night later with a second room waits for its balance holding the added rooms from its
// allocation; lapsed, they go back to it, and settled, the night it leaves goes back to it.
func TestAPaidChannelBookingsPendingAmendmentGivesItsRoomsBackToItsAllocation(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	splitStock(t, d)
	ctx := context.Background()
	b, err := d.Store.Reserve(ctx, channelHold("guest", "A", "agent-a", soonStay, 1))
	require.NoError(t, err)
	b, err = d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_guest", Amount: b.Price.Total, Currency: "EUR"})
	require.NoError(t, err)
	change := domain.Change{CheckIn: soon.AddDays(1), Quantity: 2}

	a, _ := amend(t, d, amendParams(b, "k1", change))
	require.Equal(t, domain.AmendmentBalanceDue, a.Status, a.Reason)
	used, _ := channelUsed(t, d)
	assert.Equal(t, []int{1, 2, 2}, used, "the added rooms come from the allocation")
	_, _, err = d.Store.LapseAmendment(ctx, b.ID, a.ID, "not paid in time")
	require.NoError(t, err)
	used, _ = channelUsed(t, d)
	assert.Equal(t, []int{1, 1, 1}, used, "lapsed: the added rooms went back to the allocation")
	d.AssertInventoryMatchesBookings(t)

	a, _ = amend(t, d, amendParams(b, "k2", change))
	require.Equal(t, domain.AmendmentBalanceDue, a.Status, a.Reason)
	_, got, err := d.Store.SettleAmendment(ctx, b.ID, a.ID, domain.Payment{ID: "pi_balance", Amount: a.Difference, Currency: "EUR"})
	require.NoError(t, err)
	assert.Equal(t, 2, got.Quantity)
	used, _ = channelUsed(t, d)
	assert.Equal(t, []int{0, 2, 2}, used, "settled: the night left went back to the allocation")
	assert.Equal(t, []int{0, 2, 2}, d.Reserved(t, "h1", "double", soonStay))
	d.AssertInventoryMatchesBookings(t)
}

func TestAnAmendmentQuoteTakesAndStoresNothingAndAKeyIsAnsweredOnce(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", nights(dec10, 2), 1)
	longer := domain.Change{CheckOut: dec13}

	quote := amendParams(b, "k1", longer)
	quote.DryRun = true
	a, _ := amend(t, d, quote)
	assert.Equal(t, domain.AmendmentQuoted, a.Status)
	assert.Equal(t, int64(30000), a.PriceAfter.Total)
	assert.Equal(t, int64(10000), a.Difference)
	assert.Zero(t, a.ID, "a quote is not stored")
	assert.Equal(t, []int{1, 1, 0}, d.Reserved(t, "h1", "double", stay3), "a quote takes nothing")
	assert.Equal(t, b, booking(t, d, b.ID))
	assert.Empty(t, amendments(t, d, b.ID))

	// The same key and change, asked twice at once: one amendment, the night taken once.
	var got [2]domain.Amendment
	var errs [2]error
	testsuite.Race(2, func(i int) { got[i], _, errs[i] = d.Store.Amend(ctx, amendParams(b, "k1", longer)) })
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	assert.Equal(t, domain.AmendmentApplied, got[0].Status)
	assert.Equal(t, got[0].ID, got[1].ID)
	assert.Equal(t, got[0].Status, got[1].Status)
	again, after := amend(t, d, amendParams(b, "k1", longer))
	assert.Equal(t, got[0].ID, again.ID, "a retry returns the stored amendment")
	assert.Equal(t, domain.AmendmentApplied, again.Status)
	assert.Equal(t, stay3, after.Stay)
	assert.Equal(t, []int{1, 1, 1}, d.Reserved(t, "h1", "double", stay3))
	assert.Len(t, amendments(t, d, b.ID), 1)

	_, _, err := d.Store.Amend(ctx, amendParams(b, "k1", domain.Change{Quantity: 2}))
	assert.ErrorIs(t, err, domain.ErrIdempotencyMismatch)
	assert.Equal(t, []int{1, 1, 1}, d.Reserved(t, "h1", "double", stay3))
	assert.Len(t, amendments(t, d, b.ID), 1)
	d.AssertInventoryMatchesBookings(t)
}

// TestAPaidBookingAmendedToCostMoreWaitsForItsBalance: the stay moves a night later and grows by one
// (dec10-12 to dec11-14). Until the balance is paid the booking keeps its stay and holds the
// added nights beside it; settling gives back the night it no longer needs.
func TestAPaidBookingAmendedToCostMoreWaitsForItsBalance(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec14, 5)
	b := paidBooking(t, d, "g1", nights(dec10, 2), 1, 0)
	four := nights(dec10, 4)

	a, got := amend(t, d, amendParams(b, "k1", domain.Change{CheckIn: dec11, CheckOut: dec14}))
	require.Equal(t, domain.AmendmentBalanceDue, a.Status, a.Reason)
	assert.Equal(t, int64(10000), a.Difference)
	assert.Equal(t, int64(30000), a.PriceAfter.Total)
	assert.False(t, a.DueBy.IsZero())
	assert.Equal(t, int64(10000), got.BalanceDue, "the booking shows the balance due")
	assert.Equal(t, a.DueBy, got.BalanceDueBy)
	got.BalanceDue, got.BalanceDueBy = 0, time.Time{}
	assert.Equal(t, b, got, "the booking is unchanged until its balance is paid")
	assert.Equal(t, []int{1, 1, 1, 1}, d.Reserved(t, "h1", "double", four), "the added nights are held beside its own")
	pending, err := d.Store.PendingAmendment(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, a.ID, pending.ID)
	findings, err := d.Store.InventoryMismatches(ctx)
	require.NoError(t, err)
	assert.Empty(t, findings, "the checker counts the units a pending amendment holds")
	d.AssertInventoryMatchesBookings(t)

	_, _, err = d.Store.Amend(ctx, amendParams(b, "k2", domain.Change{Quantity: 2}))
	assert.ErrorIs(t, err, db.ErrBalanceDue)
	_, _, err = d.Store.SettleAmendment(ctx, b.ID, a.ID, domain.Payment{ID: "pi_short", Amount: 9999, Currency: "EUR"})
	assert.ErrorIs(t, err, domain.ErrConflict, "not its balance")
	assert.Equal(t, []int{1, 1, 1, 1}, d.Reserved(t, "h1", "double", four))

	pay := domain.Payment{ID: "pi_balance", Amount: 10000, Currency: "EUR"}
	settled, got, err := d.Store.SettleAmendment(ctx, b.ID, a.ID, pay)
	require.NoError(t, err)
	assert.Equal(t, domain.AmendmentApplied, settled.Status)
	assert.Equal(t, "pi_balance", settled.BalancePaymentID)
	assert.Equal(t, nights(dec11, 3), got.Stay)
	assert.Equal(t, int64(30000), got.Paid)
	assert.Equal(t, a.PriceAfter.Total, got.Price.Total)
	assert.Equal(t, a.PriceAfter.Nights, got.Price.Nights)
	assert.Equal(t, []int{0, 1, 1, 1}, d.Reserved(t, "h1", "double", four), "the night no longer needed went back")
	_, again, err := d.Store.SettleAmendment(ctx, b.ID, a.ID, pay)
	require.NoError(t, err, "settling again with the same payment is a retry")
	assert.Equal(t, int64(30000), again.Paid)
	assert.Equal(t, []int{0, 1, 1, 1}, d.Reserved(t, "h1", "double", four))
	d.AssertInventoryMatchesBookings(t)
}

func TestALapsedOrEndedAmendmentGivesBackExactlyTheUnitsItHeld(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec14, 5)
	lapsing := paidBooking(t, d, "g1", nights(dec10, 2), 1, 0)
	ending := paidBooking(t, d, "g2", nights(dec11, 2), 2, 0)
	four := nights(dec10, 4)

	a, _ := amend(t, d, amendParams(lapsing, "k1", domain.Change{CheckOut: dec13, Quantity: 2}))
	require.Equal(t, domain.AmendmentBalanceDue, a.Status, a.Reason)
	assert.Equal(t, []int{2, 4, 4, 0}, d.Reserved(t, "h1", "double", four))
	lapsed, got, err := d.Store.LapseAmendment(ctx, lapsing.ID, a.ID, "not paid in time")
	require.NoError(t, err)
	assert.Equal(t, domain.AmendmentLapsed, lapsed.Status)
	assert.Equal(t, "not paid in time", lapsed.Reason)
	assert.Equal(t, lapsing, got, "the booking is exactly as it was")
	assert.Equal(t, []int{1, 3, 2, 0}, d.Reserved(t, "h1", "double", four))
	_, _, err = d.Store.LapseAmendment(ctx, lapsing.ID, a.ID, "again")
	require.NoError(t, err, "a decided amendment is left as it is")
	_, _, err = d.Store.SettleAmendment(ctx, lapsing.ID, a.ID, domain.Payment{ID: "pi_late", Amount: a.Difference, Currency: "EUR"})
	assert.ErrorIs(t, err, domain.ErrConflict, "a lapsed balance cannot be paid")
	assert.Equal(t, []int{1, 3, 2, 0}, d.Reserved(t, "h1", "double", four))
	d.AssertInventoryMatchesBookings(t)

	// A booking refunded while its amendment waits gives back its own units and the pending ones.
	a, _ = amend(t, d, amendParams(ending, "k1", domain.Change{CheckOut: dec14}))
	require.Equal(t, domain.AmendmentBalanceDue, a.Status, a.Reason)
	assert.Equal(t, []int{1, 3, 2, 2}, d.Reserved(t, "h1", "double", four))
	refunding, err := d.Store.StartRefund(ctx, ending.ID, nil, func(b domain.Booking) (int64, error) { return b.Paid, nil })
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRefunding, refunding.Status)
	assert.Equal(t, []int{1, 1, 0, 0}, d.Reserved(t, "h1", "double", four), "only the other booking's night is left")
	stored := amendments(t, d, ending.ID)
	require.Len(t, stored, 1)
	assert.Equal(t, domain.AmendmentLapsed, stored[0].Status)
	_, _, err = d.Store.SettleAmendment(ctx, ending.ID, a.ID, domain.Payment{ID: "pi_late2", Amount: a.Difference, Currency: "EUR"})
	assert.ErrorIs(t, err, domain.ErrConflict)
	d.AssertInventoryMatchesBookings(t)
}

func TestAPaidBookingAmendedToCostLessIsRefundedByItsPolicy(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := paidBooking(t, d, "g1", stay3, 1, 0)
	deposit := paidBooking(t, d, "g2", stay3, 1, 15000) // a deposit: half the price

	p := amendParams(b, "k1", domain.Change{CheckOut: dec12})
	var saw domain.Booking
	var fell int64
	p.RefundOf = func(b domain.Booking, fallsBy int64) int64 { saw, fell = b, fallsBy; return fallsBy / 2 }
	a, got := amend(t, d, p)
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.Equal(t, stay3, saw.Stay, "the policy judges the booking before the change")
	assert.Equal(t, int64(10000), fell)
	assert.Equal(t, int64(-10000), a.Difference)
	assert.Equal(t, int64(5000), a.Refund)
	assert.Equal(t, int64(25000), got.Paid)
	assert.Equal(t, int64(20000), got.Price.Total)
	assert.Equal(t, nights(dec10, 2), got.Stay)
	assert.Equal(t, []int{2, 2, 1}, d.Reserved(t, "h1", "double", stay3), "the last night went back")

	a, got = amend(t, d, amendParams(deposit, "k1", domain.Change{CheckOut: dec11}))
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.Equal(t, int64(5000), a.Refund, "never more than was paid beyond the new price (10000)")
	assert.Equal(t, int64(10000), got.Paid)
	assert.Equal(t, []int{2, 1, 0}, d.Reserved(t, "h1", "double", stay3))
	d.AssertInventoryMatchesBookings(t)
}

// TestAnAmendmentOfABegunStayMovesOnlyItsCheckOut: a stay confirmed without a provider payment (paid at the
// desk) that began today changes at once, whatever it costs, but only its check-out may move,
// to tomorrow or later. An ended booking is not amendable.
func TestAnAmendmentOfABegunStayMovesOnlyItsCheckOut(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	today := domain.DateOf(time.Now(), time.UTC) // the hotel's time zone is UTC
	d.SetInventory(t, "h1", "double", today, today.AddDays(4), 5)
	b := hold(t, d, "g1", nights(today, 3), 1)
	b, err := d.Store.Confirm(ctx, b.ID, nil)
	require.NoError(t, err)

	_, _, err = d.Store.Amend(ctx, amendParams(b, "later", domain.Change{CheckIn: today.AddDays(1)}))
	assert.ErrorIs(t, err, db.ErrStayStarted)
	_, _, err = d.Store.Amend(ctx, amendParams(b, "more", domain.Change{Quantity: 2}))
	assert.ErrorIs(t, err, db.ErrStayStarted)
	_, _, err = d.Store.Amend(ctx, amendParams(b, "today", domain.Change{CheckOut: today}))
	assert.ErrorIs(t, err, db.ErrStayStarted)
	assert.Equal(t, []int{1, 1, 1, 0}, d.Reserved(t, "h1", "double", nights(today, 4)))

	a, got := amend(t, d, amendParams(b, "longer", domain.Change{CheckOut: today.AddDays(4)}))
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.Equal(t, int64(40000), got.Price.Total, "no payment is waited for")
	assert.Zero(t, got.Paid)
	a, _ = amend(t, d, amendParams(b, "shorter", domain.Change{CheckOut: today.AddDays(1)}))
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.Zero(t, a.Refund, "nothing was paid")
	assert.Equal(t, []int{1, 0, 0, 0}, d.Reserved(t, "h1", "double", nights(today, 4)))

	_, err = d.Store.Release(ctx, b.ID, domain.StatusCancelled)
	require.NoError(t, err)
	_, _, err = d.Store.Amend(ctx, amendParams(b, "after", domain.Change{CheckOut: today.AddDays(2)}))
	assert.ErrorIs(t, err, db.ErrNotAmendable)
	assert.Equal(t, []int{0, 0, 0, 0}, d.Reserved(t, "h1", "double", nights(today, 4)))
	d.AssertInventoryMatchesBookings(t)
}

// TestAHoldTheDeskTookADepositForIsNotAmended: the deposit was for the hold's price; an
// amendment that changed it could leave the hold owing less than was taken.
func TestAHoldTheDeskTookADepositForIsNotAmended(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", stay3, 1)
	_, err := d.Store.TakeDeskDepositKeepingTheHold(context.Background(), db.DeskPayment{BookingID: b.ID, Key: "deposit", Amount: 25000,
		Currency: "EUR", Method: domain.MethodCash, TakenBy: "desk-1"})
	require.NoError(t, err)
	_, _, err = d.Store.Amend(context.Background(), amendParams(b, "k1", domain.Change{CheckOut: dec11}))
	assert.ErrorIs(t, err, db.ErrNotAmendable)
	assert.Equal(t, []int{1, 1, 1}, d.Reserved(t, "h1", "double", stay3), "nothing changed")
}

// TestNightsAnAmendmentKeepsKeepTheirSnapshotPriceToTheCent: two rooms at 100.50 with 33% off a
// stay of three nights or more cost 134.67 a night (not a multiple of two rooms). Extending the
// stay by a night keeps the three nights it had: each must keep its 134.67, not be re-priced as
// two rooms at 67.33 (stayPrice divides a night's amount by the quantity and multiplies back).
func TestNightsAnAmendmentKeepsKeepTheirSnapshotPriceToTheCent(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	require.NoError(t, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: "h1", RoomTypeID: "double", From: dec10,
		To: dec14, TotalRooms: 5, Rate: &domain.Money{Amount: 10050, Currency: "EUR"}}))
	createRule(t, d, domain.SaleRule{Kind: domain.RuleLengthOfStay, HotelID: "h1", MinLOS: intp(1),
		DiscountFrom: intp(3), DiscountPercent: intp(33)})
	b := hold(t, d, "g1", stay3, 2)
	require.Equal(t, int64(13467), b.Price.Nights[0].Amount, "20100 less 33%% (6633)")

	a, got := amend(t, d, amendParams(b, "k1", domain.Change{CheckOut: dec14}))

	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	for i, n := range b.Price.Nights {
		assert.Equal(t, n, got.Price.Nights[i], "a night kept keeps its snapshot price")
	}
	assert.Equal(t, b.Price.Total+13467, got.Price.Total, "the added night is priced as the others were")
}
