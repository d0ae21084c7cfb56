package chaos

import (
	"context"
	"fmt"
	"os/exec"
	"time"

	"github.com/jackc/pgx/v5"
)

// A fault is one thing that goes wrong in production, injected in the middle of a run's load.
type fault struct {
	name   string
	inject func(ctx context.Context, s *system) error
}

// faults are injected in turn, one per run.
var faults = []fault{
	{"kill the worker (SIGKILL) mid-activities", func(ctx context.Context, s *system) error {
		s.worker.kill()
		time.Sleep(time.Second)
		return s.worker.start()
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
		s.temporal.kill()
		return s.startTemporal(ctx)
	}},
	{"kill the API (SIGKILL) and start it again", func(ctx context.Context, s *system) error {
		s.api.kill()
		time.Sleep(500 * time.Millisecond)
		return s.startAPI(ctx)
	}},
	{"the payment provider fails for 3 s", func(ctx context.Context, s *system) error {
		s.provider.SetMode("failing", 0)
		time.Sleep(3 * time.Second)
		s.provider.SetMode("", 0)
		return nil
	}},
	{"the payment provider answers in 4 s, for 6 s", func(ctx context.Context, s *system) error {
		s.provider.SetMode("slow", 4*time.Second)
		time.Sleep(6 * time.Second)
		s.provider.SetMode("", 0)
		return nil
	}},
	{"the database's connections are all taken for 3 s", func(ctx context.Context, s *system) error {
		var held []*pgx.Conn
		defer func() {
			for _, c := range held {
				_ = c.Close(context.Background())
			}
		}()
		for range 400 {
			c, err := pgx.Connect(ctx, s.databaseURL)
			if err != nil {
				break // saturated
			}
			held = append(held, c)
		}
		time.Sleep(3 * time.Second)
		return nil
	}},
}

// errSkipped: the fault cannot be injected here (no way to restart the database was given).
var errSkipped = fmt.Errorf("skipped")
