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

// TestAnErasureClosesAndPseudonymisesTheCustomersEntries: an erased customer's waiting entry
// closes (erased) and names the pseudonym; their id is in no entry.
func TestAnErasureClosesAndPseudonymisesTheCustomersEntries(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)
	holdRooms(t, d, "c0", stay3, 1)
	e := waitFor(t, d, "ann", stay3, 1)

	pseudonym := domain.ErasurePseudonym(idKey, "ann")
	erased, err := d.Store.EraseCustomer(ctx, db.ErasureRequest{CustomerID: "ann", Pseudonym: pseudonym, By: "admin", Reason: "ticket 1"})
	require.NoError(t, err)
	assert.EqualValues(t, 1, erased.Rows.WaitlistEntries)
	got, err := d.Store.WaitlistEntry(ctx, e.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.WaitlistErased, got.ClosedReason)
	assert.Equal(t, pseudonym, got.CustomerID)
	assert.Equal(t, pseudonym, got.CreatedBy)
	var left int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM waitlist_entries WHERE customer_id = 'ann' OR created_by = 'ann'`).Scan(&left))
	assert.Zero(t, left)
}

func TestEntriesWhoseProductCanNoLongerBeSoldClose(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)
	holdRooms(t, d, "c0", stay3, 1)
	e := waitFor(t, d, "c1", stay3, 1)
	closed, err := d.Store.CloseLapsedEntries(ctx)
	require.NoError(t, err)
	assert.Zero(t, closed, "its check-in day is to come")

	_, err = d.Pool.Exec(ctx, `UPDATE waitlist_entries SET unit_from = unit_from - interval '3650 days' WHERE id = $1`, e.ID)
	require.NoError(t, err)
	closed, err = d.Store.CloseLapsedEntries(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 1, closed)
	got, err := d.Store.WaitlistEntry(ctx, e.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.WaitlistWindowClosed, got.ClosedReason)
}
