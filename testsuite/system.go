package testsuite

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/bookflow/bookflow/api"
	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/cache"
	"github.com/bookflow/bookflow/console"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/worker"
)

// TemporalCLIVersion is the pinned Temporal CLI whose dev server the tests run (scripts/lib.sh
// builds it).
const TemporalCLIVersion = "v1.5.1"

var (
	devOnce   sync.Once
	devServer *sdktestsuite.DevServer
	devErr    error
)

// TemporalCLI finds the pinned Temporal CLI: $TEMPORAL_CLI, the tools folder scripts/lib.sh
// builds it into, or temporal on PATH.
func TemporalCLI() (string, error) {
	if p := os.Getenv("TEMPORAL_CLI"); p != "" {
		return p, nil
	}
	if cache, err := os.UserCacheDir(); err == nil {
		p := filepath.Join(cache, "bookflow", "tools", "temporal-"+TemporalCLIVersion, "temporal")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("temporal"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("the Temporal CLI was not found: run scripts/test, which builds it, or set TEMPORAL_CLI")
}

// Temporal returns a client of the dev server shared by the test binary, starting the server
// (on free ports, in memory, with bookflow's search attributes) at first use. Call StopTemporal
// from TestMain.
func Temporal(t testing.TB) client.Client {
	t.Helper()
	devOnce.Do(func() {
		var path string
		if path, devErr = TemporalCLI(); devErr != nil {
			return
		}
		var args []string
		for _, sa := range worker.SearchAttributeFlags() {
			args = append(args, "--search-attribute", sa)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		devServer, devErr = sdktestsuite.StartDevServer(ctx, sdktestsuite.DevServerOptions{
			ExistingPath:  path,
			LogLevel:      "error",
			ExtraArgs:     args,
			ClientOptions: clientOptions(quietTemporalLogger()),
		})
	})
	require.NoError(t, devErr, "start the Temporal dev server")
	return devServer.Client()
}

// DedicatedTemporal starts a dev server of the test's own (in memory, on free ports, with
// bookflow's search attributes and the extra start-dev arguments given, such as
// --dynamic-config-value), stopped when the test ends. For tests that change the server's
// limits, which the shared server must keep.
func DedicatedTemporal(t testing.TB, extraArgs ...string) client.Client {
	t.Helper()
	path, err := TemporalCLI()
	require.NoError(t, err)
	var args []string
	for _, sa := range worker.SearchAttributeFlags() {
		args = append(args, "--search-attribute", sa)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := sdktestsuite.StartDevServer(ctx, sdktestsuite.DevServerOptions{ExistingPath: path, LogLevel: "error",
		ExtraArgs: append(args, extraArgs...), ClientOptions: clientOptions(quietTemporalLogger())})
	require.NoError(t, err, "start a dedicated Temporal dev server")
	t.Cleanup(func() { _ = srv.Stop() })
	return srv.Client()
}

// StopTemporal stops the shared dev server, if one was started.
func StopTemporal() {
	if devServer != nil {
		_ = devServer.Stop()
	}
}

func quietTemporalLogger() log.Logger { return log.NewStructuredLogger(quietLogger()) }

func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// SystemOptions configures a System.
type SystemOptions struct {
	HoldTTL time.Duration // 10 minutes when zero
	// ManualOffers leaves the waitlist's offers to the test: no OfferStarter runs beside the
	// worker.
	ManualOffers bool
	// NoShowAfter brings every no-show deadline to this long after the booking is made.
	NoShowAfter time.Duration
	LateWindow  time.Duration     // 1 minute when zero
	Provider    payments.Provider // payments.Fake when nil
	// HoldLimits are the API's hold limits; none when zero.
	HoldLimits api.HoldLimits
	// WorkflowTimeout is how long the API waits for a workflow (api.DefaultWorkflowTimeout when
	// zero).
	WorkflowTimeout time.Duration
	// Auth verifies tokens instead of HS256 under the system's JWTSecret (a JWKS verifier, say).
	Auth *auth.Verifier
	// RefundBackoff is the refund saga's first backoff; 100ms when zero, so tests reach
	// PAYMENT_STUCK quickly.
	RefundBackoff time.Duration
	// Temporal is the server to run on; the shared dev server when nil.
	Temporal client.Client
	// SupplierHoldTTL replaces every supplier's hold time, SupplierStuckAfter when a booking
	// its supplier leaves unanswered shows SUPPLIER_STUCK.
	SupplierHoldTTL    time.Duration
	SupplierStuckAfter time.Duration
	SupplierTellFor    time.Duration // how long telling a supplier a booking is off is tried
	// Cache puts the availability cache (on the tests' Redis, or CacheURL) in front of searches
	// and holds, with the outbox relay running.
	Cache    bool
	CacheURL string
	// ReserveAsActivity runs reservations as activities (RESERVE_LOCAL_ACTIVITY=false); by
	// default they run as local activities, as in production.
	ReserveAsActivity bool
	// ConfirmAsActivity runs confirmations as activities (CONFIRM_LOCAL_ACTIVITY=false); by
	// default they run as local activities, as in production.
	ConfirmAsActivity bool
	// Console serves the staff console beside the API, with the development sign-in unless
	// ConsoleOIDC names an identity provider to sign in with instead. Its RedirectURL, when
	// empty, is the system's own callback (<URL>/console/oidc/callback), which no caller can
	// know before the system listens.
	Console     bool
	ConsoleOIDC *console.OIDCConfig
	// ConsoleSessionLifetime and ConsoleSessionIdle bound the console's sessions (the console's
	// defaults, 12 h and 2 h, when zero).
	ConsoleSessionLifetime, ConsoleSessionIdle time.Duration
	// Now is the API's clock (time.Now when nil).
	Now func() time.Time
	// CORS is what pages on other origins may call (none when empty).
	CORS api.CORS
	// SealPayloads seals what the system's API and worker give Temporal with RecordingPayloadKeys
	// (PAYLOAD_ENCRYPTION_KEYS), and serves them at the codec endpoint.
	SealPayloads bool
	// OpenPayloads gives the system the same keys without sealing anything, the first step of
	// switching sealing on (PAYLOAD_ENCRYPTION_KEYS without PAYLOAD_ENCRYPTION_KEY_ID).
	OpenPayloads bool
	// EventRetryFor is how long integrator events are retried before they are parked (1 minute
	// when zero); their first backoff is 100ms.
	EventRetryFor time.Duration
	// Logger, when set, gets every line the API and the system's worker log at its level,
	// through a Temporal client of the system's own; otherwise only warnings reach stderr.
	Logger *slog.Logger
}

// System is bookflow end to end for one test: its own database, a worker on its own task queue
// of the shared Temporal dev server, and the HTTP API in front of them.
type System struct {
	URL           string
	DB            *Database
	Temporal      client.Client
	TaskQueue     string
	AdminToken    string // the break-glass ADMIN_TOKEN
	JWTSecret     []byte // signs the tokens of Token, As, Guest and Admin
	WebhookSecret string
	// Routes are every route the API serves, for tests that must cover them all.
	Routes   []*echo.Route
	provider payments.Provider
	worker   sdkworker.Worker

	// ID is unique to this System; Customer uses it so that booking (and so workflow) ids of
	// tests sharing one Temporal namespace never collide.
	ID string
	// Cache and Relay, with SystemOptions.Cache.
	Cache     *cache.Units
	Relay     *cache.Relay
	stopRelay func()
}

// StartWorker starts a worker for the system's task queue, as a restarted worker process would.
func (s *System) StartWorker(t testing.TB, opts ...worker.Option) {
	t.Helper()
	s.worker = worker.New(s.Temporal, s.DB.Store, s.provider, s.TaskQueue, opts...)
	require.NoError(t, s.worker.Start())
}

// StopWorker stops the system's worker, as a crash of the worker process would (activities in
// flight are cancelled), if it is running.
func (s *System) StopWorker() {
	if s.worker != nil {
		s.worker.Stop()
		s.worker = nil
	}
}

// BookingID is the id the system's API gives the booking createdBy makes for customer with key.
func (s *System) BookingID(customer, createdBy, key string) string {
	return domain.BookingID(s.bookingIDKey(), customer, createdBy, key)
}

func (s *System) bookingIDKey() []byte { return []byte("booking-id-key-" + s.ID) }

// Customer returns a customer id unique to this System.
func (s *System) Customer(name string) string { return name + "-" + s.ID }

// NewSystem starts a System and stops it when the test ends.
func NewSystem(t testing.TB, opts SystemOptions) *System {
	t.Helper()
	if opts.LateWindow == 0 {
		opts.LateWindow = time.Minute
	}
	tc := opts.Temporal
	if tc == nil {
		tc = Temporal(t)
	}
	if opts.Logger != nil || opts.SealPayloads || opts.OpenPayloads {
		tc = withOptions(t, tc, opts)
	}
	d := NewDatabase(t)
	id := randomHex(6)
	s := &System{DB: d, Temporal: tc, TaskQueue: "bookflow-test-" + id, AdminToken: randomHex(16),
		JWTSecret: []byte(randomHex(16)), WebhookSecret: "whsec_" + randomHex(12), ID: id}
	if opts.Provider == nil {
		opts.Provider = payments.Fake{}
	}
	if opts.RefundBackoff == 0 {
		opts.RefundBackoff = 100 * time.Millisecond
	}
	s.provider = opts.Provider
	s.StartWorker(t)
	t.Cleanup(func() { s.StopWorker() })
	s.startEventSender(t, opts)
	if !opts.ManualOffers {
		s.startOfferStarter(t, opts)
	}

	if opts.Auth == nil {
		var err error
		opts.Auth, err = auth.NewVerifier(context.Background(), auth.Config{Secret: s.JWTSecret})
		require.NoError(t, err)
	}
	var changes *cache.Changes
	if opts.Cache {
		url := opts.CacheURL
		if url == "" {
			url = RedisURL()
		}
		s.Cache = NewCache(t, url)
		s.StartRelay(t)
		changes = &cache.Changes{Pool: d.Pool}
		ctx, stop := context.WithCancel(context.Background())
		t.Cleanup(stop)
		go changes.Run(ctx)
	}
	checkouts, _ := opts.Provider.(payments.Checkouts) // the scripted provider only refunds
	guarantees, _ := opts.Provider.(payments.Guarantees)
	e := api.New(d.Store, tc, api.Config{Auth: opts.Auth, AdminToken: s.AdminToken, BookingIDKey: s.bookingIDKey(),
		Checkouts: checkouts, Guarantees: guarantees,
		HoldLimits: opts.HoldLimits, WorkflowTimeout: opts.WorkflowTimeout, HoldTTL: opts.HoldTTL, VenueHoldTTL: opts.HoldTTL, NoShowAfter: opts.NoShowAfter, LateWindow: opts.LateWindow, TaskQueue: s.TaskQueue,
		WebhookSecret: s.WebhookSecret, RefundBackoff: opts.RefundBackoff, Logger: cmp.Or(opts.Logger, quietLogger()),
		SupplierHoldTTL: opts.SupplierHoldTTL, SupplierStuckAfter: opts.SupplierStuckAfter,
		SupplierTellFor: opts.SupplierTellFor, Cache: s.Cache,
		ReserveLocally: !opts.ReserveAsActivity, ConfirmLocally: !opts.ConfirmAsActivity, Changes: changes, Tracing: true, Now: opts.Now, CORS: opts.CORS,
		PayloadKeys: payloadKeys(opts)})
	checked := CheckOpenAPI(t, e) // every exchange held to api/openapi.yaml, the console's too
	// The listener first: the console's OpenID Connect callback is on the system's own address.
	srv := httptest.NewUnstartedServer(checked)
	s.URL = "http://" + srv.Listener.Addr().String()
	if opts.Console {
		s.mountConsole(t, e, checked, opts)
	}
	s.Routes = e.Routes()
	srv.Start()
	t.Cleanup(srv.Close)
	return s
}

// Response is an HTTP answer with its JSON body decoded loosely.
type Response struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    string
}

// ErrorCode returns the error.code of an error answer.
func (r Response) ErrorCode() string {
	if e, ok := r.Body["error"].(map[string]any); ok {
		code, _ := e["code"].(string)
		return code
	}
	return ""
}

// Do sends a request; body may be a string (sent as is) or a value (sent as JSON).
func (s *System) Do(t testing.TB, method, path string, headers map[string]string, body any) Response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewBufferString(b)
	default:
		raw, err := json.Marshal(b)
		require.NoError(t, err)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	out := Response{Status: res.StatusCode, Header: res.Header, Raw: string(raw)}
	_ = json.Unmarshal(raw, &out.Body)
	return out
}

// Token mints a token for p, valid for an hour, signed with the system's secret.
func (s *System) Token(t testing.TB, p domain.Principal) string {
	t.Helper()
	token, err := auth.Mint(s.JWTSecret, p, time.Hour, auth.MintOptions{})
	require.NoError(t, err)
	return token
}

// Caller sends requests with one bearer token.
type Caller struct {
	sys   *System
	Token string
}

// As returns a caller with a token for p.
func (s *System) As(t testing.TB, p domain.Principal) Caller {
	t.Helper()
	return Caller{sys: s, Token: s.Token(t, p)}
}

// Guest returns a caller holding the customer role, whose subject is the customer id customer
// (as Customer returns it).
func (s *System) Guest(t testing.TB, customer string) Caller {
	t.Helper()
	return s.As(t, domain.Principal{Subject: customer, Roles: []domain.Role{domain.RoleCustomer}})
}

// Do sends a request with the caller's token.
func (c Caller) Do(t testing.TB, method, path string, headers map[string]string, body any) Response {
	t.Helper()
	h := map[string]string{"Authorization": "Bearer " + c.Token}
	for k, v := range headers {
		h[k] = v
	}
	return c.sys.Do(t, method, path, h, body)
}

// Admin sends a request as an admin, with the break-glass ADMIN_TOKEN (which works whatever
// verifies the system's tokens).
func (s *System) Admin(t testing.TB, method, path string, body any) Response {
	t.Helper()
	return Caller{sys: s, Token: s.AdminToken}.Do(t, method, path, nil, body)
}

// Webhook posts a payment-provider event signed with the system's secret, as signed at at.
func (s *System) Webhook(t testing.TB, payload []byte, at time.Time) Response {
	t.Helper()
	return s.Do(t, http.MethodPost, "/api/v1/webhooks/payments",
		map[string]string{"Stripe-Signature": payments.SignWebhook(payload, s.WebhookSecret, at)}, string(payload))
}

// PaymentEvent builds a payment_intent.succeeded event paying amount for a booking.
func PaymentEvent(eventID, paymentID, bookingID string, amount int64, currency string) []byte {
	return payments.EventPayload(eventID, "payment_intent.succeeded",
		payments.PaymentIntentObject(paymentID, bookingID, amount, currency), time.Now())
}

// BalancePaymentEvent builds a payment_intent.succeeded event paying an amendment's balance, its
// metadata naming the amendment as the balance's checkout does.
func BalancePaymentEvent(eventID, paymentID, bookingID string, amendmentID, amount int64, currency string) []byte {
	return payments.EventPayload(eventID, "payment_intent.succeeded",
		payments.BalanceIntentObject(paymentID, bookingID, amendmentID, amount, currency), time.Now())
}

// Race runs fn from n goroutines released at the same moment, and waits for them all.
func Race(n int, fn func(i int)) {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			fn(i)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
}
