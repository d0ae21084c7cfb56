package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// Tests from the adversarial review of issue 21 (staff money): each states a rule the code breaks.

// TestAHoldWithADeskDepositIsNeverAmendedBelowWhatWasPaid: two holds of three nights (300.00),
// each with a desk deposit, are shortened to one night (100.00). Amend treats a hold as unpaid
// (paid := status != HOLD && ...): the price falls with no refund, so one hold keeps 200.00 for a
// 100.00 stay and the other is paid in full yet still on hold. Neither can ever be confirmed (no
// desk payment or checkout is below what is due, 0), and at expiry the booking is lost.
func TestAHoldWithADeskDepositIsNeverAmendedBelowWhatWasPaid(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	for _, deposit := range []int64{20000, 10000} {
		customer := fmt.Sprintf("g%d", deposit)
		b := hold(t, d, customer, stay3, 1)
		require.Equal(t, int64(30000), b.Price.Total)
		_, err := d.Store.TakeDeskPayment(ctx, db.DeskPayment{BookingID: b.ID, Key: "deposit", Amount: deposit,
			Currency: "EUR", Method: domain.MethodCash, TakenBy: "desk-1"})
		require.NoError(t, err)

		a, got, err := d.Store.Amend(ctx, amendParams(b, "k1", domain.Change{CheckOut: dec11}))
		if err != nil || a.Status == domain.AmendmentRefused {
			continue // refusing the change is an answer
		}
		assert.LessOrEqual(t, got.Paid, got.Price.Total, "deposit %d: a hold keeps %d for a price of %d, nothing refunded (%+v)",
			deposit, got.Paid, got.Price.Total, a)
		if got.Paid >= got.Price.Total {
			assert.NotEqual(t, domain.StatusHold, got.Status, "deposit %d: paid in full but left on hold, to expire", deposit)
		}
	}
}

// TestAGoodwillRefundUnderAnEarlyDeparturesKeyDoesNotSwallowItsRefund: staff give 50.00 of
// goodwill under the Idempotency-Key "early-departure-2030-12-11" (a valid key). The guest then
// leaves after the first night of a stay whose policy gives back all nights not stayed (400.00
// of a 600.00 stay, two rooms). The early departure's refund has the same id: StartStaffRefund
// compares neither its kind nor (when the amounts happen to match) anything else, so it is
// refused as a key mismatch (the workflow logs it and moves on) and the guest never gets it.
func TestAGoodwillRefundUnderAnEarlyDeparturesKeyDoesNotSwallowItsRefund(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h-all", "double", dec10, dec13, 2)
	require.NoError(t, d.Store.SetCancellationPolicy(ctx, "h-all", domain.CancellationPolicy{EarlyDeparture: domain.EarlyDepartureAll}))
	params := holdParams("c1", "h-all", stay3, 2)
	params.Request.HotelID = "h-all"
	b, err := d.Store.Reserve(ctx, params)
	require.NoError(t, err)
	recordPayment(t, d, b.ID, "pi_1", b.Price.Total)
	b, err = d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_1", Amount: b.Price.Total, Currency: "EUR"})
	require.NoError(t, err)

	key := "early-departure-" + dec11.String() // what the departure's key was
	require.NoError(t, domain.ValidateIdempotencyKey(key), "staff may send it")
	assert.Error(t, domain.ValidateIdempotencyKey(db.EarlyDepartureKey(dec11)), "but not the departure's own key")
	_, _, err = d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, key), BookingID: b.ID,
		Kind: db.RefundGoodwill, Amount: 5000, Currency: "EUR", Reason: "noisy room", Actor: "desk",
		Parts: []domain.Payment{{ID: "pi_1", Amount: 5000, Currency: "EUR"}}})
	require.NoError(t, err)

	left, err := d.Store.DepartEarly(ctx, b.ID, dec10.Time().Add(20*time.Hour))
	require.NoError(t, err)
	require.Equal(t, dec11, left.Booking.CheckOut)
	require.Equal(t, int64(40000), left.Refund)
	// What the booking workflow's refundNightsNotStayed asks for.
	r, after, err := d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, db.EarlyDepartureKey(left.Booking.CheckOut)),
		BookingID: b.ID, Kind: db.RefundEarlyDeparture, Amount: left.Refund, Currency: "EUR", Reason: "the guest left early",
		Actor: "desk", Parts: []domain.Payment{{ID: "pi_1", Amount: left.Refund, Currency: "EUR"}}})
	require.NoError(t, err, "the early departure's refund is recorded")
	assert.Equal(t, db.RefundEarlyDeparture, r.Kind)
	assert.Equal(t, left.Booking.Paid-left.Refund, after.Paid, "the nights not stayed are given back")
}

