// Package api is bookflow's HTTP API: Echo handlers that validate requests, start, update and
// query booking workflows, read inventory, and map every error to one JSON shape. Every
// /api/v1 route needs a bearer token, which authenticate turns into a domain.Principal, and one
// of the roles its group allows; only the payment webhook and a supplier's stock push are signed
// instead. A hold passes the rate limits and the sold-out gate before it starts a workflow.
package api

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"go.opentelemetry.io/contrib/instrumentation/github.com/labstack/echo/otelecho"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/cache"
	"github.com/bookflow/bookflow/codec"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/suppliers"
	"github.com/bookflow/bookflow/telemetry"
	"github.com/bookflow/bookflow/workflows"
)

// Config is what the API needs besides its store and Temporal client.
type Config struct {
	Limits domain.Limits
	// Auth verifies bearer tokens; nil accepts none (then only AdminToken gets in).
	Auth *auth.Verifier
	// AdminToken is the break-glass admin credential (ADMIN_TOKEN) for bootstrapping; empty
	// disables it.
	AdminToken string
	// BookingIDKey keys the hash that booking ids are derived from (BOOKING_ID_KEY); every API
	// instance of a deployment must share it.
	BookingIDKey []byte
	// HoldLimits bound what one customer or client address may hold; zero fields mean no limit.
	HoldLimits HoldLimits
	// TrustedProxies are the proxies whose X-Forwarded-For names the client address; without
	// them the address is the connection's own.
	TrustedProxies []*net.IPNet
	HoldTTL        time.Duration // how long a new hold lasts
	// VenueHoldTTL, when set, replaces every venue's own payment window (short holds for tests).
	VenueHoldTTL time.Duration
	// NoShowAfter, when set, replaces every no-show deadline with this long after the booking is
	// made (tests).
	NoShowAfter time.Duration
	LateWindow  time.Duration // how long an ended booking's workflow keeps answering
	// ReserveLocally runs new bookings' reservations as local activities (workflows.BookingInput).
	ReserveLocally bool
	// ConfirmLocally runs new bookings' confirmations as local activities (workflows.BookingInput).
	ConfirmLocally bool
	// Tracing makes a span of every request (otelecho), under the caller's traceparent; without
	// it the caller's trace id is only read, for the log line (telemetry.TracingEnabled).
	Tracing bool
	// MaxRefundAttempts and RefundBackoff tune the refund saga (workflow defaults when zero).
	MaxRefundAttempts int
	RefundBackoff     time.Duration
	TaskQueue         string // the booking task queue; workflows.TaskQueue when empty
	// WorkflowTimeout bounds how long a request waits for a workflow to answer.
	WorkflowTimeout time.Duration
	// Checkouts creates the payments guests complete at checkout; nil answers 503.
	Checkouts payments.Checkouts
	// Guarantees saves the card a pay-at-hotel hold's guest leaves as its guarantee, at checkout;
	// nil answers 503 for such a hold.
	Guarantees payments.Guarantees
	// WebhookSecret verifies the provider's Stripe-Signature; empty refuses every webhook.
	WebhookSecret string
	// WebhookTolerance is how old a webhook's signed timestamp may be.
	WebhookTolerance time.Duration
	Logger           *slog.Logger
	// SupplierSync, when set, keeps a supplier's stock sync schedule in step with the supplier
	// an admin just stored.
	SupplierSync func(ctx context.Context, s db.Supplier) error
	// ScheduleIDs names the SupplierSync workflow a sync now starts, as the schedules do.
	ScheduleIDs workflows.ScheduleIDs
	// Suppliers calls suppliers' endpoints (quotes for direct_connect searches).
	Suppliers suppliers.Client
	// SupplierHoldTTL, when set, replaces every supplier's hold time, and SupplierStuckAfter
	// when a booking unanswered by its supplier shows SUPPLIER_STUCK (tests).
	SupplierHoldTTL    time.Duration
	SupplierStuckAfter time.Duration
	// SupplierTellFor, when set, replaces how long telling a supplier a booking is off is tried.
	SupplierTellFor time.Duration
	// Cache is the availability cache searches read and the sold-out gate consults; nil: every
	// search reads the database and no hold is refused early. GateWait bounds how long the gate
	// waits for a change on its way to the cache (DefaultGateWait when zero).
	Cache    *cache.Units
	GateWait time.Duration
	// Changes, when running, lets the gate repeat a sold-out it verified without reading the
	// cache and the outbox again, until the next inventory change commits (see soldOutMemo).
	Changes *cache.Changes
	Now     func() time.Time // the clock for "today at the hotel"; time.Now when nil
	// CORS is what pages on other origins may call (CORS_ALLOWED_ORIGINS); none when empty.
	CORS CORS
	// PayloadKeys open and seal Temporal payloads for the codec endpoint (codec.Keys); nil:
	// payloads pass unchanged.
	PayloadKeys *codec.Keys
	// CodecDecodePerMinute is how many calls to the codec's /decode one user may make a minute
	// (bursts of the same size; CODEC_DECODE_RATE_PER_USER), across every API process with the
	// cache; 0: no limit.
	CodecDecodePerMinute int
}

