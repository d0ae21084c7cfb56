package cache_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/cache"
)

// TestTheFailoverClientKeepsTheURLsTLS: NewFailover takes the username, password and
// database from REDIS_URL but drops the rest of what redis.ParseURL gave, TLS above all: with
// REDIS_URL=rediss://… (TLS required) and Sentinels, the cache connects in the clear, where
// cache.New with the same URL uses TLS.
func TestTheFailoverClientKeepsTheURLsTLS(t *testing.T) {
	const url = "rediss://:secret@redis.example:6380/2"
	plain, err := cache.New(url, "")
	require.NoError(t, err)
	t.Cleanup(func() { _ = plain.Redis.Close() })
	require.NotNil(t, plain.Redis.Options().TLSConfig, "the control: cache.New speaks TLS for rediss://")
	failover, err := cache.NewFailover([]string{"127.0.0.1:1"}, "mymaster", url, "")
	require.NoError(t, err)
	t.Cleanup(func() { _ = failover.Redis.Close() })
	assert.Equal(t, "secret", failover.Redis.Options().Password)
	assert.NotNil(t, failover.Redis.Options().TLSConfig, "through Sentinel, rediss:// must still mean TLS")
}
