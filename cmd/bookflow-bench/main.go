// Command bookflow-bench prints bookflow's throughput figures next to baselines measured in the
// same run: reservations/s in PostgreSQL, holds/s through the API and Temporal (with the API and
// the worker as bookflow processes of their own), and searches through the availability cache.
// scripts/bench gives it a private PostgreSQL, Redis and Temporal; see bookflow-bench -h.
package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/cache"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/telemetry"
)

// Config is what the bench reads from the environment, under the names and defaults bookflow
// itself uses (DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, REDIS_URL, LOCK_TIMEOUT,
// LOG_LEVEL). The bookflow processes it starts read the rest.
type Config struct {
	DatabaseURL       string
	TemporalAddress   string
	TemporalNamespace string
	RedisURL          string // none: the cache is not measured
	LockTimeout       time.Duration
	LogLevel          slog.Level
}

func loadConfig() (Config, error) {
	c := Config{
		DatabaseURL:       cmp.Or(os.Getenv("DATABASE_URL"), "postgres://postgres@127.0.0.1:5432/bookflow?sslmode=disable"),
		TemporalAddress:   cmp.Or(os.Getenv("TEMPORAL_ADDRESS"), "127.0.0.1:7233"),
		TemporalNamespace: cmp.Or(os.Getenv("TEMPORAL_NAMESPACE"), "default"),
		RedisURL:          os.Getenv("REDIS_URL"),
		LockTimeout:       2 * time.Second,
	}
	if v := os.Getenv("LOCK_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("LOCK_TIMEOUT=%q: want a positive Go duration such as 2s", v)
		}
		c.LockTimeout = d
	}
	if err := c.LogLevel.UnmarshalText([]byte(cmp.Or(os.Getenv("LOG_LEVEL"), "info"))); err != nil {
		return c, fmt.Errorf("LOG_LEVEL: %w", err)
	}
	return c, nil
}

func main() {
	cfg, err := loadConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "configuration:", err)
		os.Exit(2)
	}
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.LogLevel})))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := runBench(ctx, cfg); err != nil {
		slog.Error("bench failed", "err", err)
		os.Exit(1)
	}
}

// deps are the bench's own connections: its worker, relay and in-process API use them.
type deps struct {
	store    *db.Store
	temporal client.Client
	cache    *cache.Units // nil without REDIS_URL
}

// connectAndMigrate connects as bookflow's commands do and brings the schema up to date: the
// bench owns its database.
func connectAndMigrate(ctx context.Context, cfg Config) (*deps, func(), error) {
	pool, err := db.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, nil, err
	}
	metrics, err := telemetry.TemporalMetrics()
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	tc, err := client.DialContext(ctx, client.Options{
		HostPort: cfg.TemporalAddress, Namespace: cfg.TemporalNamespace,
		Logger: telemetry.TemporalLogger(slog.Default()), MetricsHandler: metrics,
	})
	if err != nil {
		pool.Close()
		return nil, nil, fmt.Errorf("connect to Temporal at %s: %w", cfg.TemporalAddress, err)
	}
	d := &deps{store: db.NewStore(pool, cfg.LockTimeout), temporal: tc}
	if cfg.RedisURL != "" {
		if d.cache, err = cache.New(cfg.RedisURL, ""); err != nil {
			tc.Close()
			pool.Close()
			return nil, nil, err
		}
	}
	closeDeps := func() {
		if d.cache != nil {
			_ = d.cache.Redis.Close()
		}
		tc.Close()
		pool.Close()
	}
	if err := db.Migrate(ctx, pool); err != nil {
		closeDeps()
		return nil, nil, err
	}
	return d, closeDeps, nil
}
