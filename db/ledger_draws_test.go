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

// A staff refund asked without parts is drawn by the database on what the ledger says the booking
// keeps, newest kept payment first, each up to what it keeps of it: the workflow holds no copy.
// A second refund draws on what the first left; more than the booking keeps is refused.
func TestAStaffRefundIsDrawnWhereTheLedgerSaysTheBookingKeeps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", nights(dec10, 2), 1)
	heldDeposit(t, d, deskPayment(b.ID, "deposit", 3000))
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

// A staff refund's key that would name its ledger entries as a cancel's or an amendment's draw
// ("refund", "amendment-<n>") is refused: the draw's entries on that payment would be dropped as
// posted already, and the workflow would read the staff refund's parts back as the cancel's
// (found by review: a goodwill refund of 10.00 under "refund", then a cancel, gave back 40.00 of
// 190.00 due). A cancel after a refused one draws its whole refund due.
func TestAStaffRefundKeyNamingTheDatabasesOwnDrawsIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", nights(dec10, 2), 1)
	heldDeposit(t, d, deskPayment(b.ID, "deposit", 3000))
	rest := b.Price.Total - 3000
	recordPayment(t, d, b.ID, "pi_rest", rest)
	b, err := d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_rest", Amount: rest, Currency: "EUR"})
	require.NoError(t, err)

	for _, key := range []string{"refund", "amendment-1", "amendment-42"} {
		g := goodwill(b, key, 1000)
		g.Parts = nil
		_, _, err := d.Store.StartStaffRefund(ctx, g)
		require.ErrorIs(t, err, domain.ErrInvalid, key)
	}
	g := goodwill(b, "amendment-", 1000) // not an amendment's ref: an ordinary key
	g.Parts = nil
	_, _, err = d.Store.StartStaffRefund(ctx, g)
	require.NoError(t, err)

	refunding, err := d.Store.StartRefund(ctx, b.ID, nil, func(b domain.Booking) (int64, error) { return b.Paid, nil })
	require.NoError(t, err)
	parts, err := d.Store.RefundParts(ctx, b.ID, db.CancelRefundRef(b.ID))
	require.NoError(t, err)
	assert.Equal(t, []domain.Payment{{ID: "pi_rest", Amount: rest - 1000, Currency: "EUR"},
		{ID: domain.DeskPaymentID(b.ID, "deposit"), Amount: 3000, Currency: "EUR"}}, parts)
	assert.Equal(t, refunding.RefundDue, rest-1000+3000)
	progress, err := d.Store.BookingRefundProgress(ctx, refunding, "EUR")
	require.NoError(t, err)
	assert.Equal(t, parts, progress.Parts, "a recovery gives back what the live saga would")
}

// A draw that does not add up to the refund (the ledger and the row disagree) is not given back
// as it is: the whole refund is drawn on the booking's payment, which the per-payment bound holds
// to what is left of it.
func TestPartsThatDoNotAddUpAreDrawnWholeOnTheBookingsPayment(t *testing.T) {
	pay := domain.Payment{ID: "pi_1", Currency: "EUR"}
	two := []domain.Payment{{ID: "pi_2", Amount: 1000, Currency: "EUR"}, {ID: "pi_1", Amount: 3000, Currency: "EUR"}}
	assert.Equal(t, two, db.PartsOrWhole(two, 4000, pay))
	assert.Equal(t, []domain.Payment{{ID: "pi_1", Amount: 19000, Currency: "EUR"}}, db.PartsOrWhole(two, 19000, pay))
	assert.Equal(t, []domain.Payment{{ID: "pi_1", Amount: 500, Currency: "EUR"}}, db.PartsOrWhole(nil, 500, pay))
}
