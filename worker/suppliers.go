package worker

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/workflows"
)

// DefaultSupplierSyncInterval is how often a supplier's stock is pulled by default
// (SUPPLIER_SYNC_INTERVAL).
const DefaultSupplierSyncInterval = 5 * time.Minute

// SupplierSchedules keeps one stock sync schedule per supplier that keeps its stock here and
// serves it (direct_procure with an endpoint), every Interval, on TaskQueue, named by IDs (the
// deployment's prefix).
type SupplierSchedules struct {
	Temporal  client.Client
	TaskQueue string
	Interval  time.Duration
	IDs       workflows.ScheduleIDs
}

// Ensure makes, updates or removes the supplier's schedule to match the supplier as stored.
func (s SupplierSchedules) Ensure(ctx context.Context, sup db.Supplier) error {
	id, workflowID := s.IDs.SupplierSync(sup.ID)
	if sup.Mode != db.ModeDirectProcure || sup.Endpoint == "" {
		err := s.Temporal.ScheduleClient().GetHandle(ctx, id).Delete(ctx)
		var notFound *serviceerror.NotFound
		if errors.As(err, &notFound) {
			return nil
		}
		return err
	}
	queue := s.TaskQueue
	if queue == "" {
		queue = workflows.TaskQueue
	}
	every := s.Interval
	if every <= 0 {
		every = DefaultSupplierSyncInterval
	}
	return ensureSchedule(ctx, s.Temporal, id, every, &client.ScheduleWorkflowAction{
		ID: workflowID, Workflow: workflows.SupplierSyncWorkflowName, TaskQueue: queue,
		Args: []any{sup.ID}})
}

// EnsureAll brings every stored supplier's schedule up to date (a newer worker may run another
// interval or task queue).
func (s SupplierSchedules) EnsureAll(ctx context.Context, store *db.Store) error {
	sups, err := store.Suppliers(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, sup := range sups {
		errs = append(errs, s.Ensure(ctx, sup))
	}
	return errors.Join(errs...)
}
