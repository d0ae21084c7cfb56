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
	deposit = takeDesk(t, d, deskPayment(deposit.ID, "deposit", 5000))
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
	takeDesk(t, d, deskPayment(b.ID, "deposit", 5000))

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
