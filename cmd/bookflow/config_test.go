package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLogsAreJSONExceptForDev: serve and worker write one JSON object per line unless
// LOG_FORMAT says text; dev writes text unless it says json; anything else is refused.
func TestLogsAreJSONExceptForDev(t *testing.T) {
	line := func(format, command string) string {
		t.Setenv("LOG_FORMAT", format)
		cfg, err := LoadConfig()
		require.NoError(t, err)
		var buf bytes.Buffer
		slog.New(cfg.logHandler(command, &buf)).Info("hold created", "bookingId", "b1")
		return buf.String()
	}
	for _, c := range []struct{ format, command string }{{"", "serve"}, {"", "worker"}, {"json", "dev"}} {
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(line(c.format, c.command)), &v), "%+v", c)
		assert.Equal(t, "b1", v["bookingId"])
	}
	for _, c := range []struct{ format, command string }{{"", "dev"}, {"text", "serve"}} {
		assert.True(t, strings.HasPrefix(line(c.format, c.command), "time="), "%+v", c)
	}
	t.Setenv("LOG_FORMAT", "xml")
	_, err := LoadConfig()
	assert.ErrorContains(t, err, "LOG_FORMAT")
}

// BOOKFLOW_SCHEDULE_PREFIX reaches the schedules' ids; unset, they are today's.
func TestTheSchedulePrefixComesFromTheEnvironment(t *testing.T) {
	t.Setenv("BOOKFLOW_SCHEDULE_PREFIX", "")
	cfg, err := LoadConfig()
	require.NoError(t, err)
	schedule, _ := cfg.scheduleIDs().InvariantCheck()
	assert.Equal(t, "bookflow-invariant-check", schedule)
	t.Setenv("BOOKFLOW_SCHEDULE_PREFIX", "eu-")
	cfg, err = LoadConfig()
	require.NoError(t, err)
	schedule, _ = cfg.scheduleIDs().InvariantCheck()
	assert.Equal(t, "eu-bookflow-invariant-check", schedule)
}

// Batched reservations are on unless RESERVE_BATCHING turns them off; a value that is not a
// boolean stops the start with its name.
func TestReserveBatchingComesFromTheEnvironment(t *testing.T) {
	t.Setenv("RESERVE_BATCHING", "")
	cfg, err := LoadConfig()
	require.NoError(t, err)
	assert.True(t, cfg.ReserveBatched)
	t.Setenv("RESERVE_BATCHING", "false")
	cfg, err = LoadConfig()
	require.NoError(t, err)
	assert.False(t, cfg.ReserveBatched)
	t.Setenv("RESERVE_BATCHING", "sometimes")
	_, err = LoadConfig()
	require.ErrorContains(t, err, "RESERVE_BATCHING")
}
