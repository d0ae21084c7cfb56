package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/api"
	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/cache"
	"github.com/bookflow/bookflow/codec"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/worker"
	"github.com/bookflow/bookflow/workflows"
)

// Config is the whole configuration, read from the environment with local defaults.
type Config struct {
	DatabaseURL string
	// DatabaseReadURL is a standby that searches, slots and reports may read from while it trails
	// the primary by at most DatabaseReadMaxLag (DATABASE_READ_URL, DATABASE_READ_MAX_LAG).
	DatabaseReadURL    string
	DatabaseReadMaxLag time.Duration
	TemporalAddress    string
	TemporalNamespace  string
	TemporalUIURL      string // only printed, so people know where to look
	TaskQueue          string
	HTTPAddr           string
	HoldTTL            time.Duration
	LateWindow         time.Duration
	RefundBackoff      time.Duration
	RefundAttempts     int
	AdminToken         string
	Limits             domain.Limits
	HoldLimits         api.HoldLimits
	TrustedProxies     []*net.IPNet
	// CORSOrigins are the origins whose pages may call the API (CORS_ALLOWED_ORIGINS).
	CORSOrigins  []string
	BookingIDKey string
	// PayloadKeys seal what bookflow gives Temporal to store (PAYLOAD_ENCRYPTION_KEYS, and
	// PAYLOAD_ENCRYPTION_KEY_ID for the key that seals); nil: payloads are stored as they are.
	PayloadKeys *codec.Keys
	// CodecDecodePerMinute bounds each user's calls to the codec's /decode
	// (CODEC_DECODE_RATE_PER_USER; 0: no limit).
	CodecDecodePerMinute int

	AuthJWTSecret string
	AuthJWKSURL   string
	AuthIssuer    string
	AuthAudience  string
	AuthClockSkew time.Duration
	LockTimeout   time.Duration
	LogLevel      slog.Level
	LogFormat     string // "json" or "text"; empty: text for dev, JSON otherwise (logHandler)

	PaymentProvider     string // stripe or fake
	StripeAPIKey        string
	StripeAPIBase       string // empty: Stripe's own API
	StripeWebhookSecret string

	// EventRetryFor is how long an integrator event is retried before it is parked, and
	// EventFirstBackoff the wait after its first failed attempt (EVENT_RETRY_FOR,
	// EVENT_FIRST_BACKOFF); EventRetention how long a delivered or parked one is kept
	// (EVENT_RETENTION).
	EventRetryFor, EventFirstBackoff, EventRetention time.Duration
	// ARIRetention is how long the ARI change feed keeps a change (ARI_RETENTION).
	ARIRetention time.Duration

	SupplierSyncInterval time.Duration
	SupplierSyncDays     int
	SupplierSimAddr      string // dev and supplier-sim: where the simulated supplier listens
	SupplierSimURL       string // supplier-sim: where bookflow reaches it (empty: its address)
	// SchedulePrefix starts the id of every schedule the worker keeps and of the workflows they
	// start (BOOKFLOW_SCHEDULE_PREFIX): deployments sharing a Temporal namespace each set their
	// own. Empty: the ids as they always were.
	SchedulePrefix string

	RedisURL string // the availability cache; none: searches read PostgreSQL, no sold-out gate
	// RedisSentinels and RedisSentinelMaster reach the cache through Redis Sentinel instead
	// (REDIS_SENTINELS, host:port each; REDIS_SENTINEL_MASTER), following a failover.
	RedisSentinels      []string
	RedisSentinelMaster string
	// ReserveLocally runs reservations as local activities (RESERVE_LOCAL_ACTIVITY).
	ReserveLocally bool
	// ConfirmLocally runs confirmations as local activities (CONFIRM_LOCAL_ACTIVITY).
	ConfirmLocally bool
	// ReserveBatched lets concurrent direct sales of one room type share a transaction
	// (RESERVE_BATCHING; db.Store.SetBatching).
	ReserveBatched bool
	// MetricsAddr is where /metrics listens (METRICS_ADDR): empty or "none" for nowhere, which
	// is the default but for dev (devMetricsAddr).
	MetricsAddr string

	// The staff console (console.Config): its public address (CONSOLE_URL), the client the
	// identity provider knows it as (CONSOLE_OIDC_CLIENT_ID, CONSOLE_OIDC_CLIENT_SECRET), and
	// whether its cookie may travel over plain HTTP (CONSOLE_INSECURE_COOKIE).
	ConsoleURL            string
	ConsoleClientID       string
	ConsoleClientSecret   string
	ConsoleInsecureCookie bool
}

