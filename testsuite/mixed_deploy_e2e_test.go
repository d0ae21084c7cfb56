package testsuite_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/bookflow/bookflow/testsuite"
)

// A rolling deploy runs this release's workers beside the previous release's on one task queue.
// The local confirmation is version 4 (and up) of the lean booking's marker: a booking this release
// started is refused by a previous release's worker (a version it does not know fails its
// workflow task, nothing is run), and one the previous release started records version 3 and
// keeps the confirmation as an activity on every worker.
func TestAWorkerOfThePreviousReleaseNeverRunsABookingThisReleaseStarted(t *testing.T) {
	t.Parallel()
	previous := testsuite.BuildRelease(t, testsuite.PreviousRelease)
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{WorkflowTimeout: time.Minute})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-mixed", "double", stay, 3)

	// Started by this release's worker, then paid while only the previous release's runs.
	ours, oursTotal := holdRoom(t, sys, "h-mixed", "k-ours", stay, 1)
	old := sys.StartReleaseWorker(t, previous)
	res := sys.Webhook(t, testsuite.PaymentEvent("evt_ours", "pi_ours", ours, oursTotal, "EUR"), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool { return countEvents(t, sys, ours, enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED) > 0 },
		time.Minute, 200*time.Millisecond, "the previous release's worker refuses the booking's task")
	assert.Equal(t, "HOLD", dbStatus(t, sys, ours), "the previous release's worker took no step")

	// Started while only the previous release's worker runs: it records version 3.
	theirs, theirsTotal := holdRoom(t, sys, "h-mixed", "k-theirs", stay, 1)
	payAndConfirm(t, sys, theirs, theirsTotal, "evt_theirs", "pi_theirs")

	old.Kill()
	sys.StartWorker(t)
	require.Eventually(t, func() bool { return dbStatus(t, sys, ours) == "CONFIRMED" }, time.Minute, 100*time.Millisecond,
		"this release's worker takes its booking over and confirms it")
	res = cancel(t, sys, sys.Customer("guest"), theirs)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitStatus(t, sys, theirs, "REFUNDED")

	assert.Zero(t, scheduled(t, sys, ours, "Confirm"), "this release's booking confirms locally, never by an activity task")
	assert.Equal(t, 1, scheduled(t, sys, theirs, "Confirm"), "the previous release's booking keeps the activity")
	assert.Equal(t, 2, roomsLeft(t, sys, "h-mixed", "double", stay), "ours keeps its room, theirs gave its back")
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, ours, "local-confirm-refused-by-previous-release")
	testsuite.ReplayAndRecord(t, sys.Temporal, theirs, "confirm-activity-started-by-previous-release")
}

func historyOf(t *testing.T, sys *testsuite.System, id string) []*historypb.HistoryEvent {
	t.Helper()
	iter := sys.Temporal.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var events []*historypb.HistoryEvent
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		events = append(events, ev)
	}
	return events
}

func countEvents(t *testing.T, sys *testsuite.System, id string, kind enumspb.EventType) int {
	t.Helper()
	n := 0
	for _, ev := range historyOf(t, sys, id) {
		if ev.GetEventType() == kind {
			n++
		}
	}
	return n
}

// scheduled counts the activity tasks of type name in the workflow's history.
func scheduled(t *testing.T, sys *testsuite.System, id, name string) int {
	t.Helper()
	n := 0
	for _, ev := range historyOf(t, sys, id) {
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == name {
			n++
		}
	}
	return n
}