// TestAStaffRefundNeverDrawsOnAPaymentMoreThanItBrought: a hold paid 100.00 in cash at the desk
// and 200.00 by the provider (pi_1). StartStaffRefund bounds a refund by what the booking keeps
// (300.00) but takes the workflow's parts on trust: a refund of 150.00 drawn wholly on the
// 100.00 cash payment is recorded, and its desk refund is recorded as succeeded at once. Two
// workflows drawing on stale Kept (a StaffRefund workflow and a resumed booking workflow, say)
// give a payment back more than its amount; the store's own bound should stop it.
func TestAStaffRefundNeverDrawsOnAPaymentMoreThanItBrought(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", stay3, 1)
	cash := domain.DeskPaymentID(b.ID, "deposit")
	_, err := d.Store.TakeDeskPayment(ctx, db.DeskPayment{BookingID: b.ID, Key: "deposit", Amount: 10000,
		Currency: "EUR", Method: domain.MethodCash, TakenBy: "desk-1"})
	require.NoError(t, err)
	recordPayment(t, d, b.ID, "pi_1", 20000)
	b, err = d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_1", Amount: 20000, Currency: "EUR"})
	require.NoError(t, err)
	require.Equal(t, int64(30000), b.Paid)

	_, _, err = d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, "r1"), BookingID: b.ID,
		Kind: db.RefundGoodwill, Amount: 15000, Currency: "EUR", Reason: "goodwill", Actor: "finance",
		Parts: []domain.Payment{{ID: cash, Amount: 15000, Currency: "EUR"}}})
	assert.Error(t, err, "150.00 drawn on a cash payment of 100.00")
}

