package activities_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/testsuite"
)

// TestTheReconciliationDeliversAFeeAsAFee: a fee charged to a guarantee card whose webhook was
// lost is delivered with its fee key, so the booking takes it as that fee and not as a second
// payment of its price (which would be given back); a payment of the price carries none.
func TestTheReconciliationDeliversAFeeAsAFee(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	provider := &testsuite.ScriptedProvider{}
	delivered := map[string]domain.PaymentEvent{}
	r := activities.Reconciliation{Store: d.Store, Provider: provider, Deliver: func(_ context.Context, ev domain.PaymentEvent) error {
		delivered[ev.PaymentID] = ev
		return nil
	}}
	provider.Paid(payments.PaymentRecord{ID: "pi_fee", BookingID: "booking-fee", Amount: 9000, Currency: "EUR",
		SucceededAt: time.Now().Add(-time.Hour), FeeKey: "booking-fee/fee/no_show"})
	provider.Paid(payments.PaymentRecord{ID: "pi_price", BookingID: "booking-price", Amount: 9000, Currency: "EUR",
		SucceededAt: time.Now().Add(-time.Hour)})

	report, err := r.Reconcile(context.Background(), activities.ReconcileInput{})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"pi_fee", "pi_price"}, report.Recovered)
	assert.Equal(t, "booking-fee/fee/no_show", delivered["pi_fee"].FeeKey)
	assert.Empty(t, delivered["pi_price"].FeeKey)
}
