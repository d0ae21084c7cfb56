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

// A deposit plan's money on the store (issue 35): 30% at booking confirms the hold, the rest is
// owed by 7 days before arrival. Every booking here is three nights of h1/double at BAR -10%:
// 27000, its deposit 8100.

// depositPlan is a plan derived from BAR at 10% off, paid 30% at booking and the rest 7 days
// before arrival.
func depositPlan(t *testing.T, d *testsuite.Database) {
	t.Helper()
	plan := flexible("DEP", domain.DefaultRatePlan)
	days := 7
	plan.Payment = domain.PaymentRule{Kind: domain.PayDeposit, DepositPercent: 30, BalanceDueDays: &days}
	_, err := d.Store.PutRatePlan(context.Background(), plan)
	require.NoError(t, err)
}

// depositHold holds stay for customer under the deposit plan.
func depositHold(t *testing.T, d *testsuite.Database, customer string, stay domain.Stay) domain.Booking {
	t.Helper()
	p := holdParams(customer, "k", stay, 1)
	p.Request.RatePlan = "DEP"
	b, err := d.Store.Reserve(context.Background(), p)
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, b.Status, b.Refusal)
	return b
}

// captured records provider payment id of amount for booking b as succeeded.
func captured(t *testing.T, d *testsuite.Database, b domain.Booking, id string, amount int64) domain.Payment {
	t.Helper()
	_, err := d.Store.RecordPaymentEvent(context.Background(), domain.PaymentEvent{EventID: "evt_" + id,
		Type: "payment_intent.succeeded", BookingID: b.ID, PaymentID: id, Succeeded: true, Amount: amount, Currency: "EUR"}, []byte(`{}`))
	require.NoError(t, err)
	return domain.Payment{ID: id, Amount: amount, Currency: "EUR"}
}

func TestADepositConfirmsTheHoldAndTheBalanceIsKeptOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 3)
	depositPlan(t, d)
	b := depositHold(t, d, "c1", stay3)
	require.Equal(t, int64(27000), b.Price.Total)
	assert.Equal(t, int64(8100), b.Deposit, "30% of 27000")
	assert.Equal(t, dec10.AddDays(-7).In(time.UTC), b.BalanceDueAt, "7 days before the check-in at the hotel (UTC)")

	_, err := d.Store.Confirm(ctx, b.ID, ptr(captured(t, d, b, "pi_short", 5000)))
	require.ErrorIs(t, err, domain.ErrConflict, "less than the deposit confirms nothing")
	b, err = d.Store.Confirm(ctx, b.ID, ptr(captured(t, d, b, "pi_deposit", 8100)))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusConfirmed, b.Status)
	assert.Equal(t, int64(8100), b.Paid)
	assert.Equal(t, int64(18900), b.PlanBalance())
	assert.Zero(t, b.Deposit, "a confirmed booking asks no deposit")
	again, err := d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_deposit", Amount: 8100, Currency: "EUR"})
	require.NoError(t, err, "the same deposit again changes nothing")
	assert.Equal(t, int64(8100), again.Paid)

	_, err = d.Store.PayPlanBalance(ctx, b.ID, captured(t, d, b, "pi_part", 18000))
	require.ErrorIs(t, err, domain.ErrConflict, "not what it owes")
	bal := captured(t, d, b, "pi_balance", 18900)
	b, err = d.Store.PayPlanBalance(ctx, b.ID, bal)
	require.NoError(t, err)
	assert.Equal(t, int64(27000), b.Paid)
	assert.Zero(t, b.PlanBalance())
	b, err = d.Store.PayPlanBalance(ctx, b.ID, bal)
	require.NoError(t, err, "the same balance again changes nothing")
	assert.Equal(t, int64(27000), b.Paid)
	_, err = d.Store.PayPlanBalance(ctx, b.ID, captured(t, d, b, "pi_twice", 18900))
	require.ErrorIs(t, err, domain.ErrConflict, "a second balance is not kept")

	money, err := d.Store.LedgerMoney(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, int64(27000), money.Kept, "the deposit and the balance are kept; the others are not")
	acted, err := d.Store.ActedOnPaymentIDs(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"pi_balance", "pi_deposit"}, acted)
	ok, err := d.Store.PaymentAccountedFor(ctx, "pi_balance")
	require.NoError(t, err)
	assert.True(t, ok)
	found, err := d.Store.MoneyMismatches(ctx)
	require.NoError(t, err)
	assert.Empty(t, found)
	d.AssertLedgerAgrees(t)
}

