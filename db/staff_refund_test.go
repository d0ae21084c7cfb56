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

// Refunds staff give on a booking that keeps its units (StartStaffRefund), and a provider
// payment of the rest after a desk deposit.

func TestAStaffRefundKeepsTheBookingAndItsUnitsAndIsGivenOnceUnderItsKey(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := providerPaid(t, d, "g1")

	r, got, err := d.Store.StartStaffRefund(ctx, goodwill(b, "k", 6000))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusConfirmed, got.Status, "a goodwill refund keeps the booking")
	assert.Equal(t, int64(twoNights-6000), got.Paid, "what the booking keeps is lowered")
	assert.Equal(t, []int{1, 1, 0}, d.Reserved(t, "h1", "double", stay3), "and its units")
	assert.Equal(t, []domain.Payment{{ID: b.PaymentID, Amount: 6000, Currency: "EUR"}}, r.Parts)

	again := goodwill(b, "k", 6000)
	again.Parts = []domain.Payment{{ID: "pi_other", Amount: 6000, Currency: "EUR"}}
	replayed, got, err := d.Store.StartStaffRefund(ctx, again)
	require.NoError(t, err)
	assert.Equal(t, r.Parts, replayed.Parts, "the same refund again is the first, as recorded")
	assert.Equal(t, int64(twoNights-6000), got.Paid, "and lowers nothing again")
	_, _, err = d.Store.StartStaffRefund(ctx, goodwill(b, "k", 7000))
	assert.ErrorIs(t, err, domain.ErrIdempotencyMismatch)
	assert.Equal(t, int64(6000), staffRefunded(t, d, b.ID))

	rest, got, err := d.Store.StartStaffRefund(ctx, goodwill(b, "rest", twoNights-6000))
	require.NoError(t, err, "up to all that is kept")
	assert.Equal(t, int64(twoNights-6000), rest.Amount)
	assert.Zero(t, got.Paid)
	_, _, err = d.Store.StartStaffRefund(ctx, goodwill(b, "more", 1))
	assert.ErrorIs(t, err, domain.ErrConflict, "nothing is kept any more")
	d.AssertInventoryMatchesBookings(t)
}

func TestAStaffRefundIsRefusedOnAHoldWithoutAReasonInAnotherCurrencyOrDrawnWrong(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := providerPaid(t, d, "g1")

	noReason := goodwill(b, "k", 6000)
	noReason.Reason = ""
	_, _, err := d.Store.StartStaffRefund(ctx, noReason)
	assert.ErrorIs(t, err, domain.ErrInvalid, "no reason")
	usd := goodwill(b, "k", 6000)
	usd.Currency = "USD"
	_, _, err = d.Store.StartStaffRefund(ctx, usd)
	assert.ErrorIs(t, err, domain.ErrInvalid, "another currency")
	drawn := goodwill(b, "k", 6000)
	drawn.Parts[0].Amount = 5000
	_, _, err = d.Store.StartStaffRefund(ctx, drawn)
	assert.ErrorIs(t, err, domain.ErrInvalid, "its parts do not add up to it")
	_, _, err = d.Store.StartStaffRefund(ctx, goodwill(b, "k", 0))
	assert.ErrorIs(t, err, domain.ErrInvalid, "nothing")
	_, _, err = d.Store.StartStaffRefund(ctx, goodwill(b, "k", twoNights+1))
	assert.ErrorIs(t, err, domain.ErrConflict, "more than was paid")

	deposit := hold(t, d, "g2", nights(dec10, 2), 1)
	deposit = heldDeposit(t, d, deskPayment(deposit.ID, "deposit", 5000))
	_, _, err = d.Store.StartStaffRefund(ctx, goodwill(deposit, "k", 1000))
	assert.ErrorIs(t, err, domain.ErrConflict, "a hold's deposit goes back with its units")
	assert.Zero(t, count(t, d, `SELECT count(*) FROM staff_refunds`))
	assert.Equal(t, int64(twoNights), booking(t, d, b.ID).Paid)
}

