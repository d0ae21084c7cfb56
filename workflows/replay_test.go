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

	"github.com/bookflow/bookflow/codec"
	"github.com/bookflow/bookflow/workflows"
)

// TestRecordedHistoriesReplay replays histories recorded from real runs (testdata/histories,
// written by the end-to-end tests with BOOKFLOW_RECORD_HISTORIES set). A change to the workflow
// code that would break bookings already running fails here: guard such changes with
// workflow.GetVersion, and record new histories next to the old ones.
//
// Each replays as a worker without payload keys runs it, and as one with keys (codec.Keys),
// which opens sealed payloads and takes the others as they are: histories recorded before
// sealing was switched on keep replaying once it is. The sealed recordings (*-sealed.json, and
// *-sealed-midway.json, whose worker began sealing while the booking ran) were sealed with the
// tests' recording key (testsuite's recordingPayloadKeys, repeated here), and replay only with
// it.
func TestRecordedHistoriesReplay(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no recorded histories: run scripts/record-histories")
	keys, err := codec.ParseKeys("recordings-2026-12:Ym9va2Zsb3ctcmVjb3JkaW5ncy10ZXN0LWtleS0zMmI=", "recordings-2026-12")
	require.NoError(t, err)
	sealed := 0
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			opening, err := workflows.NewReplayerOpening(keys.DataConverter(), keys.FailureConverter())
			require.NoError(t, err)
			require.NoError(t, opening.ReplayWorkflowHistoryFromJSONFile(nil, f), "with payload keys")
			if strings.Contains(f, "-sealed") {
				sealed++
				if strings.HasSuffix(f, "-sealed.json") {
					require.Error(t, workflows.NewReplayer().ReplayWorkflowHistoryFromJSONFile(nil, f),
						"a sealed recording that replays without the key was not sealed")
				}
				return
			}
			require.NoError(t, workflows.NewReplayer().ReplayWorkflowHistoryFromJSONFile(nil, f), "without payload keys")
		})
	}
	require.NotZero(t, sealed, "no sealed recordings")
}

// TestAnUnmarkedActivityReservationAskedToRunLocallyReplays replays a booking that an upgraded
// API asked to reserve locally while its worker predated the local activity: the history has the
// activity and no version marker. Made from a recording by setting ReserveLocally in its input.
func TestAnUnmarkedActivityReservationAskedToRunLocallyReplays(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "histories", "hold-confirm-cancel-reserve-as-activity-true.json"))
	require.NoError(t, err)
	var hist historypb.History
	require.NoError(t, protojson.Unmarshal(raw, &hist))
	input := hist.Events[0].GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()[0]
	var in map[string]any
	require.NoError(t, json.Unmarshal(input.Data, &in))
	require.NotContains(t, in, "ReserveLocally", "the recording is of a workflow asked for the activity")
	in["ReserveLocally"] = true
	input.Data, err = json.Marshal(in)
	require.NoError(t, err)
	require.NoError(t, workflows.NewReplayer().ReplayWorkflowHistory(nil, &hist))
}
