// Package actions estimates what one workflow run costs in Temporal Cloud's billing unit, the
// Action, from its event history. It is an estimate, per the Action types Temporal Cloud
// publishes (docs.temporal.io/cloud/actions): what never reaches the history is not counted —
// queries, activity heartbeats, workflow task heartbeats of long local activities, rejected
// updates (a rejected update writes no event), schedules — and a Signal-With-Start, billed as one
// Action, shows in the history as a start and a signal, so it is counted as two.
package actions

import (
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
)

// Marker names the Go SDK records (internal_command_state_machine.go).
const (
	markerLocalActivity     = "LocalActivity"
	markerSideEffect        = "SideEffect"
	markerMutableSideEffect = "MutableSideEffect"
	markerVersion           = "Version"
	// changeVersion is the search attribute GetVersion upserts; Temporal Cloud does not bill it.
	changeVersion = "TemporalChangeVersion"
)

// Actions are one run's estimated Actions by kind.
type Actions struct {
	Starts          int // WorkflowExecutionStarted: client start, Update- or Signal-With-Start, continue-as-new run, child
	Activities      int // ActivityTaskScheduled
	ActivityRetries int // attempts after the first (ActivityTaskStarted.attempt - 1)
	LocalActivities int // workflow tasks that recorded local activity markers, one each, plus their retries
	SideEffects     int // SideEffect and MutableSideEffect markers (a mutable one is recorded only when it changes)
	Timers          int // TimerStarted, including the SDK's own for AwaitWithTimeout
	Signals         int // WorkflowExecutionSignaled received, SignalExternalWorkflowExecutionInitiated sent
	Cancels         int // RequestCancelExternalWorkflowExecutionInitiated
	Updates         int // WorkflowExecutionUpdateAccepted
	Upserts         int // UpsertWorkflowSearchAttributes, except GetVersion's TemporalChangeVersion alone
	Memos           int // WorkflowPropertiesModified (memo upserts)
	ChildStarts     int // StartChildWorkflowExecutionInitiated: the intent; the child's start is in its own history
	Other           int // options updated, Nexus operations, resets, unknown markers
}

// Total is the estimated Actions of the run.
func (a Actions) Total() int {
	return a.Starts + a.Activities + a.ActivityRetries + a.LocalActivities + a.SideEffects + a.Timers +
		a.Signals + a.Cancels + a.Updates + a.Upserts + a.Memos + a.ChildStarts + a.Other
}

// Run is what one run's history shows: its Actions, its persisted events and its workflow tasks
// (each completed one a round trip between the server and a worker).
type Run struct {
	Actions       Actions
	Events        int
	WorkflowTasks int
}

// Add sums runs, for averages over many.
func (r Run) Add(o Run) Run {
	a, b := r.Actions, o.Actions
	return Run{Events: r.Events + o.Events, WorkflowTasks: r.WorkflowTasks + o.WorkflowTasks, Actions: Actions{
		Starts: a.Starts + b.Starts, Activities: a.Activities + b.Activities, ActivityRetries: a.ActivityRetries + b.ActivityRetries,
		LocalActivities: a.LocalActivities + b.LocalActivities, SideEffects: a.SideEffects + b.SideEffects, Timers: a.Timers + b.Timers,
		Signals: a.Signals + b.Signals, Cancels: a.Cancels + b.Cancels, Updates: a.Updates + b.Updates, Upserts: a.Upserts + b.Upserts,
		Memos: a.Memos + b.Memos, ChildStarts: a.ChildStarts + b.ChildStarts, Other: a.Other + b.Other,
	}}
}

// Count estimates the Actions of one run from its history, in event order.
func Count(events []*historypb.HistoryEvent) Run {
	r := Run{Events: len(events)}
	a := &r.Actions
	lastTask := int64(0)        // the latest WorkflowTaskCompleted, for markers that do not name theirs
	laTasks := map[int64]bool{} // workflow tasks whose local activities were billed
	for _, ev := range events {
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
			a.Starts++
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			r.WorkflowTasks++
			lastTask = ev.GetEventId()
			// Local activity attempts after the first, as the server meters them.
			a.LocalActivities += int(ev.GetWorkflowTaskCompletedEventAttributes().GetMeteringMetadata().GetNonfirstLocalActivityExecutionAttempts())
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED:
			if ev.GetWorkflowTaskFailedEventAttributes().GetCause() == enumspb.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW {
				a.Other++
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			a.Activities++
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			// Written once per activity, at its end, with the attempt it ended on: the attempts
			// before it had no event of their own.
			if n := ev.GetActivityTaskStartedEventAttributes().GetAttempt(); n > 1 {
				a.ActivityRetries += int(n - 1)
			}
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			m := ev.GetMarkerRecordedEventAttributes()
			switch m.GetMarkerName() {
			case markerLocalActivity:
				task := m.GetWorkflowTaskCompletedEventId()
				if task == 0 {
					task = lastTask
				}
				if !laTasks[task] {
					laTasks[task] = true
					a.LocalActivities++
				}
			case markerSideEffect, markerMutableSideEffect:
				a.SideEffects++
			case markerVersion:
			default:
				a.Other++
			}
		case enumspb.EVENT_TYPE_TIMER_STARTED:
			a.Timers++
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, enumspb.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:
			a.Signals++
		case enumspb.EVENT_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:
			a.Cancels++
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
			a.Updates++
		case enumspb.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
			fields := ev.GetUpsertWorkflowSearchAttributesEventAttributes().GetSearchAttributes().GetIndexedFields()
			if _, versioned := fields[changeVersion]; !versioned || len(fields) > 1 {
				a.Upserts++
			}
		case enumspb.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED:
			a.Memos++
		case enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
			a.ChildStarts++
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_OPTIONS_UPDATED, enumspb.EVENT_TYPE_NEXUS_OPERATION_SCHEDULED,
			enumspb.EVENT_TYPE_NEXUS_OPERATION_CANCEL_REQUESTED:
			a.Other++
		}
	}
	return r
}
