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

// A pay-at-hotel plan's card on the store (issue 35): the card confirms the hold without money;
// a fee charged to it is kept by the booking once, and the checks see nothing wrong.

var card = domain.CardGuarantee{SetupIntentID: "seti_1", CustomerID: "cus_1", PaymentMethodID: "pm_1"}

// atHotelHold holds stay3 of h1/double for customer under a pay-at-hotel plan HOTEL (BAR -10%:
// 27000) that keeps the first night of a no-show.
func atHotelHold(t *testing.T, d *testsuite.Database, customer string) domain.Booking {
	t.Helper()
	p := flexible("HOTEL", domain.DefaultRatePlan)
	p.Payment = domain.PaymentRule{Kind: domain.PayAtHotel}
	p.Policy.NoShow = domain.NoShowKeepsFirstNight
	_, err := d.Store.PutRatePlan(context.Background(), p)
	require.NoError(t, err)
	return planHold(t, d, customer, "HOTEL")
}

func TestACardConfirmsAPayAtHotelHoldAndItsFeeIsKeptOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 3)
	b := atHotelHold(t, d, "c1")
	require.True(t, b.PaysAtHotel())

	b, err := d.Store.ConfirmGuaranteed(ctx, b.ID, card)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusConfirmed, b.Status)
	assert.True(t, b.Guaranteed)
	assert.Zero(t, b.Paid, "nothing is paid: the price is paid at the hotel")
	again, err := d.Store.ConfirmGuaranteed(ctx, b.ID, card)
	require.NoError(t, err, "the same card again changes nothing")
	assert.Equal(t, b.UpdatedAt, again.UpdatedAt)
	_, err = d.Store.ConfirmGuaranteed(ctx, b.ID, domain.CardGuarantee{SetupIntentID: "seti_2"})
	require.ErrorIs(t, err, domain.ErrConflict, "another card does not confirm it again")
	assert.Empty(t, moneyFindings(t, d), "a guaranteed booking is paid at the hotel, not unpaid")

	full := planHold(t, d, "c2", domain.DefaultRatePlan)
	_, err = d.Store.ConfirmGuaranteed(ctx, full.ID, card)
	require.ErrorIs(t, err, domain.ErrConflict, "a card does not confirm a booking paid in full")

	out, err := d.Store.MarkNoShow(ctx, b.ID)
	require.NoError(t, err)
	keep := out.Booking.PlanTerms.NoShowKeeps(out.Booking.Price)
	assert.Equal(t, int64(9000), keep, "the first night")
	fee, err := d.Store.StartFee(ctx, b.ID, domain.FeeNoShow, keep, out.Refund, "EUR")
	require.NoError(t, err)
	assert.Equal(t, card, fee.Card)
	assert.Equal(t, domain.GuaranteeFee{Kind: domain.FeeNoShow, Key: b.ID + "/fee@no_show", Amount: 9000, Currency: "EUR",
		Status: domain.FeeCharging}, fee.Fee)
	second, err := d.Store.StartFee(ctx, b.ID, domain.FeeLateCancel, 100, 0, "EUR")
	require.NoError(t, err)
	assert.Equal(t, fee.Fee, second.Fee, "one fee per booking: the first stays")

	_, err = d.Store.FeePaid(ctx, b.ID, fee.Fee.Key, domain.Payment{ID: "pi_fee", Amount: 8000, Currency: "EUR"})
	require.ErrorIs(t, err, domain.ErrConflict, "not the fee's amount")
	// The webhook of the charge comes first: the payment is received, not yet kept.
	recordPayment(t, d, b.ID, "pi_fee", 9000)
	paid, err := d.Store.FeePaid(ctx, b.ID, fee.Fee.Key, domain.Payment{ID: "pi_fee", Amount: 9000, Currency: "EUR"})
	require.NoError(t, err)
	assert.Equal(t, domain.FeePaid, paid.Status)
	_, err = d.Store.FeePaid(ctx, b.ID, fee.Fee.Key, domain.Payment{ID: "pi_fee", Amount: 9000, Currency: "EUR"})
	require.NoError(t, err, "the activity's answer after the webhook's: nothing more")
	_, err = d.Store.FeeDeclined(ctx, b.ID, fee.Fee.Key, "late decline")
	require.NoError(t, err)

	b, err = d.Store.GetBooking(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, int64(9000), b.Paid, "paid once")
	assert.Equal(t, domain.FeePaid, b.Fee.Status, "a fee paid stays paid")
	money, err := d.Store.LedgerMoney(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, int64(9000), money.Kept)
	accounted, err := d.Store.PaymentAccountedFor(ctx, "pi_fee")
	require.NoError(t, err)
	assert.True(t, accounted, "a redelivery of the fee's payment is not a payment to give back")
	ledger, err := d.Store.LedgerMismatches(ctx)
	require.NoError(t, err)
	assert.Empty(t, ledger)
	assert.Empty(t, moneyFindings(t, d))
}

