package activities_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/testsuite"
)

// TestAnAttemptIsDrivenToWhatTheProviderKnows: a pending attempt is looked up at the provider,
// not answered from the record; an attempt whose reply was lost is sent again under its key for
// a few minutes, then looked up by its key; one the provider never received has failed, so the
// saga takes a new key rather than send an old one the provider may have forgotten.
func TestAnAttemptIsDrivenToWhatTheProviderKnows(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	provider := &testsuite.ScriptedProvider{}
	acts := &activities.Refunds{Store: d.Store, Provider: provider}
	in := func(key string) activities.RefundInput {
		return activities.RefundInput{Key: key, BookingID: "booking-x", PaymentID: "pi_x", Amount: 100, Currency: "EUR", Reason: "test"}
	}

	// Pending at the provider, then settled there without a webhook reaching us.
	provider.SetAnswer(func(int, payments.RefundRequest) (payments.Refund, error) {
		return payments.Refund{ID: "re_1", Status: payments.RefundPending}, nil
	})
	out, err := acts.RequestRefund(ctx, in("booking-x/refund/1"))
	require.NoError(t, err)
	require.Equal(t, activities.RefundPending, out.Status)
	provider.SetLookup(func(q payments.RefundLookup) (payments.Refund, bool, error) {
		return payments.Refund{ID: q.RefundID, Status: payments.RefundSucceeded}, q.RefundID == "re_1", nil
	})
	out, err = acts.RequestRefund(ctx, in("booking-x/refund/1"))
	require.NoError(t, err)
	assert.Equal(t, activities.RefundSucceeded, out.Status, "looked up, not answered from the record")
	assert.Len(t, provider.Requests(), 1, "and never requested twice")
	rec, err := d.Store.GetRefundAttempt(ctx, "booking-x/refund/1")
	require.NoError(t, err)
	assert.Equal(t, activities.RefundSucceeded, rec.Status, "what the provider said is recorded")

	// The reply to a creation was lost: a fresh attempt is sent again under its key (another
	// step: one given back answers every later attempt of its own)...
	_, err = d.Store.BeginRefundAttempt(ctx, dbAttempt("booking-x/lost-reply/1"))
	require.NoError(t, err)
	provider.SetAnswer(nil)
	out, err = acts.RequestRefund(ctx, in("booking-x/lost-reply/1"))
	require.NoError(t, err)
	assert.Equal(t, activities.RefundSucceeded, out.Status)
	assert.Equal(t, "booking-x/lost-reply/1", provider.Requests()[1].IdempotencyKey)

	// ...an old one is looked up by its key, and the provider never had it: failed, no resend.
	_, err = d.Store.BeginRefundAttempt(ctx, dbAttempt("booking-x/old-reply/1"))
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `UPDATE refunds SET created_at = now() - interval '1 day' WHERE id = 'booking-x/old-reply/1'`)
	require.NoError(t, err)
	provider.SetLookup(nil)
	out, err = acts.RequestRefund(ctx, in("booking-x/old-reply/1"))
	require.NoError(t, err)
	assert.Equal(t, activities.RefundFailed, out.Status)
	assert.Contains(t, out.Error, "never received")
	assert.Len(t, provider.Requests(), 2, "an old key is not sent again")
	assert.Equal(t, payments.RefundLookup{PaymentID: "pi_x", IdempotencyKey: "booking-x/old-reply/1"},
		provider.Lookups()[len(provider.Lookups())-1], "looked up by its payment and key")
}

func dbAttempt(key string) db.RefundAttempt {
	return db.RefundAttempt{ID: key, BookingID: "booking-x", PaymentID: "pi_x", Amount: 100, Currency: "EUR", Reason: "test"}
}
