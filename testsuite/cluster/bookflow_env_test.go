package cluster

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestEachProcessGetsItsOwnAddresses: startBookflow appends each
// process's HTTP_ADDR and METRICS_ADDR to the one slice bookflowEnv returns. When that slice has
// spare capacity (Options.Env of 1 to 5 entries, or 11, ...) every process shares one backing
// array and is started with the last API's addresses: both APIs bind the same port and the
// workers lose their METRICS_ADDR. The suite's 14 entries and bookflow-cluster's 6 happen to
// fill the slice exactly, so neither shows it today.
func TestEachProcessGetsItsOwnAddresses(t *testing.T) {
	fake := t.TempDir() // an haproxy that exits at once: nothing here listens
	require.NoError(t, os.WriteFile(filepath.Join(fake, "haproxy"), []byte("#!/bin/sh\nexit 0\n"), 0o755))
	t.Setenv("PATH", fake+string(os.PathListSeparator)+os.Getenv("PATH"))
	old := waitFor
	waitFor = func(context.Context, time.Duration, string, func() bool, ...func() error) error { return nil }
	t.Cleanup(func() { waitFor = old })

	c := &Cluster{o: Options{APIs: 2, Workers: 2, Bookflow: "/bin/true", Env: []string{"A=1", "B=2", "C=3"}}, dir: t.TempDir(),
		Redis:    &Redis{Sentinels: [3]*Process{{Addr: "127.0.0.1:1"}, {Addr: "127.0.0.1:2"}, {Addr: "127.0.0.1:3"}}},
		Temporal: &Temporal{Frontend: "127.0.0.1:4"}}
	require.NoError(t, c.startBookflow(context.Background(), []int{20001, 20002, 20003, 20004, 20005, 20006}, 20007))
	for _, p := range c.APIs {
		require.Contains(t, p.Env, "HTTP_ADDR="+p.Addr, "%s's environment: %v", p.Name, p.Env)
	}
	for _, p := range c.Workers {
		require.True(t, slices.Contains(p.Env, "METRICS_ADDR="+p.Addr), "%s's environment: %v", p.Name, p.Env)
	}
}
