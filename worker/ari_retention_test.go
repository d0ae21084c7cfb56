package worker_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/worker"
)

// The ARI feed's pruning goes on batch after batch (5000 a statement) until every change older
// than the retention (the default, 7 days) is gone, and keeps each hotel's newest deleted
// position: the 10 recent changes stay.
func TestARIPrunerDeletesEveryOldChangeInBatches(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	_, err := d.Pool.Exec(ctx, `INSERT INTO ari_changes (hotel_id, room_type, kind, created_at)
		SELECT 'h' || (g % 3), 'double', 'availability',
			now() - CASE WHEN g <= 12000 THEN interval '8 days' ELSE interval '6 days' END
		FROM generate_series(1, 12010) g`)
	require.NoError(t, err)

	n, err := (&worker.ARIPruner{Store: d.Store}).Prune(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 12000, n)
	var left, hotels int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM ari_changes),
		(SELECT count(*) FROM ari_changes_pruned)`).Scan(&left, &hotels))
	assert.Equal(t, 10, left)
	assert.Equal(t, 3, hotels, "each hotel's newest deleted position")
}
