// Package chaos is bookflow's fault-injection suite: it runs the whole system as in production
// (a Temporal server, a worker process and an API process, PostgreSQL, a payment provider),
// drives a mixed load of holds, payments (twice, late), cancellations, expiries and refunds,
// injects one fault per run, lets the system settle, and counts what was lost: oversold units,
// lost bookings or payments, money kept twice, refunds paid twice, stuck bookings. Every counter
// must stay at 0.
package chaos

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// Options configure a chaos run.
type Options struct {
	Runs        int           // fault runs, each with the next fault in turn
	LoadFor     time.Duration // how long each run's load lasts; the fault strikes half way
	Clients     int           // concurrent checkout clients
	Bookflow    string        // the bookflow binary the worker and API processes run
	TemporalCLI string        // the Temporal CLI whose dev server is the cluster
	AdminDBURL  string        // a PostgreSQL server to create the chaos database on
	// PGRestart is a shell command restarting that PostgreSQL at once (pg_ctl -m immediate);
	// empty: that fault is skipped.
	PGRestart string
	Out       io.Writer
}

// Counters are what a run lost; every one must be 0.
type Counters struct {
	Oversold      int // units whose reserved count is not what their bookings hold, or above the total
	LostBookings  int // bookings the API answered 201 for that do not exist
	LostPayments  int // payments the API acknowledged that it did not record
	DoubleCharges int // money kept beyond what bookings are owed (minor units)
	DoubleRefunds int // refunds beyond what was owed back (minor units), or a payment refunded beyond itself
	Stuck         int // bookings still on hold or refunding after settling, PAYMENT_STUCK, or other findings
}

func (c *Counters) add(o Counters) {
	c.Oversold += o.Oversold
	c.LostBookings += o.LostBookings
	c.LostPayments += o.LostPayments
	c.DoubleCharges += o.DoubleCharges
	c.DoubleRefunds += o.DoubleRefunds
	c.Stuck += o.Stuck
}

func (c Counters) zero() bool { return c == Counters{} }

// Report is the result of a chaos run.
type Report struct {
	Runs     int
	Faults   map[string]int // injected, by name
	Skipped  map[string]int // could not be injected here
	Requests int            // hold requests made
	Bookings int            // holds the API granted
	Payments int            // payments sent
	Refunded int64          // minor units the provider gave back
	Lost     Counters
	Findings []domain.Finding // what the invariant checker found, and bookings whose money does not add up
}

// OK reports whether nothing was lost.
func (r Report) OK() bool { return r.Lost.zero() && len(r.Findings) == 0 }

