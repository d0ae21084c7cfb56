// Package chaos is bookflow's fault-injection suite: it runs the whole system as in production
// (a Temporal server, a worker process and an API process, PostgreSQL, a payment provider),
// drives a mixed load of holds, payments (twice, late), cancellations, expiries and refunds,
// injects one fault per run, lets the system settle, and counts what was lost: oversold units,
// lost bookings or payments, money kept that is owed back, refunds paid twice, stuck bookings.
// Every counter must stay at 0.
//
// The truth it counts against is not bookflow's own tables but what the clients were told and
// did (the ledger) and what the provider charged and gave back.
package chaos

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"go.temporal.io/api/workflowservice/v1"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// Options configure a chaos run.
type Options struct {
	Runs    int           // fault runs, each with the next fault in turn
	LoadFor time.Duration // how long each run's load lasts; the fault strikes half way
	Clients int           // concurrent checkout clients
	// MoneyClients run money stories beside them (money_load.go): amendments up and down, desk
	// payments and partial refunds, venue orders.
	MoneyClients int
	Bookflow     string // the bookflow binary the worker and API processes run
	TemporalCLI  string // the single topology: the Temporal CLI whose dev server is the cluster
	AdminDBURL   string // the single topology: a PostgreSQL server to create the chaos database on
	// Topology is TopologySingle (the default) or TopologyCluster, which starts a cluster of its
	// own (package cluster) with the Temporal server binary and its schema tool.
	Topology                        string
	TemporalServer, TemporalSQLTool string
	// PGRestart is a shell command restarting that PostgreSQL at once (pg_ctl -m immediate);
	// empty: that fault is skipped.
	PGRestart string
	Out       io.Writer
}

// settleFor bounds how long a run may take to settle after its load: what is still in flight
// then is counted as stuck.
const settleFor = 3 * time.Minute

// Counters are what was lost; every one must be 0.
type Counters struct {
	Oversold      int // nights whose reserved count is not what their bookings hold, or above the total
	LostBookings  int // bookings granted that do not exist, or paid in time and not confirmed
	LostPayments  int // payments not recorded though acknowledged, or never acknowledged
	DoubleCharges int // money kept that is owed back (minor units)
	DoubleRefunds int // money given back beyond what was owed (minor units)
	Stuck         int // bookings held, refunding or PAYMENT_STUCK after settling; runs that did not settle
	// MoneyMismatches: bookings whose money does not add up (money_count.go).
	MoneyMismatches int
}

func (c *Counters) add(o Counters) {
	c.Oversold += o.Oversold
	c.LostBookings += o.LostBookings
	c.LostPayments += o.LostPayments
	c.DoubleCharges += o.DoubleCharges
	c.DoubleRefunds += o.DoubleRefunds
	c.Stuck += o.Stuck
	c.MoneyMismatches += o.MoneyMismatches
}

// since returns what c counts beyond prev: the losses that appeared after it.
func (c Counters) since(prev Counters) Counters {
	d := func(a, b int) int { return max(a-b, 0) }
	return Counters{d(c.Oversold, prev.Oversold), d(c.LostBookings, prev.LostBookings), d(c.LostPayments, prev.LostPayments),
		d(c.DoubleCharges, prev.DoubleCharges), d(c.DoubleRefunds, prev.DoubleRefunds), d(c.Stuck, prev.Stuck),
		d(c.MoneyMismatches, prev.MoneyMismatches)}
}

func (c Counters) zero() bool { return c == Counters{} }

// Report is the result of a chaos run.
type Report struct {
	Runs     int
	Faults   map[string]int // injected, by name
	Skipped  map[string]int // could not be injected here
	Requests int            // hold requests made
	Bookings int            // holds the API granted
	Payments int            // payments made
	Refunded int64          // minor units the provider gave back
	Provider ProviderStats  // what the provider's faults and rules did to bookflow's calls
	Money    MoneyTally     // the money counted, booking by booking
	Stories  map[string]int // the money clients' bookings, by story
	Lost     Counters       // each loss counted once, in the run it appeared
	// Findings are what the invariant checker found, the money that does not add up and what
	// did not settle, each once.
	Findings []domain.Finding
	LogDir   string // the processes' logs, kept when something was lost
}

// OK reports whether nothing was lost.
func (r Report) OK() bool { return r.Lost.zero() && len(r.Findings) == 0 }

