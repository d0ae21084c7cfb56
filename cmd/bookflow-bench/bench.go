package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/cache"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/worker"
)

// benchOptions are the bench command's flags.
type benchOptions struct {
	clients, temporalClients, holds, hotels int
	duration                                time.Duration
	only                                    string // "database", "holds", "cache" or "money": run only that part
	searchPrefix                            string // with searchHotels: search PREFIX-0 .. PREFIX-(N-1) at random
	searchHotels                            int
	serverAddress                           string // a Temporal server to measure holds on, after the dev server
	rounds                                  int    // rounds of the alternating hold measurements
	// pauseRelay stops the bench's own relay until resume is called.
	pauseRelay func() (resume func())
	bookflow   string // the product binary whose serve and worker commands are measured
	// The money paths (-only money): this build against a baseline build, each in its own
	// database (and Redis database).
	baselineBookflow, baselineName, baselineDatabaseURL, baselineRedisURL string
	moneyBookings, moneyClients                                           int
}

// runBench measures, in one run on one machine, each figure next to its baseline:
// reservations/s on one hot room type and spread over many hotels against raw conditional
// UPDATEs, and holds/s through the HTTP API and Temporal against a bare start-signal-complete
// workflow on the same server.
func runBench(ctx context.Context, cfg Config) error {
	var o benchOptions
	fs := flag.NewFlagSet("bookflow-bench", flag.ExitOnError)
	fs.IntVar(&o.clients, "clients", 16, "concurrent database clients")
	fs.DurationVar(&o.duration, "duration", 5*time.Second, "how long each database measurement runs")
	fs.IntVar(&o.hotels, "hotels", 200, "hotels (5 room types each) for the spread measurement")
	fs.IntVar(&o.temporalClients, "temporal-clients", 32, "concurrent clients for the Temporal measurements")
	fs.IntVar(&o.holds, "holds", 400, "workflows per Temporal measurement")
	fs.IntVar(&o.rounds, "rounds", 3, "rounds of the hold measurements, each alternating the baseline and the holds")
	fs.StringVar(&o.only, "only", "", `run only one part: "database" (reservations), "holds" (through Temporal), "cache" (searches, the gate) `+
		`or "money" (the money paths against a baseline build; only with this flag)`)
	fs.StringVar(&o.serverAddress, "temporal-server", "", "also measure holds on this Temporal server (scripts/bench --temporal-server starts one)")
	fs.StringVar(&o.searchPrefix, "search-prefix", "scale", "with -search-hotels: the loaded catalogue's hotel id prefix")
	fs.IntVar(&o.searchHotels, "search-hotels", 0, "search this many hotels of a loaded catalogue at random (scripts/scale/run: 5000)")
	cpuProfile := fs.String("cpuprofile", "", "write the bench process's CPU profile (its API, client and relay) to this file")
	fs.StringVar(&o.bookflow, "bookflow", "", "the bookflow binary to run the API and the worker with (default: bookflow beside this binary)")
	fs.StringVar(&o.baselineBookflow, "baseline-bookflow", "", "with -only money: the baseline's bookflow binary")
	fs.StringVar(&o.baselineName, "baseline-name", "the baseline", "with -only money: what the baseline is (its commit)")
	fs.StringVar(&o.baselineDatabaseURL, "baseline-database-url", "", "with -only money: the baseline's own database (its binary migrates it)")
	fs.StringVar(&o.baselineRedisURL, "baseline-redis-url", "", "with -only money: the baseline's own Redis database")
	fs.IntVar(&o.moneyBookings, "money-bookings", 150, "with -only money: bookings per build per round")
	fs.IntVar(&o.moneyClients, "money-clients", 4, "with -only money: concurrent clients")
	_ = fs.Parse(os.Args[1:])
	if o.only != "" && !slices.Contains([]string{"database", "holds", "cache", "money"}, o.only) {
		return fmt.Errorf(`-only is "database", "holds", "cache" or "money", not %q`, o.only)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}

	d, closeDeps, err := connectAndMigrate(ctx, cfg)
	if err != nil {
		return err
	}
	defer closeDeps()
	run := randomToken()
	// The bench's own relay applies the outbox while it measures the database and the cache;
	// it pauses while holds are measured, so the worker process's relay does that work, and
	// is counted in its CPU time.
	relay := &cache.Relay{Store: d.store, Pool: d.store.Pool(), Cache: d.cache}
	startRelay := func() (stop func()) {
		relayCtx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { relay.Run(relayCtx); close(done) }()
		return func() { cancel(); <-done }
	}
	stopRelay := startRelay()
	defer func() { stopRelay() }()
	o.pauseRelay = func() (resume func()) {
		stopRelay()
		return func() { stopRelay = startRelay() }
	}
	defer func() {
		if p50, p99, n := relay.Lag(); n > 0 {
			fmt.Printf("  relay lag over the run's last %d changes: p50 %s, p99 %s\n", n, p50.Round(100*time.Microsecond), p99.Round(100*time.Microsecond))
		}
	}()
	if o.only == "money" {
		return benchMoney(ctx, cfg, o, run)
	}
	fmt.Printf("bookflow bench (run %s): %d database clients for %s each; %d Temporal clients, %d workflows each\n\n",
		run, o.clients, o.duration, o.temporalClients, o.holds)
	if o.only == "" || o.only == "database" {
		if err := benchDatabase(ctx, d.store, o, run); err != nil {
			return err
		}
	}
	if o.only == "database" {
		return nil
	}
	return benchTemporal(ctx, cfg, d, o, run)
}

