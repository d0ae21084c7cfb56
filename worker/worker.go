// Package worker registers bookflow's workflows and activities on their task queue, keeps their
// schedules, and hands them what comes from outside (payment events).
package worker

import (
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/workflows"
)

// ActivitiesPerConnection sizes a worker's activity concurrency by its database pool: most of an
// activity's time is spent outside the database (a provider call, the round trip to Temporal),
// but without a bound the SDK's default of 1,000 activities queue on a handful of connections
// and time out waiting for one.
const ActivitiesPerConnection = 4

// LocalActivitiesPerConnection sizes a worker's local activity concurrency (the reservations and
// the confirmations) by its database pool.
const LocalActivitiesPerConnection = 2

// New returns a worker for the booking task queue (workflows.TaskQueue unless taskQueue is set),
// with the booking workflows and their activities registered, running at most
// ActivitiesPerConnection activities and LocalActivitiesPerConnection local activities per
// connection of the store's pool. Start it with Run or
// Start.
func New(c client.Client, store *db.Store, provider payments.Provider, taskQueue string, opts ...Option) sdkworker.Worker {
	var o options
	for _, f := range opts {
		f(&o)
	}
	if taskQueue == "" {
		taskQueue = workflows.TaskQueue
	}
	conns := int(store.Pool().Config().MaxConns)
	w := sdkworker.New(c, taskQueue, sdkworker.Options{
		MaxConcurrentActivityExecutionSize: ActivitiesPerConnection * conns,
		// Reservations and confirmations run as local activities and spend all their time in
		// the database: two per connection keep the pool busy. Without a bound (the SDK's 1,000)
		// a flash sale queues its reservations on the pool, and releases and refunds (activities)
		// wait behind them.
		MaxConcurrentLocalActivityExecutionSize: LocalActivitiesPerConnection * conns,
		Interceptors:                            o.interceptors,
	})
	workflows.RegisterAll(w)
	w.RegisterActivity(&activities.Bookings{Store: store})
	w.RegisterActivity(&activities.Suppliers{Store: store, SyncDays: o.supplierSyncDays})
	w.RegisterActivity(&activities.Blocks{Store: store})
	w.RegisterActivity(&activities.Refunds{Store: store, Provider: provider})
	cards, _ := provider.(payments.Guarantees) // a provider that keeps no cards declines every fee
	w.RegisterActivity(&activities.Fees{Store: store, Guarantees: cards})
	o.resume.TaskQueue = taskQueue
	w.RegisterActivity(NewChecks(c, store, o.resume))
	w.RegisterActivity(NewReconciliation(c, store, provider, taskQueue))
	return w
}

// Option tunes a worker.
type Option func(*options)

type options struct {
	supplierSyncDays int
	resume           ResumeOptions
	interceptors     []interceptor.WorkerInterceptor
}

// WithInterceptors runs the worker's workflows and activities through interceptors (a test's
// faults, say).
func WithInterceptors(i ...interceptor.WorkerInterceptor) Option {
	return func(o *options) { o.interceptors = append(o.interceptors, i...) }
}

// WithResumeSettings sets the late window and refund settings of the bookings the invariant
// checker resumes: the API's (LATE_WINDOW, REFUND_ATTEMPTS, REFUND_BACKOFF).
func WithResumeSettings(lateWindow time.Duration, refundAttempts int, refundBackoff time.Duration) Option {
	return func(o *options) {
		o.resume.LateWindow, o.resume.MaxRefundAttempts, o.resume.RefundBackoff = lateWindow, refundAttempts, refundBackoff
	}
}

// WithBookingIDKey gives the checker's resumed bookings their customer's search key
// (BOOKING_ID_KEY; see ResumeOptions.BookingIDKey).
func WithBookingIDKey(key []byte) Option { return func(o *options) { o.resume.BookingIDKey = key } }

// WithSupplierSyncDays sets how many nights ahead a supplier stock pull reads
// (SUPPLIER_SYNC_DAYS).
func WithSupplierSyncDays(days int) Option { return func(o *options) { o.supplierSyncDays = days } }
