package testsuite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/bookflow/bookflow/testsuite"
)

// TestSlowReservationUnderLoad looks for where a reservation's time goes when the machine is as
// loaded as CI's: it holds one room on each of many fresh one-room hotels (each created just
// before its hold, as an acceptance check does) while CPU burners (and, asked, a race build of
// the module) run, and prints the distribution of each part of the reservations' timing lines
// (docs/how-a-hold-works.md#when-a-reservation-is-slow), every slow one, and every hold not
// answered 201. It fails on no figure: it measures. Bounded in time; loopback only.
//
//	BOOKFLOW_SLOW_RESERVATION=1 go test -count=1 -run TestSlowReservationUnderLoad -v ./testsuite/
//
// BOOKFLOW_SLOW_RESERVATION_HOLDS (400), _CLIENTS (4 at once), _BURNERS (4 `yes` processes),
// _BUILD=1 (a `go build -race` of the module, over and over, with a cache of its own) and _FOR
// (3m: the holds stop then, the load with them) tune it.
func TestSlowReservationUnderLoad(t *testing.T) {
	if os.Getenv("BOOKFLOW_SLOW_RESERVATION") == "" {
		t.Skip("a load experiment: BOOKFLOW_SLOW_RESERVATION=1 runs it")
	}
	holds, clients, burners := envInt("BOOKFLOW_SLOW_RESERVATION_HOLDS", 400), envInt("BOOKFLOW_SLOW_RESERVATION_CLIENTS", 4),
		envInt("BOOKFLOW_SLOW_RESERVATION_BURNERS", 4)
	bound, err := time.ParseDuration(cmpOr(os.Getenv("BOOKFLOW_SLOW_RESERVATION_FOR"), "3m"))
	require.NoError(t, err)
	logs := &testsuite.SyncBuffer{}
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Cache: true,
		Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})

	ctx, stop := context.WithTimeout(context.Background(), bound)
	defer stop()
	load := startLoad(t, ctx, burners, os.Getenv("BOOKFLOW_SLOW_RESERVATION_BUILD") == "1")
	stay := stayFromNow(30, 1)
	type answer struct {
		id      string
		status  int
		code    string
		latency time.Duration
	}
	var mu sync.Mutex
	var answers []answer
	var wg sync.WaitGroup
	next := make(chan int)
	for range clients {
		wg.Go(func() {
			for i := range next {
				hotel := fmt.Sprintf("slow-%s-%d", sys.ID, i)
				openRooms(t, sys, hotel, "single", stay, 1)
				customer := sys.Customer(fmt.Sprintf("c%d", i))
				start := time.Now()
				res := hold(t, sys, "k", holdBody(customer, hotel, "single", stay, 1))
				a := answer{id: sys.BookingID(customer, customer, "k"), status: res.Status, code: res.ErrorCode(), latency: time.Since(start)}
				mu.Lock()
				answers = append(answers, a)
				mu.Unlock()
			}
		})
	}
	for i := 0; i < holds && ctx.Err() == nil; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	stop()
	load()

	lines := jsonLines(logs)
	timings := map[string][]map[string]any{}
	for _, l := range lines {
		if l["msg"] == "Reservation timing" {
			id, _ := l["bookingId"].(string)
			timings[id] = append(timings[id], l)
		}
	}
	figures := map[string][]time.Duration{}
	add := func(k string, d time.Duration) { figures[k] = append(figures[k], d) }
	paths := map[string]int{}
	for _, a := range answers {
		add("hold (client)", a.latency)
		ts := timings[a.id]
		if len(ts) == 0 {
			continue
		}
		first, last := ts[0], ts[len(ts)-1]
		if left := duration(first["boundLeft"]); left > 0 {
			add("bound used before the workflow task", 10*time.Second-left)
		}
		add("attempts", time.Duration(len(ts)))
		for _, k := range []string{"startDelay", "took", "queued", "acquire", "database", "lockWait"} {
			add(k, duration(last[k]))
		}
		paths[fmt.Sprint(last["path"], " sentBack=", last["sentBack"])]++
	}
	t.Logf("%d holds in %s, %d clients, %d burners, load %s", len(answers), bound, clients, burners, loadAvg())
	t.Logf("paths: %v", paths)
	for _, k := range slices.Sorted(maps.Keys(figures)) {
		t.Logf("%-40s %s", k, percentiles(figures[k], k == "attempts"))
	}
	slow := 0
	for _, a := range answers {
		ts := timings[a.id]
		warn := slices.ContainsFunc(ts, func(l map[string]any) bool { return l["level"] == "WARN" })
		if a.status != http.StatusCreated || warn || a.latency > 2*time.Second {
			slow++
			if slow <= 30 {
				t.Logf("hold %s: %d %s in %s; timing lines: %v; history: %s", a.id, a.status, a.code, a.latency, ts,
					historyTimes(sys, a.id))
			}
		}
	}
	waited := 0
	for _, l := range lines {
		if l["msg"] == "Reservation timing" && (l["locks"] != "" || l["sentBack"] == true) {
			if waited++; waited <= 20 {
				t.Logf("waited: %s %s: trips %s; locks %s", l["bookingId"], l["took"], l["trips"], l["locks"])
			}
		}
	}
	t.Logf("%d reservation attempts met a lock", waited)
	for _, l := range lines {
		if msg, _ := l["msg"].(string); strings.HasPrefix(msg, "Reservation did not complete") {
			t.Logf("abandoned: %v", l)
		}
	}
	t.Logf("%d holds slow (over 2 s, a timing line at WARN) or not 201", slow)
}