// LoadConfig reads the environment; docs/configuration.md lists every variable.
func LoadConfig() (Config, error) {
	c := Config{
		DatabaseURL:       env("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bookflow?sslmode=disable"),
		TemporalAddress:   env("TEMPORAL_ADDRESS", "127.0.0.1:7233"),
		TemporalNamespace: env("TEMPORAL_NAMESPACE", "default"),
		TemporalUIURL:     env("TEMPORAL_UI_URL", "http://127.0.0.1:8233"),
		TaskQueue:         env("TASK_QUEUE", workflows.TaskQueue),
		HTTPAddr:          env("HTTP_ADDR", "127.0.0.1:8080"),
		AdminToken:        os.Getenv("ADMIN_TOKEN"),
		BookingIDKey:      os.Getenv("BOOKING_ID_KEY"),

		AuthJWTSecret: os.Getenv("AUTH_JWT_SECRET"),
		AuthJWKSURL:   os.Getenv("AUTH_JWKS_URL"),
		AuthIssuer:    os.Getenv("AUTH_ISSUER"),
		AuthAudience:  os.Getenv("AUTH_AUDIENCE"),

		PaymentProvider:     env("PAYMENT_PROVIDER", "stripe"),
		StripeAPIKey:        os.Getenv("STRIPE_API_KEY"),
		StripeAPIBase:       os.Getenv("STRIPE_API_BASE"),
		StripeWebhookSecret: os.Getenv("STRIPE_WEBHOOK_SECRET"),
		SupplierSimAddr:     env("SUPPLIER_SIM_ADDR", "127.0.0.1:8091"),
		SupplierSimURL:      os.Getenv("SUPPLIER_SIM_URL"),
		SchedulePrefix:      os.Getenv("BOOKFLOW_SCHEDULE_PREFIX"),
		RedisURL:            os.Getenv("REDIS_URL"),
		DatabaseReadURL:     os.Getenv("DATABASE_READ_URL"),
		RedisSentinelMaster: os.Getenv("REDIS_SENTINEL_MASTER"),
		MetricsAddr:         os.Getenv("METRICS_ADDR"),
		ConsoleURL:          os.Getenv("CONSOLE_URL"),
		ConsoleClientID:     os.Getenv("CONSOLE_OIDC_CLIENT_ID"),
		ConsoleClientSecret: os.Getenv("CONSOLE_OIDC_CLIENT_SECRET"),
	}
	if c.PaymentProvider != "stripe" && c.PaymentProvider != "fake" {
		return c, fmt.Errorf("PAYMENT_PROVIDER=%q: want stripe or fake", c.PaymentProvider)
	}
	var err error
	durations := []struct {
		name string
		def  time.Duration
		dst  *time.Duration
	}{
		{"HOLD_TTL", workflows.DefaultHoldTTL, &c.HoldTTL},
		{"EVENT_RETRY_FOR", worker.DefaultEventRetryFor, &c.EventRetryFor},
		{"EVENT_FIRST_BACKOFF", worker.DefaultEventFirstBackoff, &c.EventFirstBackoff},
		{"EVENT_RETENTION", worker.DefaultEventRetention, &c.EventRetention},
		{"ARI_RETENTION", worker.DefaultARIRetention, &c.ARIRetention},
		{"LATE_WINDOW", workflows.DefaultLateWindow, &c.LateWindow},
		{"LOCK_TIMEOUT", 2 * time.Second, &c.LockTimeout},
		{"DATABASE_READ_MAX_LAG", db.DefaultMaxReplicaLag, &c.DatabaseReadMaxLag},
		{"AUTH_CLOCK_SKEW", auth.DefaultClockSkew, &c.AuthClockSkew},
		{"REFUND_BACKOFF", workflows.DefaultRefundBackoff, &c.RefundBackoff},
		{"SUPPLIER_SYNC_INTERVAL", worker.DefaultSupplierSyncInterval, &c.SupplierSyncInterval},
	}
	for _, d := range durations {
		if *d.dst, err = envDuration(d.name, d.def); err != nil {
			return c, err
		}
	}
	ints := []struct {
		name     string
		def, min int
		dst      *int
	}{
		{"MAX_STAY_NIGHTS", domain.DefaultLimits.MaxNights, 1, &c.Limits.MaxNights},
		{"MAX_ROOMS_PER_BOOKING", domain.DefaultLimits.MaxQuantity, 1, &c.Limits.MaxQuantity},
		{"SALE_HORIZON_DAYS", domain.DefaultLimits.SaleHorizonDays, 1, &c.Limits.SaleHorizonDays},
		{"REFUND_ATTEMPTS", workflows.DefaultMaxRefundAttempts, 1, &c.RefundAttempts},
		{"SUPPLIER_SYNC_DAYS", activities.DefaultSyncDays, 1, &c.SupplierSyncDays},
		// 0 turns a hold limit off.
		{"MAX_ACTIVE_HOLDS", DefaultHoldLimits.MaxActive, 0, &c.HoldLimits.MaxActive},
		{"HOLD_RATE_PER_CUSTOMER", DefaultHoldLimits.PerCustomerPerMinute, 0, &c.HoldLimits.PerCustomerPerMinute},
		{"HOLD_RATE_PER_ADDRESS", DefaultHoldLimits.PerAddressPerMinute, 0, &c.HoldLimits.PerAddressPerMinute},
		{"HOLD_RATE_PER_HOTEL", DefaultHoldLimits.PerHotelPerSecond, 0, &c.HoldLimits.PerHotelPerSecond},
		{"CODEC_DECODE_RATE_PER_USER", api.DefaultCodecDecodePerMinute, 0, &c.CodecDecodePerMinute},
	}
	for _, i := range ints {
		if *i.dst, err = envInt(i.name, i.def, i.min); err != nil {
			return c, err
		}
	}
	c.RedisSentinels = strings.FieldsFunc(os.Getenv("REDIS_SENTINELS"), func(r rune) bool { return r == ',' || r == ' ' })
	if (len(c.RedisSentinels) == 0) != (c.RedisSentinelMaster == "") {
		return c, fmt.Errorf("REDIS_SENTINELS and REDIS_SENTINEL_MASTER go together")
	}
	for _, s := range c.RedisSentinels {
		host, port, err := net.SplitHostPort(s)
		if n, perr := strconv.Atoi(port); err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
			return c, fmt.Errorf("REDIS_SENTINELS: %q is not host:port", s)
		}
	}
	if c.PayloadKeys, err = codec.ParseKeys(os.Getenv("PAYLOAD_ENCRYPTION_KEYS"), os.Getenv("PAYLOAD_ENCRYPTION_KEY_ID")); err != nil {
		return c, err
	}
	if c.CORSOrigins, err = api.ParseCORSOrigins(os.Getenv("CORS_ALLOWED_ORIGINS")); err != nil {
		return c, fmt.Errorf("CORS_ALLOWED_ORIGINS: %w", err)
	}
	for _, cidr := range strings.FieldsFunc(os.Getenv("TRUSTED_PROXIES"), func(r rune) bool { return r == ',' || r == ' ' }) {
		_, ipNet, err := net.ParseCIDR(cidr)
		if err != nil {
			return c, fmt.Errorf("TRUSTED_PROXIES: %q is not a CIDR range such as 10.0.0.0/8", cidr)
		}
		c.TrustedProxies = append(c.TrustedProxies, ipNet)
	}
	if c.ReserveBatched, err = envBool("RESERVE_BATCHING", true); err != nil {
		return c, err
	}
	if c.ReserveLocally, err = envBool("RESERVE_LOCAL_ACTIVITY", true); err != nil {
		return c, err
	}
	if c.ConfirmLocally, err = envBool("CONFIRM_LOCAL_ACTIVITY", true); err != nil {
		return c, err
	}
	if c.ConsoleInsecureCookie, err = envBool("CONSOLE_INSECURE_COOKIE", false); err != nil {
		return c, err
	}
	if err := c.LogLevel.UnmarshalText([]byte(env("LOG_LEVEL", "info"))); err != nil {
		return c, fmt.Errorf("LOG_LEVEL: %w", err)
	}
	if c.LogFormat = os.Getenv("LOG_FORMAT"); c.LogFormat != "" && c.LogFormat != "json" && c.LogFormat != "text" {
		return c, fmt.Errorf("LOG_FORMAT=%q: want json or text", c.LogFormat)
	}
	return c, nil
}

