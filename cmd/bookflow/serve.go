package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"golang.org/x/sync/errgroup"

	"github.com/bookflow/bookflow/api"
	"github.com/bookflow/bookflow/cache"
	"github.com/bookflow/bookflow/console"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/telemetry"
	"github.com/bookflow/bookflow/worker"
)

// deps are the connections every long-running command needs.
type deps struct {
	store    *db.Store
	temporal client.Client
	cache    *cache.Units  // nil without REDIS_URL
	standby  *pgxpool.Pool // nil without DATABASE_READ_URL
}

func connect(ctx context.Context, cfg Config) (*deps, func(), error) {
	pool, err := db.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, nil, err
	}
	metrics, err := telemetry.TemporalMetrics()
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	var interceptors []interceptor.ClientInterceptor
	if telemetry.TracingEnabled() {
		tracing, err := telemetry.TemporalTracing()
		if err != nil {
			pool.Close()
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
		pool.Close()
		return nil, nil, fmt.Errorf("connect to Temporal at %s: %w", cfg.TemporalAddress, err)
	}
	slog.Info("Temporal payloads: " + cfg.PayloadKeys.Describe())
	d := &deps{store: db.NewStore(pool, cfg.LockTimeout), temporal: tc}
	d.store.SetBatching(cfg.ReserveBatched)
	if cfg.DatabaseReadURL != "" {
		// Not pinged: a standby down (being rebuilt, say) leaves searches on the primary, it
		// does not stop the API.
		standby, err := db.Open(cfg.DatabaseReadURL)
		if err != nil {
			tc.Close()
			pool.Close()
			return nil, nil, fmt.Errorf("DATABASE_READ_URL: %w", err)
		}
		d.store.ReadFrom(standby, cfg.DatabaseReadMaxLag)
		d.standby = standby
	}
	if cfg.cacheConfigured() {
		if d.cache, err = cfg.openCache(); err != nil {
			if d.standby != nil {
				d.standby.Close()
			}
			tc.Close()
			pool.Close()
			return nil, nil, err
		}
	}
	return d, func() {
		if d.cache != nil {
			_ = d.cache.Redis.Close()
		}
		tc.Close()
		pool.Close()
		if d.standby != nil {
			d.standby.Close()
		}
	}, nil
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

func runServe(ctx context.Context, cfg Config) error {
	if cfg.BookingIDKey == "" {
		return fmt.Errorf("BOOKING_ID_KEY must be set to a secret of at least %d bytes, the same on every API instance "+
			"(booking ids are derived from it)", minSecretBytes)
	}
	if err := cfg.checkSecrets(false); err != nil {
		return err
	}
	d, closeDeps, err := connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer closeDeps()
	return withMetrics(ctx, cfg, nil, func(ctx context.Context) error { return serveHTTP(ctx, cfg, d, false) })
}

// devMetricsAddr is where dev serves /metrics unless METRICS_ADDR says otherwise.
const devMetricsAddr = "127.0.0.1:9464"

// withMetrics runs run, with /metrics served on cfg.MetricsAddr beside it when one is set (and
// /readyz, when ready is given); when either ends, both do.
func withMetrics(ctx context.Context, cfg Config, ready func(context.Context) error, run func(context.Context) error) error {
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

// serveHTTP serves the API until ctx ends; local is dev, which takes any secret it is given.
func serveHTTP(ctx context.Context, cfg Config, d *deps, local bool) error {
	if cfg.StripeWebhookSecret == "" {
		slog.Warn("STRIPE_WEBHOOK_SECRET is not set: every payment webhook will be refused")
	}
	verifier, err := cfg.verifier(ctx, local)
	if err != nil {
		return err
	}
	switch {
	case verifier == nil && cfg.AdminToken == "":
		slog.Warn("no AUTH_JWT_SECRET, AUTH_JWKS_URL or ADMIN_TOKEN: every authenticated route will answer 401")
	case verifier == nil:
		slog.Warn("no AUTH_JWT_SECRET or AUTH_JWKS_URL: only the break-glass ADMIN_TOKEN is accepted")
	}
	apiCfg := api.Config{
		Limits: cfg.Limits, Auth: verifier, AdminToken: cfg.AdminToken, BookingIDKey: []byte(cfg.BookingIDKey), PayloadKeys: cfg.PayloadKeys,
		HoldLimits: cfg.HoldLimits, TrustedProxies: cfg.TrustedProxies, CORS: api.CORS{AllowedOrigins: cfg.CORSOrigins}, HoldTTL: cfg.HoldTTL, LateWindow: cfg.LateWindow,
		RefundBackoff: cfg.RefundBackoff, MaxRefundAttempts: cfg.RefundAttempts,
		TaskQueue: cfg.TaskQueue, WebhookSecret: cfg.StripeWebhookSecret, Logger: slog.Default(),
		SupplierSync: worker.SupplierSchedules{Temporal: d.temporal, TaskQueue: cfg.TaskQueue,
			Interval: cfg.SupplierSyncInterval, IDs: cfg.scheduleIDs()}.Ensure,
		ScheduleIDs: cfg.scheduleIDs(), Cache: d.cache, ReserveLocally: cfg.ReserveLocally, Tracing: telemetry.TracingEnabled(),
	}
	if d.cache == nil {
		slog.Warn("no REDIS_URL: searches read PostgreSQL and no hold is refused before its workflow starts")
	} else {
		apiCfg.Changes = &cache.Changes{Pool: d.store.Pool()}
		go apiCfg.Changes.Run(ctx)
	}
	if gateway, err := paymentProvider(cfg); err == nil {
		apiCfg.Checkouts = gateway
	} else {
		slog.Warn("no payment provider: POST /api/v1/bookings/{id}/payment will answer 503", "err", err)
	}
	e := api.New(d.store, d.temporal, apiCfg)
	if _, err := console.Mount(ctx, e, cfg.consoleConfig(e, d, local)); err != nil {
		return err
	}
	srv := api.NewHTTPServer(cfg.HTTPAddr, e, api.DefaultTimeouts(api.DefaultWorkflowTimeout))
	return serveUntil(ctx, srv, "API", "http://"+cfg.HTTPAddr)
}

// consoleConfig is the staff console's configuration: sign-in with the identity provider when
// it has a client id, and dev's sign-in only while dev runs on its own public secrets.
func (c Config) consoleConfig(apiHandler http.Handler, d *deps, local bool) console.Config {
	cc := console.Config{API: apiHandler, Pool: d.store.Pool(), InsecureCookie: c.ConsoleInsecureCookie, Logger: slog.Default(),
		DevSignIn: local && c.devSecretsOnly()}
	if c.ConsoleClientID != "" {
		cc.OIDC = &console.OIDCConfig{Issuer: c.AuthIssuer, ClientID: c.ConsoleClientID, ClientSecret: c.ConsoleClientSecret,
			RedirectURL: strings.TrimSuffix(c.consoleURL(), "/") + console.Prefix + "/oidc/callback"}
	}
	return cc
}

// consoleURL is where browsers reach the console: CONSOLE_URL, or HTTP_ADDR's own address.
func (c Config) consoleURL() string {
	if c.ConsoleURL != "" {
		return c.ConsoleURL
	}
	return "http://" + c.HTTPAddr
}

// devSecretsOnly reports whether no real secret is configured: tokens signed with dev's public
// secret, no identity provider, no payment provider key. Only then may anyone sign in to the
// console without a password.
func (c Config) devSecretsOnly() bool {
	return c.AuthJWTSecret == devJWTSecret && c.AuthJWKSURL == "" && c.StripeAPIKey == "" && c.ConsoleClientID == ""
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

func runWorker(ctx context.Context, cfg Config) error {
	d, closeDeps, err := connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer closeDeps()
	var polling atomic.Bool
	return withMetrics(ctx, cfg, workerReady(&polling, d.store.Pool(), temporalHealth(d.temporal)),
		func(ctx context.Context) error { return runWorkerUntil(ctx, cfg, d, &polling) })
}

// workerReady is a worker's readiness (its /readyz): it polls its task queue, and PostgreSQL and
// Temporal answer.
func workerReady(polling *atomic.Bool, database interface{ Ping(context.Context) error },
	temporal func(context.Context) error) func(context.Context) error {
	return func(ctx context.Context) error {
		if !polling.Load() {
			return errors.New("the worker is not polling its task queue yet")
		}
		if err := database.Ping(ctx); err != nil {
			return fmt.Errorf("database: %w", err)
		}
		if err := temporal(ctx); err != nil {
			return fmt.Errorf("temporal: %w", err)
		}
		return nil
	}
}

// temporalHealth asks the Temporal frontend whether it serves.
func temporalHealth(c client.Client) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := c.CheckHealth(ctx, &client.CheckHealthRequest{})
		return err
	}
}

// runWorkerUntil runs the worker until ctx ends; polling is true while it polls its task queue.
func runWorkerUntil(ctx context.Context, cfg Config, d *deps, polling *atomic.Bool) error {
	provider, err := paymentProvider(cfg)
	if err != nil {
		return err
	}
	if err := worker.CheckSearchAttributes(ctx, d.temporal, cfg.TemporalNamespace); err != nil {
		return err
	}
	if err := worker.EnsureSchedules(ctx, d.temporal, cfg.TaskQueue, cfg.scheduleIDs()); err != nil {
		slog.Warn("the checker's and the reconciliation's schedules could not be made; run `bookflow check` and `bookflow reconcile` by hand", "err", err)
	}
	if err := (worker.SupplierSchedules{Temporal: d.temporal, TaskQueue: cfg.TaskQueue,
		Interval: cfg.SupplierSyncInterval, IDs: cfg.scheduleIDs()}).EnsureAll(ctx, d.store); err != nil {
		slog.Warn("some suppliers' stock sync schedules could not be made", "err", err)
	}
	// The worker reports what PostgreSQL and Temporal know (stuck bookings, the checker's
	// findings, the outbox's backlog).
	var registered prometheus.AlreadyRegisteredError
	if err := telemetry.Registry.Register(&worker.StateMetrics{Store: d.store, Temporal: d.temporal, Cached: d.cache != nil}); err != nil &&
		!errors.As(err, &registered) {
		return err
	}
	// The worker relays the availability outbox to the cache (or, without one, deletes what
	// no cache can still need).
	relay := &cache.Relay{Store: d.store, Pool: d.store.Pool(), Cache: d.cache}
	go relay.Run(ctx)
	w := worker.New(d.temporal, d.store, provider, cfg.TaskQueue, worker.WithSupplierSyncDays(cfg.SupplierSyncDays),
		worker.WithResumeSettings(cfg.LateWindow, cfg.RefundAttempts, cfg.RefundBackoff), worker.WithBookingIDKey([]byte(cfg.BookingIDKey)))
	if err := w.Start(); err != nil {
		return err
	}
	polling.Store(true)
	slog.Info("worker polling", "taskQueue", cfg.TaskQueue)
	if cfg.BookingIDKey == "" {
		slog.Warn("BOOKING_ID_KEY is not set: bookings the invariant checker resumes get no CustomerId search attribute")
	}
	<-ctx.Done()
	polling.Store(false)
	w.Stop() // waits for running activities to finish
	slog.Info("worker stopped")
	return nil
}

// paymentGateway is the payment provider as the commands use it: the worker refunds through it,
// the API creates the payments guests complete.
type paymentGateway interface {
	payments.Provider
	payments.Checkouts
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

// Local development's secrets, used by dev, token and pay when the environment sets none. They
// are public: never deploy them.
const (
	devWebhookSecret = "whsec_bookflow_dev"
	devJWTSecret     = "bookflow-dev-only-jwt-secret-never-deploy-this"
	devBookingIDKey  = "bookflow-dev-only-booking-id-key-never-deploy"
)

// withDevSecrets fills in local development's secrets where the environment sets none.
func withDevSecrets(cfg Config) Config {
	if cfg.AuthJWTSecret == "" && cfg.AuthJWKSURL == "" {
		cfg.AuthJWTSecret = devJWTSecret
	}
	if cfg.BookingIDKey == "" {
		cfg.BookingIDKey = devBookingIDKey
	}
	if cfg.StripeWebhookSecret == "" {
		cfg.StripeWebhookSecret = devWebhookSecret
	}
	return cfg
}

// runDev is the whole system in one process for local use: migrations, demo data, the worker
// and the API. The Temporal dev server and PostgreSQL are started by scripts/dev.
func runDev(ctx context.Context, cfg Config) error {
	cfg = withDevSecrets(cfg)
	if err := cfg.checkSecrets(true); err != nil {
		return err
	}
	if cfg.AdminToken == "" {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		cfg.AdminToken = hex.EncodeToString(b)
	}
	if cfg.StripeAPIKey == "" {
		cfg.PaymentProvider = "fake"
	}
	d, closeDeps, err := connectAndMigrate(ctx, cfg)
	if err != nil {
		return err
	}
	defer closeDeps()
	if err := seed(ctx, d.store); err != nil {
		return err
	}
	sim, simURL, serveSim, err := listenSupplierSim(ctx, cfg.SupplierSimAddr)
	if err != nil {
		return fmt.Errorf("the simulated supplier (SUPPLIER_SIM_ADDR=%s): %w", cfg.SupplierSimAddr, err)
	}
	if err := seedSuppliers(ctx, d.store, sim, simURL); err != nil {
		return err
	}
	serveSim()
	// dev owns its Temporal: a file store kept from an older version gets the attributes added
	// since (the worker refuses to run without them).
	if err := worker.RegisterSearchAttributes(ctx, d.temporal, cfg.TemporalNamespace); err != nil {
		return err
	}
	if cfg.MetricsAddr == "" {
		cfg.MetricsAddr = devMetricsAddr
	}
	defer recordDevAddr(cfg.HTTPAddr)()
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		var polling atomic.Bool
		return withMetrics(ctx, cfg, workerReady(&polling, d.store.Pool(), temporalHealth(d.temporal)),
			func(ctx context.Context) error { return runWorkerUntil(ctx, cfg, d, &polling) })
	})
	g.Go(func() error { return serveHTTP(ctx, cfg, d, true) })
	tokens, err := devTokens(cfg)
	if err != nil {
		return err
	}
	ui := fmt.Sprintf("%s/namespaces/%s/workflows", cfg.TemporalUIURL, cfg.TemporalNamespace)
	if cfg.TemporalUIURL == "none" {
		ui = "none: the Temporal server runs without one (try: temporal workflow list --address " + cfg.TemporalAddress + ")"
	}
	fmt.Printf(`
bookflow is running. Ctrl-C stops it.
  API          http://%s
  Console      %s
  Temporal UI  %s
  Metrics      %s
  Hold TTL     %s
  Payments     provider %s; pay a hold with: .data/bookflow pay <bookingId>
  Supplier     simulated at %s: lisbon-lofts (direct_procure, pulled every %s), porto-live (direct_connect)

Tokens for each role (valid %s; mint more with: .data/bookflow token --sub <id> --role <role> [--hotel <id>]):
%s
  Break-glass  ADMIN_TOKEN=%s   (admin, for bootstrapping only)

Try: curl -H "Authorization: Bearer $CUSTOMER_TOKEN" 'http://%s/api/v1/hotels/grand-budapest/availability?checkIn=%s&checkOut=%s'
     curl -H "Authorization: Bearer $AGENT_TOKEN" 'http://%s/api/v1/hotels/lisbon-lofts/availability?checkIn=%s&checkOut=%s'

`, cfg.HTTPAddr, consoleBanner(cfg), ui, metricsURL(cfg.MetricsAddr), cfg.HoldTTL, cfg.PaymentProvider, simURL, cfg.SupplierSyncInterval,
		devTokenTTL, tokens, cfg.AdminToken, cfg.HTTPAddr, demoCheckIn(), demoCheckIn().AddDays(3),
		cfg.HTTPAddr, demoCheckIn(), demoCheckIn().AddDays(3))
	return g.Wait()
}

// consoleBanner says where the staff console is and how to sign in to it, for dev's banner.
func consoleBanner(cfg Config) string {
	url := strings.TrimSuffix(cfg.consoleURL(), "/") + console.Prefix + "/"
	switch {
	case cfg.devSecretsOnly():
		return url + "   sign in as any role and site with the development sign-in"
	case cfg.ConsoleClientID != "":
		return url + "   sign in with the identity provider at " + cfg.AuthIssuer
	}
	return url + "   no sign-in: real secrets are set (development sign-in is off) and no CONSOLE_OIDC_CLIENT_ID"
}

// metricsURL is where /metrics answers, for dev's banner.
func metricsURL(addr string) string {
	if addr == "none" {
		return "none (METRICS_ADDR=none)"
	}
	return "http://" + addr + "/metrics"
}
