package main

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// Config is the whole configuration, read from the environment with local defaults.
type Config struct {
	DatabaseURL       string
	TemporalAddress   string
	TemporalNamespace string
	TemporalUIURL     string // only printed, so people know where to look
	TaskQueue         string
	HTTPAddr          string
	HoldTTL           time.Duration
	LateWindow        time.Duration
	AdminToken        string
	Limits            domain.Limits
	LockTimeout       time.Duration
	LogLevel          slog.Level

	PaymentProvider     string // stripe or fake
	StripeAPIKey        string
	StripeAPIBase       string // empty: Stripe's own API
	StripeWebhookSecret string
}

// LoadConfig reads the environment; see the README for every variable.
func LoadConfig() (Config, error) {
	c := Config{
		DatabaseURL:       env("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bookflow?sslmode=disable"),
		TemporalAddress:   env("TEMPORAL_ADDRESS", "127.0.0.1:7233"),
		TemporalNamespace: env("TEMPORAL_NAMESPACE", "default"),
		TemporalUIURL:     env("TEMPORAL_UI_URL", "http://127.0.0.1:8233"),
		TaskQueue:         env("TASK_QUEUE", workflows.TaskQueue),
		HTTPAddr:          env("HTTP_ADDR", "127.0.0.1:8080"),
		AdminToken:        os.Getenv("ADMIN_TOKEN"),

		PaymentProvider:     env("PAYMENT_PROVIDER", "stripe"),
		StripeAPIKey:        os.Getenv("STRIPE_API_KEY"),
		StripeAPIBase:       os.Getenv("STRIPE_API_BASE"),
		StripeWebhookSecret: os.Getenv("STRIPE_WEBHOOK_SECRET"),
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
		{"LATE_WINDOW", workflows.DefaultLateWindow, &c.LateWindow},
		{"LOCK_TIMEOUT", 2 * time.Second, &c.LockTimeout},
	}
	for _, d := range durations {
		if *d.dst, err = envDuration(d.name, d.def); err != nil {
			return c, err
		}
	}
	ints := []struct {
		name string
		def  int
		dst  *int
	}{
		{"MAX_STAY_NIGHTS", domain.DefaultLimits.MaxNights, &c.Limits.MaxNights},
		{"MAX_ROOMS_PER_BOOKING", domain.DefaultLimits.MaxQuantity, &c.Limits.MaxQuantity},
		{"SALE_HORIZON_DAYS", domain.DefaultLimits.SaleHorizonDays, &c.Limits.SaleHorizonDays},
	}
	for _, i := range ints {
		if *i.dst, err = envInt(i.name, i.def); err != nil {
			return c, err
		}
	}
	if err := c.LogLevel.UnmarshalText([]byte(env("LOG_LEVEL", "info"))); err != nil {
		return c, fmt.Errorf("LOG_LEVEL: %w", err)
	}
	return c, nil
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

func envInt(name string, def int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s=%q: want a positive whole number", name, v)
	}
	return n, nil
}
