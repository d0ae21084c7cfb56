// The worker's start-up: `bookflow worker`, and the worker as dev runs it too.

package main

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bookflow/bookflow/cache"
	"github.com/bookflow/bookflow/telemetry"
	"github.com/bookflow/bookflow/worker"
)

func runWorker(ctx context.Context, cfg Config) error {
	d, closeDeps, err := connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer closeDeps()
	return serveWorker(ctx, cfg, d)
}

// serveWorker runs the worker until ctx ends, with its metrics listener and readiness beside it.
func serveWorker(ctx context.Context, cfg Config, d *deps) error {
	var polling atomic.Bool
	return withMetrics(ctx, cfg, workerReadiness(&polling, telemetry.DatabaseReady(d.store.Pool()), telemetry.TemporalReady(d.temporal)),
		func(ctx context.Context) error { return runWorkerUntil(ctx, cfg, d, &polling) })
}

// workerReadiness is a worker's readiness (its /readyz): it polls its task queue ("polling"), and
// PostgreSQL and Temporal answer (the API's checks of them).
func workerReadiness(polling *atomic.Bool, database, temporal telemetry.ReadinessCheck) *telemetry.Readiness {
	return &telemetry.Readiness{Checks: []telemetry.ReadinessCheck{{Name: "polling", Check: func(context.Context) error {
		if !polling.Load() {
			return errors.New("the worker is not polling its task queue")
		}
		return nil
	}}, database, temporal}}
}

// runWorkerUntil runs the worker until ctx ends; polling is true while it polls its task queue.
func runWorkerUntil(ctx context.Context, cfg Config, d *deps, polling *atomic.Bool) error {
	provider, err := paymentProvider(cfg)
	if err != nil {
		return err
	}
	if err := worker.CheckSearchAttributes(ctx, d.temporal, cfg.TemporalNamespace); err != nil {
		return err
	}
	if err := worker.EnsureSchedules(ctx, d.temporal, cfg.TaskQueue, cfg.scheduleIDs()); err != nil {
		slog.Warn("the checker's and the reconciliation's schedules could not be made; run `bookflow check` and `bookflow reconcile` by hand", "err", err)
	}
	if err := (worker.SupplierSchedules{Temporal: d.temporal, TaskQueue: cfg.TaskQueue,
		Interval: cfg.SupplierSyncInterval, IDs: cfg.scheduleIDs()}).EnsureAll(ctx, d.store); err != nil {
		slog.Warn("some suppliers' stock sync schedules could not be made", "err", err)
	}
	// The worker reports what PostgreSQL and Temporal know (stuck bookings, the checker's
	// findings, the outbox's backlog).
	var registered prometheus.AlreadyRegisteredError
	if err := telemetry.Registry.Register(&worker.StateMetrics{Store: d.store, Temporal: d.temporal, Cached: d.cache != nil}); err != nil &&
		!errors.As(err, &registered) {
		return err
	}
	// The worker relays the availability outbox to the cache (or, without one, deletes what
	// no cache can still need).
	relay := &cache.Relay{Store: d.store, Pool: d.store.Pool(), Cache: d.cache}
	go relay.Run(ctx)
	// The worker sends the integrator events the database queued.
	events := &worker.EventSender{Store: d.store, RetryFor: cfg.EventRetryFor, FirstBackoff: cfg.EventFirstBackoff,
		Retention: cfg.EventRetention}
	go events.Run(ctx)
	// The worker deletes the ARI change feed's old changes.
	go (&worker.ARIPruner{Store: d.store, Retention: cfg.ARIRetention}).Run(ctx)
	// The worker starts the booking workflows of the waitlist's offers.
	go (&worker.OfferStarter{Temporal: d.temporal, Store: d.store, Resume: worker.ResumeOptions{TaskQueue: cfg.TaskQueue,
		LateWindow: cfg.LateWindow, MaxRefundAttempts: cfg.RefundAttempts, RefundBackoff: cfg.RefundBackoff,
		BookingIDKey: []byte(cfg.BookingIDKey)}}).Run(ctx)
	w := worker.New(d.temporal, d.store, provider, cfg.TaskQueue, worker.WithSupplierSyncDays(cfg.SupplierSyncDays),
		worker.WithResumeSettings(cfg.LateWindow, cfg.RefundAttempts, cfg.RefundBackoff), worker.WithBookingIDKey([]byte(cfg.BookingIDKey)))
	if err := w.Start(); err != nil {
		return err
	}
	polling.Store(true)
	slog.Info("worker polling", "taskQueue", cfg.TaskQueue)
	if cfg.BookingIDKey == "" {
		slog.Warn("BOOKING_ID_KEY is not set: bookings the invariant checker resumes get no CustomerId search attribute")
	}
	<-ctx.Done()
	polling.Store(false)
	w.Stop() // waits for running activities to finish
	slog.Info("worker stopped")
	return nil
}
