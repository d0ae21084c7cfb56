package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// TestAResumedBookingKeepsItsDeskPaymentsAndOwesItsStaffRefunds: a hold the desk took a cash
// deposit for, paid in full online, then refunded in part by staff (drawn on the card) and lost
// before the provider gave it back: the resumed workflow keeps both payments at what is left of
// each, and runs the owed part again from its last attempt.
func TestAResumedBookingKeepsItsDeskPaymentsAndOwesItsStaffRefunds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, _ := paidStay(t) // another guest's stay: the hotel is open
	req := domain.HoldRequest{CustomerID: "g2", HotelID: "h1", RoomTypeID: "double",
		Stay: domain.Stay{CheckIn: domain.NewDate(2030, 12, 10), CheckOut: domain.NewDate(2030, 12, 12)}, Quantity: 1}
	b, err := d.Store.Reserve(ctx, db.ReserveParams{BookingID: domain.BookingID([]byte("resume-money"), "g2", "g2", "k"),
		IdempotencyKey: "k", Request: req, CreatedBy: "g2", HoldTTL: 10 * time.Minute})
	require.NoError(t, err)
	// A cash deposit that left the hold on hold, as desk payments did before issue 39 (now any
	// desk payment confirms): such bookings were in the database when it was upgraded.
	deposit := domain.DeskPaymentID(b.ID, "deposit")
	_, err = d.Pool.Exec(ctx, `INSERT INTO payments (payment_id, booking_id, amount, currency, status, succeeded_at, method, taken_by)
		VALUES ($1, $2, 5000, 'EUR', 'succeeded', now(), 'cash', 'desk-1')`, deposit, b.ID)
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `UPDATE bookings SET paid = paid + 5000, payment_id = COALESCE(payment_id, $1), updated_at = now()
		WHERE id = $2`, deposit, b.ID)
	require.NoError(t, err)
	recordPayment(t, d, b.ID, "pi_rest", b.Price.Total-5000)
	b, err = d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_rest", Amount: b.Price.Total - 5000, Currency: "EUR"})
	require.NoError(t, err)
	require.Equal(t, domain.StatusConfirmed, b.Status)

	_, b, err = d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, "goodwill"), BookingID: b.ID,
		Kind: db.RefundGoodwill, Amount: 3000, Currency: "EUR", Reason: "noisy room", Actor: "fin-1",
		Parts: []domain.Payment{{ID: "pi_rest", Amount: 3000, Currency: "EUR"}}})
	require.NoError(t, err)
	_, err = d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: b.ID + "/staff-goodwill/1", BookingID: b.ID,
		PaymentID: "pi_rest", Amount: 3000, Currency: "EUR", Reason: "noisy room"})
	require.NoError(t, err)
	require.NoError(t, d.Store.FinishRefundAttempt(ctx, b.ID+"/staff-goodwill/1", "", "failed", "declined"))

	in := resumedWith(t, d.Store, b)
	assert.Nil(t, in.Resume.State.Kept, "the resumed run keeps no draw of its own: the database draws")
	if assert.Len(t, in.Resume.Restart, 1) {
		s := in.Resume.Restart[0]
		assert.Equal(t, workflows.SagaPart, s.Kind)
		assert.Equal(t, "staff-goodwill", s.Step)
		assert.Equal(t, domain.Payment{ID: "pi_rest", Amount: 3000, Currency: "EUR"}, s.Payment)
		assert.Equal(t, 2, s.FirstAttempt, "the declined attempt is not asked again")
	}
	later, _, err := d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, "later"), BookingID: b.ID,
		Kind: db.RefundGoodwill, Amount: b.Price.Total - 8000 + 1000, Currency: "EUR", Reason: "noisy again", Actor: "fin-1"})
	require.NoError(t, err)
	assert.Equal(t, []domain.Payment{{ID: "pi_rest", Amount: b.Price.Total - 8000, Currency: "EUR"},
		{ID: domain.DeskPaymentID(b.ID, "deposit"), Amount: 1000, Currency: "EUR"}}, later.Parts,
		"a later refund is drawn on what is left of each payment")
}
