// `bookflow dev`: the worker and the API in one process, on local development's secrets.

package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/bookflow/bookflow/console"
	"github.com/bookflow/bookflow/worker"
)

// devMetricsAddr is where dev serves /metrics unless METRICS_ADDR says otherwise.
const devMetricsAddr = "127.0.0.1:9464"

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
	g.Go(func() error { return serveWorker(ctx, cfg, d) })
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
