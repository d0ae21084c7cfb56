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

// TestFinanceRefundsTheFeeOfARefundedGuaranteedBooking: a guaranteed booking with 100.00 taken
// at the desk is cancelled where its policy keeps everything: a paid booking's cancel goes through
// REFUNDING (refund due 0) to REFUNDED, never CANCELLED, and its card pays the fee (270.00 kept
// less 100.00 paid at the desk: 170.00). Finance may refund "a cancelled booking's fee too"
// (docs/rates-and-restrictions.md); the control, the same fee on a booking cancelled unpaid
// (CANCELLED), is refunded.
func TestFinanceRefundsTheFeeOfARefundedGuaranteedBooking(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 3)
	for _, desk := range []int64{0, 10000} { // the control first
		customer := map[bool]string{true: "c-desk", false: "c-unpaid"}[desk > 0]
		b, err := d.Store.ConfirmGuaranteed(ctx, atHotelHold(t, d, customer).ID, card)
		require.NoError(t, err)
		if desk > 0 {
			takeDesk(t, d, deskPayment(b.ID, "deposit", desk))
			_, err = d.Store.StartRefund(ctx, b.ID, nil, func(domain.Booking) (int64, error) { return 0, nil })
			require.NoError(t, err)
			b, err = d.Store.FinishRefund(ctx, b.ID)
			require.NoError(t, err)
			require.Equal(t, domain.StatusRefunded, b.Status)
		} else {
			b, err = d.Store.Release(db.WithActor(ctx, "guest"), b.ID, domain.StatusCancelled)
			require.NoError(t, err)
		}
		due, err := d.Store.StartFee(ctx, b.ID, domain.FeeLateCancel, 27000, 0, "EUR")
		require.NoError(t, err)
		require.Equal(t, 27000-desk, due.Fee.Amount)
		pi := "pi_fee_" + customer
		recordPayment(t, d, b.ID, pi, due.Fee.Amount)
		_, err = d.Store.FeePaid(ctx, b.ID, due.Fee.Key, domain.Payment{ID: pi, Amount: due.Fee.Amount, Currency: "EUR"})
		require.NoError(t, err)
		require.Empty(t, moneyFindings(t, d)[b.ID])

		r, _, err := d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, "fee-back"), BookingID: b.ID,
			Kind: db.RefundGoodwill, Amount: due.Fee.Amount, Currency: "EUR", Reason: "the guest was in hospital", Actor: "fin-1"})
		require.NoError(t, err, "finance refunds the fee of the %s booking", b.Status)
		assert.Equal(t, []domain.Payment{{ID: pi, Amount: due.Fee.Amount, Currency: "EUR"}}, r.Parts, "drawn on the fee")
	}
}
