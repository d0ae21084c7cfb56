package actions_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/bookflow/bookflow/workflows/actions"
)

func load(t *testing.T, name string) []*historypb.HistoryEvent {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "histories", name))
	require.NoError(t, err)
	var h historypb.History
	require.NoError(t, protojson.Unmarshal(raw, &h))
	return h.Events
}

// TestARecordedBookingsActions pins the count of one recording checked by hand, event by event:
// a hold (reserved by a local activity), its confirmation and its cancellation.
func TestARecordedBookingsActions(t *testing.T) {
	r := actions.Count(load(t, "hold-confirm-cancel-reserve-as-activity-false.json"))
	assert.Equal(t, actions.Actions{
		Starts:          1, // 1
		Activities:      3, // 17 Confirm, 35 DepartEarly, 41 Release
		LocalActivities: 1, // 9 Reserve
		Timers:          3, // 11 hold expiry, 27 stay, 49 late window
		Updates:         3, // 5 hold, 16 confirm, 32 cancel
		Upserts:         4, // 6, 10, 23, 47; not GetVersion's 8, 26, 34
	}, r.Actions)
	assert.Equal(t, 15, r.Actions.Total())
	assert.Equal(t, 50, r.Events)
	assert.Equal(t, 6, r.WorkflowTasks)
}

func event(id int64, typ enumspb.EventType) *historypb.HistoryEvent {
	return &historypb.HistoryEvent{EventId: id, EventType: typ}
}

func marker(id, task int64, name string) *historypb.HistoryEvent {
	ev := event(id, enumspb.EVENT_TYPE_MARKER_RECORDED)
	ev.Attributes = &historypb.HistoryEvent_MarkerRecordedEventAttributes{MarkerRecordedEventAttributes: &historypb.MarkerRecordedEventAttributes{
		MarkerName: name, WorkflowTaskCompletedEventId: task}}
	return ev
}

func upsert(id int64, fields ...string) *historypb.HistoryEvent {
	ev := event(id, enumspb.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES)
	sa := &commonpb.SearchAttributes{IndexedFields: map[string]*commonpb.Payload{}}
	for _, f := range fields {
		sa.IndexedFields[f] = &commonpb.Payload{}
	}
	ev.Attributes = &historypb.HistoryEvent_UpsertWorkflowSearchAttributesEventAttributes{
		UpsertWorkflowSearchAttributesEventAttributes: &historypb.UpsertWorkflowSearchAttributesEventAttributes{SearchAttributes: sa}}
	return ev
}

func started(id int64, attempt int32) *historypb.HistoryEvent {
	ev := event(id, enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED)
	ev.Attributes = &historypb.HistoryEvent_ActivityTaskStartedEventAttributes{
		ActivityTaskStartedEventAttributes: &historypb.ActivityTaskStartedEventAttributes{Attempt: attempt}}
	return ev
}

// TestTheCountingRules checks the rules the recordings do not exercise: local activities of one
// workflow task are one Action, retries count once each, version markers and their upserts are
// free, side effects are not.
func TestTheCountingRules(t *testing.T) {
	r := actions.Count([]*historypb.HistoryEvent{
		event(1, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED),
		event(4, enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED),
		marker(5, 4, "LocalActivity"), marker(6, 4, "LocalActivity"), marker(7, 0, "LocalActivity"), // one task: 1
		marker(8, 4, "Version"), upsert(9, "TemporalChangeVersion"), // free
		marker(10, 4, "SideEffect"), marker(11, 4, "MutableSideEffect"), // 2
		upsert(12, "BookingStatus"), upsert(13, "BookingStatus", "TemporalChangeVersion"), // 2
		event(14, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED), started(15, 3), // 1 + 2 retries
		event(16, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED), started(17, 1), // 1
		event(18, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED), // 1, never started
		event(21, enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED),
		marker(22, 21, "LocalActivity"), // a second task: 1
		event(23, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED),
		event(24, enumspb.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED),
		event(25, enumspb.EVENT_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED),
		event(26, enumspb.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED),
		event(27, enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED),
		event(28, enumspb.EVENT_TYPE_TIMER_STARTED),
		event(29, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED),
	})
	assert.Equal(t, actions.Actions{Starts: 1, Activities: 3, ActivityRetries: 2, LocalActivities: 2, SideEffects: 2,
		Timers: 1, Signals: 2, Cancels: 1, Updates: 1, Upserts: 2, Memos: 1, ChildStarts: 1}, r.Actions)
	assert.Equal(t, 2, r.WorkflowTasks)
	assert.Equal(t, 25, r.Events)
}

// TestActionsOfTheRecordedPaths prints the table docs/benchmarks-and-scaling.md quotes (go test
// -v -run TestActionsOfTheRecordedPaths ./workflows/actions), and counts every recording.
func TestActionsOfTheRecordedPaths(t *testing.T) {
	paths := []struct{ path, file string }{
		{"hold, expired", "hold-expire.json"},
		{"hold, confirm, cancel (local reserve)", "hold-confirm-cancel-reserve-as-activity-false.json"},
		{"hold, confirm, cancel (activity reserve)", "hold-confirm-cancel-reserve-as-activity-true.json"},
		{"paid, cancelled, refunded", "venue-order-paid-cancelled-refunded.json"},
		{"hold expired, late payment refunded", "late-payment-refunded.json"},
		{"lean: hold, expired", "hold-expire-lean-marked.json"},
		{"lean: hold, confirm, cancel (local reserve)", "hold-confirm-cancel-reserve-as-activity-false-lean-marked.json"},
		{"lean: hold, confirm, cancel (activity reserve)", "hold-confirm-cancel-reserve-as-activity-true-lean-marked.json"},
		{"lean: paid, cancelled, refunded", "venue-order-paid-cancelled-refunded-lean-marked.json"},
		{"lean: hold expired, late payment refunded", "late-payment-refunded-lean-marked.json"},
	}
	t.Logf("| path | actions | start | activities | local | timers | signals | updates | upserts | events | workflow tasks |")
	for _, p := range paths {
		r := actions.Count(load(t, p.file))
		a := r.Actions
		require.Equal(t, 1, a.Starts, p.file)
		t.Logf("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |", p.path, a.Total(), a.Starts, a.Activities+a.ActivityRetries,
			a.LocalActivities, a.Timers, a.Signals, a.Updates, a.Upserts, r.Events, r.WorkflowTasks)
	}
	files, err := filepath.Glob(filepath.Join("..", "testdata", "histories", "*.json"))
	require.NoError(t, err)
	for _, f := range files {
		r := actions.Count(load(t, filepath.Base(f)))
		assert.Positive(t, r.Actions.Total(), f)
		t.Logf("%-70s actions %3d  events %3d  workflow tasks %2d", strings.TrimSuffix(filepath.Base(f), ".json"), r.Actions.Total(), r.Events, r.WorkflowTasks)
	}
}