// Server holds the API's dependencies.
type Server struct {
	store    *db.Store
	temporal client.Client
	cfg      Config
	meta     metaCache
	soldOut  soldOutMemo
	// gateReads bounds the gate's PostgreSQL reads at once (see gateRead).
	gateReads chan struct{}
	// self is the API's own handler, which a rooming list's lines are booked through.
	self http.Handler
}

// DefaultWorkflowTimeout is how long a request waits for a workflow's answer by default.
const DefaultWorkflowTimeout = 15 * time.Second

// maxBodyBytes bounds every request body but the payment webhook's, which has its own limit.
const maxBodyBytes = "64K"

// webhookPath is the one route authenticated by a signature instead of a bearer token.
const webhookPath = "/api/v1/webhooks/payments"

// New returns the Echo instance serving the whole API.
func New(store *db.Store, tc client.Client, cfg Config) *echo.Echo {
	if cfg.Limits == (domain.Limits{}) {
		cfg.Limits = domain.DefaultLimits
	}
	if cfg.TaskQueue == "" {
		cfg.TaskQueue = workflows.TaskQueue
	}
	if cfg.WorkflowTimeout <= 0 {
		cfg.WorkflowTimeout = DefaultWorkflowTimeout
	}
	if cfg.WebhookTolerance <= 0 {
		cfg.WebhookTolerance = payments.DefaultTolerance
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.Logger = slog.New(requestIDLogs{cfg.Logger.Handler()})
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{store: store, temporal: tc, cfg: cfg,
		gateReads: make(chan struct{}, max(2, int(store.Pool().Config().MaxConns)/2))}

	e := echo.New()
	s.self = e
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	e.IPExtractor = clientAddress(cfg.TrustedProxies)
	// Outermost first: the trace, then the metrics and the log line, which see the status sent
	// (logRequests answers errors, and Recover turns a panic into a 500 inside them).
	if cfg.Tracing {
		e.Use(otelecho.Middleware("bookflow-api", otelecho.WithSkipper(func(c echo.Context) bool {
			return c.Path() == "/healthz" || c.Path() == "/readyz"
		})))
	} else {
		e.Use(callerTrace) // otelecho builds a dozen attributes per request even for a no-op span
	}
	e.Use(requestID)
	e.Use(telemetry.HTTPMetrics())
	e.Use(s.logRequests())
	e.Use(middleware.Recover())
	e.Use(s.cors())
	e.Use(middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{Limit: maxBodyBytes,
		Skipper: func(c echo.Context) bool {
			return c.Path() == webhookPath || c.Path() == supplierPushPath || strings.HasPrefix(c.Path(), codecPath+"/")
		}}))

	e.GET("/healthz", func(c echo.Context) error { return c.JSON(http.StatusOK, map[string]string{"status": "ok"}) })
	e.GET("/readyz", s.ready)
	e.GET(OpenAPIPath, serveOpenAPI) // the OpenAPI document (api/openapi.yaml), as JSON
	e.GET(SupplierOpenAPIPath, serveSupplierOpenAPI)

	v1 := e.Group("/api/v1")
	v1.POST("/webhooks/payments", s.paymentWebhook) // signed by the provider, not a bearer token
	e.POST(supplierPushPath, s.pushStock)           // signed by the supplier

	// Every route below needs a bearer token with one of bookflow's roles; each group then says
	// which roles it serves.
	authn := s.authenticate()
	signedIn := routes{v1, []echo.MiddlewareFunc{authn, allow(domain.Roles...)}}
	signedIn.add(http.MethodGet, "/hotels/:hotelId/availability", s.availability)
	signedIn.add(http.MethodGet, "/hotels/:hotelId/availability/explain", s.explainAvailability)
	signedIn.add(http.MethodGet, "/hotels/:hotelId/groups/:groupCode/availability", s.groupAvailability)
	signedIn.add(http.MethodGet, "/venues/:venueId/slots", s.venueSlots)
	signedIn.add(http.MethodGet, "/venues/:venueId/equipment", s.venueEquipment)

	// Customers act for themselves: the booking's customer is the token's subject, and anyone
	// else's booking does not exist for them.
	customer := routes{v1, []echo.MiddlewareFunc{authn, allow(domain.RoleCustomer)}}
	// One allowance per customer and per address over every route that makes a hold, as in
	// Redis, where every process shares it.
	holdRates := s.holdRateLimits()
	customer.add(http.MethodPost, "/bookings", s.createBooking, holdRates...)
	customer.add(http.MethodGet, "/bookings/:id", s.getBooking)
	customer.add(http.MethodPost, "/bookings/:id/payment", s.createPayment)
	customer.add(http.MethodPost, "/bookings/:id/cancel", s.cancelBooking)
	customer.add(http.MethodPost, "/bookings/:id/amendments", s.amendBooking(s.customerAmender()))
	customer.add(http.MethodPost, "/bookings/:id/amendments/quote", s.quoteAmendment(s.customerAmender()))
	customer.add(http.MethodGet, "/bookings/:id/amendments", s.listAmendments(s.customerAmender()))
	customer.add(http.MethodGet, "/me/bookings", s.myBookings)
	customer.add(http.MethodPost, "/waitlist", s.joinWaitlist)
	customer.add(http.MethodGet, "/me/waitlist", s.myWaitlist)
	customer.add(http.MethodDelete, "/me/waitlist/:entryId", s.leaveWaitlist)
	customer.add(http.MethodPost, "/me/waitlist/:entryId/decline", s.declineOffer)
	customer.add(http.MethodPost, "/venues/:venueId/bookings", s.createOrder, holdRates...)

	// Agents sell through their channel, and see only the bookings they sold: every route acts for
	// the stored agent the token names (storedAgent), never the claim alone.
	agent := routes{v1.Group("/agent"), []echo.MiddlewareFunc{authn, allow(domain.RoleAgent), s.storedAgent}}
	agent.add(http.MethodPost, "/bookings", s.createAgentBooking, holdRates...)
	agent.add(http.MethodGet, "/bookings", s.agentBookings)
	agent.add(http.MethodGet, "/bookings/:id", s.getAgentBooking)
	agent.add(http.MethodPost, "/bookings/:id/cancel", s.cancelAgentBooking)
	agent.add(http.MethodPost, "/bookings/:id/amendments", s.amendBooking(s.agentAmender()))
	agent.add(http.MethodPost, "/bookings/:id/amendments/quote", s.quoteAmendment(s.agentAmender()))
	agent.add(http.MethodGet, "/bookings/:id/amendments", s.listAmendments(s.agentAmender()))
	agent.add(http.MethodGet, "/notifications", s.agentNotifications)
	agent.add(http.MethodPost, "/waitlist", s.agentJoinWaitlist)
	agent.add(http.MethodGet, "/waitlist", s.agentWaitlist)

	// Staff act for the hotels their token names (front desk) or for every hotel (finance,
	// admin); the roles per route are narrowed below.
	desk := allow(domain.RoleFrontDesk, domain.RoleAdmin)
	money := allow(domain.RoleFinance, domain.RoleAdmin)
	anyStaff := allow(domain.RoleFrontDesk, domain.RoleFinance, domain.RoleAdmin)
	staff := routes{v1.Group("/staff"), []echo.MiddlewareFunc{authn}}
	staff.add(http.MethodPost, "/bookings", s.staffCreateBooking, desk)
	staff.add(http.MethodPost, "/venues/:venueId/bookings", s.staffCreateOrder, desk)
	staff.add(http.MethodGet, "/sites", s.staffSites, anyStaff)
	staff.add(http.MethodPost, "/waitlist", s.staffJoinWaitlist, desk)
	staff.add(http.MethodGet, "/waitlist", s.staffWaitlist, anyStaff)
	staff.add(http.MethodPost, "/waitlist/offers", s.offerWaitlist, desk)
	staff.add(http.MethodPost, "/hotels/:hotelId/blocks", s.createBlock, desk)
	staff.add(http.MethodGet, "/hotels/:hotelId/blocks", s.hotelBlocks, anyStaff)
	staff.add(http.MethodGet, "/blocks/:blockId", s.getBlock, anyStaff)
	staff.add(http.MethodGet, "/blocks/:blockId/changes", s.blockChanges, anyStaff)
	staff.add(http.MethodPost, "/blocks/:blockId/definite", s.makeBlockDefinite, desk)
	staff.add(http.MethodPost, "/blocks/:blockId/cancel", s.cancelBlock, desk)
	staff.add(http.MethodPost, "/blocks/:blockId/releases", s.releaseBlockRooms, desk)
	staff.add(http.MethodPost, "/blocks/:blockId/rooming-list", s.uploadRoomingList, desk)
	staff.add(http.MethodGet, "/bookings", s.staffListBookings, anyStaff)
	staff.add(http.MethodGet, "/bookings/stuck", s.listStuck, money)
	staff.add(http.MethodGet, "/bookings/:id", s.staffGetBooking, anyStaff)
	staff.add(http.MethodPut, "/bookings/:id/guest", s.putGuest, desk)
	staff.add(http.MethodPost, "/bookings/:id/rooms", s.assignRoom, desk)
	staff.add(http.MethodGet, "/hotels/:hotelId/rooms", s.hotelRooms, anyStaff)
	staff.add(http.MethodGet, "/bookings/:id/free-rooms", s.freeRooms, anyStaff)
	staff.add(http.MethodPost, "/hotels/:hotelId/rooms/:room/out-of-order", s.putRoomOutOfOrder, desk)
	staff.add(http.MethodPost, "/hotels/:hotelId/rooms/:room/back-in-order", s.putRoomBackInOrder, desk)
	staff.add(http.MethodGet, "/search", s.staffSearch, anyStaff)
	staff.add(http.MethodPost, "/bookings/:id/confirm", s.confirmBooking, desk)
	staff.add(http.MethodPost, "/bookings/:id/cancel", s.staffCancelBooking, desk)
	staff.add(http.MethodPost, "/bookings/:id/check-in", s.checkInBooking, desk)
	staff.add(http.MethodPost, "/bookings/:id/no-show", s.noShowBooking, desk)
	staff.add(http.MethodPost, "/bookings/:id/late-arrival", s.recordLateArrival, desk)
	staff.add(http.MethodGet, "/bookings/:id/check-out", s.checkOutPreview, desk)
	staff.add(http.MethodPost, "/bookings/:id/check-out", s.checkOutBooking, desk)
	staff.add(http.MethodPost, "/bookings/:id/desk-payments", s.takeDeskPayment, desk)
	staff.add(http.MethodGet, "/bookings/:id/folio", s.bookingFolio, anyStaff)
	staff.add(http.MethodPost, "/bookings/:id/charges", s.addCharge, desk)
	staff.add(http.MethodPost, "/bookings/:id/charges/:chargeId/void", s.voidCharge, desk)
	staff.add(http.MethodPut, "/bookings/:id/price", s.changePrice, desk)
	staff.add(http.MethodPost, "/bookings/:id/refunds", s.refundBooking, anyStaff)
	staff.add(http.MethodPost, "/bookings/:id/refunds/hand-over", s.handOverRefund, desk)
	staff.add(http.MethodPost, "/payments/:paymentId/manual-refunds", s.recordManualRefund, money)
	staff.add(http.MethodPost, "/bookings/:id/amendments", s.amendBooking(s.staffAmender()), desk)
	staff.add(http.MethodPost, "/bookings/:id/amendments/quote", s.quoteAmendment(s.staffAmender()), desk)
	staff.add(http.MethodGet, "/bookings/:id/amendments", s.listAmendments(s.staffAmenderReading()), anyStaff)
	staff.add(http.MethodGet, "/bookings/:id/payments", s.bookingPayments, anyStaff)
	staff.add(http.MethodGet, "/bookings/:id/audit", s.bookingAudit, money)
	staff.add(http.MethodGet, "/bookings/:id/history", s.bookingHistory, anyStaff)
	staff.add(http.MethodGet, "/inventory/history", s.unitHistory, anyStaff)
	staff.add(http.MethodPost, "/venues/:venueId/closures", s.deskClosures(false), desk)
	staff.add(http.MethodPost, "/venues/:venueId/reopenings", s.deskClosures(true), desk)
	staff.add(http.MethodPost, "/bookings/:id/refund/retry", s.retryRefund, money)
	staff.add(http.MethodPost, "/bookings/:id/refund/resolve", s.resolveRefund, money)
	staff.add(http.MethodPost, "/bookings/:id/refund/recover", s.recoverRefund, money)
	staff.add(http.MethodPost, "/bookings/:id/resume", s.resumeBooking, money)
	staff.add(http.MethodPost, "/bookings/:id/tell-supplier", s.tellSupplier, money)
	staff.add(http.MethodGet, "/audit", s.auditLog, money)
	staff.add(http.MethodGet, "/reports/daily", s.dailyReport, money)
	// Cash-ups: a front desk its own shifts at its sites (the handlers check both), finance any.
	staff.add(http.MethodGet, "/sites/:siteId/due-at-the-desk", s.refundsDueAtTheDesk, anyStaff)
	staff.add(http.MethodGet, "/sites/:siteId/cash-ups/preview", s.cashUpPreview, anyStaff)
	staff.add(http.MethodGet, "/sites/:siteId/cash-ups", s.listCashUps, anyStaff)
	staff.add(http.MethodPost, "/sites/:siteId/cash-ups", s.closeCashUp, anyStaff)
	staff.add(http.MethodPost, "/sites/:siteId/cash-ups/:cashUpId/notes", s.addCashUpNote, anyStaff)
	staff.add(http.MethodGet, "/webhooks/unprocessable", s.unprocessableEvents, money)
	staff.add(http.MethodGet, "/customers/:customerId/search-key", s.customerSearchKey, money)
	// The Temporal UI's codec server: finance and admins read what the workflows hold.
	staff.add(http.MethodPost, "/codec/decode", s.codec(true), append([]echo.MiddlewareFunc{money}, s.codecDecodeAccess()...)...)
	staff.add(http.MethodPost, "/codec/encode", s.codec(false), money)

	admin := routes{v1.Group("/admin"), []echo.MiddlewareFunc{authn, allow(domain.RoleAdmin)}}
	admin.add(http.MethodPut, "/hotels/:hotelId/room-types/:roomTypeId/inventory", s.setInventory)
	admin.add(http.MethodPut, "/hotels/:hotelId/room-types/:roomTypeId/rooms", s.putRooms)
	admin.add(http.MethodPut, "/hotels/:hotelId/room-types/:roomTypeId/rates", s.setRates)
	admin.add(http.MethodPut, "/hotels/:hotelId/cancellation-policy", s.setCancellationPolicy)
	admin.add(http.MethodGet, "/hotels/:hotelId/cancellation-policy", s.getCancellationPolicy)
	admin.add(http.MethodPut, "/hotels/:hotelId/rate-plans/:code", s.putRatePlan)
	admin.add(http.MethodGet, "/hotels/:hotelId/rate-plans", s.ratePlans)
	admin.add(http.MethodGet, "/hotels/:hotelId/rate-plans/:code", s.ratePlan)
	admin.add(http.MethodPut, "/hotels/:hotelId/rate-plans/:code/room-types/:roomTypeId/rates", s.setPlanRates)
	admin.add(http.MethodGet, "/hotels/:hotelId/rate-plans/:code/room-types/:roomTypeId/prices", s.planPrices)
	admin.add(http.MethodGet, "/checks/latest", s.latestCheck)
	admin.add(http.MethodPut, "/hotels/:hotelId/waitlist-settings", s.putWaitlistSettings(false))
	admin.add(http.MethodGet, "/hotels/:hotelId/waitlist-settings", s.getWaitlistSettings(false))
	admin.add(http.MethodPut, "/venues/:venueId/waitlist-settings", s.putWaitlistSettings(true))
	admin.add(http.MethodGet, "/venues/:venueId/waitlist-settings", s.getWaitlistSettings(true))
	admin.add(http.MethodPut, "/venues/:venueId", s.putVenue)
	admin.add(http.MethodGet, "/venues/:venueId", s.getVenue)
	admin.add(http.MethodPut, "/venues/:venueId/resources/:resourceId", s.putVenueResource)
	admin.add(http.MethodPost, "/venues/:venueId/resources/:resourceId/schedule", s.applySchedule)
	admin.add(http.MethodPost, "/venues/:venueId/closures", s.closeUnits)
	admin.add(http.MethodPost, "/venues/:venueId/reopenings", s.reopenUnits)
	admin.add(http.MethodPut, "/suppliers/:supplierId", s.putSupplier)
	admin.add(http.MethodGet, "/suppliers", s.listSuppliers)
	admin.add(http.MethodPut, "/hotels/:hotelId/supplier", s.setHotelSupplier)
	admin.add(http.MethodPut, "/channels/:channelId", s.putChannel)
	admin.add(http.MethodGet, "/channels", s.listChannels)
	admin.add(http.MethodPut, "/agents/:agentId", s.putAgent)
	admin.add(http.MethodGet, "/agents", s.listAgents)
	admin.add(http.MethodGet, "/stock-alerts", s.listStockAlerts)
	admin.add(http.MethodPost, "/stock-alerts/:alertId/resolve", s.resolveStockAlert)
	admin.add(http.MethodGet, "/event-subscribers", s.listEventSubscribers)
	admin.add(http.MethodPut, "/event-subscribers/:subscriberId", s.putEventSubscriber)
	admin.add(http.MethodGet, "/event-subscribers/:subscriberId", s.getEventSubscriber)
	admin.add(http.MethodPost, "/event-subscribers/:subscriberId/secret-rotation", s.rotateEventSecret)
	admin.add(http.MethodGet, "/event-subscribers/:subscriberId/deliveries", s.eventDeliveries)
	admin.add(http.MethodPost, "/event-deliveries/:deliveryId/redeliver", s.redeliverEvent)
	admin.add(http.MethodPost, "/customers/:customerId/erasure", s.eraseCustomer)

	// Sale rules, allocations and low-stock thresholds: admins for every hotel, supplier staff
	// for their suppliers' hotels (each handler checks the hotels it touches).
	rules := routes{v1.Group("/admin"), []echo.MiddlewareFunc{authn, allow(domain.RoleAdmin, domain.RoleSupplier)}}
	rules.add(http.MethodGet, "/hotels/:hotelId/sale-rules", s.listSaleRules)
	rules.add(http.MethodPost, "/hotels/:hotelId/sale-rules", s.createSaleRule)
	rules.add(http.MethodPost, "/sale-rules/batch", s.createSaleRulesBatch)
	rules.add(http.MethodPut, "/sale-rules/:ruleId", s.replaceSaleRule)
	rules.add(http.MethodDelete, "/sale-rules/:ruleId", s.endSaleRule)
	rules.add(http.MethodPut, "/hotels/:hotelId/restrictions", s.setRestrictions)
	rules.add(http.MethodGet, "/hotels/:hotelId/restrictions", s.restrictionCalendar)
	rules.add(http.MethodGet, "/hotels/:hotelId/ari", s.ariExport)
	rules.add(http.MethodGet, "/hotels/:hotelId/ari/changes", s.ariChanges)
	rules.add(http.MethodGet, "/hotels/:hotelId/room-types/:roomTypeId/allocations", s.listAllocations)
	rules.add(http.MethodPut, "/hotels/:hotelId/room-types/:roomTypeId/allocations", s.setAllocation)
	rules.add(http.MethodDelete, "/hotels/:hotelId/room-types/:roomTypeId/allocations", s.deleteAllocation)
	rules.add(http.MethodPost, "/allocations/batch", s.setAllocationsBatch)
	rules.add(http.MethodPut, "/hotels/:hotelId/room-types/:roomTypeId/blocked-rooms", s.setBlockedRooms)
	rules.add(http.MethodPut, "/hotels/:hotelId/room-types/:roomTypeId/stock-alert-threshold", s.setStockAlertThreshold)
	rules.add(http.MethodPost, "/stock-alert-thresholds/batch", s.setStockAlertThresholdsBatch)
	rules.add(http.MethodGet, "/hotels/:hotelId/stock-alert-thresholds", s.listStockAlertThresholds)
	rules.add(http.MethodGet, "/hotels/:hotelId/stock", s.hotelStock)
	rules.add(http.MethodPost, "/suppliers/:supplierId/sync", s.syncSupplier)
	return e
}