func TestABookingMadeAfterItsBalanceDateIsPaidInFull(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	checkIn := domain.DateOf(time.Now().UTC(), time.UTC).AddDays(3)
	stay := domain.Stay{CheckIn: checkIn, CheckOut: checkIn.AddDays(1)}
	d.SetInventory(t, "h1", "double", stay.CheckIn, stay.CheckOut, 3)
	depositPlan(t, d)
	b := depositHold(t, d, "c1", stay)
	assert.True(t, b.BalanceDueAt.IsZero(), "its balance date (4 days ago) had passed")
	assert.Zero(t, b.Deposit)
	_, err := d.Store.Confirm(ctx, b.ID, ptr(captured(t, d, b, "pi_deposit", b.Price.Total*30/100)))
	require.ErrorIs(t, err, domain.ErrConflict, "a deposit does not confirm it")
	b, err = d.Store.Confirm(ctx, b.ID, ptr(captured(t, d, b, "pi_full", b.Price.Total)))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusConfirmed, b.Status)
}

func TestADeskDepositConfirmsADepositHoldAndAStaffConfirmationOwesNoBalance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 3)
	depositPlan(t, d)
	b := depositHold(t, d, "c1", stay3)
	due := b.BalanceDueAt
	b = takeDesk(t, d, deskPayment(b.ID, "cash-1", 5000))
	assert.Equal(t, domain.StatusConfirmed, b.Status, "any deposit the desk takes keeps the booking (issue 39)")
	assert.Equal(t, due, b.BalanceDueAt, "the rest is due by the plan's date")
	assert.Equal(t, int64(22000), b.PlanBalance())
	b = takeDesk(t, d, deskPayment(b.ID, "cash-2", 3100))
	assert.Equal(t, int64(18900), b.PlanBalance())
	b = takeDesk(t, d, deskPayment(b.ID, "cash-3", 18900))
	assert.Zero(t, b.PlanBalance(), "the desk took the rest")

	// Before issue 39 the hold stayed a hold until the deposit was paid.
	legacy := depositHold(t, d, "c0", stay3)
	legacy = heldDeposit(t, d, deskPayment(legacy.ID, "cash-1", 5000))
	assert.Equal(t, domain.StatusHold, legacy.Status, "5000 is less than the deposit")
	assert.Equal(t, int64(3100), legacy.Deposit, "the rest of the deposit")
	legacy = takeDesk(t, d, deskPayment(legacy.ID, "cash-2", 3100))
	assert.Equal(t, domain.StatusConfirmed, legacy.Status, "the deposit is paid")
	assert.Equal(t, int64(18900), legacy.PlanBalance())

	other := depositHold(t, d, "c2", stay3)
	other, err := d.Store.Confirm(ctx, other.ID, nil)
	require.NoError(t, err)
	assert.True(t, other.BalanceDueAt.IsZero(), "confirmed by a person without money: on the desk's account, nothing lapses")
	assert.Zero(t, other.PlanBalance())
	d.AssertLedgerAgrees(t)
}

func TestABookingOwingItsBalanceIsNotAmended(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13.AddDays(1), 3)
	depositPlan(t, d)
	b := depositHold(t, d, "c1", stay3)
	b, err := d.Store.Confirm(ctx, b.ID, ptr(captured(t, d, b, "pi_deposit", 8100)))
	require.NoError(t, err)
	_, _, err = d.Store.Amend(ctx, amendParams(b, "longer", domain.Change{CheckOut: dec13.AddDays(1)}))
	require.ErrorIs(t, err, db.ErrNotAmendable)
	assert.Contains(t, err.Error(), "owes the rest of its price, 18900 EUR")
	d.AssertInventoryMatchesBookings(t)
}

func ptr[T any](v T) *T { return &v }

func TestABalanceLongPastItsDateIsReportedByTheChecker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 3)
	depositPlan(t, d)
	owing := depositHold(t, d, "c1", stay3)
	owing, err := d.Store.Confirm(ctx, owing.ID, ptr(captured(t, d, owing, "pi_owing", 8100)))
	require.NoError(t, err)
	paid := depositHold(t, d, "c2", stay3)
	paid, err = d.Store.Confirm(ctx, paid.ID, ptr(captured(t, d, paid, "pi_paid", 8100)))
	require.NoError(t, err)
	_, err = d.Store.PayPlanBalance(ctx, paid.ID, captured(t, d, paid, "pi_rest", 18900))
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `UPDATE bookings SET balance_due_at = now() - interval '1 hour' WHERE id IN ($1, $2)`, owing.ID, paid.ID)
	require.NoError(t, err)

	found, err := d.Store.BalancesPastDue(ctx, 5*time.Minute)
	require.NoError(t, err)
	require.Len(t, found, 1, "the booking paid in full owes nothing")
	assert.Equal(t, domain.CheckBalancePastDue, found[0].Check)
	assert.Equal(t, owing.ID, found[0].BookingID)
	assert.Contains(t, found[0].Detail, "owes 18900 EUR")
	found, err = d.Store.BalancesPastDue(ctx, 2*time.Hour)
	require.NoError(t, err)
	assert.Empty(t, found, "within the grace")
}
