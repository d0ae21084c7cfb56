package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPostgresDataStaysInTheClusterDir: Start makes its directory with
// os.MkdirTemp (mode 0700), which the postgres user cannot enter when the suite runs as root, so
// postgresDir puts the servers' data in a second temporary directory that Stop never removes:
// every cluster run as root leaves its three data directories (hundreds of MB) and its
// PostgreSQL logs outside the directory Stop removes or reports as "the cluster's logs".
func TestPostgresDataStaysInTheClusterDir(t *testing.T) {
	dir, err := os.MkdirTemp("", "bookflow-cluster-") // as Start does when Options.Dir is empty
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	pgDir, err := postgresDir(dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(pgDir) })
	require.True(t, strings.HasPrefix(pgDir, dir+string(filepath.Separator)),
		"PostgreSQL's data goes to %s, outside %s, which Stop removes", pgDir, dir)
}
