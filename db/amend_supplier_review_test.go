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

// procuredAmendedBooking is a confirmed hold at direct_procure supplier "sup" (hotel h1), amended
// to a night longer and confirmed by the supplier: it is applied and moved to its new hold.
func procuredAmendedBooking(t *testing.T) (*testsuite.Database, domain.Booking, domain.Amendment, string) {
	t.Helper()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	supplierHotel(t, d, "sup", db.ModeDirectProcure, "h1")
	_, err := d.Store.ApplySupplierStock(ctx, "sup", "pull", report("h1", intp(5), intp(5), intp(5), intp(5)))
	require.NoError(t, err)
	hp := holdParams("g1", "k", nights(dec10, 2), 1)
	hp.SupplierID = "sup"
	b, err := d.Store.Reserve(ctx, hp)
	require.NoError(t, err)
	require.Equal(t, "sup", b.SupplierID)
	_, err = d.Store.RecordSupplierConfirmation(ctx, b.ID, "C-1")
	require.NoError(t, err)

	a, _ := amend(t, d, amendParams(b, "k1", domain.Change{CheckOut: dec13}))
	require.Equal(t, domain.AmendmentSupplierPending, a.Status)
	a, _, oldRef, err := d.Store.SupplierAnswered(ctx, b.ID, a.ID, db.SupplierAnswer{Confirmed: true, Confirmation: "C-2"},
		time.Hour, func(domain.Booking, int64) int64 { return 0 })
	require.NoError(t, err)
	require.Equal(t, domain.AmendmentApplied, a.Status)
	require.Equal(t, b.ID, oldRef, "the hold the booking left is for the supplier to cancel")
	return d, b, a, oldRef
}

// The workflow's SupplierAnswered activity is retried when its answer is lost (the database
// committed, the worker died): the retry must still name the hold the booking left, or nobody
// cancels it at the supplier.
func TestASupplierAnswerAskedAgainStillNamesTheHoldTheBookingLeft(t *testing.T) {
	t.Parallel()
	d, b, a, oldRef := procuredAmendedBooking(t)

	again, _, oldAgain, err := d.Store.SupplierAnswered(context.Background(), b.ID, a.ID,
		db.SupplierAnswer{Confirmed: true, Confirmation: "C-2"}, time.Hour, func(domain.Booking, int64) int64 { return 0 })
	require.NoError(t, err)
	assert.Equal(t, domain.AmendmentApplied, again.Status)
	assert.Equal(t, oldRef, oldAgain, "asked again, the answer must name the old hold as the first did")
}

// flushSupplierCancels logs a hold it could not cancel and trusts "a cancel of the booking tells
// it again (db.Store.SupplierRefs)": the hold an applied amendment left must be among the refs.
func TestACancelOfAnAmendedSupplierBookingStillTellsTheSupplierOfTheHoldItLeft(t *testing.T) {
	t.Parallel()
	d, b, a, oldRef := procuredAmendedBooking(t)

	refs, err := d.Store.SupplierRefs(context.Background(), b.ID)
	require.NoError(t, err)
	assert.Equal(t, a.SupplierHoldRef, refs[0], "the booking's own hold first")
	assert.Contains(t, refs, oldRef, "the hold the booking left, whose cancel may have been lost, is never told again")
}
