// The API's start-up: `bookflow serve`, and the API and staff console as dev runs them too.

package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/bookflow/bookflow/api"
	"github.com/bookflow/bookflow/cache"
	"github.com/bookflow/bookflow/console"
	"github.com/bookflow/bookflow/telemetry"
	"github.com/bookflow/bookflow/worker"
)

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
		RefundBackoff: cfg.RefundBackoff, MaxRefundAttempts: cfg.RefundAttempts, CodecDecodePerMinute: cfg.CodecDecodePerMinute,
		TaskQueue: cfg.TaskQueue, WebhookSecret: cfg.StripeWebhookSecret, Logger: slog.Default(),
		SupplierSync: worker.SupplierSchedules{Temporal: d.temporal, TaskQueue: cfg.TaskQueue,
			Interval: cfg.SupplierSyncInterval, IDs: cfg.scheduleIDs()}.Ensure,
		ScheduleIDs: cfg.scheduleIDs(), Cache: d.cache, ReserveLocally: cfg.ReserveLocally, ConfirmLocally: cfg.ConfirmLocally, Tracing: telemetry.TracingEnabled(),
	}
	if d.cache == nil {
		slog.Warn("no REDIS_URL: searches read PostgreSQL and no hold is refused before its workflow starts")
	} else {
		apiCfg.Changes = &cache.Changes{Pool: d.store.Pool()}
		go apiCfg.Changes.Run(ctx)
	}
	if gateway, err := paymentProvider(cfg); err == nil {
		apiCfg.Checkouts, apiCfg.Guarantees = gateway, gateway
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