func envBool(name string, def bool) (bool, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return def, fmt.Errorf("%s=%q: want true or false", name, v)
	}
	return b, nil
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func envDuration(name string, def time.Duration) (time.Duration, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive Go duration such as 10m", name, v)
	}
	return d, nil
}

func envInt(name string, def, min int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min {
		return 0, fmt.Errorf("%s=%q: want a whole number of at least %d", name, v, min)
	}
	return n, nil
}

// scheduleIDs names the schedules and scheduled workflows of this deployment.
func (c Config) scheduleIDs() workflows.ScheduleIDs {
	return workflows.ScheduleIDs{Prefix: c.SchedulePrefix}
}

// minSecretBytes is the shortest ADMIN_TOKEN, AUTH_JWT_SECRET and BOOKING_ID_KEY serve accepts.
const minSecretBytes = 32

// DefaultHoldLimits are the limits on holds when the environment sets none.
var DefaultHoldLimits = api.HoldLimits{MaxActive: 5, PerCustomerPerMinute: 10, PerAddressPerMinute: 60, PerHotelPerSecond: 50}

// verifier returns the token verifier the configuration asks for, or nil when it names no
// secret and no JWKS URL (then only the break-glass ADMIN_TOKEN gets in). Local development
// (dev) takes any secret the environment names; serve wants strong ones.
func (c Config) verifier(ctx context.Context, local bool) (*auth.Verifier, error) {
	if c.AuthJWTSecret == "" && c.AuthJWKSURL == "" {
		return nil, nil
	}
	return auth.NewVerifier(ctx, auth.Config{Secret: []byte(c.AuthJWTSecret), AllowShortSecret: local,
		JWKSURL: c.AuthJWKSURL, Issuer: c.AuthIssuer, Audience: c.AuthAudience, ClockSkew: c.AuthClockSkew})
}