// Run starts the system and runs o.Runs fault runs.
func Run(ctx context.Context, o Options) (Report, error) {
	report := Report{Faults: map[string]int{}, Skipped: map[string]int{}}
	h, err := start(ctx, o)
	if err != nil {
		return report, err
	}
	defer h.close()
	for run := range o.Runs {
		f := faults[run%len(faults)]
		lost, findings, injected, err := h.runOnce(ctx, run, f)
		if err != nil {
			return report, fmt.Errorf("run %d (%s): %w", run+1, f.name, err)
		}
		report.Runs++
		if injected {
			report.Faults[f.name]++
		} else {
			report.Skipped[f.name]++
		}
		report.Lost.add(lost)
		report.Findings = append(report.Findings, findings...)
		fmt.Fprintf(o.Out, "run %3d  %-48s  bookings %5d  payments %5d  lost %+v  findings %d\n", run+1, f.name,
			len(h.l.booked), len(h.l.paid), lost, len(findings))
	}
	report.Requests, report.Bookings, report.Payments = h.l.attempts, len(h.l.booked), len(h.l.paid)
	for _, v := range h.provider.Refunded() {
		report.Refunded += v
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
	hotels   []string
	stay     domain.Stay
	closers  []func()
}

func start(ctx context.Context, o Options) (_ *harness, err error) {
	h := &harness{o: o, l: newLedger(), hotels: []string{"chaos-scarce", "chaos-b", "chaos-c"}}
	defer func() {
		if err != nil {
			h.close()
		}
	}()
	databaseURL, dropDB, err := createDatabase(ctx, o.AdminDBURL)
	if err != nil {
		return nil, err
	}
	h.closers = append(h.closers, dropDB)
	pool, err := db.Connect(ctx, databaseURL)
	if err != nil {
		return nil, err
	}
	h.closers = append(h.closers, pool.Close)
	if err := db.Migrate(ctx, pool); err != nil {
		return nil, err
	}
	h.store = db.NewStore(pool, 0)
	if h.provider, err = StartProvider(); err != nil {
		return nil, err
	}
	h.closers = append(h.closers, h.provider.Close)
	if h.s, err = startSystem(ctx, o, databaseURL, h.provider); err != nil {
		return nil, err
	}
	h.closers = append(h.closers, h.s.stop)

	h.stay = domain.Stay{CheckIn: domain.DateOf(time.Now(), time.UTC).AddDays(20)}
	h.stay.CheckOut = h.stay.CheckIn.AddDays(2)
	// The first hotel has few rooms, so holds race for the last ones; the others have plenty.
	for i, hotel := range h.hotels {
		total := 1_000_000
		if i == 0 {
			total = 4
		}
		if err := h.store.SetInventory(ctx, db.SetInventoryParams{HotelID: hotel, RoomTypeID: "double", From: h.stay.CheckIn,
			To: h.stay.CheckOut, TotalRooms: total, Rate: &domain.Money{Amount: 10000, Currency: "EUR"}}); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// close stops what start started, last first.
func (h *harness) close() {
	for i := len(h.closers) - 1; i >= 0; i-- {
		h.closers[i]()
	}
	h.closers = nil
}

// runOnce drives the load, injects the fault half way, lets the system settle and counts.
// A nil fault.inject runs the load alone.
func (h *harness) runOnce(ctx context.Context, run int, f fault) (Counters, []domain.Finding, bool, error) {
	o, s, store := h.o, h.s, h.store
	ld := &load{s: s, l: h.l, hotels: h.hotels, stay: h.stay, run: run, http: &http.Client{Timeout: 20 * time.Second}}
	loadCtx, stopLoad := context.WithTimeout(ctx, o.LoadFor)
	defer stopLoad()
	settleCtx, stopSettle := context.WithTimeout(ctx, o.LoadFor+3*time.Minute)
	defer stopSettle()
	done := make(chan struct{})
	go func() { ld.drive(loadCtx, settleCtx, o.Clients); close(done) }()
	sleep(ctx, o.LoadFor/2)
	injected := f.inject != nil
	if !injected {
	} else if err := f.inject(ctx, s); errors.Is(err, errSkipped) {
		injected = false
	} else if err != nil {
		return Counters{}, nil, false, err
	}
	<-done
	if err := settle(settleCtx, s, store); errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(o.Out, "run %d: %v\n", run+1, err) // what is left is counted next
	} else if err != nil {
		return Counters{}, nil, injected, err
	}
	lost, findings, err := count(ctx, s, store, ld.l)
	return lost, findings, injected, err
}

// settle waits until nothing is in flight, twice in a row: no hold, no refund under way, no
// webhook event left undelivered, and every booking's money adds up. What is still in flight
// when ctx ends is counted as lost.
func settle(ctx context.Context, s *system, store *db.Store) error {
	for quiet := 0; quiet < 2; {
		left, err := inFlight(ctx, s, store)
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
func inFlight(ctx context.Context, s *system, store *db.Store) (string, error) {
	var holds, refunds, events int
	err := store.Pool().QueryRow(ctx, `SELECT
		(SELECT count(*) FROM bookings WHERE status IN ('HOLD', 'REFUNDING')),
		(SELECT count(*) FROM refunds WHERE status IN ('requested', 'pending')),
		(SELECT count(*) FROM payment_events WHERE delivered_at IS NULL)`).Scan(&holds, &refunds, &events)
	if err != nil {
		return "", err
	}
	if holds+refunds+events > 0 {
		return fmt.Sprintf("%d bookings on hold or refunding, %d refunds under way, %d events undelivered", holds, refunds, events), nil
	}
	// A payment not yet matched by a booking keeping it or a refund: its saga is under way.
	money, err := balances(ctx, store.Pool(), s.provider.Refunded())
	if err != nil {
		return "", err
	}
	if len(money) > 0 {
		return fmt.Sprintf("%d bookings whose money does not add up yet, such as %s", len(money), money[0]), nil
	}
	return "", nil
}

// count compares the ledger, the provider and the database, and runs the invariant checker.
func count(ctx context.Context, s *system, store *db.Store, l *ledger) (Counters, []domain.Finding, error) {
	var c Counters
	report, err := (&activities.Checks{Store: store, Temporal: s.client}).RunChecks(ctx, activities.CheckInput{
		HoldGrace: time.Nanosecond, RefundingAge: time.Nanosecond, UnmatchedAge: time.Nanosecond, UnsettledAge: time.Nanosecond})
	if err != nil {
		return c, nil, err
	}
	for _, f := range report.Findings {
		if f.Check == domain.CheckInventory {
			c.Oversold++
		}
	}
	q := store.Pool()
	if err := q.QueryRow(ctx, `SELECT count(*) FROM bookings WHERE status IN ('HOLD', 'REFUNDING')`).Scan(&c.Stuck); err != nil {
		return c, nil, err
	}
	stuck, err := s.client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Query: fmt.Sprintf(`BookingStatus = %q AND ExecutionStatus = "Running"`, workflows.StatusPaymentStuck)})
	if err != nil {
		return c, nil, err
	}
	c.Stuck += len(stuck.Executions)

	l.mu.Lock()
	booked := make([]string, 0, len(l.booked))
	for id := range l.booked {
		booked = append(booked, id)
	}
	var acked []string
	for pi, p := range l.paid {
		if p.acked {
			acked = append(acked, pi)
		}
	}
	l.mu.Unlock()
	if err := q.QueryRow(ctx, `SELECT count(*) FROM unnest($1::text[]) AS granted(id) WHERE NOT EXISTS (SELECT 1 FROM bookings b WHERE b.id = granted.id)`,
		booked).Scan(&c.LostBookings); err != nil {
		return c, nil, err
	}
	if err := q.QueryRow(ctx, `SELECT count(*) FROM unnest($1::text[]) AS acked(id) WHERE NOT EXISTS (SELECT 1 FROM payments p WHERE p.payment_id = acked.id AND p.status = 'succeeded')`,
		acked).Scan(&c.LostPayments); err != nil {
		return c, nil, err
	}

	money, err := balances(ctx, q, s.provider.Refunded())
	if err != nil {
		return c, nil, err
	}
	var findings []domain.Finding
	for _, m := range money {
		c.DoubleCharges += int(max(m.kept(), 0))
		c.DoubleRefunds += int(max(-m.kept(), 0))
		findings = append(findings, domain.Finding{Check: "money", BookingID: m.bookingID, Detail: m.String()})
	}
	amounts, err := paymentAmounts(ctx, q)
	if err != nil {
		return c, nil, err
	}
	for pi, r := range s.provider.Refunded() {
		if _, known := amounts[pi]; !known {
			c.DoubleRefunds += int(r)
			findings = append(findings, domain.Finding{Check: "money", PaymentID: pi, Detail: fmt.Sprintf("refunded %d of a payment bookflow has no record of", r)})
		}
	}
	for _, f := range report.Findings {
		if f.Check != domain.CheckInventory {
			findings = append(findings, f)
		}
	}
	return c, findings, nil
}

// balance is one booking's money where it does not add up: what was received, less what the
// provider gave back, is what the booking keeps.
type balance struct {
	bookingID, status            string
	received, refunded, bookKept int64
}

// kept is the money the provider holds beyond what the booking keeps (negative: given back
// beyond what was received).
func (b balance) kept() int64 { return b.received - b.refunded - b.bookKept }

func (b balance) String() string {
	return fmt.Sprintf("%s (%s): received %d, refunded %d, the booking keeps %d", b.bookingID, b.status,
		b.received, b.refunded, b.bookKept)
}

// balances returns the bookings whose money does not add up, given what the provider refunded
// per payment.
func balances(ctx context.Context, q *pgxpool.Pool, refunded map[string]int64) ([]balance, error) {
	rows, err := q.Query(ctx, `SELECT b.id, b.status,
			COALESCE((SELECT sum(amount) FROM payments p WHERE p.booking_id = b.id AND p.status = 'succeeded'), 0),
			CASE b.status WHEN 'CONFIRMED' THEN b.paid WHEN 'REFUNDED' THEN b.paid - b.refund_due ELSE 0 END,
			COALESCE((SELECT array_agg(payment_id) FROM payments p WHERE p.booking_id = b.id AND p.status = 'succeeded'), '{}')
		FROM bookings b`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []balance
	for rows.Next() {
		var b balance
		var paymentIDs []string
		if err := rows.Scan(&b.bookingID, &b.status, &b.received, &b.bookKept, &paymentIDs); err != nil {
			return nil, err
		}
		for _, pi := range paymentIDs {
			b.refunded += refunded[pi]
		}
		if b.kept() != 0 {
			out = append(out, b)
		}
	}
	return out, rows.Err()
}

func paymentAmounts(ctx context.Context, q interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}) (map[string]int64, error) {
	rows, err := q.Query(ctx, `SELECT payment_id, amount FROM payments WHERE status = 'succeeded'`)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for rows.Next() {
		var pi string
		var amount int64
		if err := rows.Scan(&pi, &amount); err != nil {
			return nil, err
		}
		out[pi] = amount
	}
	return out, rows.Err()
}

// createDatabase makes a database of its own on the admin server and returns its URL and how to
// drop it.
func createDatabase(ctx context.Context, adminURL string) (string, func(), error) {
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return "", nil, fmt.Errorf("connect to %s: %w", adminURL, err)
	}
	defer admin.Close(ctx)
	// Databases an interrupted run left behind; one still in use by a run going on stays.
	rows, err := admin.Query(ctx, `SELECT datname FROM pg_database WHERE datname LIKE 'bookflow\_chaos\_%'`)
	if err != nil {
		return "", nil, err
	}
	stale, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", nil, err
	}
	for _, name := range stale {
		_, _ = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize())
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "bookflow_chaos_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, err
	}
	cfg, err := pgx.ParseConfig(adminURL)
	if err != nil {
		return "", nil, err
	}
	url := fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", cfg.User, cfg.Host, cfg.Port, name)
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if admin, err := pgx.Connect(ctx, adminURL); err == nil {
			_, _ = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			_ = admin.Close(ctx)
		}
	}
	return url, drop, nil
}
