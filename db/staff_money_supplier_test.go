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

// supplierConfirmedHold is a guest's 2-night hold at direct_procure supplier "sup" (hotel h1, 5
// rooms a night from dec10 to dec14), confirmed by the supplier as C-1.
func supplierConfirmedHold(t *testing.T) (*testsuite.Database, domain.Booking) {
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
	return d, b
}

// A booking sold from a supplier's stock is priced by the supplier and paid through the
// checkout: the store refuses a desk payment for it, whatever path asks, and writes nothing (the
// hold is not confirmed).
func TestTheStoreRefusesADeskPaymentForASuppliersBooking(t *testing.T) {
	t.Parallel()
	d, b := supplierConfirmedHold(t)

	_, err := d.Store.TakeDeskPayment(context.Background(), deskPayment(b.ID, "cash", b.Price.Total))
	require.ErrorIs(t, err, domain.ErrConflict)
	assert.Contains(t, err.Error(), "supplier")
	assert.Equal(t, 0, payments(t, d, b.ID), "nothing was written")
	got := booking(t, d, b.ID)
	assert.Equal(t, domain.StatusHold, got.Status, "the supplier's hold is not confirmed by the desk")
	assert.Zero(t, got.Paid)
}