// TestAPaymentRefundedByHandIsNotRefundedAgainByItsSaga: a second payment (pi_2, 300.00) for a
// paid booking is being given back by its extra-pi_2 saga; the provider declined attempt 1, and
// the saga waits to try again (or for an operator). Finance settles it by hand (a bank transfer)
// and records that: RecordManualRefund counts only the attempts that did not fail, so it takes
// the whole 300.00. The saga's next attempt is then still begun as a request to the provider
// for 300.00 more: pi_2 is given back twice.
func TestAPaymentRefundedByHandIsNotRefundedAgainByItsSaga(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", stay3, 1)
	recordPayment(t, d, b.ID, "pi_1", 30000)
	b, err := d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_1", Amount: 30000, Currency: "EUR"})
	require.NoError(t, err)
	recordPayment(t, d, b.ID, "pi_2", 30000)

	attempt := func(n int) db.RefundAttempt {
		a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: fmt.Sprintf("%s/extra-pi_2/%d", b.ID, n),
			BookingID: b.ID, PaymentID: "pi_2", Amount: 30000, Currency: "EUR", Reason: "a second payment"})
		require.NoError(t, err)
		return a
	}
	first := attempt(1)
	require.NoError(t, d.Store.FinishRefundAttempt(ctx, first.ID, "", "failed", "card issuer declined"))
	_, err = d.Store.RecordManualRefund(ctx, db.ManualRefund{PaymentID: "pi_2", Key: "m1", Amount: 30000, Currency: "EUR",
		Method: domain.MethodBankTransfer, Reference: "SEPA-1", Reason: "the card refund failed", Actor: "finance"})
	require.NoError(t, err)

	second := attempt(2)
	var given int64
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT COALESCE(sum(amount), 0) FROM refunds
		WHERE payment_id = 'pi_2' AND status <> 'failed'`).Scan(&given))
	assert.LessOrEqual(t, given, int64(30000), "pi_2 of 300.00 is being given back %d (attempt 2 is %s)", given, second.Status)
}

// TestADeskPaymentReversedByARefundCanBeTakenAgain: "a desk payment that was entered by mistake
// is reversed by a refund, never deleted". The desk records 300.00 in cash for a card payment;
// the hold is confirmed. The cash is reversed (a refund of 300.00 at the desk) and the card
// payment entered: TakeDeskPayment computes what is due from what the payments brought before
// any refund (300.00), so it refuses it, and the booking stays CONFIRMED keeping nothing, with
// nothing due.
func TestADeskPaymentReversedByARefundCanBeTakenAgain(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", stay3, 1)
	b, err := d.Store.TakeDeskPayment(ctx, db.DeskPayment{BookingID: b.ID, Key: "cash", Amount: 30000,
		Currency: "EUR", Method: domain.MethodCash, TakenBy: "desk-1"})
	require.NoError(t, err)
	require.Equal(t, domain.StatusConfirmed, b.Status)
	_, b, err = d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, "reverse"), BookingID: b.ID,
		Kind: db.RefundReversal, Amount: 30000, Currency: "EUR", Reason: "entered as cash by mistake: it was a card",
		Actor: "desk-1", Parts: []domain.Payment{{ID: domain.DeskPaymentID(b.ID, "cash"), Amount: 30000, Currency: "EUR"}}})
	require.NoError(t, err)
	require.Zero(t, b.Paid)

	b, err = d.Store.TakeDeskPayment(ctx, db.DeskPayment{BookingID: b.ID, Key: "card", Amount: 30000,
		Currency: "EUR", Method: domain.MethodCardTerminal, TakenBy: "desk-1"})
	require.NoError(t, err, "the card payment the cash stood for")
	assert.Equal(t, int64(30000), b.Paid)
}

// TestAStayExtendedAgainAfterAnEarlyDepartureIsPaidForAgain: a guest paid 300.00 for three
// nights at a hotel whose policy gives all nights not stayed back, leaves after the first and is
// refunded 200.00 (the booking keeps 100.00). The guest then stays after all: the check-out moves
// back to the 13th. The booking's price kept the nights given back (300.00), so the amendment
// costs nothing more (difference 0) and is applied at once: three nights for 100.00.
func TestAStayExtendedAgainAfterAnEarlyDepartureIsPaidForAgain(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h-back", "double", dec10, dec13, 2)
	require.NoError(t, d.Store.SetCancellationPolicy(ctx, "h-back", domain.CancellationPolicy{EarlyDeparture: domain.EarlyDepartureAll}))
	params := holdParams("c1", "h-back", stay3, 1)
	params.Request.HotelID = "h-back"
	b, err := d.Store.Reserve(ctx, params)
	require.NoError(t, err)
	recordPayment(t, d, b.ID, "pi_1", b.Price.Total)
	recordPayment(t, d, b.ID, "pi_1", b.Price.Total)
	b, err = d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_1", Amount: b.Price.Total, Currency: "EUR"})
	require.NoError(t, err)
	require.Equal(t, int64(30000), b.Paid)

	left, err := d.Store.DepartEarly(ctx, b.ID, dec10.Time().Add(20*time.Hour))
	require.NoError(t, err)
	require.Equal(t, int64(20000), left.Refund)
	_, b, err = d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, db.EarlyDepartureKey(left.Booking.CheckOut)),
		BookingID: b.ID, Kind: db.RefundEarlyDeparture, Amount: left.Refund, Currency: "EUR", Reason: "the guest left early",
		Actor: "desk", Parts: []domain.Payment{{ID: "pi_1", Amount: left.Refund, Currency: "EUR"}}})
	require.NoError(t, err)
	require.Equal(t, int64(10000), b.Paid)

	a, got, err := d.Store.Amend(ctx, amendParams(b, "back", domain.Change{CheckOut: dec13}))
	require.NoError(t, err)
	if a.Status == domain.AmendmentRefused {
		return // refusing it is an answer
	}
	assert.Equal(t, domain.AmendmentBalanceDue, a.Status, "the nights given back are paid for again: %+v", a)
	assert.Equal(t, int64(20000), a.Difference, "the two nights refunded")
	if a.Status == domain.AmendmentApplied {
		assert.GreaterOrEqual(t, got.Paid, got.Price.Total, "three nights kept for %d of %d", got.Paid, got.Price.Total)
	}
}

// TestAHoldPricedByHandIsNotRepricedUpByAShorterStay: the desk sets a three-night hold (300.00)
// to 150.00 by hand, with a reason. The guest then shortens it to two nights: Amend prices the
// stay from the nights' snapshot, which the price change left at 100.00 each, so the hold now
// costs 200.00: a shorter stay costs more than the price staff set, and the change by hand is
// silently gone.
func TestAHoldPricedByHandIsNotRepricedUpByAShorterStay(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", stay3, 1)
	b, err := d.Store.ChangePrice(ctx, db.PriceChange{BookingID: b.ID, Total: 15000, Currency: "EUR",
		Reason: "the air conditioning is broken", Actor: "desk-1"})
	require.NoError(t, err)
	require.Equal(t, int64(15000), b.Price.Total)

	a, got, err := d.Store.Amend(ctx, amendParams(b, "shorter", domain.Change{CheckOut: dec12}))
	require.NoError(t, err)
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.LessOrEqual(t, got.Price.Total, int64(15000), "two nights cost more than the three staff priced")
}
