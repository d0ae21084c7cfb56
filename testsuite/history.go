package testsuite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/bookflow/bookflow/workflows"
)

// ReplayAndRecord fetches a workflow's history from the server and replays it against the
// current workflow code, which fails on any non-deterministic change. With
// BOOKFLOW_RECORD_HISTORIES set to a folder it also writes the history there as name.json;
// workflows/testdata/histories keeps such recordings, replayed by the workflows tests so that
// later changes stay compatible with histories of running bookings.
func ReplayAndRecord(t testing.TB, c client.Client, workflowID, name string) {
	t.Helper()
	ReplayAndRecordRun(t, c, workflowID, "", name)
}

// ReplayAndRecordRun is ReplayAndRecord for one run of the workflow ("" the latest).
func ReplayAndRecordRun(t testing.TB, c client.Client, workflowID, runID, name string) {
	t.Helper()
	iter := c.GetWorkflowHistory(context.Background(), workflowID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		h.Events = append(h.Events, ev)
	}
	// Opening sealed payloads too: a system may seal them (SealPayloads).
	keys := RecordingPayloadKeys()
	replayer, err := workflows.NewReplayerOpening(keys.DataConverter(), keys.FailureConverter())
	require.NoError(t, err)
	require.NoError(t, replayer.ReplayWorkflowHistory(nil, h), "replay %s", workflowID)
	if dir := os.Getenv("BOOKFLOW_RECORD_HISTORIES"); dir != "" {
		raw, err := protojson.MarshalOptions{Indent: "  "}.Marshal(h)
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".json"), raw, 0o644))
	}
}
