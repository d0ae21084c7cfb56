package db_test

import (
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
)

// A second payment for a booking already paid is given back whole (DUPLICATE_PAYMENT) by the
// booking workflow's extra-payment refund. Integrators hear it as booking.refunded, as every
// refund, but with kind "extra_payment" and the payment's id: the booking's own money is where
// it was. A refund of the booking's own money says kind "booking" (migration 00032).
func TestARefundOfADuplicatePaymentIsToldAsAnExtraPaymentsRefund(t *testing.T) {
	t.Parallel()
	d, ctx := subscribed(t, "booking.refunded")
	d.SetInventory(t, "h1", "double", dec10, dec14, 3)
	b := providerPaid(t, d, "c1")
	recordPayment(t, d, b.ID, "pi_dup", b.Paid)

	refund := func(key, payment string, amount int64) {
		t.Helper()
		a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: key, BookingID: b.ID, PaymentID: payment,
			Amount: amount, Currency: "EUR", Reason: "test"})
		require.NoError(t, err)
		require.NoError(t, d.Store.FinishRefundAttempt(ctx, a.ID, "re_"+payment, "succeeded", ""))
	}
	refund(b.ID+"/extra-pi_dup/1", "pi_dup", b.Paid) // the workflow's key for an extra payment's refund
	refund(b.ID+"/refund/1", b.PaymentID, 1000)

	rows, err := d.Pool.Query(ctx, `SELECT payload -> 'data' FROM event_deliveries
		WHERE booking_id = $1 AND type = 'booking.refunded' ORDER BY id`, b.ID)
	require.NoError(t, err)
	told, err := pgx.CollectRows(rows, pgx.RowTo[map[string]any])
	require.NoError(t, err)
	require.Len(t, told, 2)
	assert.Equal(t, "extra_payment", told[0]["kind"], "the duplicate payment's refund: %v", told[0])
	assert.Equal(t, "pi_dup", told[0]["paymentId"])
	assert.EqualValues(t, b.Paid, told[0]["amount"])
	assert.Equal(t, "booking", told[1]["kind"], "the booking's own refund: %v", told[1])
	assert.Equal(t, b.PaymentID, told[1]["paymentId"])
}
