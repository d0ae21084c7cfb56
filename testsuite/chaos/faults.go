package chaos

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// A fault is one thing that goes wrong in production, injected in the middle of a run's load.
type fault struct {
	name   string
	inject func(ctx context.Context, s *system) error
}

// faultsFor is the faults of the topology, injected in turn, one per run.
func faultsFor(topology string) []fault {
	if topology == TopologyCluster {
		return clusterFaults
	}
	return faults
}

// faults are the single topology's.
var faults = []fault{
	{"kill the worker (SIGKILL) mid-activities", func(ctx context.Context, s *system) error {
		s.worker.Kill()
		time.Sleep(time.Second)
		return s.worker.Start()
	}},
	{"restart PostgreSQL at once", func(ctx context.Context, s *system) error {
		if s.pgRestartCmd == "" {
			return errSkipped
		}
		cmd := exec.CommandContext(ctx, "sh", "-c", s.pgRestartCmd)
		// The restarted server may keep the command's output open; do not wait for it.
		cmd.WaitDelay = 5 * time.Second
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("restart PostgreSQL: %w: %s", err, out)
		}
		return nil
	}},
	{"restart the Temporal server", func(ctx context.Context, s *system) error {
		s.temporal.Kill()
		return s.startTemporal(ctx)
	}},
	{"kill the API (SIGKILL) and start it again", func(ctx context.Context, s *system) error {
		s.api.Kill()
		time.Sleep(500 * time.Millisecond)
		return s.startAPI(ctx)
	}},
	{"the payment provider fails, or loses replies, for 3 s", func(ctx context.Context, s *system) error {
		s.provider.SetMode(modeFailing, 0)
		sleep(ctx, 1500*time.Millisecond)
		s.provider.SetMode(modeLost, 0) // refunds made, replies never sent
		sleep(ctx, 1500*time.Millisecond)
		s.provider.SetMode("", 0)
		return nil
	}},
	{"the payment provider answers in 25 s, for 6 s", func(ctx context.Context, s *system) error {
		// Past the client's 20 s timeout: the calls are carried out and their replies lost.
		s.provider.SetMode(modeSlow, 25*time.Second)
		sleep(ctx, 6*time.Second)
		s.provider.SetMode("", 0)
		return nil
	}},
	{"the database's connections are all taken for 3 s", saturateDatabase},
}

// saturateDatabase takes every connection the server has, then ends the sessions bookflow held,
// so its pools must reconnect into a full server; after 3 s it lets go.
func saturateDatabase(ctx context.Context, s *system) error {
	var (
		mu   sync.Mutex
		held []*pgx.Conn
		wg   sync.WaitGroup
	)
	defer func() {
		for _, c := range held {
			_ = c.Close(context.Background())
		}
	}()
	for range 8 {
		wg.Go(func() {
			for ctx.Err() == nil {
				c, err := pgx.Connect(ctx, s.databaseURL)
				if err != nil {
					return // the server is full
				}
				mu.Lock()
				held = append(held, c)
				full := len(held) >= 1000
				mu.Unlock()
				if full {
					return
				}
			}
		})
	}
	wg.Wait()
	if len(held) == 0 {
		return fmt.Errorf("no connection could be taken")
	}
	ours := make([]uint32, len(held))
	for i, c := range held {
		ours[i] = c.PgConn().PID()
	}
	if _, err := held[0].Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> ALL($1::int[])`, ours); err != nil {
		return fmt.Errorf("end bookflow's sessions: %w", err)
	}
	// What bookflow gave up may be taken again: fill the server up once more, then prove it full.
	for {
		c, err := pgx.Connect(ctx, s.databaseURL)
		if err != nil {
			break
		}
		held = append(held, c)
	}
	if c, err := pgx.Connect(ctx, s.databaseURL); err == nil {
		_ = c.Close(ctx)
		return fmt.Errorf("the server still takes connections")
	}
	sleep(ctx, 3*time.Second)
	return nil
}

// errSkipped: the fault cannot be injected here (no way to restart the database was given).
var errSkipped = fmt.Errorf("skipped")
