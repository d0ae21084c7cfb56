package main

import (
	"context"
	"fmt"
	"sync"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/workflows/actions"
)

// actionsSample is how many workflows of each measurement have their histories read for
// their Temporal actions; read after the measurement, so not metered in its CPU.
const actionsSample = 20

// benchUpdateBaselineWorkflow is the fair bare baseline of a booking: the same two client round
// trips, an Update-with-Start and one more update, and nothing else.
func benchUpdateBaselineWorkflow(ctx workflow.Context) error {
	updates := 0
	if err := workflow.SetUpdateHandler(ctx, "go", func(workflow.Context) error {
		updates++
		return nil
	}); err != nil {
		return err
	}
	return workflow.Await(ctx, func() bool { return updates == 2 })
}

// updateBaselineOnce makes the baseline's two round trips on workflow id.
func updateBaselineOnce(ctx context.Context, c client.Client, id, queue string) error {
	start := c.NewWithStartWorkflowOperation(client.StartWorkflowOptions{ID: id, TaskQueue: queue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING}, "BenchUpdateBaseline")
	h, err := c.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{StartWorkflowOperation: start,
		UpdateOptions: client.UpdateWorkflowOptions{UpdateName: "go", WaitForStage: client.WorkflowUpdateStageCompleted}})
	if err != nil {
		return err
	}
	if err := h.Get(ctx, nil); err != nil {
		return err
	}
	h, err = c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: id, UpdateName: "go",
		WaitForStage: client.WorkflowUpdateStageCompleted})
	if err != nil {
		return err
	}
	return h.Get(ctx, nil)
}

// sampler keeps the first workflow ids of a measurement.
type sampler struct {
	mu  sync.Mutex
	ids []string
}

func (s *sampler) add(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.ids) < actionsSample {
		s.ids = append(s.ids, id)
	}
}

// take returns the ids kept and starts again.
func (s *sampler) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := s.ids
	s.ids = nil
	return ids
}

// actionsTally is the summed runs of the sampled histories of one measurement, over rounds.
type actionsTally struct {
	sum actions.Run
	n   int
	err error
}

// count reads each workflow's latest run's history so far and adds its count.
func (t *actionsTally) count(ctx context.Context, c client.Client, ids []string) {
	for _, id := range ids {
		iter := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		var events []*historypb.HistoryEvent
		for iter.HasNext() {
			ev, err := iter.Next()
			if err != nil {
				t.err = fmt.Errorf("history of %s: %w", id, err)
				return
			}
			events = append(events, ev)
		}
		t.sum = t.sum.Add(actions.Count(events))
		t.n++
	}
}

// printActions prints the mean Temporal actions, events and workflow tasks per workflow of
// each measurement.
func printActions(names []string, tallies map[string]*actionsTally) {
	fmt.Printf("\n  Temporal actions per hold (or booking), estimated from up to %d histories a round as Temporal Cloud bills them\n", actionsSample)
	fmt.Printf("  (workflows/actions; histories read right after the measurement, so a hold's expiry is not in them):\n")
	fmt.Printf("    %-40s %8s %7s %6s   %s\n", "", "actions", "events", "tasks", "start activity local timer signal update upsert")
	for _, name := range names {
		t := tallies[name]
		if t == nil || t.n == 0 {
			if t != nil && t.err != nil {
				fmt.Printf("    %-40s %v\n", name, t.err)
			}
			continue
		}
		n, a := float64(t.n), t.sum.Actions
		per := func(v int) float64 { return float64(v) / n }
		fmt.Printf("    %-40s %8.2f %7.2f %6.2f   %5.2f %8.2f %5.2f %5.2f %6.2f %6.2f %6.2f\n", name, per(a.Total()), per(t.sum.Events),
			per(t.sum.WorkflowTasks), per(a.Starts), per(a.Activities+a.ActivityRetries), per(a.LocalActivities), per(a.Timers),
			per(a.Signals), per(a.Updates), per(a.Upserts))
		if t.err != nil {
			fmt.Printf("      (%v)\n", t.err)
		}
	}
	fmt.Println("    (a Signal-With-Start is billed as 1 action but shows as a start and a signal: counted 2)")
}
