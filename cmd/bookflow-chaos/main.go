// Command bookflow-chaos is bookflow's fault-injection suite (package testsuite/chaos): it
// starts Temporal, a worker and an API as bookflow processes of their own, drives load,
// injects one fault per run and fails if anything was lost. scripts/chaos gives it a private
// PostgreSQL and the Temporal CLI; see bookflow-chaos -h.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"syscall"
	"time"

	"github.com/bookflow/bookflow/cmd/internal/product"
	"github.com/bookflow/bookflow/testsuite/chaos"
)

// chaosProfiles are the fault-injection suite's sizes, in runs of each of the topology's faults:
// short in the test command, long on demand (scripts/chaos --profile long).
var chaosProfiles = map[string]struct {
	perFault int
	load     time.Duration
}{
	"short": {perFault: 1, load: 8 * time.Second},
	"long":  {perFault: 15, load: 10 * time.Second},
}

func main() {
	level := slog.LevelInfo
	if err := level.UnmarshalText([]byte(cmp.Or(os.Getenv("LOG_LEVEL"), "info"))); err != nil {
		fmt.Fprintln(os.Stderr, "configuration: LOG_LEVEL:", err)
		os.Exit(2)
	}
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := runChaos(ctx); err != nil {
		slog.Error("chaos failed", "err", err)
		os.Exit(1)
	}
}

// runChaos runs the fault-injection suite (see package chaos) against a system it starts itself.
// scripts/chaos provides what it needs: TEMPORAL_CLI, CHAOS_DATABASE_URL (a server to create its
// database on) and CHAOS_PG_RESTART (a command restarting that server at once).
func runChaos(ctx context.Context) error {
	fs := flag.NewFlagSet("bookflow-chaos", flag.ExitOnError)
	profile := fs.String("profile", "short", "short (each fault once) or long (15 of each fault)")
	topology := fs.String("topology", chaos.TopologySingle, "single (one of each process, the Temporal dev server) or cluster "+
		"(scripts/cluster's topology, started on free ports: 6 faults)")
	runs := fs.Int("runs", 0, "fault runs (default: the profile's)")
	load := fs.Duration("load", 0, "how long each run's load lasts (default: the profile's)")
	clients := fs.Int("clients", 6, "concurrent checkout clients")
	moneyClients := fs.Int("money-clients", 3, "concurrent money clients beside them: amendments up (balance paid or lapsed) "+
		"and down, desk payments and partial refunds, venue orders")
	bookflowBin := fs.String("bookflow", "", "the bookflow binary whose processes are broken (default: bookflow beside this binary)")
	_ = fs.Parse(os.Args[1:])
	p, ok := chaosProfiles[*profile]
	if !ok {
		return fmt.Errorf("--profile %q: want short or long", *profile)
	}
	if *topology != chaos.TopologySingle && *topology != chaos.TopologyCluster {
		return fmt.Errorf("--topology %q: want single or cluster", *topology)
	}
	n := p.perFault * chaos.Faults(*topology)
	if *runs > 0 {
		n = *runs
	}
	if *load > 0 {
		p.load = *load
	}
	bookflow, err := product.Binary(*bookflowBin)
	if err != nil {
		return err
	}
	o := chaos.Options{Runs: n, LoadFor: p.load, Clients: *clients, MoneyClients: *moneyClients, Bookflow: bookflow, Topology: *topology,
		TemporalCLI: os.Getenv("TEMPORAL_CLI"), AdminDBURL: os.Getenv("CHAOS_DATABASE_URL"),
		PGRestart: os.Getenv("CHAOS_PG_RESTART"), Out: os.Stdout,
		TemporalServer: os.Getenv("TEMPORAL_SERVER"), TemporalSQLTool: os.Getenv("TEMPORAL_SQL_TOOL")}
	if *topology == chaos.TopologyCluster && (o.TemporalServer == "" || o.TemporalSQLTool == "") {
		return fmt.Errorf("TEMPORAL_SERVER and TEMPORAL_SQL_TOOL are required for the cluster: run scripts/chaos --topology cluster")
	}
	if *topology == chaos.TopologySingle && (o.TemporalCLI == "" || o.AdminDBURL == "") {
		return fmt.Errorf("TEMPORAL_CLI and CHAOS_DATABASE_URL are required: run scripts/chaos")
	}
	began := time.Now()
	r, err := chaos.Run(ctx, o)
	if err != nil {
		if r.LogDir != "" {
			return fmt.Errorf("%w (the processes' logs: %s)", err, r.LogDir)
		}
		return err
	}
	fmt.Printf("\nbookflow chaos, topology %s, profile %s: %d runs in %s\n", *topology, *profile, r.Runs, time.Since(began).Round(time.Second))
	names := make([]string, 0, len(r.Faults))
	for name := range r.Faults {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Printf("  %3d x %s\n", r.Faults[name], name)
	}
	for name, n := range r.Skipped {
		fmt.Printf("  %3d x %s (skipped: CHAOS_PG_RESTART is not set)\n", n, name)
	}
	fmt.Printf("  driven: %d hold requests, %d bookings granted, %d payments, %d minor units refunded\n",
		r.Requests, r.Bookings, r.Payments, r.Refunded)
	stories := make([]string, 0, len(r.Stories))
	for name, n := range r.Stories {
		stories = append(stories, fmt.Sprintf("%d %s", n, name))
	}
	sort.Strings(stories)
	fmt.Printf("  money stories: %v\n", stories)
	m := r.Money
	fmt.Printf("  money counted: %d bookings (%d with money); paid in %d at the provider and %d at the desk, given back %d by the provider and %d by the desk, kept %d; mismatches %d\n",
		m.Bookings, m.WithMoney, m.ProviderIn, m.DeskIn, m.ProviderBack, m.DeskBack, m.Kept, m.Mismatches)
	ps := r.Provider
	fmt.Printf("  provider: %d intents, %d refunds, %d lookups; %d calls failed, %d replies lost, %d slow, %d replayed by key, %d refused in flight, %d refunds refused\n",
		ps.Intents, ps.Refunds, ps.LookedUpBy, ps.Failed, ps.Lost, ps.Slow, ps.Replayed, ps.InFlight, ps.Refused)
	fmt.Printf("  lost: oversold %d, lost bookings %d, lost payments %d, double charges %d, double refunds %d, stuck %d, money mismatches %d\n",
		r.Lost.Oversold, r.Lost.LostBookings, r.Lost.LostPayments, r.Lost.DoubleCharges, r.Lost.DoubleRefunds, r.Lost.Stuck,
		r.Lost.MoneyMismatches)
	fmt.Printf("  findings (invariant checker, money, settling): %d\n", len(r.Findings))
	for _, f := range r.Findings {
		fmt.Printf("    %s %s %s: %s\n", f.Check, f.BookingID, f.PaymentID, f.Detail)
	}
	if !r.OK() {
		return fmt.Errorf("the chaos suite lost something: see above, and the processes' logs in %s", r.LogDir)
	}
	fmt.Println("  nothing lost")
	return nil
}