// clientAddress is how the API tells a client's address, for the per-address hold limit: the
// connection's own, or, behind trusted proxies, the first untrusted hop of X-Forwarded-For.
// Echo's default would believe any client's X-Forwarded-For header.
func clientAddress(trusted []*net.IPNet) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, r := range trusted {
		opts = append(opts, echo.TrustIPRange(r))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// Timeouts bound how long a client may take to send a request and read the answer, so slow or
// idle clients cannot hold connections open.
type Timeouts struct {
	ReadHeader, Read, Write, Idle time.Duration
}

// DefaultTimeouts suit requests that may wait up to workflowWait for a workflow's answer.
func DefaultTimeouts(workflowWait time.Duration) Timeouts {
	return Timeouts{ReadHeader: 5 * time.Second, Read: 15 * time.Second, Write: workflowWait + 15*time.Second,
		Idle: 2 * time.Minute}
}

// NewHTTPServer returns the server for the API's handler, with t's timeouts.
func NewHTTPServer(addr string, h http.Handler, t Timeouts) *http.Server {
	return &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: t.ReadHeader, ReadTimeout: t.Read,
		WriteTimeout: t.Write, IdleTimeout: t.Idle}
}

// ready answers 200 when the database and Temporal both answer, 503 otherwise: the readiness a
// worker answers too, with its own checks (telemetry.Readiness).
func (s *Server) ready(c echo.Context) error {
	telemetry.Readiness{Logger: s.cfg.Logger,
		Checks: []telemetry.ReadinessCheck{telemetry.DatabaseReady(s.store.Pool()), telemetry.TemporalReady(s.temporal)},
	}.ServeHTTP(c.Response(), c.Request())
	return nil
}

