package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/worker"
)

// runCheck runs the invariant checker once, here, and prints its report as JSON: what it found
// and, with --repair, what it repaired (releasing orphaned holds, restarting orphaned refunds;
// money is never changed by it). It exits 1 when something is left for an operator. The
// worker's hourly schedule runs the same checks with repairs.
func runCheck(ctx context.Context, cfg Config) error {
	fs := flag.NewFlagSet("check", flag.ExitOnError)
	repair := fs.Bool("repair", false, "repair what is safe to repair (audited)")
	_ = fs.Parse(os.Args[2:])
	d, closeDeps, err := connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer closeDeps()
	report, err := worker.NewChecks(d.temporal, d.store, worker.ResumeOptions{TaskQueue: cfg.TaskQueue, LateWindow: cfg.LateWindow,
		MaxRefundAttempts: cfg.RefundAttempts, RefundBackoff: cfg.RefundBackoff, BookingIDKey: []byte(cfg.BookingIDKey)}).RunChecks(ctx, activities.CheckInput{Repair: *repair})
	if err != nil {
		return err
	}
	out, _ := json.MarshalIndent(report, "", "  ")
	fmt.Println(string(out))
	for _, f := range report.Findings {
		if f.Repaired == "" {
			closeDeps()
			os.Exit(1)
		}
	}
	return nil
}

// runReconcile runs the payment reconciliation once, here, and prints its report as JSON: every
// payment the provider took in the window (--window, 72h) that bookflow had no record of is
// recorded and delivered, so its booking keeps it or it is refunded. The worker's daily
// schedule runs the same.
func runReconcile(ctx context.Context, cfg Config) error {
	fs := flag.NewFlagSet("reconcile", flag.ExitOnError)
	window := fs.Duration("window", activities.DefaultReconcileWindow, "how far back to list the provider's payments")
	_ = fs.Parse(os.Args[2:])
	provider, err := paymentProvider(cfg)
	if err != nil {
		return err
	}
	d, closeDeps, err := connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer closeDeps()
	report, err := worker.NewReconciliation(d.temporal, d.store, provider, cfg.TaskQueue).Reconcile(ctx,
		activities.ReconcileInput{Window: *window})
	if err != nil {
		return err
	}
	out, _ := json.MarshalIndent(report, "", "  ")
	fmt.Println(string(out))
	return nil
}
