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

// TestChecksFindWhatIsWrongAndNothingElse: a consistent database gives no findings; each kind of
// damage, made by hand, gives its finding.
func TestChecksFindWhatIsWrongAndNothingElse(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	from := domain.DateOf(time.Now(), time.UTC).AddDays(5)
	stay := domain.Stay{CheckIn: from, CheckOut: from.AddDays(2)}
	d.SetInventory(t, "h1", "double", stay.CheckIn, stay.CheckOut, 3)
	p := db.ReserveParams{BookingID: "booking-a", IdempotencyKey: "k", CreatedBy: "c1", HoldTTL: time.Hour,
		Request: domain.HoldRequest{CustomerID: "c1", HotelID: "h1", RoomTypeID: "double", Stay: stay, Quantity: 1}}
	b, err := d.Store.Reserve(ctx, p)
	require.NoError(t, err)
	_, err = d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_a", Amount: b.Price.Total, Currency: "EUR"})
	require.NoError(t, err)
	exec := func(sql string, args ...any) {
		t.Helper()
		_, err := d.Pool.Exec(ctx, sql, args...)
		require.NoError(t, err)
	}
	exec(`INSERT INTO payments (payment_id, booking_id, amount, currency, status) VALUES ('pi_a', 'booking-a', $1, 'EUR', 'succeeded')`, b.Price.Total)
	all := func() map[string]int {
		t.Helper()
		out := map[string]int{}
		for _, find := range []func() ([]domain.Finding, error){
			func() ([]domain.Finding, error) { return d.Store.InventoryMismatches(ctx) },
			func() ([]domain.Finding, error) { return d.Store.UnmatchedPayments(ctx, 0) },
			func() ([]domain.Finding, error) { return d.Store.RefundsPaidTwice(ctx) },
			func() ([]domain.Finding, error) { return d.Store.MoneyMismatches(ctx) },
		} {
			fs, err := find()
			require.NoError(t, err)
			for _, f := range fs {
				out[f.Check]++
			}
		}
		holds, err := d.Store.HoldsPastExpiry(ctx, time.Minute)
		require.NoError(t, err)
		if len(holds) > 0 {
			out[domain.CheckHoldPastExpiry] = len(holds)
		}
		return out
	}
	require.Empty(t, all(), "a consistent database")

	exec(`UPDATE inventory SET reserved = reserved + 1 WHERE unit_start = $1`, stay.CheckIn.Time())
	exec(`INSERT INTO payments (payment_id, booking_id, amount, currency, status) VALUES ('pi_lost', 'booking-gone', 500, 'EUR', 'succeeded')`)
	exec(`INSERT INTO refunds (id, booking_id, payment_id, amount, currency, reason, status) VALUES
		('booking-a/refund/1', 'booking-a', 'pi_a', 100, 'EUR', 'x', 'succeeded'),
		('booking-a/refund/2', 'booking-a', 'pi_a', 100, 'EUR', 'x', 'succeeded')`)
	p.BookingID, p.IdempotencyKey, p.HoldTTL = "booking-b", "k2", time.Microsecond
	_, err = d.Store.Reserve(ctx, p)
	require.NoError(t, err)
	exec(`UPDATE bookings SET expires_at = now() - interval '1 hour' WHERE id = 'booking-b'`)

	assert.Equal(t, map[string]int{
		domain.CheckInventory:      1, // the hand-made +1 (booking-b's hold is counted by its night)
		domain.CheckUnmatchedPay:   1,
		domain.CheckRefundTwice:    1,
		domain.CheckHoldPastExpiry: 1,
		domain.CheckMoney:          1, // booking-a gave back 200 it keeps as paid
	}, all())
}

func TestOneCheckRunsAtATime(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	var inner bool
	ran, err := d.Store.WithCheckLock(ctx, func() error {
		var err error
		inner, err = d.Store.WithCheckLock(ctx, func() error { return nil })
		return err
	})
	require.NoError(t, err)
	assert.True(t, ran)
	assert.False(t, inner, "a second run while the first holds the lock is skipped")
	ran, err = d.Store.WithCheckLock(ctx, func() error { return nil })
	require.NoError(t, err)
	assert.True(t, ran, "the lock is given back")
}

// The metrics read the latest run's findings as counts by check, and nothing before a first run.
func TestLatestCheckCountsCountsTheLatestRunsFindingsByCheck(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	_, _, err := d.Store.LatestCheckCounts(ctx)
	require.ErrorIs(t, err, domain.ErrNotFound)

	require.NoError(t, d.Store.SaveCheck(ctx, domain.CheckReport{StartedAt: time.Now(), FinishedAt: time.Now(), Findings: []domain.Finding{
		{Check: domain.CheckInventory}, {Check: domain.CheckInventory}, {Check: domain.CheckUnmatchedPay}}}))
	counts, finished, err := d.Store.LatestCheckCounts(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{domain.CheckInventory: 2, domain.CheckUnmatchedPay: 1}, counts)
	assert.WithinDuration(t, time.Now(), finished, time.Minute)

	require.NoError(t, d.Store.SaveCheck(ctx, domain.CheckReport{StartedAt: time.Now(), FinishedAt: time.Now(), Findings: []domain.Finding{}}))
	counts, _, err = d.Store.LatestCheckCounts(ctx)
	require.NoError(t, err)
	assert.Empty(t, counts, "a clean run after a dirty one reports nothing found")
}
