package db_test

import (
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// A second payment for a booking already paid is one no booking keeps: finance may give it back
// by hand (RecordManualRefund refuses a payment a booking keeps). Integrators hear that refund as
// booking.refunded; it is a whole payment the booking could not keep, as the workflow's
// extra-payment refund of the same payment would have been, so its kind is "extra_payment",
// never "booking" (the booking's own money going back, which it is not: what the booking holds
// did not change).
func TestAPaymentNoBookingKeepsRefundedByHandIsToldAsAnExtraPaymentsRefund(t *testing.T) {
	t.Parallel()
	d, ctx := subscribed(t, "booking.refunded")
	d.SetInventory(t, "h1", "double", dec10, dec14, 3)
	b := providerPaid(t, d, "c1")
	recordPayment(t, d, b.ID, "pi_dup", b.Paid)

	_, err := d.Store.RecordManualRefund(ctx, db.ManualRefund{PaymentID: "pi_dup", Key: "m1", Amount: b.Paid,
		Currency: "EUR", Method: domain.MethodBankTransfer, Reference: "SEPA-1", Reason: "a second payment",
		Actor: "finance"})
	require.NoError(t, err)

	rows, err := d.Pool.Query(ctx, `SELECT payload -> 'data' FROM event_deliveries
		WHERE booking_id = $1 AND type = 'booking.refunded' ORDER BY id`, b.ID)
	require.NoError(t, err)
	told, err := pgx.CollectRows(rows, pgx.RowTo[map[string]any])
	require.NoError(t, err)
	require.Len(t, told, 1)
	assert.Equal(t, "pi_dup", told[0]["paymentId"])
	assert.Equal(t, "extra_payment", told[0]["kind"], "a payment no booking keeps, given back by hand: %v", told[0])
}
