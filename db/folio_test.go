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

// paidAndCheckedIn is a stay3 booking of customer in hotel h1 paid whole by card and checked in.
func paidAndCheckedIn(t *testing.T, d *testsuite.Database, customer string) domain.Booking {
	t.Helper()
	ctx := context.Background()
	b, err := d.Store.Reserve(ctx, holdParams(customer, "k", stay3, 1))
	require.NoError(t, err)
	recordPayment(t, d, b.ID, "pi_"+customer, b.Price.Total)
	_, err = d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_" + customer, Amount: b.Price.Total, Currency: "EUR"})
	require.NoError(t, err)
	b, err = d.Store.CheckIn(ctx, b.ID)
	require.NoError(t, err)
	return b
}

// ledgerSums sums booking id's ledger entries by kind.
func ledgerSums(t *testing.T, d *testsuite.Database, id string) map[string]int64 {
	t.Helper()
	entries, err := d.Store.BookingLedger(context.Background(), id)
	require.NoError(t, err)
	sum := map[string]int64{}
	for _, e := range entries {
		sum[e.Kind] += e.Amount
	}
	return sum
}

// TestTheFolioChargesExtrasThatTheDeskPays: a paid stay of 300.00, checked in, is charged the
// minibar (2 x 12.50) and the city tax (3 x 2.50). They are due (32.50), in the ledger as
// promises, and a desk payment pays them, never more. The same charge sent again is charged once;
// another under its key is refused. A paid charge is voided only once its money went back.
func TestTheFolioChargesExtrasThatTheDeskPays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)
	b := paidAndCheckedIn(t, d, "c1")
	require.Equal(t, int64(30000), b.Price.Total)

	minibar := domain.Charge{Kind: domain.ChargeMinibar, Quantity: 2, UnitAmount: 1250, Currency: "EUR"}
	mb, again, err := d.Store.AddCharge(ctx, b.ID, "mb", "desk-1", minibar)
	require.NoError(t, err)
	assert.False(t, again)
	assert.Equal(t, int64(2500), mb.Amount)
	_, _, err = d.Store.AddCharge(ctx, b.ID, "ct", "desk-1", domain.Charge{Kind: domain.ChargeCityTax, Quantity: 3,
		UnitAmount: 250, Currency: "EUR"})
	require.NoError(t, err)

	m, err := d.Store.BookingMoneySummary(ctx, b)
	require.NoError(t, err)
	assert.Equal(t, int64(3250), m.Extras)
	assert.Equal(t, int64(3250), m.Due, "the extras are due on a paid stay")

	sent, again, err := d.Store.AddCharge(ctx, b.ID, "mb", "desk-1", minibar)
	require.NoError(t, err)
	assert.True(t, again)
	assert.Equal(t, mb.ID, sent.ID, "the same charge again is the first")
	other := minibar
	other.Quantity = 3
	_, _, err = d.Store.AddCharge(ctx, b.ID, "mb", "desk-1", other)
	require.ErrorIs(t, err, domain.ErrIdempotencyMismatch)
	assert.Equal(t, 2, ledgerKinds(t, d, b.ID)["charge_added"])
	assert.Equal(t, int64(3250), ledgerSums(t, d, b.ID)["charge_added"])

	_, err = d.Store.TakeDeskPayment(ctx, db.DeskPayment{BookingID: b.ID, Key: "pay-1", Amount: 3251, Currency: "EUR",
		Method: domain.MethodCash, TakenBy: "desk-1"})
	require.ErrorIs(t, err, domain.ErrConflict, "a desk payment is never more than the price and extras due")
	b, err = d.Store.TakeDeskPayment(ctx, db.DeskPayment{BookingID: b.ID, Key: "pay-1", Amount: 3250, Currency: "EUR",
		Method: domain.MethodCash, TakenBy: "desk-1"})
	require.NoError(t, err)
	m, err = d.Store.BookingMoneySummary(ctx, b)
	require.NoError(t, err)
	assert.Equal(t, db.MoneySummary{Currency: "EUR", Paid: 33250, Extras: 3250}, m)

	_, _, err = d.Store.VoidCharge(ctx, b.ID, mb.ID, "charged to the wrong room", "desk-1")
	require.ErrorIs(t, err, domain.ErrConflict, "a paid charge is refunded before it is voided")
	_, b, err = d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, "gw-mb"), BookingID: b.ID,
		Kind: db.RefundGoodwill, Amount: 2500, Currency: "EUR", Reason: "minibar was not ours", Actor: "desk-1"})
	require.NoError(t, err)
	voided, again, err := d.Store.VoidCharge(ctx, b.ID, mb.ID, "charged to the wrong room", "desk-1")
	require.NoError(t, err)
	assert.False(t, again)
	require.NotNil(t, voided.VoidedAt)
	assert.Equal(t, "desk-1", voided.VoidedBy)
	_, again, err = d.Store.VoidCharge(ctx, b.ID, mb.ID, "again", "desk-2")
	require.NoError(t, err)
	assert.True(t, again, "voiding a voided charge changes nothing")

	m, err = d.Store.BookingMoneySummary(ctx, b)
	require.NoError(t, err)
	assert.Equal(t, int64(750), m.Extras)
	assert.Zero(t, m.Due)
	assert.Equal(t, 1, ledgerKinds(t, d, b.ID)["charge_voided"])
	assert.Equal(t, int64(2500), ledgerSums(t, d, b.ID)["charge_voided"])
	charges, err := d.Store.FolioCharges(ctx, b.ID)
	require.NoError(t, err)
	require.Len(t, charges, 2)
	assert.Equal(t, []string{domain.ChargeMinibar, domain.ChargeCityTax}, []string{charges[0].Kind, charges[1].Kind})
	_, _, err = d.Store.VoidCharge(ctx, b.ID, 999999, "no such", "desk-1")
	require.ErrorIs(t, err, domain.ErrNotFound)
	d.AssertLedgerAgrees(t)
}

