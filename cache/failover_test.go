package cache_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/cache"
	"github.com/bookflow/bookflow/testsuite"
)

// TestTheCacheFollowsASentinelFailover: through Sentinel the cache reaches the primary; when
// the primary is killed and the Sentinels promote the replica, the same client writes to the new
// primary without a restart. During the switch its calls fail (the callers fall back to
// PostgreSQL), and never hang past the client's short timeouts.
func TestTheCacheFollowsASentinelFailover(t *testing.T) {
	t.Parallel()
	r := testsuite.StartRedisSentinel(t)
	c, err := cache.NewFailover(r.Sentinels, r.Master, "", "failover:")
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Redis.Close() })
	ctx := context.Background()
	require.NoError(t, c.Redis.Set(ctx, c.Prefix+"k", "before", 0).Err())
	port := func() int {
		conf, err := c.Redis.ConfigGet(ctx, "port").Result()
		require.NoError(t, err)
		p, _ := strconv.Atoi(conf["port"])
		return p
	}
	require.Equal(t, r.Primary, port(), "the client is on the first primary")

	r.KillPrimary()
	var slowest time.Duration
	require.Eventually(t, func() bool {
		began := time.Now()
		err := c.Redis.Set(ctx, c.Prefix+"k", "after", 0).Err()
		slowest = max(slowest, time.Since(began))
		return err == nil
	}, 30*time.Second, 100*time.Millisecond, "writes reach the promoted replica")
	assert.Equal(t, r.Replica, port(), "the client followed the Sentinels to the replica they promoted")
	assert.Less(t, slowest, 2*time.Second, "no call waited long for the dead primary")
	got, err := c.Redis.Get(ctx, c.Prefix+"k").Result()
	require.NoError(t, err)
	assert.Equal(t, "after", got)
}
