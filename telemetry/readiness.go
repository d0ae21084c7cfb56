package telemetry

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
)

// Readiness is a process's readiness probe (/readyz): the API's, on its address, and a worker's,
// on its metrics listener, each with the checks of what it needs.
type Readiness struct {
	Checks []ReadinessCheck
	Logger *slog.Logger // where the causes go; slog's default when nil
}

// ReadinessCheck is one thing a process needs answering, by the name its readiness answer gives it.
type ReadinessCheck struct {
	Name  string
	Check func(context.Context) error
}

// readinessWait bounds one probe: a dependency that does not answer by then is unavailable.
const readinessWait = 3 * time.Second

// DatabaseReady is the check that PostgreSQL answers (a pool's Ping).
func DatabaseReady(db interface{ Ping(context.Context) error }) ReadinessCheck {
	return ReadinessCheck{Name: "database", Check: db.Ping}
}

// TemporalReady is the check that the Temporal frontend serves.
func TemporalReady(c client.Client) ReadinessCheck {
	return ReadinessCheck{Name: "temporal", Check: func(ctx context.Context) error {
		_, err := c.CheckHealth(ctx, &client.CheckHealthRequest{})
		return err
	}}
}

// Check runs every check at once and answers each name's "ok" or "unavailable", and whether all
// are ok. The causes go to the log, not the answer: they can name hosts and users.
func (r Readiness) Check(ctx context.Context) (map[string]string, bool) {
	log := r.Logger
	if log == nil {
		log = slog.Default()
	}
	ctx, cancel := context.WithTimeout(ctx, readinessWait)
	defer cancel()
	answer := make(map[string]string, len(r.Checks))
	ready := true
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, c := range r.Checks {
		wg.Go(func() {
			err := c.Check(ctx)
			mu.Lock()
			defer mu.Unlock()
			answer[c.Name] = "ok"
			if err != nil {
				log.WarnContext(ctx, "readiness: "+c.Name+" unavailable", "err", err)
				answer[c.Name], ready = "unavailable", false
			}
		})
	}
	wg.Wait()
	return answer, ready
}

// ServeHTTP answers the checks as a JSON object, with 200 when all are ok and 503 otherwise.
func (r Readiness) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	answer, ready := r.Check(req.Context())
	status := http.StatusOK
	if !ready {
		status = http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(answer)
}
