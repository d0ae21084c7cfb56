package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// A reason is refused when it names the walk-in guest, not when one of its words merely contains
// the guest's (short) name: "annual" does not name Ann, and the admin is told only that the reason
// "names the customer", with nothing to show where.
func TestAnErasureReasonWithAWordContainingAShortNameIsAccepted(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	cust, err := d.Store.WalkInCustomer(ctx, "+4915112345679", "Ann", "desk-1")
	require.NoError(t, err)
	_, err = d.Store.EraseCustomer(ctx, eraseReq(cust, "annual clean-up of walk-in guests, ticket SUP-7"))
	assert.NoError(t, err)
}
