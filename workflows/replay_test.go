package workflows_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/workflows"
)

// TestRecordedHistoriesReplay replays histories recorded from real runs (testdata/histories,
// written by the end-to-end tests with BOOKFLOW_RECORD_HISTORIES set). A change to the workflow
// code that would break bookings already running fails here: guard such changes with
// workflow.GetVersion, and record new histories next to the old ones.
func TestRecordedHistoriesReplay(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no recorded histories: run scripts/record-histories")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			require.NoError(t, workflows.NewReplayer().ReplayWorkflowHistoryFromJSONFile(nil, f))
		})
	}
}
