package workflows_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/bookflow/bookflow/workflows"
)

// TestAVersionThreeBookingAskedToConfirmLocallyReplaysItsActivities: a
// booking recorded at lean version 3 (before the local confirmation) whose input asks for it
// (ConfirmLocally, as an upgraded API writes it while an older worker took the first task) keeps
// its confirmation, releases and refunds as activities: each such recording replays.
func TestAVersionThreeBookingAskedToConfirmLocallyReplaysItsActivities(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	require.NoError(t, err)
	n := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		// local-reserve marked at version 3, with a Confirm activity, unsealed.
		if strings.Contains(f, "-sealed") || !strings.Contains(string(raw), `"data": "ImxvY2FsLXJlc2VydmUi"`) ||
			!strings.Contains(string(raw), `"data": "Mw=="`) || !strings.Contains(string(raw), `"name": "Confirm"`) {
			continue
		}
		var hist historypb.History
		require.NoError(t, protojson.Unmarshal(raw, &hist))
		input := hist.Events[0].GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()[0]
		var in map[string]any
		if json.Unmarshal(input.Data, &in) != nil || in["BookingID"] == nil {
			continue
		}
		in["ConfirmLocally"] = true
		input.Data, err = json.Marshal(in)
		require.NoError(t, err)
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			require.NoError(t, workflows.NewReplayer().ReplayWorkflowHistory(nil, &hist))
		})
	}
	require.NotZero(t, n, "no version 3 recording with a confirmation")
	t.Logf("%d recordings", n)
}

// TestControlAVersionFourRecordingWithoutConfirmLocallyDoesNotReplay: the control of the
// test above: the replayer tells a confirmation run locally from one run as an activity (a local
// confirmation's recording, its input stripped of ConfirmLocally, does not replay).
func TestControlAVersionFourRecordingWithoutConfirmLocallyDoesNotReplay(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "histories", "local-confirm-price-change-cancel.json"))
	require.NoError(t, err)
	var hist historypb.History
	require.NoError(t, protojson.Unmarshal(raw, &hist))
	require.NoError(t, workflows.NewReplayer().ReplayWorkflowHistory(nil, &hist), "as recorded")
	input := hist.Events[0].GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()[0]
	var in map[string]any
	require.NoError(t, json.Unmarshal(input.Data, &in))
	require.Equal(t, true, in["ConfirmLocally"])
	delete(in, "ConfirmLocally")
	input.Data, err = json.Marshal(in)
	require.NoError(t, err)
	require.Error(t, workflows.NewReplayer().ReplayWorkflowHistory(nil, &hist))
}
