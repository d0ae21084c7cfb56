// Package api is bookflow's HTTP API: Echo handlers that validate requests, start, update and
// query booking workflows, read inventory, and map every error to one JSON shape.
package api

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/workflows"
)

// Config is what the API needs besides its store and Temporal client.
type Config struct {
	Limits     domain.Limits
	AdminToken string        // Bearer token for /api/v1/admin; empty refuses every admin call
	HoldTTL    time.Duration // how long a new hold lasts
	LateWindow time.Duration // how long an ended booking's workflow keeps answering
	// MaxRefundAttempts and RefundBackoff tune the refund saga (workflow defaults when zero).
	MaxRefundAttempts int
	RefundBackoff     time.Duration
	TaskQueue         string // the booking task queue; workflows.TaskQueue when empty
	// WorkflowTimeout bounds how long a request waits for a workflow to answer.
	WorkflowTimeout time.Duration
	// WebhookSecret verifies the provider's Stripe-Signature; empty refuses every webhook.
	WebhookSecret string
	// WebhookTolerance is how old a webhook's signed timestamp may be.
	WebhookTolerance time.Duration
	Logger           *slog.Logger
	Now              func() time.Time // the clock for "today at the hotel"; time.Now when nil
}

// Server holds the API's dependencies.
type Server struct {
	store    *db.Store
	temporal client.Client
	cfg      Config
}

// New returns the Echo instance serving the whole API.
func New(store *db.Store, tc client.Client, cfg Config) *echo.Echo {
	if cfg.Limits == (domain.Limits{}) {
		cfg.Limits = domain.DefaultLimits
	}
	if cfg.TaskQueue == "" {
		cfg.TaskQueue = workflows.TaskQueue
	}
	if cfg.WorkflowTimeout <= 0 {
		cfg.WorkflowTimeout = 15 * time.Second
	}
	if cfg.WebhookTolerance <= 0 {
		cfg.WebhookTolerance = payments.DefaultTolerance
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{store: store, temporal: tc, cfg: cfg}

	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	e.Use(middleware.Recover())
	e.Use(middleware.BodyLimit("64K"))
	e.Use(s.logRequests())

	e.GET("/healthz", func(c echo.Context) error { return c.JSON(http.StatusOK, map[string]string{"status": "ok"}) })
	e.GET("/readyz", s.ready)

	v1 := e.Group("/api/v1")
	v1.GET("/hotels/:hotelId/availability", s.availability)
	v1.POST("/bookings", s.createBooking)
	v1.GET("/bookings/:id", s.getBooking)
	// Confirming without an online payment (paid at the desk) is for staff: guests' payments
	// confirm through the provider's webhook.
	v1.POST("/bookings/:id/confirm", s.confirmBooking, s.requireAdmin)
	v1.POST("/bookings/:id/cancel", s.cancelBooking)
	v1.POST("/webhooks/payments", s.paymentWebhook)

	admin := v1.Group("/admin", s.requireAdmin)
	admin.PUT("/hotels/:hotelId/room-types/:roomTypeId/inventory", s.setInventory)
	admin.PUT("/hotels/:hotelId/room-types/:roomTypeId/rates", s.setRates)
	admin.PUT("/hotels/:hotelId/cancellation-policy", s.setCancellationPolicy)
	admin.GET("/bookings/stuck", s.listStuck)
	admin.POST("/bookings/:id/refund/retry", s.retryRefund)
	admin.POST("/bookings/:id/refund/resolve", s.resolveRefund)
	admin.GET("/bookings/:id/audit", s.auditLog)
	return e
}

// ready answers 200 when the database and Temporal both answer, 503 otherwise.
func (s *Server) ready(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 3*time.Second)
	defer cancel()
	checks := map[string]string{"database": "ok", "temporal": "ok"}
	status := http.StatusOK
	if err := s.store.Pool().Ping(ctx); err != nil {
		checks["database"], status = err.Error(), http.StatusServiceUnavailable
	}
	if _, err := s.temporal.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
		checks["temporal"], status = err.Error(), http.StatusServiceUnavailable
	}
	return c.JSON(status, checks)
}

func (s *Server) logRequests() echo.MiddlewareFunc {
	return middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogMethod: true, LogURI: true, LogStatus: true, LogLatency: true, LogError: true,
		LogValuesFunc: func(_ echo.Context, v middleware.RequestLoggerValues) error {
			s.cfg.Logger.Info("http", "method", v.Method, "uri", v.URI, "status", v.Status,
				"latency", v.Latency.String())
			return nil
		},
	})
}
