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

// TestCORSOriginsAreOriginsOnly: CORS_ALLOWED_ORIGINS takes origins (scheme://host[:port]) or "*"
// alone; anything else is refused at start rather than allowing nobody or everybody by mistake.
func TestCORSOriginsAreOriginsOnly(t *testing.T) {
	t.Setenv("CORS_ALLOWED_ORIGINS", " https://Shop.example.com , http://127.0.0.1:8080/")
	c, err := LoadConfig()
	assert.NoError(t, err)
	assert.Equal(t, []string{"https://shop.example.com", "http://127.0.0.1:8080"}, c.CORSOrigins)
	for _, v := range []string{"shop.example.com", "https://shop.example.com/checkout", "ftp://shop.example.com",
		"*, https://shop.example.com", "https://user@shop.example.com", "https://shop.example.com?x=1"} {
		t.Setenv("CORS_ALLOWED_ORIGINS", v)
		_, err := LoadConfig()
		assert.Error(t, err, "CORS_ALLOWED_ORIGINS=%q", v)
	}
}
