package testsuite_test

import (
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/api"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestEveryAnswerCarriesARequestID: a caller's X-Request-Id comes back on the answer and is on
// every log line the request causes; without one, or with one that is not a plausible id, the API
// makes one.
func TestEveryAnswerCarriesARequestID(t *testing.T) {
	t.Parallel()
	logs := &testsuite.SyncBuffer{}
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	stay := stayFromNow(20, 1)
	openRooms(t, sys, "h-rid", "double", stay, 1)
	guest := sys.Guest(t, sys.Customer("g-rid"))

	res := guest.Do(t, http.MethodGet, "/api/v1/me/bookings", map[string]string{api.RequestIDHeader: "checkout-42.a:b_c"}, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "checkout-42.a:b_c", res.Header.Get(api.RequestIDHeader))
	assert.Contains(t, logs.String(), "requestId=checkout-42.a:b_c", "the request's log line names it")

	made := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for name, sent := range map[string]string{"none": "", "a space": "two words", "a quote": `a"b`, "not ASCII": "caf\u00e9",
		"too long": strings.Repeat("x", 129)} {
		h := map[string]string{}
		if sent != "" {
			h[api.RequestIDHeader] = sent
		}
		res := guest.Do(t, http.MethodGet, "/api/v1/me/bookings", h, nil)
		assert.Regexp(t, made, res.Header.Get(api.RequestIDHeader), "%s: one the API made", name)
	}
	// Every other line the request causes names it too: here the break-glass token's warning.
	sys.Do(t, http.MethodGet, "/api/v1/admin/checks/latest", map[string]string{api.RequestIDHeader: "ops-7",
		"Authorization": "Bearer " + sys.AdminToken}, nil)
	assert.Regexp(t, `msg="break-glass ADMIN_TOKEN used".*requestId=ops-7`, logs.String())
	assert.Equal(t, 1, strings.Count(logs.String(), "msg=http method=GET route=/api/v1/admin/checks/latest"),
		"one request line")
	assert.Regexp(t, `msg=http method=GET route=/api/v1/admin/checks/latest .*requestId=ops-7`, logs.String())
	// Errors carry it too, and so does a 401 answered before any handler.
	res = sys.Do(t, http.MethodGet, "/api/v1/me/bookings", map[string]string{api.RequestIDHeader: "unsigned-1"}, nil)
	assert.Equal(t, http.StatusUnauthorized, res.Status)
	assert.Equal(t, "unsigned-1", res.Header.Get(api.RequestIDHeader))
}

// TestBrowserCheckoutsOnAllowedOriginsOnly: a preflight from an allowed origin is answered with
// what a checkout page needs, and its answers may be read by it; another origin's preflight is
// refused with a reason, and its answers carry no CORS header. Credentials are never allowed.
func TestBrowserCheckoutsOnAllowedOriginsOnly(t *testing.T) {
	t.Parallel()
	shop := "https://shop.example.com"
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{CORS: api.CORS{AllowedOrigins: []string{shop}}})
	preflight := func(origin string) testsuite.Response {
		return sys.Do(t, http.MethodOptions, "/api/v1/bookings", map[string]string{"Origin": origin,
			"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type, idempotency-key"}, nil)
	}

	res := preflight(shop)
	require.Equal(t, http.StatusNoContent, res.Status, res.Raw)
	assert.Equal(t, shop, res.Header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, res.Header.Get("Access-Control-Allow-Methods"), "POST")
	for _, h := range []string{"Authorization", "Content-Type", "Idempotency-Key"} {
		assert.Contains(t, res.Header.Get("Access-Control-Allow-Headers"), h)
	}
	assert.Empty(t, res.Header.Get("Access-Control-Allow-Credentials"), "credentials are never allowed")
	assert.Contains(t, res.Header.Values("Vary"), "Origin")

	res = preflight("https://elsewhere.example.com")
	assert.Equal(t, http.StatusForbidden, res.Status, res.Raw)
	assert.Equal(t, "cors_origin_refused", res.ErrorCode())
	assert.Empty(t, res.Header.Get("Access-Control-Allow-Origin"))

	// The actual requests: the allowed page may read the answer and its Location; the other may not.
	stay := stayFromNow(21, 1)
	openRooms(t, sys, "h-cors", "double", stay, 2)
	guest := sys.Guest(t, sys.Customer("g-cors"))
	res = guest.Do(t, http.MethodPost, "/api/v1/bookings", map[string]string{"Origin": shop, "Idempotency-Key": "k1"},
		holdBody(sys.Customer("g-cors"), "h-cors", "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	assert.Equal(t, shop, res.Header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, res.Header.Get("Access-Control-Expose-Headers"), "Location")
	assert.Empty(t, res.Header.Get("Access-Control-Allow-Credentials"))
	res = guest.Do(t, http.MethodGet, "/api/v1/me/bookings", map[string]string{"Origin": "https://elsewhere.example.com"}, nil)
	assert.Equal(t, http.StatusOK, res.Status, "answered as always: the browser keeps it from the page")
	assert.Empty(t, res.Header.Get("Access-Control-Allow-Origin"))

	// Not configured: no CORS header at all, and a preflight is refused.
	plain := testsuite.NewSystem(t, testsuite.SystemOptions{})
	res = plain.Do(t, http.MethodOptions, "/api/v1/bookings", map[string]string{"Origin": shop,
		"Access-Control-Request-Method": "POST"}, nil)
	assert.Equal(t, http.StatusForbidden, res.Status, res.Raw)
	assert.Empty(t, res.Header.Get("Access-Control-Allow-Origin"))
}

// TestAnyOriginIsNeverCredentialed: "*" lets every page call the API, as "*", with no credentials.
func TestAnyOriginIsNeverCredentialed(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{CORS: api.CORS{AllowedOrigins: []string{"*"}}})
	res := sys.Do(t, http.MethodOptions, "/api/v1/bookings", map[string]string{"Origin": "https://any.example",
		"Access-Control-Request-Method": "POST"}, nil)
	require.Equal(t, http.StatusNoContent, res.Status, res.Raw)
	assert.Equal(t, "*", res.Header.Get("Access-Control-Allow-Origin"))
	assert.Empty(t, res.Header.Get("Access-Control-Allow-Credentials"))
}

// TestEvery201SaysWhereItsResourceIs: each 201 has a Location, and reading it gives what was
// created; a PUT that replaces answers 200 without one.
func TestEvery201SaysWhereItsResourceIs(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(22, 1)
	openRooms(t, sys, "h-loc", "double", stay, 3)
	customer := sys.Customer("g-loc")
	guest := sys.Guest(t, customer)

	res := hold(t, sys, "k1", holdBody(customer, "h-loc", "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	assert.Equal(t, "/api/v1/bookings/"+id, res.Header.Get("Location"))
	read := guest.Do(t, http.MethodGet, res.Header.Get("Location"), nil, nil)
	assert.Equal(t, http.StatusOK, read.Status, read.Raw)
	assert.Equal(t, id, read.Body["id"])

	desk := sys.As(t, domain.Principal{Subject: "desk-loc", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-loc"}})
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings", map[string]string{"Idempotency-Key": "walk-in-1"},
		holdBody("walk-in", "h-loc", "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	staffID := res.Body["id"].(string)
	assert.Equal(t, "/api/v1/staff/bookings/"+staffID, res.Header.Get("Location"))
	read = desk.Do(t, http.MethodGet, res.Header.Get("Location"), nil, nil)
	assert.Equal(t, http.StatusOK, read.Status, read.Raw)

	venue := map[string]any{"name": "Hall loc", "timeZone": "Europe/Paris"}
	res = sys.Admin(t, http.MethodPut, "/api/v1/admin/venues/v-loc", venue)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	assert.Equal(t, "/api/v1/admin/venues/v-loc", res.Header.Get("Location"))
	read = sys.Admin(t, http.MethodGet, res.Header.Get("Location"), nil)
	assert.Equal(t, http.StatusOK, read.Status, read.Raw)
	res = sys.Admin(t, http.MethodPut, "/api/v1/admin/venues/v-loc", venue)
	assert.Equal(t, http.StatusOK, res.Status, "replaced, not created")
	assert.Empty(t, res.Header.Get("Location"))

	res = sys.Admin(t, http.MethodPost, "/api/v1/admin/hotels/h-loc/sale-rules", map[string]any{"kind": "stop_sell",
		"from": stay.CheckIn, "to": stay.CheckOut, "reason": "event"})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	assert.Regexp(t, `^/api/v1/admin/sale-rules/[0-9]+$`, res.Header.Get("Location"))
	ended := sys.Admin(t, http.MethodDelete, res.Header.Get("Location"), nil)
	assert.Less(t, ended.Status, 300, "the rule is at its Location: %s", ended.Raw)
}