// A cancelled guaranteed booking keeps the fee its card paid; the control: money on a
// guaranteed cancelled booking that no fee paid is still found.
func TestACancelledGuaranteedBookingKeepsItsFeeAndNothingElse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 3)
	b := atHotelHold(t, d, "c1")
	b, err := d.Store.ConfirmGuaranteed(ctx, b.ID, card)
	require.NoError(t, err)
	b, err = d.Store.Release(db.WithActor(ctx, "guest"), b.ID, domain.StatusCancelled)
	require.NoError(t, err)
	fee, err := d.Store.StartFee(ctx, b.ID, domain.FeeLateCancel, 27000, 0, "EUR")
	require.NoError(t, err)
	_, err = d.Store.FeeProcessing(ctx, b.ID, fee.Fee.Key, "pi_late")
	require.NoError(t, err)
	recordPayment(t, d, b.ID, "pi_late", 27000)
	assert.Contains(t, moneyFindings(t, d), "pi_late", "while the fee is processing its payment is not the booking's")
	_, err = d.Store.FeePaid(ctx, b.ID, fee.Fee.Key, domain.Payment{ID: "pi_late", Amount: 27000, Currency: "EUR"})
	require.NoError(t, err)
	assert.Empty(t, moneyFindings(t, d))
	ledger, err := d.Store.LedgerMismatches(ctx)
	require.NoError(t, err)
	assert.Empty(t, ledger)

	_, err = d.Store.Pool().Exec(ctx, `UPDATE bookings SET guarantee_fee = NULL WHERE id = $1`, b.ID)
	require.NoError(t, err)
	assert.Contains(t, moneyFindings(t, d), "pi_late", "control: the fee's payment is kept only while the fee names it")
}

// TestFeesNotChargedAreReported: a fee still charging past the grace, and one the card declined,
// are reported for staff; a fee paid is not (the control).
func TestFeesNotChargedAreReported(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 3)
	fee := func(customer string) (domain.Booking, db.FeeToCharge) {
		b, err := d.Store.ConfirmGuaranteed(ctx, atHotelHold(t, d, customer).ID, card)
		require.NoError(t, err)
		due, err := d.Store.StartFee(ctx, b.ID, domain.FeeNoShow, 9000, 0, "EUR")
		require.NoError(t, err)
		return b, due
	}
	charging, _ := fee("c1")
	declined, due := fee("c2")
	_, err := d.Store.FeeDeclined(ctx, declined.ID, due.Fee.Key, "Your card was declined.")
	require.NoError(t, err)
	paid, due := fee("c3")
	_, err = d.Store.FeePaid(ctx, paid.ID, due.Fee.Key, domain.Payment{ID: "pi_c3", Amount: 9000, Currency: "EUR"})
	require.NoError(t, err)

	found, err := d.Store.FeesNotCharged(ctx, 0)
	require.NoError(t, err)
	byBooking := map[string]string{}
	for _, f := range found {
		byBooking[f.BookingID] = f.Detail
	}
	assert.Equal(t, map[string]string{
		charging.ID: "its no_show fee of 9000 EUR is still charging",
		declined.ID: "its card declined the no_show fee of 9000 EUR: Your card was declined.",
	}, byBooking)
	found, err = d.Store.FeesNotCharged(ctx, time.Hour)
	require.NoError(t, err)
	assert.Len(t, found, 1, "within the grace a fee charging is not yet news")
}

// TestAFeeIsNotPaidByAPaymentGivenBack: a fee's payment a release took for a second payment and
// began to give back is not kept as the fee (it would be kept and refunded both); the control,
// the same payment whole, pays it.
func TestAFeeIsNotPaidByAPaymentGivenBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 3)
	for _, givenBack := range []bool{true, false} {
		customer := map[bool]string{true: "c-back", false: "c-whole"}[givenBack]
		b, err := d.Store.ConfirmGuaranteed(ctx, atHotelHold(t, d, customer).ID, card)
		require.NoError(t, err)
		due, err := d.Store.StartFee(ctx, b.ID, domain.FeeNoShow, 9000, 0, "EUR")
		require.NoError(t, err)
		pi := "pi_fee_" + customer
		recordPayment(t, d, b.ID, pi, 9000)
		if givenBack {
			_, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: b.ID + "/extra-" + pi + "/1", BookingID: b.ID,
				PaymentID: pi, Amount: 9000, Currency: "EUR", Reason: "a second payment"})
			require.NoError(t, err)
		}
		_, err = d.Store.FeePaid(ctx, b.ID, due.Fee.Key, domain.Payment{ID: pi, Amount: 9000, Currency: "EUR"})
		if givenBack {
			require.ErrorIs(t, err, domain.ErrConflict, "a payment being given back does not pay the fee")
		} else {
			require.NoError(t, err, "control: the payment whole pays it")
		}
	}
}