// startLoad starts burners `yes > /dev/null` and, asked, `go build -race` of the module in a
// loop, until ctx ends; the function returned waits for them to end.
func startLoad(t *testing.T, ctx context.Context, burners int, build bool) (wait func()) {
	var wg sync.WaitGroup
	for range burners {
		cmd := exec.CommandContext(ctx, "yes")
		require.NoError(t, cmd.Start())
		wg.Go(func() { _ = cmd.Wait() })
	}
	if build {
		cache := t.TempDir()
		wg.Go(func() {
			for ctx.Err() == nil {
				cmd := exec.CommandContext(ctx, "go", "build", "-race", "-o", os.DevNull, "./...")
				cmd.Dir, cmd.Env = "..", append(os.Environ(), "GOCACHE="+cache)
				_ = cmd.Run()
				_ = os.RemoveAll(cache) // compile everything again, as CI's cold packages do
			}
		})
	}
	return wg.Wait
}

// historyTimes lists a workflow's first events with their time from its start: a workflow
// task that timed out or started late shows here.
func historyTimes(sys *testsuite.System, id string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	it := sys.Temporal.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var b strings.Builder
	var start time.Time
	for n := 0; it.HasNext() && n < 20; n++ {
		e, err := it.Next()
		if err != nil {
			return b.String() + " " + err.Error()
		}
		if start.IsZero() {
			start = e.GetEventTime().AsTime()
		}
		fmt.Fprintf(&b, "%s +%s; ", strings.TrimPrefix(e.GetEventType().String(), "EVENT_TYPE_"),
			e.GetEventTime().AsTime().Sub(start).Round(time.Millisecond))
	}
	return b.String()
}

// jsonLines parses the JSON log lines of out.
func jsonLines(out *testsuite.SyncBuffer) []map[string]any {
	var lines []map[string]any
	for _, line := range strings.Split(out.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			lines = append(lines, m)
		}
	}
	return lines
}

func envInt(name string, or int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return or
}

func cmpOr(s, or string) string {
	if s == "" {
		return or
	}
	return s
}

func duration(v any) time.Duration {
	s, _ := v.(string)
	d, _ := time.ParseDuration(s)
	return d
}

// percentiles reads p50, p90, p99 and the maximum of ds (counts, when count).
func percentiles(ds []time.Duration, count bool) string {
	slices.Sort(ds)
	at := func(q float64) string {
		d := ds[min(len(ds)-1, int(float64(len(ds))*q))]
		if count {
			return strconv.Itoa(int(d))
		}
		return d.Round(100 * time.Microsecond).String()
	}
	return fmt.Sprintf("n=%d p50 %s p90 %s p99 %s max %s", len(ds), at(0.5), at(0.9), at(0.99), at(1))
}

func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(b))
}