// checkSecrets refuses, for serve, the secrets too short to keep anyone out; dev only warns.
func (c Config) checkSecrets(local bool) error {
	for _, s := range []struct{ name, v string }{
		{"ADMIN_TOKEN", c.AdminToken}, {"AUTH_JWT_SECRET", c.AuthJWTSecret}, {"BOOKING_ID_KEY", c.BookingIDKey},
	} {
		switch {
		case s.v == "" || len(s.v) >= minSecretBytes:
		case local:
			slog.Warn(s.name+" is short: fine on this machine, guessable anywhere else", "bytes", len(s.v))
		default:
			return fmt.Errorf("%s must be at least %d bytes: make it long and random", s.name, minSecretBytes)
		}
	}
	return nil
}

// logHandler writes the logs of command: JSON lines, one object each, for log collectors, or
// text for a person at a terminal (dev's default).
func (c Config) logHandler(command string, w io.Writer) slog.Handler {
	opts := &slog.HandlerOptions{Level: c.LogLevel}
	if c.LogFormat == "text" || (c.LogFormat == "" && command == "dev") {
		return slog.NewTextHandler(w, opts)
	}
	return slog.NewJSONHandler(w, opts)
}

// cacheConfigured reports whether the availability cache is configured: by REDIS_URL, or by
// Redis Sentinel.
func (c Config) cacheConfigured() bool { return c.RedisURL != "" || len(c.RedisSentinels) > 0 }

// openCache connects to the availability cache as configured.
func (c Config) openCache() (*cache.Units, error) {
	if len(c.RedisSentinels) > 0 {
		return cache.NewFailover(c.RedisSentinels, c.RedisSentinelMaster, c.RedisURL, "")
	}
	return cache.New(c.RedisURL, "")
}