// logRequests logs one line per request: method, route and path (never a header or a body, so
// no token or signature), status and latency, the trace id, and the booking it was about.
func (s *Server) logRequests() echo.MiddlewareFunc {
	return middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogMethod: true, LogURIPath: true, LogRoutePath: true, LogStatus: true, LogLatency: true, LogError: true,
		HandleError: true, // answer errors first, so the status logged is the one sent
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			attrs := []any{"method", v.Method, "route", v.RoutePath, "path", v.URIPath, "status", v.Status,
				"latency", v.Latency.String()}
			if id := bookingOf(c); id != "" {
				attrs = append(attrs, "bookingId", id, "workflowId", id) // a booking's workflow id is its id
			}
			if trace := telemetry.TraceID(c.Request().Context()); trace != "" {
				attrs = append(attrs, "traceId", trace)
			}
			s.cfg.Logger.InfoContext(c.Request().Context(), "http", attrs...)
			return nil
		},
	})
}

// callerTrace puts the caller's trace context (a traceparent header) in the request's context, so
// the log line names the caller's trace when no spans are made.
func callerTrace(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Header.Get("traceparent") != "" {
			c.SetRequest(r.WithContext(otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))))
		}
		return next(c)
	}
}

// bookingKey is where a handler notes the booking a request is about, for its log line.
const bookingKey = "bookflow.bookingId"

// aboutBooking notes that the request is about booking id (one it creates, or a webhook's).
func aboutBooking(c echo.Context, id string) { c.Set(bookingKey, id) }

// bookingOf is the booking a request is about: noted by its handler, or named in its path.
func bookingOf(c echo.Context) string {
	if id, ok := c.Get(bookingKey).(string); ok {
		return id
	}
	for i, name := range c.ParamNames() {
		if name == "id" && strings.Contains(c.Path(), "/bookings/:id") {
			return c.ParamValues()[i]
		}
	}
	return ""
}