// benchIDKey keys the bench's booking ids and signs its token.
var benchIDKey = []byte("bookflow-bench-key-of-32-bytes!!")

// benchRate prices every bench night.
var benchRate = domain.Money{Amount: 10000, Currency: "EUR"}

// result is one measurement.
type result struct {
	name      string
	label     string // how ratios against it name it; "baseline" when empty
	firstErr  error
	ok, fails int
	elapsed   time.Duration
	latencies []time.Duration
}

func (r result) rate() float64 { return float64(r.ok) / r.elapsed.Seconds() }

// print prints the measurement and its rate as a ratio of each baseline's.
func (r result) print(baselines ...*result) {
	slices.Sort(r.latencies)
	pct := func(p float64) time.Duration {
		if len(r.latencies) == 0 {
			return 0
		}
		return r.latencies[int(p*float64(len(r.latencies)-1))]
	}
	ratio := ""
	for i, b := range baselines {
		if i > 0 {
			ratio += ","
		}
		ratio += fmt.Sprintf("  %.2fx of %s", r.rate()/b.rate(), cmp.Or(b.label, "baseline"))
	}
	fmt.Printf("  %-44s %8.0f/s  p50 %7s  p99 %7s  ok %6d  failed %d%s\n", r.name, r.rate(),
		pct(0.50).Round(10*time.Microsecond), pct(0.99).Round(10*time.Microsecond), r.ok, r.fails, ratio)
	if r.firstErr != nil {
		fmt.Printf("    first failure: %v\n", r.firstErr)
	}
}

