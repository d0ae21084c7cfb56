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

// runOut makes booking b's hold expired by the database's clock, as when the rest of its price
// reaches the database just after the hold ran out.
func runOut(t *testing.T, d *testsuite.Database, b domain.Booking) domain.Payment {
	t.Helper()
	_, err := d.Pool.Exec(context.Background(), `UPDATE bookings SET expires_at = now() - interval '1 second' WHERE id = $1`, b.ID)
	require.NoError(t, err)
	_, err = d.Store.Confirm(context.Background(), b.ID, &domain.Payment{ID: "pi_rest", Amount: b.Price.Total - b.Paid, Currency: "EUR"})
	require.ErrorIs(t, err, domain.ErrConflict, "the confirmation finds the hold expired")
	recordPayment(t, d, b.ID, "pi_rest", b.Price.Total-b.Paid)
	return domain.Payment{ID: "pi_rest", Amount: b.Price.Total - b.Paid, Currency: "EUR"}
}

// TestTheLateRestOfADepositHoldTakesItsNightsAgain: the desk took 50.00 of a hold; the rest
// arrives after the hold ran out. The hold is still HOLD with its units (a paid booking is
// never just released): Retake confirms it keeping both payments (paid = price), its units
// counted once, and the ledger keeps both. Asked again (an activity retry), it changes nothing.
func TestTheLateRestOfADepositHoldTakesItsNightsAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)
	held := depositHeld(t, d, "g1")
	rest := runOut(t, d, held)

	b, err := d.Store.Retake(ctx, held.ID, rest)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusConfirmed, b.Status)
	assert.Equal(t, held.Price.Total, b.Paid, "the deposit and the rest")
	assert.Equal(t, "pi_rest", b.PaymentID)
	assert.Equal(t, []int{1, 1, 1}, d.Reserved(t, "h1", "double", stay3), "its units, once")

	again, err := d.Store.Retake(ctx, held.ID, rest)
	require.NoError(t, err)
	assert.Equal(t, b.Paid, again.Paid)
	m, err := d.Store.LedgerMoney(ctx, held.ID)
	require.NoError(t, err)
	assert.Equal(t, db.LedgerMoney{Paid: held.Price.Total, Kept: held.Price.Total}, m)
	d.AssertInventoryMatchesBookings(t)
	d.AssertLedgerAgrees(t)
}

// TestTheLateRestOfADepositHoldIsJudgedByTheSaleRulesInForce: a stop-sell was set on the
// deposit hold's nights while it was held; its rest arrives late. As for any late payment, the
// nights may not be sold again: nothing changes (the hold keeps its deposit and units, for the
// workflow to give back). A live hold, or the wrong amount, is not Retake's to confirm.
func TestTheLateRestOfADepositHoldIsJudgedByTheSaleRulesInForce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 2)
	live := depositHeld(t, d, "g0")
	_, err := d.Store.Retake(ctx, live.ID, domain.Payment{ID: "pi_live", Amount: live.Price.Total - live.Paid, Currency: "EUR"})
	require.ErrorIs(t, err, domain.ErrConflict, "a live hold is confirmed by Confirm")
	held := depositHeld(t, d, "g1")
	rest := runOut(t, d, held)
	short := rest
	short.Amount--
	_, err = d.Store.Retake(ctx, held.ID, short)
	require.ErrorIs(t, err, domain.ErrConflict, "a payment that is not the rest does not confirm")

	createRule(t, d, domain.SaleRule{Kind: domain.RuleStopSell, HotelID: "h1", From: dec10.AddDays(1), To: dec10.AddDays(2),
		Reason: "maintenance"})
	_, err = d.Store.Retake(ctx, held.ID, rest)
	require.ErrorIs(t, err, domain.ErrUnavailable)
	b, err := d.Store.GetBooking(ctx, held.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusHold, b.Status, "nothing changed")
	assert.Equal(t, held.Paid, b.Paid)
	assert.Equal(t, []int{2, 2, 2}, d.Reserved(t, "h1", "double", stay3), "both holds keep their units")
	d.AssertInventoryMatchesBookings(t)
	d.AssertLedgerAgrees(t)
}

// TestTheLateRestOfAVenueOrdersDepositTakesItsSlotsAgain: a venue order of a court and two rackets
// (its own line and a further one) with a desk deposit, whose rest arrives late: both slots are given
// back and taken again, once each.
func TestTheLateRestOfAVenueOrdersDepositTakesItsSlotsAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := openVenue(t)
	held, err := d.Store.ReserveOrder(ctx, order("guest", "k1", slotLine("court-1", 9, 1), slotLine("rackets", 9, 2)))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, held.Status)
	held, err = d.Store.TakeDeskDepositKeepingTheHold(ctx, db.DeskPayment{BookingID: held.ID, Key: "deposit", Amount: 500,
		Currency: "EUR", Method: domain.MethodCash, TakenBy: "desk-1"})
	require.NoError(t, err)
	rest := runOut(t, d, held)

	b, err := d.Store.Retake(ctx, held.ID, rest)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusConfirmed, b.Status)
	assert.Equal(t, held.Price.Total, b.Paid)
	assert.Equal(t, []int{1, 2}, []int{reserved(t, d, "court-1", 9), reserved(t, d, "rackets", 9)}, "each slot, once")
	d.AssertInventoryMatchesBookings(t)
	d.AssertLedgerAgrees(t)
}
