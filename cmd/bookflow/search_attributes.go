package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"

	"github.com/bookflow/bookflow/worker"
)

// runSearchAttributes prints the search attributes the booking workflows set, one Name=Type a
// line (scripts/lib.sh passes them to the Temporal dev server), or with --register adds those
// the namespace lacks. It is the one list every setup takes them from. --wait keeps trying
// while Temporal, or its namespace, is not there yet (a container started beside the server).
func runSearchAttributes(ctx context.Context, cfg Config) error {
	fs := flag.NewFlagSet("search-attributes", flag.ExitOnError)
	register := fs.Bool("register", false, "add the missing ones to TEMPORAL_NAMESPACE at TEMPORAL_ADDRESS")
	wait := fs.Duration("wait", 0, "with --register: keep trying this long while Temporal or the namespace is not ready")
	_ = fs.Parse(os.Args[2:])
	if !*register {
		fmt.Println(strings.Join(worker.SearchAttributeFlags(), "\n"))
		return nil
	}
	deadline := time.Now().Add(*wait)
	for {
		err := registerSearchAttributes(ctx, cfg)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		slog.Warn("search attributes not registered yet; retrying", "err", err)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(2 * time.Second):
		}
	}
}

func registerSearchAttributes(ctx context.Context, cfg Config) error {
	tc, err := client.DialContext(ctx, client.Options{HostPort: cfg.TemporalAddress, Namespace: cfg.TemporalNamespace,
		Logger: log.NewStructuredLogger(slog.Default())})
	if err != nil {
		return fmt.Errorf("connect to Temporal at %s: %w", cfg.TemporalAddress, err)
	}
	defer tc.Close()
	if err := worker.RegisterSearchAttributes(ctx, tc, cfg.TemporalNamespace); err != nil {
		return err
	}
	slog.Info("search attributes registered", "namespace", cfg.TemporalNamespace, "attributes", worker.SearchAttributeFlags())
	return nil
}