// measure calls op from n goroutines until the deadline passes or total calls were made
// (total 0: no limit).
func measure(ctx context.Context, name string, n, total int, d time.Duration, op func(ctx context.Context, i int) error) result {
	var mu sync.Mutex
	r := result{name: name}
	var next atomic.Int64
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for ctx.Err() == nil && (d == 0 || time.Now().Before(deadline)) {
				i := int(next.Add(1))
				if total > 0 && i > total {
					return
				}
				t0 := time.Now()
				err := op(ctx, i)
				lat := time.Since(t0)
				mu.Lock()
				if err != nil {
					r.fails++
					if r.firstErr == nil {
						r.firstErr = err
					}
				} else {
					r.ok++
					r.latencies = append(r.latencies, lat)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	r.elapsed = time.Since(start)
	return r
}

func benchDatabase(ctx context.Context, store *db.Store, o benchOptions, run string) error {
	// Totals large enough that nothing sells out while measuring.
	const big = 1_000_000_000
	first := domain.DateOf(time.Now(), time.UTC).AddDays(30)
	const openNights = 60
	hot := "bench-hot-" + run
	if err := store.SetInventory(ctx, db.SetInventoryParams{HotelID: hot, RoomTypeID: "double",
		From: first, To: first.AddDays(openNights), TotalRooms: big, Rate: &benchRate}); err != nil {
		return err
	}
	// A twin of the hot hotel with a sale rule in force (on another room type): its direct
	// sales take the full path, the statements judged in Go, as before reserve_stay.
	hotRuled := "bench-hot-ruled-" + run
	for _, rt := range []string{"double", "suite"} {
		if err := store.SetInventory(ctx, db.SetInventoryParams{HotelID: hotRuled, RoomTypeID: rt,
			From: first, To: first.AddDays(openNights), TotalRooms: big, Rate: &benchRate}); err != nil {
			return err
		}
	}
	if _, err := store.CreateSaleRules(ctx, []domain.SaleRule{{Kind: domain.RuleStopSell, HotelID: hotRuled,
		RoomTypeID: "suite", From: first, To: first.AddDays(1), Reason: "other"}}); err != nil {
		return err
	}
	roomTypes := []string{"single", "double", "twin", "family", "suite"}
	for h := range o.hotels {
		for _, rt := range roomTypes {
			if err := store.SetInventory(ctx, db.SetInventoryParams{HotelID: fmt.Sprintf("bench-%s-%d", run, h),
				RoomTypeID: rt, From: first, To: first.AddDays(openNights), TotalRooms: big, Rate: &benchRate}); err != nil {
				return err
			}
		}
	}
	var hotResource int64
	if err := store.Pool().QueryRow(ctx, `SELECT id FROM resources WHERE hotel_id = $1`, hot).Scan(&hotResource); err != nil {
		return err
	}
	pool := store.Pool()
	fmt.Println("PostgreSQL reservations")

	rawHot := measure(ctx, "baseline: raw conditional UPDATE, 1 hot row", o.clients, 0, o.duration, func(ctx context.Context, _ int) error {
		_, err := pool.Exec(ctx, `UPDATE inventory SET reserved = reserved + 1
			WHERE resource_id = $1 AND unit_start = $2 AND total - reserved >= 1`, hotResource, first.Time())
		return err
	})
	rawHot.print()
	hold := func(hotel, roomType, key string, stay domain.Stay) error {
		req := domain.HoldRequest{CustomerID: "bench", HotelID: hotel, RoomTypeID: roomType, Stay: stay, Quantity: 1}
		b, err := store.Reserve(ctx, db.ReserveParams{BookingID: domain.BookingID(benchIDKey, "bench", "bench", key),
			IdempotencyKey: key, Request: req, CreatedBy: "bench", HoldTTL: 10 * time.Minute})
		if err == nil && b.Status != domain.StatusHold {
			err = fmt.Errorf("booking %s is %s", b.ID, b.Status)
		}
		return err
	}
	hotStay := domain.Stay{CheckIn: first, CheckOut: first.AddDays(3)}
	rawHot.label = "raw UPDATE"
	byHand := measure(ctx, "baseline: by hand, 3 hot nights + booking", o.clients, 0, o.duration, func(ctx context.Context, i int) error {
		return reserveByHand(ctx, pool, hotResource, hotStay, fmt.Sprintf("%s-byhand-%d", run, i))
	})
	byHand.label = "by hand"
	byHand.print(&rawHot)
	reserveHot := measure(ctx, "reserve 3 nights, 1 hot room type", o.clients, 0, o.duration, func(_ context.Context, i int) error {
		return hold(hot, "double", fmt.Sprintf("%s-hot-%d", run, i), hotStay)
	})
	reserveHot.print(&rawHot, &byHand)
	reserveHot.label = "reserve"
	fullPath := measure(ctx, "  the same, full path (hotel with sale rules)", o.clients, 0, o.duration, func(_ context.Context, i int) error {
		return hold(hotRuled, "double", fmt.Sprintf("%s-ruled-%d", run, i), hotStay)
	})
	fullPath.print(&rawHot, &byHand)
	fullPath.label = "full path"
	amendHot, err := benchAmend(ctx, store, hot, run, hotStay, o)
	if err != nil {
		return err
	}
	amendHot.print(&reserveHot, &fullPath)

	rawSpread := measure(ctx, fmt.Sprintf("baseline: raw conditional UPDATE, %d rows", o.hotels*5*openNights), o.clients, 0, o.duration,
		func(ctx context.Context, _ int) error {
			_, err := pool.Exec(ctx, `UPDATE inventory SET reserved = reserved + 1
				WHERE resource_id = (SELECT id FROM resources WHERE hotel_id = $1 AND code = $2)
				AND unit_start = $3 AND total - reserved >= 1`,
				fmt.Sprintf("bench-%s-%d", run, rand.IntN(o.hotels)), roomTypes[rand.IntN(5)],
				first.AddDays(rand.IntN(openNights)).Time())
			return err
		})
	rawSpread.print()
	measure(ctx, fmt.Sprintf("reserve 1-3 nights, %d hotels x 5 types", o.hotels), o.clients, 0, o.duration, func(_ context.Context, i int) error {
		in := first.AddDays(rand.IntN(openNights - 3))
		stay := domain.Stay{CheckIn: in, CheckOut: in.AddDays(1 + rand.IntN(3))}
		return hold(fmt.Sprintf("bench-%s-%d", run, rand.IntN(o.hotels)), roomTypes[rand.IntN(5)], fmt.Sprintf("%s-spread-%d", run, i), stay)
	}).print(&rawSpread)
	fmt.Println()
	return nil
}

// benchAmend measures amendments of 3-night holds on the hot room type, each one night longer
// or back, beside the reservations measured before it in the same run.
func benchAmend(ctx context.Context, store *db.Store, hotel, run string, stay domain.Stay, o benchOptions) (result, error) {
	ids := make([]string, 4*o.clients)
	for j := range ids {
		key := fmt.Sprintf("%s-amend-%d", run, j)
		req := domain.HoldRequest{CustomerID: "bench", HotelID: hotel, RoomTypeID: "double", Stay: stay, Quantity: 1}
		b, err := store.Reserve(ctx, db.ReserveParams{BookingID: domain.BookingID(benchIDKey, "bench", "bench", key),
			IdempotencyKey: key, Request: req, CreatedBy: "bench", HoldTTL: time.Hour})
		if err != nil {
			return result{}, err
		}
		ids[j] = b.ID
	}
	return measure(ctx, "amend a 3-night hold there (+1 night, back)", o.clients, 0, o.duration, func(ctx context.Context, i int) error {
		checkOut := stay.CheckOut.AddDays((i / len(ids)) % 2) // each booking alternates
		a, _, err := store.Amend(ctx, db.AmendParams{BookingID: ids[i%len(ids)], IdempotencyKey: fmt.Sprintf("%s-a-%d", run, i),
			Change: domain.Change{CheckOut: checkOut.AddDays(1 - 2*((i/len(ids))%2) + (i/len(ids))%2)}, Actor: "bench"})
		if err == nil && a.Status != domain.AmendmentApplied {
			err = fmt.Errorf("amendment of %s is %s: %s", a.BookingID, a.Status, a.Reason)
		}
		return err
	}), nil
}

// reserveByHand is the hand-written equivalent of a reservation, the baseline of our own
// overhead: in one round trip (a pipelined batch, one implicit transaction), lock the stay's
// nights in order, take one room on each where one is left, and insert a booking row.
func reserveByHand(ctx context.Context, pool *pgxpool.Pool, resource int64, stay domain.Stay, id string) error {
	from, to := stay.CheckIn.Time(), stay.CheckOut.Time()
	batch := &pgx.Batch{}
	batch.Queue(`SELECT 1 FROM inventory WHERE resource_id = $1 AND unit_start >= $2 AND unit_start < $3
		ORDER BY unit_start FOR UPDATE`, resource, from, to)
	batch.Queue(`UPDATE inventory SET reserved = reserved + 1
		WHERE resource_id = $1 AND unit_start >= $2 AND unit_start < $3 AND total - reserved >= 1`, resource, from, to)
	batch.Queue(`INSERT INTO bookings (id, customer_id, created_by, idempotency_key, fingerprint, resource_id,
			unit_from, unit_to, quantity, status, expires_at)
		VALUES ($1, 'bench', 'bench', $1, '', $2, $3, $4, 1, 'HOLD', now() + interval '10 minutes')`, id, resource, from, to)
	return pool.SendBatch(ctx, batch).Close()
}

// benchBaselineWorkflow is the bare Temporal baseline: it waits for one signal and completes.
func benchBaselineWorkflow(ctx workflow.Context) error {
	workflow.GetSignalChannel(ctx, "go").Receive(ctx, nil)
	return nil
}

func benchTemporal(ctx context.Context, cfg Config, d *deps, o benchOptions, run string) error {
	queue := "bookflow-bench-" + run
	w := worker.New(d.temporal, d.store, payments.Fake{}, queue)
	if err := w.Start(); err != nil {
		return err
	}
	defer w.Stop()

	// One customer makes every hold, so the hold limits are off: they are not what is measured.
	verifier, err := auth.NewVerifier(ctx, auth.Config{Secret: benchIDKey})
	if err != nil {
		return err
	}
	token, err := auth.Mint(benchIDKey, domain.Principal{Subject: "bench-" + run, Roles: []domain.Role{domain.RoleCustomer}},
		time.Hour, auth.MintOptions{})
	if err != nil {
		return err
	}
	if o.only != "cache" {
		targets := []temporalTarget{{name: "the dev server", address: cfg.TemporalAddress, client: d.temporal,
			pidEnv: "BENCH_TEMPORAL_PID"}}
		if o.serverAddress != "" {
			c, err := client.DialContext(ctx, client.Options{HostPort: o.serverAddress, Namespace: cfg.TemporalNamespace,
				Logger: log.NewStructuredLogger(slog.Default())})
			if err != nil {
				return fmt.Errorf("the Temporal server at %s: %w", o.serverAddress, err)
			}
			defer c.Close()
			targets = append(targets, temporalTarget{name: "the Temporal server", address: o.serverAddress, client: c,
				pidEnv: "BENCH_TEMPORAL_SERVER_PID"})
		}
		for _, target := range targets {
			fmt.Printf("Holds on %s (%s)\n", target.name, target.address)
			if err := benchHolds(ctx, cfg, d, o, run, target, token); err != nil {
				return err
			}
			fmt.Println()
		}
	}
	if o.only == "holds" {
		return nil
	}
	if d.cache == nil {
		fmt.Println("Availability cache: not measured (no REDIS_URL)")
		return nil
	}
	return benchCache(ctx, d, queue, verifier, token, o, run)
}

func randomToken() string { return fmt.Sprintf("%06x", rand.IntN(1<<24)) }
