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

// An operator's action takes its key in the booking's one key space: its own claim retried is
// fresh, the same action from another claim is not, another action or command under it is
// refused, and it refuses a key a desk payment holds.
func TestAnOperatorsActionTakesItsKeyInTheBookingsKeySpace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", nights(dec10, 2), 1)
	takeDesk(t, d, deskPayment(b.ID, "deposit", 3000))

	retry := db.OperatorCommand(b.ID, "op-1", false, "ops")
	fresh, err := d.Store.ClaimOperatorKey(ctx, retry, "run-1/update-1")
	require.NoError(t, err)
	assert.True(t, fresh)
	fresh, err = d.Store.ClaimOperatorKey(ctx, retry, "run-1/update-1")
	require.NoError(t, err)
	assert.True(t, fresh, "the claim's activity retried after it committed: still this claim's")
	fresh, err = d.Store.ClaimOperatorKey(ctx, db.OperatorCommand(b.ID, "op-1", false, "another operator"), "run-1/update-2")
	require.NoError(t, err)
	assert.False(t, fresh, "the same retry sent again, whoever sends it")
	seen, err := d.Store.MoneyCommandSeen(ctx, retry)
	require.NoError(t, err)
	assert.True(t, seen)

	_, err = d.Store.ClaimOperatorKey(ctx, db.OperatorCommand(b.ID, "op-1", true, "ops"), "run-1/update-3")
	require.ErrorIs(t, err, domain.ErrIdempotencyMismatch, "a resolution under the retry's key")
	_, err = d.Store.ClaimOperatorKey(ctx, db.OperatorCommand(b.ID, "deposit", true, "ops"), "run-1/update-4")
	require.ErrorIs(t, err, domain.ErrIdempotencyMismatch, "the desk payment's key")
	_, err = d.Store.TakeDeskPayment(ctx, deskPayment(b.ID, "op-1", 1000))
	require.ErrorIs(t, err, domain.ErrIdempotencyMismatch, "a desk payment under the retry's key")
}
