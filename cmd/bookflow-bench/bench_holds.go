package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/cmd/internal/product"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// processNames are the metered processes, in the order they are printed.
var processNames = []string{"API", "worker", "Temporal", "PostgreSQL", "Redis"}

// holdMode is what is measured: a hold with the reservation as an activity or as a local
// activity, or a whole booking: a hold (local), then its confirmation through the staff route
// (which also reads the booking and writes an audit row) or by the payment's signed webhook (a
// checkout's path: the bench then waits until the database has the booking confirmed), with the
// confirmation as an activity or a local activity (CONFIRM_LOCAL_ACTIVITY).
type holdMode struct {
	name, key      string // key: in idempotency keys
	local, confirm bool
	confirmLocal   bool
	webhook        bool
}

var holdModes = []holdMode{{name: "hold, activity", key: "activity"}, {name: "hold, local activity", key: "local", local: true},
	{name: "booking, confirm act.", key: "confirm-activity", local: true, confirm: true},
	{name: "booking, confirm local", key: "confirm", local: true, confirm: true, confirmLocal: true},
	{name: "booking, webhook, local", key: "webhook", local: true, confirm: true, confirmLocal: true, webhook: true}}

// env is the API process's environment for the mode.
func (m holdMode) env() []string {
	return []string{"RESERVE_LOCAL_ACTIVITY=" + strconv.FormatBool(m.local), "CONFIRM_LOCAL_ACTIVITY=" + strconv.FormatBool(m.confirmLocal)}
}

// temporalTarget is a Temporal server holds are measured on.
type temporalTarget struct {
	name, address string
	client        client.Client
	pidEnv        string // the environment variable naming its process, for its CPU time
}

