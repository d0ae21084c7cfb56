package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/cmd/internal/product"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
)

// The money paths measured through the real processes, on this build and on a baseline build
// (scripts/bench -only money builds the commit before the money ledger), each with its own
// database: per booking, the hold, the payment's confirmation (a signed webhook until the
// booking is confirmed) and a partial refund (a staff goodwill refund until the provider's
// refund succeeded). The builds take turns round by round, so the machine's load falls on both.

// moneyOps are the operations measured, in the order a booking meets them.
var moneyOps = []string{"hold", "confirmation", "partial refund"}

// moneyRefund is the goodwill refund of each booking (its price is 2 nights at benchRate).
const moneyRefund = 1000

// moneyWithin is how long a confirmation or a refund may take before it counts as failed.
const moneyWithin = time.Minute

// moneyBuild is one build's processes and database, as the bench drives and meters them.
type moneyBuild struct {
	name      string // "baseline" or "current"
	api       string
	procs     []meteredProcess // API, worker, Temporal
	pool      *pgxpool.Pool    // the bench's own connections to the build's database
	dbName    string
	confirmed *poller
	refunded  *poller
}

// opRound is one operation measured on one build in one round, per operation.
type opRound struct {
	res    result
	stats  dbStats                  // the build's database, over the measurement
	pgCPU  time.Duration            // its backends
	cpu    map[string]time.Duration // API, worker, Temporal
	gone   int                      // backends that ended meanwhile (their CPU is lost)
	polls  int
	pollMs float64 // the bench's polls' round trips, per operation
}