// Run starts the system and runs o.Runs fault runs.
func Run(ctx context.Context, o Options) (report Report, err error) {
	report = Report{Faults: map[string]int{}, Skipped: map[string]int{}}
	h, err := start(ctx, o)
	if err != nil {
		return report, err
	}
	defer func() { report.LogDir = h.close(!report.OK() || err != nil) }()
	var prev Counters
	seen := map[string]bool{}
	for run := range o.Runs {
		all := faultsFor(o.Topology)
		f := all[run%len(all)]
		total, findings, injected, err := h.runOnce(ctx, run, f)
		if err != nil {
			return report, fmt.Errorf("run %d (%s): %w", run+1, f.name, err)
		}
		report.Runs++
		if injected {
			report.Faults[f.name]++
		} else {
			report.Skipped[f.name]++
		}
		lost := total.since(prev)
		prev = total
		report.Lost.add(lost)
		var fresh []domain.Finding
		for _, f := range findings {
			if k := f.Check + "|" + f.BookingID + "|" + f.PaymentID + "|" + f.Detail; !seen[k] {
				seen[k] = true
				report.Findings = append(report.Findings, f)
				fresh = append(fresh, f)
			}
		}
		fmt.Fprintf(o.Out, "run %3d  %-48s  bookings %5d  payments %5d  lost %+v  findings %d\n", run+1, f.name,
			len(h.l.booked), len(h.l.paid), lost, len(fresh))
		for _, f := range fresh { // at once: a long run's log says what went wrong where
			fmt.Fprintf(o.Out, "    %s %s %s: %s\n", f.Check, f.BookingID, f.PaymentID, f.Detail)
		}
	}
	report.Requests, report.Bookings, report.Payments = h.l.attempts, len(h.l.booked), len(h.l.paid)
	for _, v := range h.provider.Refunded() {
		report.Refunded += v
	}
	report.Provider = h.provider.Stats()
	report.Money = h.money.tally()
	report.Stories = map[string]int{}
	for _, g := range h.l.booked {
		if g.story != "" {
			report.Stories[g.story]++
		}
	}
	return report, nil
}

// harness is a running system with its database, provider and the load's ledger.
type harness struct {
	o        Options
	store    *db.Store
	provider *Provider
	s        *system
	l        *ledger
	money    *moneyBook
	hotels   []string // the first is scarce
	stay     domain.Stay
	closers  []func()
	lock     *os.File
}

func start(ctx context.Context, o Options) (_ *harness, err error) {
	h := &harness{o: o, l: newLedger(), money: newMoneyBook(), hotels: []string{"chaos-scarce", "chaos-b", "chaos-c"}}
	defer func() {
		if err != nil {
			h.close(false)
		}
	}()
	if o.Topology == TopologyCluster {
		if h.provider, err = StartProvider(); err != nil {
			return nil, err
		}
		h.closers = append(h.closers, h.provider.Close)
		if h.s, err = startCluster(ctx, o, h.provider); err != nil {
			return nil, err
		}
		return h, h.prepare(ctx, h.s.databaseURL)
	}
	// One suite at a time per PostgreSQL server: the faults restart it and take its connections.
	if h.lock, err = lockServer(o.AdminDBURL); err != nil {
		return nil, err
	}
	h.closers = append(h.closers, func() { _ = h.lock.Close() })
	databaseURL, dropDB, err := createDatabase(ctx, o.AdminDBURL)
	if err != nil {
		return nil, err
	}
	h.closers = append(h.closers, dropDB)
	// The database is migrated before bookflow's processes start, as a deployment's is.
	if err := h.prepare(ctx, databaseURL); err != nil {
		return nil, err
	}
	if h.provider, err = StartProvider(); err != nil {
		return nil, err
	}
	h.closers = append(h.closers, h.provider.Close)
	if h.s, err = startSystem(ctx, o, databaseURL, h.provider); err != nil {
		return nil, err
	}
	return h, nil
}

// prepare connects the suite's own store to the database, migrates it (the cluster's is
// already) and sets up the hotels the load books.
func (h *harness) prepare(ctx context.Context, databaseURL string) error {
	pool, err := db.Connect(ctx, databaseURL)
	if err != nil {
		return err
	}
	h.closers = append(h.closers, pool.Close)
	if err := db.Migrate(ctx, pool); err != nil {
		return err
	}
	h.store = db.NewStore(pool, 0)
	h.stay = domain.Stay{CheckIn: domain.DateOf(time.Now(), time.UTC).AddDays(20)}
	h.stay.CheckOut = h.stay.CheckIn.AddDays(2)
	// The scarce hotel has 4 rooms, so holds race for the last ones; the others have plenty,
	// and a night more for the amendments that add one.
	for i, hotel := range h.hotels {
		total, to := 1_000_000, h.stay.CheckOut.AddDays(1)
		if i == 0 {
			total, to = 4, h.stay.CheckOut
		}
		if err := h.store.SetInventory(ctx, db.SetInventoryParams{HotelID: hotel, RoomTypeID: "double", From: h.stay.CheckIn,
			To: to, TotalRooms: total, Rate: &domain.Money{Amount: 10000, Currency: "EUR"}}); err != nil {
			return err
		}
	}
	return h.prepareVenue(ctx)
}

// close stops what start started, last first; with keepLogs it keeps the processes' logs and
// returns where they are.
func (h *harness) close(keepLogs bool) string {
	var logs string
	if h.s != nil {
		logs = h.s.stop(keepLogs)
	}
	for i := len(h.closers) - 1; i >= 0; i-- {
		h.closers[i]()
	}
	h.closers = nil
	return logs
}

