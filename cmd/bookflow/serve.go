// What the API and the worker share at start-up: connections, migrations, the metrics listener,
// serving until shut down, and the payment provider.

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"golang.org/x/sync/errgroup"

	"github.com/bookflow/bookflow/cache"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/telemetry"
)

// deps are the connections every long-running command needs.
type deps struct {
	store    *db.Store
	temporal client.Client
	cache    *cache.Units  // nil without REDIS_URL
	standby  *pgxpool.Pool // nil without DATABASE_READ_URL
}

// connect opens what cfg names; the func it returns closes all of it. On an error, what was
// already open is closed.
func connect(ctx context.Context, cfg Config) (_ *deps, closeAll func(), err error) {
	var closers []func() // in the order opened; closed in reverse
	closeAll = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	defer func() {
		if err != nil {
			closeAll()
		}
	}()
	pool, err := db.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, nil, err
	}
	closers = append(closers, pool.Close)
	metrics, err := telemetry.TemporalMetrics()
	if err != nil {
		return nil, nil, err
	}
	var interceptors []interceptor.ClientInterceptor
	if telemetry.TracingEnabled() {
		tracing, err := telemetry.TemporalTracing()
		if err != nil {
			return nil, nil, err
		}
		interceptors = append(interceptors, tracing)
	}
	tc, err := client.DialContext(ctx, client.Options{
		HostPort: cfg.TemporalAddress, Namespace: cfg.TemporalNamespace,
		Logger:         telemetry.TemporalLogger(slog.Default()),
		MetricsHandler: metrics, Interceptors: interceptors,
		DataConverter: cfg.PayloadKeys.DataConverter(), FailureConverter: cfg.PayloadKeys.FailureConverter(),
	})
	if err != nil {
		return nil, nil, fmt.Errorf("connect to Temporal at %s: %w", cfg.TemporalAddress, err)
	}
	closers = append(closers, tc.Close)
	slog.Info("Temporal payloads: " + cfg.PayloadKeys.Describe())
	d := &deps{store: db.NewStore(pool, cfg.LockTimeout), temporal: tc}
	d.store.SetBatching(cfg.ReserveBatched)
	if cfg.DatabaseReadURL != "" {
		// Not pinged: a standby down (being rebuilt, say) leaves searches on the primary, it
		// does not stop the API.
		if d.standby, err = db.Open(cfg.DatabaseReadURL); err != nil {
			return nil, nil, fmt.Errorf("DATABASE_READ_URL: %w", err)
		}
		closers = append(closers, d.standby.Close)
		d.store.ReadFrom(d.standby, cfg.DatabaseReadMaxLag)
	}
	if cfg.cacheConfigured() {
		if d.cache, err = cfg.openCache(); err != nil {
			return nil, nil, err
		}
		closers = append(closers, func() { _ = d.cache.Redis.Close() })
	}
	return d, closeAll, nil
}

// connectAndMigrate connects and brings the schema up to date, for dev, which owns its database.
func connectAndMigrate(ctx context.Context, cfg Config) (*deps, func(), error) {
	d, closeDeps, err := connect(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	if err := db.Migrate(ctx, d.store.Pool()); err != nil {
		closeDeps()
		return nil, nil, err
	}
	return d, closeDeps, nil
}

func runMigrate(ctx context.Context, cfg Config) error {
	pool, err := db.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := db.Migrate(ctx, pool); err != nil {
		return err
	}
	slog.Info("migrations applied")
	return nil
}

// withMetrics runs run, with /metrics served on cfg.MetricsAddr beside it when one is set (and
// /readyz, when ready is given); when either ends, both do.
func withMetrics(ctx context.Context, cfg Config, ready *telemetry.Readiness, run func(context.Context) error) error {
	if cfg.MetricsAddr == "" || cfg.MetricsAddr == "none" {
		return run(ctx)
	}
	g, ctx := errgroup.WithContext(ctx)
	ctx, stop := context.WithCancel(ctx)
	g.Go(func() error {
		return serveUntil(ctx, telemetry.MetricsServer(cfg.MetricsAddr, ready), "metrics", metricsURL(cfg.MetricsAddr))
	})
	g.Go(func() error {
		defer stop()
		return run(ctx)
	})
	return g.Wait()
}

// serveUntil serves srv until ctx ends, then lets the requests in flight finish (10 s at most).
func serveUntil(ctx context.Context, srv *http.Server, what, url string) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	slog.Info(what+" listening", "addr", url)
	select {
	case err := <-errc:
		return fmt.Errorf("%s on %s: %w", what, srv.Addr, err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	slog.Info(what + " stopped")
	return nil
}

// paymentGateway is the payment provider as the commands use it: the worker refunds through it
// and charges fees to guarantee cards, the API creates the payments guests complete and the
// setups that save their cards.
type paymentGateway interface {
	payments.Provider
	payments.Checkouts
	payments.Guarantees
}

// paymentProvider returns the configured payment provider.
func paymentProvider(cfg Config) (paymentGateway, error) {
	if cfg.PaymentProvider == "fake" {
		slog.Warn("PAYMENT_PROVIDER=fake: refunds succeed without moving money (local development only)")
		return payments.Fake{}, nil
	}
	if cfg.StripeAPIKey == "" {
		return nil, errors.New("STRIPE_API_KEY is required (or PAYMENT_PROVIDER=fake for local development)")
	}
	return payments.NewStripe(cfg.StripeAPIKey, cfg.StripeAPIBase), nil
}

// metricsURL is where /metrics answers, for dev's banner.
func metricsURL(addr string) string {
	if addr == "none" {
		return "none (METRICS_ADDR=none)"
	}
	return "http://" + addr + "/metrics"
}
