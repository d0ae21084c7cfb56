// Package worker registers bookflow's workflows and activities on their task queue.
package worker

import (
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/workflows"
)

// New returns a worker for the booking task queue (workflows.TaskQueue unless taskQueue is set),
// with the booking workflow and its activities registered. Start it with Run or Start.
func New(c client.Client, store *db.Store, taskQueue string) sdkworker.Worker {
	if taskQueue == "" {
		taskQueue = workflows.TaskQueue
	}
	w := sdkworker.New(c, taskQueue, sdkworker.Options{})
	Register(w, store)
	return w
}

// Register adds the workflows and activities to any registry (a worker, or a test environment).
func Register(r sdkworker.Registry, store *db.Store) {
	r.RegisterWorkflowWithOptions(workflows.BookingWorkflow, workflow.RegisterOptions{Name: workflows.BookingWorkflowName})
	r.RegisterActivity(&activities.Bookings{Store: store})
}