// runOnce drives the load, injects the fault half way (none when inject is nil), lets the
// system settle and counts everything so far.
func (h *harness) runOnce(ctx context.Context, run int, f fault) (Counters, []domain.Finding, bool, error) {
	o, s := h.o, h.s
	began := time.Now()
	ld := &load{s: s, l: h.l, hotels: h.hotels, stay: h.stay, run: run, http: &http.Client{Timeout: 20 * time.Second},
		money: o.MoneyClients}
	loadCtx, stopLoad := context.WithTimeout(ctx, o.LoadFor)
	defer stopLoad()
	settleCtx, stopSettle := context.WithTimeout(ctx, o.LoadFor+settleFor)
	defer stopSettle()
	done := make(chan struct{})
	go func() { ld.drive(loadCtx, settleCtx, o.Clients); close(done) }()
	sleep(ctx, o.LoadFor/2)
	injected := f.inject != nil
	if injected {
		if err := f.inject(ctx, s); errors.Is(err, errSkipped) {
			injected = false
		} else if err != nil {
			return Counters{}, nil, false, err
		}
	}
	<-done
	sweeping, stopSweep := context.WithCancel(settleCtx)
	go ld.deskSweep(sweeping, h.store)
	err := h.settle(settleCtx, began)
	stopSweep()
	var unsettled []domain.Finding
	if errors.Is(err, context.DeadlineExceeded) {
		unsettled = append(unsettled, domain.Finding{Check: "settle", Detail: fmt.Sprintf("run %d: %v", run+1, err)})
	} else if err != nil {
		return Counters{}, nil, injected, err
	}
	if s.cluster != nil {
		if gone := s.cluster.Exited(); len(gone) > 0 {
			return Counters{}, nil, injected, fmt.Errorf("processes exited on their own: %v (see the cluster's processes.log)", gone)
		}
	}
	lost, findings, err := h.count(ctx)
	lost.Stuck += len(unsettled)
	return lost, append(findings, unsettled...), injected, err
}

// settle waits until nothing is in flight, twice in a row: no hold, no refund under way, no
// webhook event left undelivered, every payment acknowledged, and no workflow started in this
// run with an activity or a workflow task pending.
func (h *harness) settle(ctx context.Context, runBegan time.Time) error {
	for quiet := 0; quiet < 2; {
		left, err := h.inFlight(ctx, runBegan)
		if err != nil {
			return err
		}
		if left == "" {
			quiet++
		} else {
			quiet = 0
		}
		sleep(ctx, time.Second)
		if ctx.Err() != nil {
			return fmt.Errorf("not settled (%s): %w", left, ctx.Err())
		}
	}
	return nil
}

// inFlight describes what is still under way; "" when nothing is.
func (h *harness) inFlight(ctx context.Context, runBegan time.Time) (string, error) {
	var holds, refunds, events, balances int
	err := h.store.Pool().QueryRow(ctx, `SELECT
		(SELECT count(*) FROM bookings WHERE status IN ('HOLD', 'REFUNDING')),
		(SELECT count(*) FROM refunds WHERE status IN ('requested', 'pending')),
		(SELECT count(*) FROM payment_events WHERE delivered_at IS NULL),
		(SELECT count(*) FROM booking_amendments WHERE status = 'BALANCE_DUE')`).Scan(&holds, &refunds, &events, &balances)
	if err != nil {
		return "", err
	}
	if holds+refunds+events+balances > 0 {
		return fmt.Sprintf("%d bookings on hold or refunding, %d refunds under way, %d events undelivered, %d balances due",
			holds, refunds, events, balances), nil
	}
	if n := h.l.unacknowledged(); n > 0 {
		return fmt.Sprintf("%d payments not acknowledged", n), nil
	}
	// A workflow of this run may still have work queued that the database does not show yet:
	// an accepted cancel, a task its killed worker never finished.
	q := fmt.Sprintf(`ExecutionStatus = "Running" AND WorkflowType != %q AND StartTime > %q`,
		workflows.InvariantCheckWorkflowName, runBegan.Add(-time.Second).UTC().Format(time.RFC3339))
	var token []byte
	for {
		page, err := h.s.client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: q, NextPageToken: token})
		if err != nil {
			return "", err
		}
		for _, e := range page.Executions {
			desc, err := h.s.client.DescribeWorkflow(ctx, e.Execution.GetWorkflowId(), e.Execution.GetRunId())
			if err != nil {
				return "", err
			}
			if d := desc.RawResponse; len(d.PendingActivities) > 0 || d.PendingWorkflowTask != nil {
				return fmt.Sprintf("workflow %s has work pending", e.Execution.GetWorkflowId()), nil
			}
		}
		if token = page.NextPageToken; len(token) == 0 {
			return "", nil
		}
	}
}

func (l *ledger) unacknowledged() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, p := range l.paid {
		if p.ackedAt.IsZero() {
			n++
		}
	}
	return n
}