// TestNoShowAndCheckedInBookingsAreRefundedInPartKeepingTheirStatus: their units are in the past
// or in use: the refund gives none back.
func TestNoShowAndCheckedInBookingsAreRefundedInPartKeepingTheirStatus(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	noShow := providerPaid(t, d, "g1")
	_, err := d.Store.NoShow(ctx, noShow.ID)
	require.NoError(t, err)
	checkedIn := providerPaid(t, d, "g2")
	_, err = d.Store.CheckIn(ctx, checkedIn.ID)
	require.NoError(t, err)

	for _, c := range []struct {
		id     string
		status domain.Status
	}{{noShow.ID, domain.StatusNoShow}, {checkedIn.ID, domain.StatusCompleted}} {
		b := booking(t, d, c.id)
		_, got, err := d.Store.StartStaffRefund(ctx, goodwill(b, "k", 8000))
		require.NoError(t, err, c.status)
		assert.Equal(t, c.status, got.Status)
		assert.Equal(t, int64(twoNights-8000), got.Paid, c.status)
	}
	assert.Equal(t, []int{1, 1, 0}, d.Reserved(t, "h1", "double", stay3), "the checked-in booking keeps its room")
	d.AssertInventoryMatchesBookings(t)
}

// TestAProviderPaymentOfTheRestConfirmsAHoldWithADeposit: the checkout's payment after a desk
// deposit is the rest, in the booking's currency; the booking keeps both.
func TestAProviderPaymentOfTheRestConfirmsAHoldWithADeposit(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", nights(dec10, 2), 1)
	heldDeposit(t, d, deskPayment(b.ID, "deposit", 5000))

	_, err := d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_whole", Amount: twoNights, Currency: "EUR"})
	assert.ErrorIs(t, err, domain.ErrConflict, "the whole price is more than the rest")
	_, err = d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_usd", Amount: twoNights - 5000, Currency: "USD"})
	assert.ErrorIs(t, err, domain.ErrConflict, "another currency")
	assert.Equal(t, domain.StatusHold, booking(t, d, b.ID).Status)

	recordPayment(t, d, b.ID, "pi_rest", twoNights-5000)
	rest := &domain.Payment{ID: "pi_rest", Amount: twoNights - 5000, Currency: "EUR"}
	confirmed, err := d.Store.Confirm(ctx, b.ID, rest)
	require.NoError(t, err)
	assert.Equal(t, []any{domain.StatusConfirmed, int64(twoNights), "pi_rest"},
		[]any{confirmed.Status, confirmed.Paid, confirmed.PaymentID})
	again, err := d.Store.Confirm(ctx, b.ID, rest)
	require.NoError(t, err, "the same payment again")
	assert.Equal(t, int64(twoNights), again.Paid, "is not added again")
	assert.Equal(t, 1, confirmations(t, d, b.ID))
	sum := summary(t, d, b.ID)
	assert.Equal(t, int64(twoNights), sum.Paid, "the deposit and the payment")
	assert.Zero(t, sum.Due)
	d.AssertMoneyBalances(t)
}