func benchMoney(ctx context.Context, cfg Config, o benchOptions, run string) error {
	if o.baselineBookflow == "" || o.baselineDatabaseURL == "" {
		return fmt.Errorf("-only money needs -baseline-bookflow and -baseline-database-url (scripts/bench -only money gives them)")
	}
	resume := o.pauseRelay() // the worker processes relay their outbox, metered
	defer resume()
	address, pidEnv := cfg.TemporalAddress, "BENCH_TEMPORAL_PID"
	if o.serverAddress != "" {
		address, pidEnv = o.serverAddress, "BENCH_TEMPORAL_SERVER_PID"
	}
	current, err := product.Binary(o.bookflow)
	if err != nil {
		return err
	}
	logs, err := os.MkdirTemp("", "bookflow-bench-money-")
	if err != nil {
		return err
	}
	adminToken := "bench-admin-token-" + run + "-of-at-least-32-bytes"
	token, err := auth.Mint(benchIDKey, domain.Principal{Subject: "bench-" + run, Roles: []domain.Role{domain.RoleCustomer}},
		2*time.Hour, auth.MintOptions{})
	if err != nil {
		return err
	}
	stay := domain.Stay{CheckIn: domain.DateOf(time.Now(), time.UTC).AddDays(30)}
	stay.CheckOut = stay.CheckIn.AddDays(2)
	hotel := "bench-money-" + run
	httpc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * o.moneyClients}}
	webhookSecret := "whsec_bench_" + run + "_of_at_least_32_bytes"

	specs := []struct{ name, bookflow, dbURL, redisURL string }{
		{"baseline", o.baselineBookflow, o.baselineDatabaseURL, o.baselineRedisURL},
		{"current", current, cfg.DatabaseURL, cfg.RedisURL},
	}
	var builds []*moneyBuild
	for _, s := range specs {
		queue := fmt.Sprintf("bookflow-bench-money-%s-%s", run, s.name)
		procs := &products{bookflow: s.bookflow, logs: logs, env: append(productEnv(address, queue, adminToken),
			"DATABASE_URL="+s.dbURL, "REDIS_URL="+s.redisURL, "STRIPE_WEBHOOK_SECRET="+webhookSecret,
			"BOOKFLOW_SCHEDULE_PREFIX="+queue+"-")}
		defer procs.stop()
		migrate, err := procs.start(ctx, "migrate") // each build migrates its own database
		if err != nil {
			return err
		}
		if err := migrate.Wait(); err != nil {
			return fmt.Errorf("the %s build's bookflow migrate: %w (its log is in %s)", s.name, err, logs)
		}
		procs.children = procs.children[:len(procs.children)-1]
		worker, err := procs.start(ctx, "worker")
		if err != nil {
			return err
		}
		api, apiPID, err := procs.serve(ctx)
		if err != nil {
			return fmt.Errorf("the %s build: %w", s.name, err)
		}
		pool, err := pgxpool.New(ctx, withAppName(s.dbURL))
		if err != nil {
			return err
		}
		defer pool.Close()
		b := &moneyBuild{name: s.name, api: api, pool: pool,
			procs:     []meteredProcess{{"API", apiPID}, {"worker", worker.Process.Pid}},
			confirmed: newPoller(ctx, pool, `SELECT id FROM bookings WHERE id = ANY($1) AND status = 'CONFIRMED'`),
			refunded: newPoller(ctx, pool, `SELECT DISTINCT booking_id FROM refunds
				WHERE booking_id = ANY($1) AND status = 'succeeded'`)}
		if pid, _ := strconv.Atoi(os.Getenv(pidEnv)); pid > 0 {
			b.procs = append(b.procs, meteredProcess{"Temporal", pid})
		}
		if b.dbName, err = dbNameOf(ctx, pool); err != nil {
			return err
		}
		inventory := fmt.Sprintf(`{"from":%q,"to":%q,"totalRooms":100000,"rate":%d,"currency":%q}`,
			stay.CheckIn, stay.CheckOut, benchRate.Amount, benchRate.Currency)
		if err := call(ctx, httpc, http.MethodPut, api+"/admin/hotels/"+hotel+"/room-types/double/inventory", adminToken, "",
			inventory, http.StatusOK, nil); err != nil {
			return fmt.Errorf("the %s build's inventory: %w", s.name, err)
		}
		builds = append(builds, b)
	}

	hold := fmt.Sprintf(`{"hotelId":%q,"roomTypeId":"double","checkIn":%q,"checkOut":%q,"quantity":1}`, hotel, stay.CheckIn, stay.CheckOut)
	// book runs n bookings through the three operations on b, each operation metered apart.
	book := func(b *moneyBuild, tag string, n int) map[string]opRound {
		held := make([]domain.Booking, n+1) // by measure's call number, from 1
		ops := map[string]func(ctx context.Context, i int) error{
			"hold": func(ctx context.Context, i int) error {
				return call(ctx, httpc, http.MethodPost, b.api+"/bookings", token, fmt.Sprintf("money-%s-%s-%d", run, tag, i),
					hold, http.StatusCreated, &held[i])
			},
			"confirmation": func(ctx context.Context, i int) error {
				h := held[i]
				if h.ID == "" {
					return fmt.Errorf("no hold %d", i)
				}
				return b.confirmed.after(ctx, h.ID, moneyWithin, func() error {
					return payByWebhook(ctx, httpc, b.api, webhookSecret, h)
				})
			},
			"partial refund": func(ctx context.Context, i int) error {
				h := held[i]
				if h.ID == "" {
					return fmt.Errorf("no hold %d", i)
				}
				body := fmt.Sprintf(`{"amount":%d,"currency":%q,"reason":"bench: goodwill"}`, moneyRefund, h.Price.Currency)
				return b.refunded.after(ctx, h.ID, moneyWithin, func() error {
					return call(ctx, httpc, http.MethodPost, b.api+"/staff/bookings/"+h.ID+"/refunds", adminToken,
						"goodwill-"+h.ID, body, http.StatusOK, nil)
				})
			},
		}
		out := map[string]opRound{}
		idle, err := idleRate(ctx, b.pool, b.dbName)
		for _, op := range moneyOps {
			out[op] = meterOp(ctx, b, op, o.moneyClients, n, idle, ops[op])
			if err != nil && out[op].res.firstErr == nil {
				r := out[op]
				r.res.firstErr = fmt.Errorf("the database's idle rate: %w", err)
				out[op] = r
			}
		}
		return out
	}

	fmt.Printf("Money paths: %d bookings a round from %d clients, %d rounds; the baseline is %s, on Temporal at %s\n",
		o.moneyBookings, o.moneyClients, o.rounds, o.baselineName, address)
	fmt.Printf("  (each operation until its outcome is in the database; figures per operation. PG CPU: the CPU time of the\n" +
		"  build's database backends, from /proc, the bench's own connections left out. statements: the time its database\n" +
		"  spent running statements (pg_stat_database.active_time), less what it does idle; it includes the bench's\n" +
		"  polls for outcomes, whose round trips are shown as polls)\n")
	// A first round of each, not counted: connections, caches and the JIT of both builds warm up.
	for _, b := range builds {
		book(b, "warm-"+b.name, min(20, o.moneyBookings))
	}
	rounds := map[string][]map[string]opRound{} // by build, then round
	for round := 1; round <= o.rounds; round++ {
		order := builds
		if round%2 == 0 { // baseline, current; current, baseline; ...: a drift within a round falls on both
			order = []*moneyBuild{builds[1], builds[0]}
		}
		for _, b := range order {
			r := book(b, fmt.Sprintf("%s-%d", b.name, round), o.moneyBookings)
			rounds[b.name] = append(rounds[b.name], r)
			for _, op := range moneyOps {
				printOpRound(fmt.Sprintf("round %d  %-8s %-14s", round, b.name, op), r[op])
			}
		}
	}
	printMoneySummary(rounds, o.rounds)
	fmt.Printf("  (the API's and worker's logs: %s)\n", logs)
	return nil
}

