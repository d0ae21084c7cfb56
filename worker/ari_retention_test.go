package worker_test

import (
	"context"
	"testing"
	"time"

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
	// The pruner keeps what a transaction still open may not have served: every transaction of
	// the cluster (other tests' too) that began before the rows were written must end first.
	require.Eventually(t, func() bool {
		var past bool
		return d.Pool.QueryRow(ctx, `SELECT pg_snapshot_xmin(pg_current_snapshot()) > (SELECT max(xid) FROM ari_changes)`).
			Scan(&past) == nil && past
	}, time.Minute, 20*time.Millisecond, "a transaction of the cluster stayed open")

	n, err := (&worker.ARIPruner{Store: d.Store}).Prune(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 12000, n)
	var left, hotels int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM ari_changes),
		(SELECT count(*) FROM ari_changes_pruned)`).Scan(&left, &hotels))
	assert.Equal(t, 10, left)
	assert.Equal(t, 3, hotels, "each hotel's newest deleted position")
}