// TestARefundResolvedAsMadeByHandIsRecordedOnce: a goodwill refund an operator resolved as made
// by hand is recorded by its saga (attempt 0 of its step), once and never beyond what is left of
// its payment; finance does not record it again against the payment its booking keeps.
func TestARefundResolvedAsMadeByHandIsRecordedOnce(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := providerPaid(t, d, "g1")
	_, _, err := d.Store.StartStaffRefund(ctx, goodwill(b, "k", 6000))
	require.NoError(t, err)
	resolved := db.RefundAttempt{ID: b.ID + "/staff-k/0", BookingID: b.ID, PaymentID: b.PaymentID, Amount: 6000, Currency: "EUR",
		Reason: "resolved by hand: transfer TR-1", Reference: "transfer TR-1", RecordedBy: "fin-1"}
	require.NoError(t, d.Store.RecordResolvedRefund(ctx, resolved))
	require.NoError(t, d.Store.RecordResolvedRefund(ctx, resolved), "recorded once")
	got, err := d.Store.GetRefundAttempt(ctx, resolved.ID)
	require.NoError(t, err)
	assert.Equal(t, "succeeded", got.Status)
	assert.Equal(t, "other", got.Method)
	assert.Equal(t, "fin-1", got.RecordedBy)
	assert.Equal(t, int64(6000), got.Amount)

	huge := resolved
	huge.ID, huge.Amount = b.ID+"/staff-other/0", twoNights
	require.NoError(t, d.Store.RecordResolvedRefund(ctx, huge))
	got, err = d.Store.GetRefundAttempt(ctx, huge.ID)
	require.NoError(t, err)
	assert.Equal(t, int64(twoNights-6000), got.Amount, "never beyond what is left of the payment")

	_, err = d.Store.RecordManualRefund(ctx, db.ManualRefund{PaymentID: b.PaymentID, Key: "again", Amount: 1,
		Currency: "EUR", Method: domain.MethodBankTransfer, Reference: "TR-1", Reason: "again", Actor: "fin-1"})
	assert.ErrorIs(t, err, domain.ErrConflict, "a payment its booking keeps is refunded through the booking")
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
	_, err := d.Store.TakeDeskDepositKeepingTheHold(ctx, db.DeskPayment{BookingID: b.ID, Key: "deposit", Amount: 10000,
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

// TestAStaffRefundResolvedByHandDoesNotCountTwiceAgainstItsPayment: a goodwill refund of 6000 of
// a payment of the booking's price fails at the provider; an operator resolves it as made by
// hand and finance records those 6000 settled by hand (the flow RecordManualRefund is for). The
// payment has its price less 6000 left, and the booking keeps as much: a second goodwill refund
// of all it keeps is refused, because checkParts counts the 6000 twice (the staff refund's part,
// and the refund settled by hand, whose id is not the staff refund's).
func TestAStaffRefundResolvedByHandDoesNotCountTwiceAgainstItsPayment(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", soon, soonStay.CheckOut, 5)
	b := paidBooking(t, d, "resolved-guest", soonStay, 1, 0)
	recordPayment(t, d, b.ID, b.PaymentID, b.Paid)
	staff := func(key string, amount int64) error {
		_, _, err := d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, key), BookingID: b.ID,
			Kind: db.RefundGoodwill, Amount: amount, Currency: "EUR", Reason: "goodwill", Actor: "desk-1",
			Parts: []domain.Payment{{ID: b.PaymentID, Amount: amount, Currency: "EUR"}}})
		return err
	}
	require.NoError(t, staff("k1", 6000))
	attempt, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: b.ID + "/" + db.StaffRefundStep("k1", 0, b.PaymentID) + "/1",
		BookingID: b.ID, PaymentID: b.PaymentID, Amount: 6000, Currency: "EUR", Reason: "goodwill"})
	require.NoError(t, err)
	require.NoError(t, d.Store.FinishRefundAttempt(ctx, attempt.ID, "", "failed", "card expired"))
	// The operator resolved it as made by hand: the saga records it as attempt 0 of its step.
	require.NoError(t, d.Store.RecordResolvedRefund(ctx, db.RefundAttempt{ID: b.ID + "/" + db.StaffRefundStep("k1", 0, b.PaymentID) + "/0",
		BookingID: b.ID, PaymentID: b.PaymentID, Amount: 6000, Currency: "EUR", Reason: "resolved by hand: paid by transfer",
		Reference: "paid by transfer", RecordedBy: "fin-1"}))

	assert.NoError(t, staff("k2", b.Paid-6000), "the payment has %d left and the booking keeps as much", b.Paid-6000)
}
