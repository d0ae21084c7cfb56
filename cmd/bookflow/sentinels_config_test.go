package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMalformedSentinelsAreRefused (review3): REDIS_SENTINELS is host:port each, but LoadConfig
// takes any words. A URL given by habit (redis://…) or a missing port starts the API with a
// cache that never answers: every search and the sold-out gate fall back to PostgreSQL and the
// hold rates to per-process counting, with only a warning a minute. Other malformed settings
// (TRUSTED_PROXIES, durations) are refused at start.
func TestMalformedSentinelsAreRefused(t *testing.T) {
	for _, v := range []string{"redis://10.0.0.1:26379", "10.0.0.1", "10.0.0.1:port"} {
		t.Setenv("REDIS_SENTINELS", v)
		t.Setenv("REDIS_SENTINEL_MASTER", "mymaster")
		_, err := LoadConfig()
		assert.Error(t, err, "REDIS_SENTINELS=%q", v)
	}
}