// TestAChargeIsRefusedWhereTheDeskCannotBeIt: a hold (the guest does not have it yet), another
// currency, and charges that are not charges are refused, and nothing is written.
func TestAChargeIsRefusedWhereTheDeskCannotBeIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 2)
	held, err := d.Store.Reserve(ctx, holdParams("c-hold", "k", stay3, 1))
	require.NoError(t, err)
	tax := domain.Charge{Kind: domain.ChargeCityTax, Quantity: 1, UnitAmount: 250, Currency: "EUR"}
	_, _, err = d.Store.AddCharge(ctx, held.ID, "t1", "desk-1", tax)
	require.ErrorIs(t, err, domain.ErrConflict, "a hold is not charged extras")

	b := paidAndCheckedIn(t, d, "c-in")
	usd := tax
	usd.Currency = "USD"
	_, _, err = d.Store.AddCharge(ctx, b.ID, "t2", "desk-1", usd)
	require.ErrorIs(t, err, domain.ErrInvalid)
	for _, bad := range []domain.Charge{
		{Kind: "spa", Quantity: 1, UnitAmount: 100, Currency: "EUR"},
		{Kind: domain.ChargeOther, Quantity: 1, UnitAmount: 100, Currency: "EUR"}, // says not what it was
		{Kind: domain.ChargeMinibar, Quantity: 0, UnitAmount: 100, Currency: "EUR"},
		{Kind: domain.ChargeMinibar, Quantity: 1, UnitAmount: 0, Currency: "EUR"},
		{Kind: domain.ChargeMinibar, Quantity: 999, UnitAmount: 1_000_000, Currency: "EUR"},
	} {
		_, _, err = d.Store.AddCharge(ctx, b.ID, "t3", "desk-1", bad)
		require.ErrorIs(t, err, domain.ErrInvalid, "%+v", bad)
	}
	for _, id := range []string{held.ID, b.ID} {
		charges, err := d.Store.FolioCharges(ctx, id)
		require.NoError(t, err)
		assert.Empty(t, charges)
	}
	assert.Zero(t, ledgerKinds(t, d, b.ID)["charge_added"])
}

// TestAnEarlyDepartureNeverGivesBackWhatPaidTheExtras: a stay of three nights at 100.00 whose
// policy gives back the nights not stayed. The guest paid the first night at the desk and a
// 20.00 minibar charge, and leaves after the first night: nothing goes back (the 20.00 paid the
// minibar, not the nights). A stay paid whole with the minibar unpaid gets the two nights back
// less the minibar, and owes nothing after. Asked again (the answer lost), each departure
// answers the refund it decided.
func TestAnEarlyDepartureNeverGivesBackWhatPaidTheExtras(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 2)
	require.NoError(t, d.Store.SetCancellationPolicy(ctx, "h1", domain.CancellationPolicy{EarlyDeparture: domain.EarlyDepartureAll}))
	minibar := domain.Charge{Kind: domain.ChargeMinibar, Quantity: 1, UnitAmount: 2000, Currency: "EUR"}

	held, err := d.Store.Reserve(ctx, holdParams("c-part", "k", stay3, 1))
	require.NoError(t, err)
	part := deskDeposit(t, d, held, 10000)
	_, err = d.Store.CheckIn(ctx, part.ID)
	require.NoError(t, err)
	_, _, err = d.Store.AddCharge(ctx, part.ID, "mb", "desk-1", minibar)
	require.NoError(t, err)
	_, err = d.Store.TakeDeskPayment(ctx, db.DeskPayment{BookingID: part.ID, Key: "mb-pay", Amount: 2000, Currency: "EUR",
		Method: domain.MethodCash, TakenBy: "desk-1"})
	require.NoError(t, err)

	whole := paidAndCheckedIn(t, d, "c-whole")
	_, _, err = d.Store.AddCharge(ctx, whole.ID, "mb", "desk-1", minibar)
	require.NoError(t, err)

	firstNight := dec10.Time().Add(20 * time.Hour)
	for _, c := range []struct {
		id     string
		refund int64
	}{{part.ID, 0}, {whole.ID, 20000 - 2000}} {
		left, err := d.Store.DepartEarly(ctx, c.id, firstNight)
		require.NoError(t, err)
		assert.Equal(t, c.refund, left.Refund, c.id)
		again, err := d.Store.DepartEarly(ctx, c.id, firstNight.Add(time.Hour))
		require.NoError(t, err)
		assert.Equal(t, c.refund, again.Refund, "%s: asked again, the refund it decided", c.id)
		if c.refund > 0 {
			_, _, err = d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(c.id, db.EarlyDepartureKey(left.Booking.CheckOut)),
				BookingID: c.id, Kind: db.RefundEarlyDeparture, Amount: c.refund, Currency: "EUR", Reason: "left early", Actor: "desk"})
			require.NoError(t, err)
		}
		b, err := d.Store.GetBooking(ctx, c.id)
		require.NoError(t, err)
		m, err := d.Store.BookingMoneySummary(ctx, b)
		require.NoError(t, err)
		assert.Zero(t, m.Due, "%s: the night stayed and the minibar are paid (%+v)", c.id, m)
		assert.Equal(t, int64(12000), m.Paid-m.Refunded-m.Refunding, "%s: kept is the night and the minibar", c.id)
	}
	d.AssertLedgerAgrees(t)
	d.AssertInventoryMatchesBookings(t)
}