// benchHolds measures holds through the HTTP API and Temporal against a bare
// start-signal-complete workflow on the same server, with the reservation as an activity and
// as a local activity. Single runs swing by a third on a small machine, so the three alternate
// for o.rounds rounds and the ratios are reported as their median and range. The API and the
// worker run as processes of their own (bookflow serve and bookflow worker, as deployed), so
// the CPU time each process spends per hold can be read from /proc.
func benchHolds(ctx context.Context, cfg Config, d *deps, o benchOptions, run string, target temporalTarget, token string) error {
	bareQueue := fmt.Sprintf("bookflow-bench-%s-%s", run, strings.ReplaceAll(target.address, ":", "-"))
	bare := sdkworker.New(target.client, bareQueue, sdkworker.Options{})
	bare.RegisterWorkflowWithOptions(benchBaselineWorkflow, workflow.RegisterOptions{Name: "BenchBaseline"})
	bare.RegisterWorkflowWithOptions(benchUpdateBaselineWorkflow, workflow.RegisterOptions{Name: "BenchUpdateBaseline"})
	if err := bare.Start(); err != nil {
		return err
	}
	defer bare.Stop()
	resume := o.pauseRelay() // the worker process relays the outbox, and is metered doing it
	defer resume()
	bookflow, err := product.Binary(o.bookflow)
	if err != nil {
		return err
	}
	logs, err := os.MkdirTemp("", "bookflow-bench-")
	if err != nil {
		return err
	}
	adminToken := "bench-admin-token-" + run + "-of-at-least-32-bytes"
	webhookSecret := "whsec_bench_holds_" + run + "_of_at_least_32_bytes"
	procs := &products{bookflow: bookflow, logs: logs, env: append(productEnv(target.address, bareQueue+"-processes", adminToken),
		"STRIPE_WEBHOOK_SECRET="+webhookSecret)}
	defer procs.stop()
	workerProc, err := procs.start(ctx, "worker")
	if err != nil {
		return err
	}
	apiURL, apiPID := map[string]string{}, map[string]int{} // by mode
	for _, m := range holdModes {
		if apiURL[m.name], apiPID[m.name], err = procs.serve(ctx, m.env()...); err != nil {
			return err
		}
	}
	shared := []meteredProcess{{"worker", workerProc.Process.Pid}}
	if pid, _ := strconv.Atoi(os.Getenv(target.pidEnv)); pid > 0 {
		shared = append(shared, meteredProcess{"Temporal", pid})
	}
	if pid := postgresPID(ctx, d.store.Pool()); pid > 0 {
		shared = append(shared, meteredProcess{"PostgreSQL", pid})
	}
	if pid := redisPID(ctx, cfg.RedisURL); pid > 0 {
		shared = append(shared, meteredProcess{"Redis", pid})
	}

	stay := domain.Stay{CheckIn: domain.DateOf(time.Now(), time.UTC).AddDays(30)}
	stay.CheckOut = stay.CheckIn.AddDays(2)
	hotel := "bench-api-" + bareQueue
	if err := d.store.SetInventory(ctx, db.SetInventoryParams{HotelID: hotel, RoomTypeID: "double",
		From: stay.CheckIn, To: stay.CheckOut, TotalRooms: 1_000_000, Rate: &benchRate}); err != nil {
		return err
	}
	body := fmt.Sprintf(`{"hotelId":%q,"roomTypeId":"double","checkIn":%q,"checkOut":%q,"quantity":1}`, hotel, stay.CheckIn, stay.CheckOut)
	httpc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.temporalClients}}
	// book makes a hold (and confirms it) and returns its booking id, its workflow's id.
	book := func(m holdMode, key string) (string, error) {
		api := apiURL[m.name]
		var held domain.Booking
		if err := call(ctx, httpc, http.MethodPost, api+"/bookings", token, key, body, http.StatusCreated, &held); err != nil {
			return "", err
		}
		switch {
		case m.webhook:
			if err := payByWebhook(ctx, httpc, api, webhookSecret, held); err != nil {
				return "", err
			}
			return held.ID, awaitConfirmed(ctx, d.store, held.ID)
		case m.confirm:
			err = call(ctx, httpc, http.MethodPost, api+"/staff/bookings/"+held.ID+"/confirm", adminToken, "", "", http.StatusOK, nil)
		}
		return held.ID, err
	}

	type modeRound struct {
		res result
		cpu map[string]time.Duration
	}
	const sws, uws = "baseline: signal-with-start", "baseline: update-with-start + update"
	bares, updateBares := make([]result, 0, o.rounds), make([]result, 0, o.rounds)
	byMode := map[string][]modeRound{}
	var sample sampler
	tallies := map[string]*actionsTally{}
	tally := func(name string) {
		if tallies[name] == nil {
			tallies[name] = &actionsTally{}
		}
		tallies[name].count(ctx, target.client, sample.take())
	}
	for round := 1; round <= o.rounds; round++ {
		// The old baseline: one start and one signal, awaited to the workflow's end.
		bare := measure(ctx, fmt.Sprintf("round %d  %s", round, sws), o.temporalClients, o.holds, 0, func(ctx context.Context, i int) error {
			id := fmt.Sprintf("bench-%s-%s-%d-%d", run, bareQueue, round, i)
			r, err := target.client.SignalWithStartWorkflow(ctx, id, "go", nil,
				client.StartWorkflowOptions{TaskQueue: bareQueue}, "BenchBaseline")
			if err != nil {
				return err
			}
			sample.add(id)
			return r.Get(ctx, nil)
		})
		bare.label = "signal-with-start"
		bare.print()
		bares = append(bares, bare)
		tally(sws)
		// The fair one: a booking's two round trips (the hold, the confirmation), nothing else.
		// Its worker is the bench's own, so only the server's side of its CPU is metered.
		before := snapshotCPU(shared)
		ubare := measure(ctx, "         "+uws, o.temporalClients, o.holds, 0, func(ctx context.Context, i int) error {
			id := fmt.Sprintf("bench-uws-%s-%s-%d-%d", run, bareQueue, round, i)
			sample.add(id)
			return updateBaselineOnce(ctx, target.client, id, bareQueue)
		})
		ubare.label = "update-with-start"
		ubare.print(&bare)
		updateBares = append(updateBares, ubare)
		byMode[uws] = append(byMode[uws], modeRound{ubare, before.perOp(snapshotCPU(shared), ubare.ok)})
		tally(uws)
		for _, m := range holdModes {
			procs := append([]meteredProcess{{"API", apiPID[m.name]}}, shared...)
			before := snapshotCPU(procs)
			res := measure(ctx, "         "+m.name, o.temporalClients, o.holds, 0, func(_ context.Context, i int) error {
				id, err := book(m, fmt.Sprintf("%s-%d-%s-%d", bareQueue, round, m.key, i))
				if err == nil {
					sample.add(id)
				}
				return err
			})
			cpu := before.perOp(snapshotCPU(procs), res.ok)
			res.print(&bare, &ubare)
			byMode[m.name] = append(byMode[m.name], modeRound{res, cpu})
			tally(m.name)
		}
	}

	fmt.Printf("\n  over %d rounds, as the median (and range) of each round's ratio to its baseline:\n", o.rounds)
	for _, m := range holdModes {
		var rate, p50, p99 []float64
		for i, mr := range byMode[m.name] {
			rate = append(rate, mr.res.rate()/bares[i].rate())
			p50 = append(p50, float64(mr.res.pct(0.5))/float64(bares[i].pct(0.5)))
			p99 = append(p99, float64(mr.res.pct(0.99))/float64(bares[i].pct(0.99)))
		}
		fmt.Printf("    %-23s rate %s, p50 %s, p99 %s of the bare signal-with-start workflow's\n", m.name+":",
			medianRange(rate), medianRange(p50), medianRange(p99))
	}
	for _, m := range holdModes {
		if !m.confirm {
			continue
		}
		var rate, p50, p99 []float64
		for i, mr := range byMode[m.name] {
			rate = append(rate, mr.res.rate()/updateBares[i].rate())
			p50 = append(p50, float64(mr.res.pct(0.5))/float64(updateBares[i].pct(0.5)))
			p99 = append(p99, float64(mr.res.pct(0.99))/float64(updateBares[i].pct(0.99)))
		}
		fmt.Printf("    %-23s rate %s, p50 %s, p99 %s of the bare update-with-start + update workflow's (the same two round trips)\n",
			m.name+":", medianRange(rate), medianRange(p50), medianRange(p99))
	}

	fmt.Printf("\n  CPU ms per hold (or booking), median of %d rounds (the bench's own client not counted):\n", o.rounds)
	fmt.Printf("    %-23s", "")
	for _, name := range processNames {
		fmt.Printf("%11s", name)
	}
	fmt.Printf("%11s\n", "total")
	totals := map[string]map[string]float64{}
	metered := []string{uws}
	for _, m := range holdModes {
		metered = append(metered, m.name)
	}
	for _, mode := range metered {
		totals[mode] = map[string]float64{}
		fmt.Printf("    %-23s", strings.TrimPrefix(mode, "baseline: "))
		sum := 0.0
		for _, name := range processNames {
			if mode == uws && (name == "API" || name == "worker") {
				fmt.Printf("%11s", "-") // not bookflow's: the bench's own worker runs it
				continue
			}
			var per []float64
			for _, mr := range byMode[mode] {
				if v, ok := mr.cpu[name]; ok {
					per = append(per, float64(v)/float64(time.Millisecond))
				}
			}
			if len(per) == 0 {
				fmt.Printf("%11s", "-")
				continue
			}
			v := median(per)
			totals[mode][name] = v
			sum += v
			fmt.Printf("%11.2f", v)
		}
		fmt.Printf("%11.2f\n", sum)
	}
	for _, m := range holdModes {
		for _, rate := range []float64{50, 1000} {
			fmt.Printf("    cores at %4.0f/s, %-23s", rate, m.name+":")
			for _, name := range processNames {
				if v, ok := totals[m.name][name]; ok {
					fmt.Printf(" %s %.2f", name, v*rate/1000)
				}
			}
			fmt.Println()
		}
	}
	names := []string{sws, uws}
	for _, m := range holdModes {
		names = append(names, m.name)
	}
	printActions(names, tallies)
	fmt.Printf("  (the API's and worker's logs: %s)\n", logs)
	return nil
}

// pct is the latency at percentile p (0-1) of the measurement's successful calls.
func (r result) pct(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	l := slices.Sorted(slices.Values(r.latencies))
	return l[int(p*float64(len(l)-1))]
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// medianRange prints ratios as "0.80x (0.71-0.86x)".
func medianRange(v []float64) string {
	if len(v) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx (%.2f-%.2fx)", median(v), slices.Min(v), slices.Max(v))
}

// awaitConfirmed polls the database until the booking is confirmed: a webhook is answered once
// the payment is handed to the workflow, before it confirms. Each poll is one primary-key read
// (a few every booking, in PostgreSQL's CPU time).
func awaitConfirmed(ctx context.Context, store *db.Store, id string) error {
	for {
		b, err := store.GetBooking(ctx, id)
		if err != nil || b.Status == domain.StatusConfirmed {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}
