package cluster

import (
	"os/exec"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTheShellFillsTheTemporalConfigAsGoDoes: scripts/lib.sh's start_temporal_server (scripts/dev's
// BOOKFLOW_TEMPORAL=server, scripts/bench) and the cluster write the Temporal server's
// configuration from the one template, each with its own filler; both must write the same, and
// both refuse a name left without a value.
func TestTheShellFillsTheTemporalConfigAsGoDoes(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip(err)
	}
	vars := map[string]string{"DB": "temporal_7233", "VISIBILITY_DB": "temporal_visibility_7233", "PG_ADDR": "127.0.0.1:54329",
		"DYNAMIC_CONFIG": "/data/dir with space/&amp.yaml", "FRONTEND_PORT": "7233", "FRONTEND_MEMBERSHIP_PORT": "7333",
		"FRONTEND_HTTP_PORT": "7433", "HISTORY_PORT": "7234", "HISTORY_MEMBERSHIP_PORT": "7334", "MATCHING_PORT": "7235",
		"MATCHING_MEMBERSHIP_PORT": "7335", "WORKER_PORT": "7236", "WORKER_MEMBERSHIP_PORT": "7336"}
	shell := func(vars map[string]string) (string, error) {
		args := []string{"-c", `source scripts/lib.sh && fill_template testsuite/cluster/temporal-server.yaml "$@"`, "fill"}
		for k, v := range vars {
			args = append(args, k+"="+v)
		}
		sort.Strings(args[3:])
		cmd := exec.Command("bash", args...)
		cmd.Dir = "../.."
		out, err := cmd.Output()
		return string(out), err
	}
	want, err := fillTemplate(temporalServerConfig, vars)
	require.NoError(t, err)
	got, err := shell(vars)
	require.NoError(t, err)
	require.Equal(t, want, got)

	delete(vars, "WORKER_PORT")
	_, err = fillTemplate(temporalServerConfig, vars)
	require.ErrorContains(t, err, "WORKER_PORT")
	_, err = shell(vars)
	require.Error(t, err, "fill_template without WORKER_PORT")
}
