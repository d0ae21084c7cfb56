package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// A staff refund asked without parts is drawn by the database on what the ledger says the booking
// keeps, newest kept payment first, each up to what it keeps of it: the workflow holds no copy.
// A second refund draws on what the first left; more than the booking keeps is refused.
func TestAStaffRefundIsDrawnWhereTheLedgerSaysTheBookingKeeps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", nights(dec10, 2), 1)
	takeDesk(t, d, deskPayment(b.ID, "deposit", 3000))
	desk := domain.DeskPaymentID(b.ID, "deposit")
	rest := b.Price.Total - 3000
	recordPayment(t, d, b.ID, "pi_rest", rest)
	b, err := d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_rest", Amount: rest, Currency: "EUR"})
	require.NoError(t, err)

	first := goodwill(b, "first", rest+1000)
	first.Parts = nil
	r, _, err := d.Store.StartStaffRefund(ctx, first)
	require.NoError(t, err)
	assert.Equal(t, []domain.Payment{{ID: "pi_rest", Amount: rest, Currency: "EUR"}, {ID: desk, Amount: 1000, Currency: "EUR"}},
		r.Parts, "the card, kept last, is drawn first")

	second := goodwill(b, "second", 1000)
	second.Parts = nil
	r, after, err := d.Store.StartStaffRefund(ctx, second)
	require.NoError(t, err)
	assert.Equal(t, []domain.Payment{{ID: desk, Amount: 1000, Currency: "EUR"}}, r.Parts, "drawn on what the first left")
	assert.Equal(t, int64(1000), after.Paid)

	again, _, err := d.Store.StartStaffRefund(ctx, second)
	require.NoError(t, err, "the same refund again is answered as first recorded")
	assert.Equal(t, r.Parts, again.Parts)

	more := goodwill(b, "more", 1001)
	more.Parts = nil
	_, _, err = d.Store.StartStaffRefund(ctx, more)
	require.ErrorIs(t, err, domain.ErrConflict)
	m, err := d.Store.LedgerMoney(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, int64(1000), m.Kept, "nothing of the refused refund was written")
}
