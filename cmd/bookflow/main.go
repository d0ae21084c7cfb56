// Command bookflow runs the booking service: bookflow serve|worker|migrate|seed|dev|token|pay|bench.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"
	_ "time/tzdata" // hotels' time zones, also in images without a zoneinfo database

	"github.com/bookflow/bookflow/telemetry"
)

const usage = `bookflow: durable bookings that never sell a unit twice

Usage: bookflow <command>

Commands:
  serve     run the HTTP API
  worker    run the Temporal worker (booking workflows and activities)
  migrate   apply database migrations
  search-attributes
            print the Temporal search attributes the workflows set (--register adds missing ones)
  seed      add the demo hotels, venue and inventory (skips those that exist)
  dev       migrate, seed, and run the worker and the API in one process
  check     run the invariant checker once and print its report (--repair repairs what is safe)
  reconcile match the provider's payments of the last 72h (--window) against bookflow's, and deliver any it missed
  token     mint a bearer token for local use (bookflow token --sub alice --role customer)
  pay       send a signed test payment for a booking to the API and wait for its outcome (local development)
  supplier-sim
            run the simulated supplier and register its hotels, channel and agent (as dev does inside)
  health    exit 0 when a URL answers 2xx (the containers' healthcheck: bookflow health http://127.0.0.1:8080/readyz)
  bench     measure reservations/s and holds/s against baselines (see README)
  chaos     the fault-injection suite: load, one fault per run, nothing may be lost (scripts/chaos)

Configuration comes from the environment; see README.md.
`

// traced are the commands whose work is traced (OTEL_*); the others (migrate, token, pay, ...)
// neither trace nor read the OpenTelemetry settings, so a setting meant for the services cannot
// stop them.
var traced = map[string]bool{"serve": true, "worker": true, "dev": true}

// commands are bookflow's subcommands, by name.
var commands = map[string]func(context.Context, Config) error{
	"serve": runServe, "worker": runWorker, "migrate": runMigrate,
	"seed": runSeed, "dev": runDev, "bench": runBench, "pay": runPay, "token": runToken,
	"search-attributes": runSearchAttributes, "check": runCheck, "reconcile": runReconcile, "chaos": runChaos,
	"supplier-sim": runSupplierSim, "health": runHealth,
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	run, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	cfg, err := LoadConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "configuration:", err)
		os.Exit(2)
	}
	slog.SetDefault(slog.New(cfg.logHandler(os.Args[1], os.Stderr)))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stopTracing := func(context.Context) error { return nil }
	if traced[os.Args[1]] {
		if stopTracing, err = telemetry.StartTracing(ctx, "bookflow-"+os.Args[1]); err != nil {
			fmt.Fprintln(os.Stderr, "tracing (OTEL_*):", err)
			os.Exit(2)
		}
	}
	err = run(ctx, cfg)
	flush, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = stopTracing(flush) // the spans of the last requests
	if err != nil {
		slog.Error(os.Args[1]+" failed", "err", err)
		os.Exit(1)
	}
}