// meterOp measures n calls of op from clients goroutines on b, with what each metered process
// and b's database spent per call. The database's statistics take a settle to be complete;
// what it does anyway meanwhile (idle, per second) and the bench's polls (a transaction each)
// are taken off them.
func meterOp(ctx context.Context, b *moneyBuild, name string, clients, n int, idle dbStats, op func(context.Context, int) error) opRound {
	start := time.Now()
	statsBefore, err1 := readDBStats(ctx, b.pool, b.dbName)
	pgBefore, err2 := backendsCPU(ctx, b.pool, b.dbName)
	b.confirmed.take()
	b.refunded.take()
	cpuBefore := snapshotCPU(b.procs)
	res := measure(ctx, name, clients, n, 0, op)
	cpu := cpuBefore.perOp(snapshotCPU(b.procs), res.ok)
	pgAfter, err3 := backendsCPU(ctx, b.pool, b.dbName)
	pgSpent, gone := spentSince(pgBefore, pgAfter)
	polls, pollTime := b.confirmed.take()
	p2, t2 := b.refunded.take()
	time.Sleep(statsSettle)
	statsAfter, err4 := readDBStats(ctx, b.pool, b.dbName)
	r := opRound{res: res, cpu: cpu, gone: gone, polls: polls + p2}
	if err := errors.Join(err1, err2, err3, err4); err != nil && r.res.firstErr == nil {
		r.res.firstErr = err
	}
	r.stats = statsAfter.minus(statsBefore).minus(idle.times(time.Since(start).Seconds()))
	r.stats.xacts -= float64(r.polls)
	if res.ok > 0 {
		r.pgCPU = pgSpent / time.Duration(res.ok)
		r.pollMs = float64(pollTime+t2) / float64(time.Millisecond) / float64(res.ok)
	}
	return r
}

// payByWebhook sends the provider's signed payment_intent.succeeded for the hold's price, as
// `bookflow pay` does: the payment the checkout would have created (the fake provider's id).
func payByWebhook(ctx context.Context, c *http.Client, api, secret string, h domain.Booking) error {
	checkout, err := payments.Fake{}.CreatePayment(ctx, payments.PaymentRequest{BookingID: h.ID,
		IdempotencyKey: payments.CheckoutKey(h.ID, 0)})
	if err != nil {
		return err
	}
	now := time.Now()
	payload := payments.EventPayload("evt_bench_"+checkout.PaymentID, "payment_intent.succeeded",
		payments.PaymentIntentObject(checkout.PaymentID, h.ID, h.Price.Total, h.Price.Currency), now)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, api+"/webhooks/payments", bytes.NewReader(payload))
	if err != nil {
		return err
	}
	req.Header.Set("Stripe-Signature", payments.SignWebhook(payload, secret, now))
	req.Header.Set("Content-Type", "application/json")
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer drain(res)
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("webhook for %s: status %d", h.ID, res.StatusCode)
	}
	return nil
}
