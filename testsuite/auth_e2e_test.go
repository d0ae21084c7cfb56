package testsuite_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/api"
	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

var (
	customer  = []domain.Role{domain.RoleCustomer}
	desk      = []domain.Role{domain.RoleFrontDesk, domain.RoleAdmin}
	money     = []domain.Role{domain.RoleFinance, domain.RoleAdmin}
	anyStaff  = []domain.Role{domain.RoleFrontDesk, domain.RoleFinance, domain.RoleAdmin}
	adminOnly = []domain.Role{domain.RoleAdmin}
	agentOnly = []domain.Role{domain.RoleAgent}
	ruleMaker = []domain.Role{domain.RoleAdmin, domain.RoleSupplier}
	everyone  = domain.Roles
)

// routeRoles is the route table of docs/api.md ("Routes and roles"): every route the API serves and the roles that may
// call it (nil: no bearer token, the route is public or signed another way).
var routeRoles = []struct {
	method, path string
	roles        []domain.Role
}{
	{"GET", "/healthz", nil},
	{"GET", "/readyz", nil},
	{"GET", "/api/v1/openapi.json", nil},
	{"GET", "/api/v1/supplier-openapi.json", nil},
	{"POST", "/api/v1/webhooks/payments", nil},
	{"GET", "/api/v1/hotels/:hotelId/availability", everyone},
	{"GET", "/api/v1/hotels/:hotelId/groups/:groupCode/availability", everyone},
	{"GET", "/api/v1/hotels/:hotelId/availability/explain", everyone},
	{"POST", "/api/v1/suppliers/:supplierId/stock", nil},
	{"GET", "/api/v1/venues/:venueId/slots", everyone},
	{"GET", "/api/v1/venues/:venueId/equipment", everyone},
	{"POST", "/api/v1/bookings", customer},
	{"GET", "/api/v1/bookings/:id", customer},
	{"POST", "/api/v1/bookings/:id/payment", customer},
	{"POST", "/api/v1/bookings/:id/cancel", customer},
	{"POST", "/api/v1/bookings/:id/amendments", customer},
	{"POST", "/api/v1/bookings/:id/amendments/quote", customer},
	{"GET", "/api/v1/bookings/:id/amendments", customer},
	{"GET", "/api/v1/me/bookings", customer},
	{"POST", "/api/v1/waitlist", customer},
	{"GET", "/api/v1/me/waitlist", customer},
	{"DELETE", "/api/v1/me/waitlist/:entryId", customer},
	{"POST", "/api/v1/me/waitlist/:entryId/decline", customer},
	{"POST", "/api/v1/venues/:venueId/bookings", customer},
	{"POST", "/api/v1/agent/bookings", agentOnly},
	{"GET", "/api/v1/agent/bookings", agentOnly},
	{"GET", "/api/v1/agent/bookings/:id", agentOnly},
	{"POST", "/api/v1/agent/bookings/:id/cancel", agentOnly},
	{"POST", "/api/v1/agent/bookings/:id/amendments", agentOnly},
	{"POST", "/api/v1/agent/bookings/:id/amendments/quote", agentOnly},
	{"GET", "/api/v1/agent/bookings/:id/amendments", agentOnly},
	{"GET", "/api/v1/agent/notifications", agentOnly},
	{"POST", "/api/v1/agent/waitlist", agentOnly},
	{"GET", "/api/v1/agent/waitlist", agentOnly},
	{"POST", "/api/v1/staff/bookings", desk},
	{"POST", "/api/v1/staff/venues/:venueId/bookings", desk},
	{"GET", "/api/v1/staff/sites", anyStaff},
	{"POST", "/api/v1/staff/waitlist", desk},
	{"GET", "/api/v1/staff/waitlist", anyStaff},
	{"POST", "/api/v1/staff/waitlist/offers", desk},
	{"POST", "/api/v1/staff/hotels/:hotelId/blocks", desk},
	{"GET", "/api/v1/staff/hotels/:hotelId/blocks", anyStaff},
	{"GET", "/api/v1/staff/blocks/:blockId", anyStaff},
	{"GET", "/api/v1/staff/blocks/:blockId/changes", anyStaff},
	{"POST", "/api/v1/staff/blocks/:blockId/definite", desk},
	{"POST", "/api/v1/staff/blocks/:blockId/cancel", desk},
	{"POST", "/api/v1/staff/blocks/:blockId/releases", desk},
	{"POST", "/api/v1/staff/blocks/:blockId/rooming-list", desk},
	{"GET", "/api/v1/staff/bookings", anyStaff},
	{"GET", "/api/v1/staff/bookings/stuck", money},
	{"GET", "/api/v1/staff/bookings/:id", anyStaff},
	{"PUT", "/api/v1/staff/bookings/:id/guest", desk},
	{"GET", "/api/v1/staff/search", anyStaff},
	{"POST", "/api/v1/staff/bookings/:id/rooms", desk},
	{"GET", "/api/v1/staff/hotels/:hotelId/rooms", anyStaff},
	{"GET", "/api/v1/staff/bookings/:id/free-rooms", anyStaff},
	{"POST", "/api/v1/staff/hotels/:hotelId/rooms/:room/out-of-order", desk},
	{"POST", "/api/v1/staff/hotels/:hotelId/rooms/:room/back-in-order", desk},
	{"POST", "/api/v1/staff/bookings/:id/confirm", desk},
	{"POST", "/api/v1/staff/bookings/:id/cancel", desk},
	{"POST", "/api/v1/staff/bookings/:id/check-in", desk},
	{"POST", "/api/v1/staff/bookings/:id/no-show", desk},
	{"POST", "/api/v1/staff/bookings/:id/late-arrival", desk},
	{"POST", "/api/v1/staff/bookings/:id/refunds/hand-over", desk},
	{"GET", "/api/v1/staff/bookings/:id/check-out", desk},
	{"POST", "/api/v1/staff/bookings/:id/check-out", desk},
	{"POST", "/api/v1/staff/bookings/:id/desk-payments", desk},
	{"GET", "/api/v1/staff/bookings/:id/folio", anyStaff},
	{"POST", "/api/v1/staff/bookings/:id/charges", desk},
	{"POST", "/api/v1/staff/bookings/:id/charges/:chargeId/void", desk},
	{"PUT", "/api/v1/staff/bookings/:id/price", desk},
	{"POST", "/api/v1/staff/bookings/:id/refunds", anyStaff},
	{"POST", "/api/v1/staff/payments/:paymentId/manual-refunds", money},
	{"POST", "/api/v1/staff/bookings/:id/amendments", desk},
	{"POST", "/api/v1/staff/bookings/:id/amendments/quote", desk},
	{"GET", "/api/v1/staff/bookings/:id/amendments", anyStaff},
	{"GET", "/api/v1/staff/bookings/:id/payments", anyStaff},
	{"GET", "/api/v1/staff/bookings/:id/audit", money},
	{"GET", "/api/v1/staff/bookings/:id/history", anyStaff},
	{"GET", "/api/v1/staff/inventory/history", anyStaff},
	{"POST", "/api/v1/staff/venues/:venueId/closures", desk},
	{"POST", "/api/v1/staff/venues/:venueId/reopenings", desk},
	{"POST", "/api/v1/staff/bookings/:id/refund/retry", money},
	{"POST", "/api/v1/staff/bookings/:id/refund/resolve", money},
	{"POST", "/api/v1/staff/bookings/:id/refund/recover", money},
	{"POST", "/api/v1/staff/bookings/:id/resume", money},
	{"POST", "/api/v1/staff/bookings/:id/tell-supplier", money},
	{"GET", "/api/v1/staff/audit", money},
	{"GET", "/api/v1/staff/reports/daily", money},
	{"GET", "/api/v1/staff/sites/:siteId/due-at-the-desk", anyStaff},
	{"GET", "/api/v1/staff/sites/:siteId/cash-ups/preview", anyStaff},
	{"GET", "/api/v1/staff/sites/:siteId/cash-ups", anyStaff},
	{"POST", "/api/v1/staff/sites/:siteId/cash-ups", anyStaff},
	{"POST", "/api/v1/staff/sites/:siteId/cash-ups/:cashUpId/notes", anyStaff},
	{"GET", "/api/v1/staff/webhooks/unprocessable", money},
	{"GET", "/api/v1/staff/customers/:customerId/search-key", money},
	{"POST", "/api/v1/staff/codec/decode", money},
	{"POST", "/api/v1/staff/codec/encode", money},
	{"GET", "/api/v1/admin/event-subscribers", adminOnly},
	{"PUT", "/api/v1/admin/event-subscribers/:subscriberId", adminOnly},
	{"GET", "/api/v1/admin/event-subscribers/:subscriberId", adminOnly},
	{"POST", "/api/v1/admin/event-subscribers/:subscriberId/secret-rotation", adminOnly},
	{"GET", "/api/v1/admin/event-subscribers/:subscriberId/deliveries", adminOnly},
	{"POST", "/api/v1/admin/event-deliveries/:deliveryId/redeliver", adminOnly},
	{"PUT", "/api/v1/admin/hotels/:hotelId/room-types/:roomTypeId/inventory", adminOnly},
	{"PUT", "/api/v1/admin/hotels/:hotelId/room-types/:roomTypeId/rooms", adminOnly},
	{"PUT", "/api/v1/admin/hotels/:hotelId/room-types/:roomTypeId/rates", adminOnly},
	{"PUT", "/api/v1/admin/hotels/:hotelId/cancellation-policy", adminOnly},
	{"GET", "/api/v1/admin/hotels/:hotelId/cancellation-policy", adminOnly},
	{"PUT", "/api/v1/admin/hotels/:hotelId/waitlist-settings", adminOnly},
	{"GET", "/api/v1/admin/hotels/:hotelId/waitlist-settings", adminOnly},
	{"PUT", "/api/v1/admin/venues/:venueId/waitlist-settings", adminOnly},
	{"GET", "/api/v1/admin/venues/:venueId/waitlist-settings", adminOnly},
	{"PUT", "/api/v1/admin/hotels/:hotelId/rate-plans/:code", adminOnly},
	{"GET", "/api/v1/admin/hotels/:hotelId/rate-plans", adminOnly},
	{"GET", "/api/v1/admin/hotels/:hotelId/rate-plans/:code", adminOnly},
	{"PUT", "/api/v1/admin/hotels/:hotelId/rate-plans/:code/room-types/:roomTypeId/rates", adminOnly},
	{"GET", "/api/v1/admin/hotels/:hotelId/rate-plans/:code/room-types/:roomTypeId/prices", adminOnly},
	{"GET", "/api/v1/admin/checks/latest", adminOnly},
	{"PUT", "/api/v1/admin/venues/:venueId", adminOnly},
	{"GET", "/api/v1/admin/venues/:venueId", adminOnly},
	{"PUT", "/api/v1/admin/venues/:venueId/resources/:resourceId", adminOnly},
	{"POST", "/api/v1/admin/venues/:venueId/resources/:resourceId/schedule", adminOnly},
	{"POST", "/api/v1/admin/venues/:venueId/closures", adminOnly},
	{"POST", "/api/v1/admin/venues/:venueId/reopenings", adminOnly},
	{"PUT", "/api/v1/admin/suppliers/:supplierId", adminOnly},
	{"GET", "/api/v1/admin/suppliers", adminOnly},
	{"PUT", "/api/v1/admin/hotels/:hotelId/supplier", adminOnly},
	{"PUT", "/api/v1/admin/channels/:channelId", adminOnly},
	{"GET", "/api/v1/admin/channels", adminOnly},
	{"PUT", "/api/v1/admin/agents/:agentId", adminOnly},
	{"GET", "/api/v1/admin/agents", adminOnly},
	{"GET", "/api/v1/admin/stock-alerts", adminOnly},
	{"POST", "/api/v1/admin/stock-alerts/:alertId/resolve", adminOnly},
	{"POST", "/api/v1/admin/customers/:customerId/erasure", adminOnly},
	{"GET", "/api/v1/admin/hotels/:hotelId/sale-rules", ruleMaker},
	{"POST", "/api/v1/admin/hotels/:hotelId/sale-rules", ruleMaker},
	{"POST", "/api/v1/admin/sale-rules/batch", ruleMaker},
	{"PUT", "/api/v1/admin/sale-rules/:ruleId", ruleMaker},
	{"DELETE", "/api/v1/admin/sale-rules/:ruleId", ruleMaker},
	{"PUT", "/api/v1/admin/hotels/:hotelId/restrictions", ruleMaker},
	{"GET", "/api/v1/admin/hotels/:hotelId/restrictions", ruleMaker},
	{"GET", "/api/v1/admin/hotels/:hotelId/ari", ruleMaker},
	{"GET", "/api/v1/admin/hotels/:hotelId/ari/changes", ruleMaker},
	{"GET", "/api/v1/admin/hotels/:hotelId/room-types/:roomTypeId/allocations", ruleMaker},
	{"PUT", "/api/v1/admin/hotels/:hotelId/room-types/:roomTypeId/allocations", ruleMaker},
	{"DELETE", "/api/v1/admin/hotels/:hotelId/room-types/:roomTypeId/allocations", ruleMaker},
	{"POST", "/api/v1/admin/allocations/batch", ruleMaker},
	{"PUT", "/api/v1/admin/hotels/:hotelId/room-types/:roomTypeId/blocked-rooms", ruleMaker},
	{"PUT", "/api/v1/admin/hotels/:hotelId/room-types/:roomTypeId/stock-alert-threshold", ruleMaker},
	{"POST", "/api/v1/admin/stock-alert-thresholds/batch", ruleMaker},
	{"GET", "/api/v1/admin/hotels/:hotelId/stock-alert-thresholds", ruleMaker},
	{"GET", "/api/v1/admin/hotels/:hotelId/stock", ruleMaker},
	{"POST", "/api/v1/admin/suppliers/:supplierId/sync", ruleMaker},
}

// The OpenAPI document says how each route is authenticated and which roles it serves
// (x-roles), and says what TestEveryRouteIsAuthenticatedAndAuthorised finds the API doing: a
// route without roles takes no bearer token, a route with them takes one, for exactly those roles.
func TestTheOpenAPIDocumentNamesEachRoutesRoles(t *testing.T) {
	t.Parallel()
	doc, err := api.OpenAPI()
	require.NoError(t, err)
	param := strings.NewReplacer(":hotelId", "{hotelId}", ":roomTypeId", "{roomTypeId}", ":id", "{id}",
		":venueId", "{venueId}", ":resourceId", "{resourceId}", ":supplierId", "{supplierId}",
		":channelId", "{channelId}", ":agentId", "{agentId}", ":ruleId", "{ruleId}", ":alertId", "{alertId}", ":paymentId", "{paymentId}",
		":customerId", "{customerId}", ":subscriberId", "{subscriberId}", ":deliveryId", "{deliveryId}", ":code", "{code}",
		":entryId", "{entryId}", ":blockId", "{blockId}", ":groupCode", "{groupCode}", ":chargeId", "{chargeId}",
		":siteId", "{siteId}", ":cashUpId", "{cashUpId}",
		":room", "{room}") // after ":roomTypeId": the first of the olds that matches wins
	for _, r := range routeRoles {
		item := doc.Paths.Find(param.Replace(r.path))
		require.NotNil(t, item, "%s %s is in the document", r.method, r.path)
		op := item.GetOperation(r.method)
		require.NotNil(t, op, "%s %s is in the document", r.method, r.path)
		security := doc.Security
		if op.Security != nil {
			security = *op.Security
		}
		bearer := slices.ContainsFunc(security, func(req openapi3.SecurityRequirement) bool {
			_, ok := req["bearerAuth"]
			return ok
		})
		roles, _ := op.Extensions["x-roles"].([]any)
		var named []domain.Role
		for _, role := range roles {
			named = append(named, domain.Role(fmt.Sprint(role)))
		}
		assert.Equal(t, r.roles != nil, bearer, "%s %s: a bearer token iff it serves roles", r.method, r.path)
		assert.ElementsMatch(t, r.roles, named, "%s %s: x-roles", r.method, r.path)
	}
}

// unsignedToken is a token with "alg": "none" and no signature.
func unsignedToken(sub string, roles []domain.Role) string {
	enc := func(v any) string { raw, _ := json.Marshal(v); return base64.RawURLEncoding.EncodeToString(raw) }
	return enc(map[string]string{"alg": "none", "typ": "JWT"}) + "." +
		enc(map[string]any{"sub": sub, "roles": roles, "exp": time.Now().Add(time.Hour).Unix()}) + "."
}

func TestEveryRouteIsAuthenticatedAndAuthorised(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-auth", "double", stay, 5)
	owner := sys.Customer("owner")
	res := hold(t, sys, "k1", holdBody(owner, "h-auth", "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)

	// The table covers every route the API serves, and nothing it does not.
	var served, listed []string
	for _, r := range sys.Routes {
		served = append(served, r.Method+" "+r.Path)
	}
	for _, r := range routeRoles {
		listed = append(listed, r.method+" "+r.path)
	}
	require.ElementsMatch(t, listed, served, "every route needs a row in routeRoles (and in docs/api.md's route table)")

	url := strings.NewReplacer(":hotelId", "h-auth", ":roomTypeId", "double", ":id", id, ":venueId", "v-auth",
		":resourceId", "court-1", ":supplierId", "acme-auth", ":channelId", "ota-auth", ":agentId", "agent-auth",
		":ruleId", "1", ":alertId", "1", ":code", "BAR", ":entryId", "1", ":siteId", "h-auth", ":cashUpId", "1").Replace
	// The agent and supplier callers act for an agent and a supplier that exist.
	for _, r := range []struct {
		path string
		body map[string]any
	}{
		{"/api/v1/admin/suppliers/acme-auth", map[string]any{"mode": "direct_procure"}},
		{"/api/v1/admin/hotels/h-auth/supplier", map[string]any{"supplierId": "acme-auth"}},
		{"/api/v1/admin/channels/ota-auth", map[string]any{}},
		{"/api/v1/admin/agents/agent-auth", map[string]any{"channelId": "ota-auth"}},
	} {
		res := sys.Admin(t, http.MethodPut, r.path, r.body)
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
	}
	callers := map[domain.Role]testsuite.Caller{
		domain.RoleCustomer: sys.Guest(t, owner),
		domain.RoleFrontDesk: sys.As(t, domain.Principal{Subject: "desk-1", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-auth"},
			Venues: []string{"v-auth"}}),
		domain.RoleFinance: sys.As(t, domain.Principal{Subject: "fin-1", Roles: []domain.Role{domain.RoleFinance}}),
		domain.RoleAdmin:   sys.As(t, domain.Principal{Subject: "admin-1", Roles: []domain.Role{domain.RoleAdmin}}),
		domain.RoleAgent: sys.As(t, domain.Principal{Subject: "agent-1", Roles: []domain.Role{domain.RoleAgent},
			Agent: "agent-auth", Channel: "ota-auth"}),
		domain.RoleSupplier: sys.As(t, domain.Principal{Subject: "sup-1", Roles: []domain.Role{domain.RoleSupplier},
			Suppliers: []string{"acme-auth"}}),
	}
	expired, err := auth.Mint(sys.JWTSecret, domain.Principal{Subject: "admin-1", Roles: domain.Roles}, time.Hour,
		auth.MintOptions{Now: time.Now().Add(-3 * time.Hour)})
	require.NoError(t, err)
	otherKey, err := auth.Mint([]byte("not-the-system-secret-32-bytes!!"), domain.Principal{Subject: "admin-1", Roles: domain.Roles},
		time.Hour, auth.MintOptions{})
	require.NoError(t, err)
	refused := map[string]string{
		"no token": "", "expired": expired, "another key": otherKey, "alg none": unsignedToken("admin-1", domain.Roles),
		"not a JWT": "let-me-in",
	}
	noRoles := sys.As(t, domain.Principal{Subject: "nobody"})

	for _, r := range routeRoles {
		if r.roles == nil {
			continue
		}
		route := r.method + " " + r.path
		for name, token := range refused {
			h := map[string]string{}
			if token != "" {
				h["Authorization"] = "Bearer " + token
			}
			res := sys.Do(t, r.method, url(r.path), h, nil)
			assert.Equal(t, http.StatusUnauthorized, res.Status, "%s with %s: %s", route, name, res.Raw)
			assert.Equal(t, "unauthorized", res.ErrorCode(), route)
		}
		res := noRoles.Do(t, r.method, url(r.path), nil, nil)
		assert.Equal(t, http.StatusForbidden, res.Status, "%s with no role: %s", route, res.Raw)
		for _, role := range domain.Roles {
			res := callers[role].Do(t, r.method, url(r.path), nil, nil)
			if slices.Contains(r.roles, role) {
				assert.NotContains(t, []int{401, 403}, res.Status, "%s is open to %s: %s", route, role, res.Raw)
			} else {
				assert.Equal(t, http.StatusForbidden, res.Status, "%s is closed to %s: %s", route, role, res.Raw)
				assert.Equal(t, "forbidden", res.ErrorCode(), route)
			}
		}
	}
}

func TestFrontDeskActsOnlyForItsOwnHotels(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(20, 2)
	openRooms(t, sys, "h-a", "double", stay, 3)
	openRooms(t, sys, "h-b", "double", stay, 3)
	guest := sys.Customer("guest")
	res := hold(t, sys, "k1", holdBody(guest, "h-b", "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	idB := res.Body["id"].(string)
	deskA := sys.As(t, domain.Principal{Subject: "desk-a", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-a"}})

	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"GET", "/api/v1/staff/bookings/" + idB, nil},
		{"POST", "/api/v1/staff/bookings/" + idB + "/confirm", nil},
		{"POST", "/api/v1/staff/bookings/" + idB + "/cancel", nil},
		{"GET", "/api/v1/staff/bookings?hotelId=h-b", nil},
		{"POST", "/api/v1/staff/bookings", holdBody("walk-in", "h-b", "double", stay, 1)},
	} {
		res := deskA.Do(t, c.method, c.path, map[string]string{"Idempotency-Key": "desk-1"}, c.body)
		assert.Equal(t, http.StatusForbidden, res.Status, "%s %s: %s", c.method, c.path, res.Raw)
	}
	// Finance reads every hotel, but never widens a front desk's hotels for desk work.
	deskAndFinance := sys.As(t, domain.Principal{Subject: "desk-fin", Roles: []domain.Role{domain.RoleFrontDesk, domain.RoleFinance},
		Hotels: []string{"h-a"}})
	assert.Equal(t, http.StatusOK, deskAndFinance.Do(t, "GET", "/api/v1/staff/bookings/"+idB, nil, nil).Status)
	res = deskAndFinance.Do(t, "POST", "/api/v1/staff/bookings/"+idB+"/confirm", nil, nil)
	assert.Equal(t, http.StatusForbidden, res.Status, "confirming hotel B's booking needs hotel B's desk: %s", res.Raw)
	assert.Equal(t, "HOLD", bookingStatus(t, sys, idB), "hotel B's booking was not touched")
	assert.Equal(t, 2, roomsLeft(t, sys, "h-b", "double", stay), "nothing was booked at hotel B by hotel A's desk")

	// At its own hotel the desk books for a walk-in guest, confirms the desk payment and sees it.
	res = deskA.Do(t, "POST", "/api/v1/staff/bookings", map[string]string{"Idempotency-Key": "desk-1"},
		holdBody("walk-in-"+sys.ID, "h-a", "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	assert.Equal(t, "desk-a", res.Body["createdBy"], "staff see who made a booking")
	idA := res.Body["id"].(string)
	res = deskA.Do(t, "POST", "/api/v1/staff/bookings/"+idA+"/confirm", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = deskA.Do(t, "GET", "/api/v1/staff/bookings", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	list := res.Body["bookings"].([]any)
	require.Len(t, list, 1, "the desk's list holds its own hotels only")
	assert.Equal(t, idA, list[0].(map[string]any)["id"])

	res = sys.As(t, domain.Principal{Subject: "fin", Roles: []domain.Role{domain.RoleFinance}}).
		Do(t, "GET", "/api/v1/staff/audit", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	entries := res.Body["entries"].([]any)
	require.NotEmpty(t, entries)
	assert.Equal(t, "desk-a", entries[0].(map[string]any)["actor"], "the desk confirmation is audited under its subject")
	assert.Equal(t, "confirm", entries[0].(map[string]any)["action"])
}

func TestCustomersSeeAndChangeOnlyTheirOwnBookings(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(25, 2)
	openRooms(t, sys, "h-own", "double", stay, 5)
	alice, bob := sys.Customer("alice"), sys.Customer("bob")

	// The same key used by two customers gives two bookings, with ids that reveal neither.
	resA := hold(t, sys, "order-1", holdBody(alice, "h-own", "double", stay, 1))
	require.Equal(t, http.StatusCreated, resA.Status, resA.Raw)
	resB := hold(t, sys, "order-1", holdBody(bob, "h-own", "double", stay, 1))
	require.Equal(t, http.StatusCreated, resB.Status, resB.Raw)
	idA, idB := resA.Body["id"].(string), resB.Body["id"].(string)
	assert.NotEqual(t, idA, idB)
	for _, secret := range []string{"alice", "order-1", sys.ID} {
		assert.NotContains(t, idA, secret, "a booking id reveals nothing")
	}
	assert.Equal(t, 3, roomsLeft(t, sys, "h-own", "double", stay))

	// Bob cannot see, cancel, pay for or confirm Alice's booking; to him it does not exist.
	asBob := sys.Guest(t, bob)
	unknown := asBob.Do(t, "GET", "/api/v1/bookings/booking-aaaaaaaaaaaaaaaaaaaaaaaaaa", nil, nil)
	res := asBob.Do(t, "GET", "/api/v1/bookings/"+idA, nil, nil)
	assert.Equal(t, http.StatusNotFound, res.Status, res.Raw)
	assert.Equal(t, unknown.Status, res.Status, "another customer's booking looks exactly like no booking")
	assert.Equal(t, unknown.ErrorCode(), res.ErrorCode())
	res = asBob.Do(t, "POST", "/api/v1/bookings/"+idA+"/cancel", nil, nil)
	assert.Equal(t, http.StatusNotFound, res.Status, res.Raw)
	res = asBob.Do(t, "POST", "/api/v1/bookings/"+idA+"/payment", nil, nil)
	assert.Equal(t, http.StatusNotFound, res.Status, "nobody pays for, or learns the price of, another's booking: %s", res.Raw)
	res = asBob.Do(t, "POST", "/api/v1/staff/bookings/"+idA+"/confirm", nil, nil)
	assert.Equal(t, http.StatusForbidden, res.Status, "customers never confirm: payments do: %s", res.Raw)
	assert.Equal(t, "HOLD", bookingStatus(t, sys, idA))

	// Bob cannot book in Alice's name.
	res = asBob.Do(t, "POST", "/api/v1/bookings", map[string]string{"Idempotency-Key": "squat"},
		holdBody(alice, "h-own", "double", stay, 1))
	assert.Equal(t, http.StatusForbidden, res.Status, res.Raw)
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM bookings WHERE customer_id = $1`, alice), "nothing was written")
	// Leaving customerId out books for the token's subject.
	body := holdBody(bob, "h-own", "double", stay, 1)
	delete(body, "customerId")
	res = asBob.Do(t, "POST", "/api/v1/bookings", map[string]string{"Idempotency-Key": "order-2"}, body)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	assert.Equal(t, bob, res.Body["customerId"])

	// A desk booking made for Alice is hers: she sees and cancels it, without the desk's name.
	deskRes := sys.As(t, domain.Principal{Subject: "desk-own", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-own"}}).
		Do(t, "POST", "/api/v1/staff/bookings", map[string]string{"Idempotency-Key": "order-1"}, holdBody(alice, "h-own", "double", stay, 1))
	require.Equal(t, http.StatusCreated, deskRes.Status, deskRes.Raw)
	assert.NotEqual(t, idA, deskRes.Body["id"], "the desk's key does not collide with Alice's own")
	asAlice := sys.Guest(t, alice)
	res = asAlice.Do(t, "GET", "/api/v1/bookings/"+deskRes.Body["id"].(string), nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.NotContains(t, res.Raw, "desk-own", "customers are not shown staff names")

	// Alice's list: her two bookings, newest first, a page at a time; none of Bob's.
	res = asAlice.Do(t, "GET", "/api/v1/me/bookings?limit=1", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	page := res.Body["bookings"].([]any)
	require.Len(t, page, 1)
	assert.Equal(t, deskRes.Body["id"], page[0].(map[string]any)["id"])
	next, _ := res.Body["next"].(string)
	require.NotEmpty(t, next)
	res = asAlice.Do(t, "GET", "/api/v1/me/bookings?limit=1&cursor="+next, nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	page = res.Body["bookings"].([]any)
	require.Len(t, page, 1)
	assert.Equal(t, idA, page[0].(map[string]any)["id"])
	assert.Nil(t, res.Body["next"], "the last page says so")
	assert.Equal(t, http.StatusBadRequest, asAlice.Do(t, "GET", "/api/v1/me/bookings?cursor=garbage", nil, nil).Status)

	// Customers read fixed reasons; staff read the workflow's own.
	res = cancel(t, sys, alice, idA)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, domain.StatusCancelled.PublicReason(), res.Body["reason"])
	res = sys.Admin(t, "POST", "/api/v1/staff/bookings/"+idB+"/cancel", nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.NotEqual(t, domain.StatusCancelled.PublicReason(), res.Body["reason"])
	sys.DB.AssertInventoryMatchesBookings(t)
}

func TestActiveHoldLimitIs429AndReservesNothing(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{HoldLimits: apiHoldLimits(2, 0, 0)})
	stay := stayFromNow(15, 2)
	openRooms(t, sys, "h-limit", "double", stay, 20)
	alice := sys.Customer("alice")

	var first string
	for _, key := range []string{"k1", "k2"} {
		res := hold(t, sys, key, holdBody(alice, "h-limit", "double", stay, 1))
		require.Equal(t, http.StatusCreated, res.Status, res.Raw)
		if first == "" {
			first = res.Body["id"].(string)
		}
	}
	res := hold(t, sys, "k3", holdBody(alice, "h-limit", "double", stay, 1))
	require.Equal(t, http.StatusTooManyRequests, res.Status, res.Raw)
	assert.Equal(t, "too_many_holds", res.ErrorCode())
	retryAfter := retryAfterSeconds(t, res)
	assert.True(t, retryAfter >= 1 && retryAfter <= 600, "Retry-After is when the first hold expires: %d", retryAfter)
	assert.Equal(t, 18, roomsLeft(t, sys, "h-limit", "double", stay), "nothing was reserved for the refused hold")
	assert.Equal(t, 2, count(t, sys, `SELECT count(*) FROM bookings`))
	res = hold(t, sys, "k2", holdBody(alice, "h-limit", "double", stay, 1))
	assert.Equal(t, http.StatusCreated, res.Status, "a retry of a hold already counted is answered: %s", res.Raw)

	// Staff bookings for the guest do not count; a hold given up makes room for the refused key.
	deskRes := sys.Admin(t, "POST", "/api/v1/staff/bookings", map[string]any{"customerId": alice, "hotelId": "h-limit",
		"roomTypeId": "double", "checkIn": stay.CheckIn, "checkOut": stay.CheckOut, "quantity": 1})
	assert.Equal(t, http.StatusBadRequest, deskRes.Status, "staff need an Idempotency-Key too: %s", deskRes.Raw)
	deskRes = sys.As(t, domain.Principal{Subject: "desk", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-limit"}}).
		Do(t, "POST", "/api/v1/staff/bookings", map[string]string{"Idempotency-Key": "walk-in"}, holdBody(alice, "h-limit", "double", stay, 1))
	require.Equal(t, http.StatusCreated, deskRes.Status, deskRes.Raw)
	require.Equal(t, http.StatusOK, cancel(t, sys, alice, first).Status)
	res = hold(t, sys, "k3", holdBody(alice, "h-limit", "double", stay, 1))
	assert.Equal(t, http.StatusCreated, res.Status, "the refused key is not spent: %s", res.Raw)
	sys.DB.AssertInventoryMatchesBookings(t)
}

func TestActiveHoldLimitHoldsWhenRequestsRace(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{HoldLimits: apiHoldLimits(2, 0, 0)})
	stay := stayFromNow(16, 2)
	openRooms(t, sys, "h-race-limit", "double", stay, 20)
	bob := sys.Customer("bob")

	statuses := make([]int, 8)
	ids := make([]string, 8)
	testsuite.Race(8, func(i int) {
		res := hold(t, sys, fmt.Sprintf("k%d", i), holdBody(bob, "h-race-limit", "double", stay, 1))
		statuses[i] = res.Status
		if res.Status == http.StatusCreated {
			ids[i] = res.Body["id"].(string)
		}
	})
	created := 0
	var refused []int
	for i, s := range statuses {
		switch s {
		case http.StatusCreated:
			created++
		case http.StatusTooManyRequests:
			refused = append(refused, i)
		default:
			t.Fatalf("request %d answered %d", i, s)
		}
	}
	assert.Equal(t, 2, created, "exactly the limit is held, however the requests race")
	assert.Equal(t, 18, roomsLeft(t, sys, "h-race-limit", "double", stay))
	assert.Equal(t, 2, count(t, sys, `SELECT count(*) FROM bookings`), "refused holds write nothing")

	// Once the customer has room again, a key the API refused early is not spent and reserves;
	// a key the reservation itself refused (its workflow closed) is spent: 409, use a new key.
	for _, id := range ids {
		if id != "" {
			require.Equal(t, http.StatusOK, cancel(t, sys, bob, id).Status)
		}
	}
	outcomes := map[int]int{}
	for _, i := range refused {
		res := hold(t, sys, fmt.Sprintf("k%d", i), holdBody(bob, "h-race-limit", "double", stay, 1))
		outcomes[res.Status]++
		switch res.Status {
		case http.StatusCreated:
			require.Equal(t, http.StatusOK, cancel(t, sys, bob, res.Body["id"].(string)).Status)
		case http.StatusConflict:
			assert.Equal(t, "idempotency_key_spent", res.ErrorCode(), res.Raw)
			key := fmt.Sprintf("k%d", i)
			if outcomes[http.StatusConflict] == 1 {
				testsuite.ReplayAndRecord(t, sys.Temporal, sys.BookingID(bob, bob, key), "hold-refused-at-limit")
			}
		default:
			t.Fatalf("a refused key answered %d: %s", res.Status, res.Raw)
		}
	}
	t.Logf("refused keys retried: %v (201: refused early by the API; 409: refused by the reservation)", outcomes)
	assert.Positive(t, outcomes[http.StatusConflict], "racing requests pass the API's early check: the reservation refused them")
	res := hold(t, sys, "fresh", holdBody(bob, "h-race-limit", "double", stay, 1))
	assert.Equal(t, http.StatusCreated, res.Status, "a new key reserves: %s", res.Raw)
	sys.DB.AssertInventoryMatchesBookings(t)
}

func TestHoldRateLimitsPerCustomerAndPerAddress(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{HoldLimits: apiHoldLimits(0, 2, 0)})
	stay := stayFromNow(12, 1)
	openRooms(t, sys, "h-rate", "double", stay, 20)
	alice := sys.Customer("alice")
	for _, key := range []string{"k1", "k2"} {
		require.Equal(t, http.StatusCreated, hold(t, sys, key, holdBody(alice, "h-rate", "double", stay, 1)).Status)
	}
	res := hold(t, sys, "k3", holdBody(alice, "h-rate", "double", stay, 1))
	require.Equal(t, http.StatusTooManyRequests, res.Status, res.Raw)
	assert.Equal(t, "rate_limited", res.ErrorCode())
	assert.Equal(t, 30, retryAfterSeconds(t, res), "two a minute: the next in 30 s")
	assert.Equal(t, http.StatusCreated, hold(t, sys, "k1", holdBody(sys.Customer("bob"), "h-rate", "double", stay, 1)).Status,
		"another customer is not held back")

	perAddress := testsuite.NewSystem(t, testsuite.SystemOptions{HoldLimits: apiHoldLimits(0, 0, 3)})
	openRooms(t, perAddress, "h-rate", "double", stay, 20)
	for i := range 3 {
		res := hold(t, perAddress, "k", holdBody(perAddress.Customer(fmt.Sprint("c", i)), "h-rate", "double", stay, 1))
		require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	}
	// A forged X-Forwarded-For does not make a new address: no proxy is trusted.
	res = perAddress.Guest(t, perAddress.Customer("c9")).Do(t, "POST", "/api/v1/bookings",
		map[string]string{"Idempotency-Key": "k", "X-Forwarded-For": "203.0.113.7"},
		holdBody(perAddress.Customer("c9"), "h-rate", "double", stay, 1))
	assert.Equal(t, http.StatusTooManyRequests, res.Status, res.Raw)
	assert.Equal(t, 3, count(t, perAddress, `SELECT count(*) FROM bookings`))
}

// TestRetriesDoNotSpendTheCustomersHoldRate: with two holds a minute, a checkout that retries
// its hold five times is answered with its booking each time, and can still make its second
// hold; the third new hold is refused (the limit still binds what creates holds). Every attempt,
// retries included, still counts against the address's limit.
func TestRetriesDoNotSpendTheCustomersHoldRate(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{HoldLimits: apiHoldLimits(0, 2, 0)})
	stay := stayFromNow(12, 1)
	openRooms(t, sys, "h-retry", "double", stay, 20)
	alice := sys.Customer("alice")
	first := hold(t, sys, "k1", holdBody(alice, "h-retry", "double", stay, 1))
	require.Equal(t, http.StatusCreated, first.Status, first.Raw)
	for i := range 5 {
		res := hold(t, sys, "k1", holdBody(alice, "h-retry", "double", stay, 1))
		require.Equal(t, http.StatusCreated, res.Status, "retry %d is answered with its booking: %s", i+1, res.Raw)
		assert.Equal(t, first.Body["id"], res.Body["id"])
	}
	res := hold(t, sys, "k2", holdBody(alice, "h-retry", "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, "the retries spent nothing: %s", res.Raw)
	res = hold(t, sys, "k3", holdBody(alice, "h-retry", "double", stay, 1))
	require.Equal(t, http.StatusTooManyRequests, res.Status, res.Raw)
	assert.Equal(t, "rate_limited", res.ErrorCode())
	assert.Equal(t, 2, count(t, sys, `SELECT count(*) FROM bookings`))

	perAddress := testsuite.NewSystem(t, testsuite.SystemOptions{HoldLimits: apiHoldLimits(0, 0, 2)})
	openRooms(t, perAddress, "h-retry", "double", stay, 20)
	bob := perAddress.Customer("bob")
	for range 2 {
		require.Equal(t, http.StatusCreated, hold(t, perAddress, "k1", holdBody(bob, "h-retry", "double", stay, 1)).Status)
	}
	res = hold(t, perAddress, "k1", holdBody(bob, "h-retry", "double", stay, 1))
	assert.Equal(t, http.StatusTooManyRequests, res.Status, "the address counts retries too: %s", res.Raw)
}

func TestTokensFromAnIdentityProvidersJWKS(t *testing.T) {
	t.Parallel()
	idp := testsuite.StartJWKSProvider(t)
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Auth: idp.Verifier(t)})
	stay := stayFromNow(9, 1)
	openRooms(t, sys, "h-jwks", "double", stay, 2)

	token := idp.Token(t, domain.Principal{Subject: sys.Customer("carol"), Roles: []domain.Role{domain.RoleCustomer}})
	res := sys.Do(t, "POST", "/api/v1/bookings", map[string]string{"Authorization": "Bearer " + token, "Idempotency-Key": "k1"},
		holdBody(sys.Customer("carol"), "h-jwks", "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)

	idp.Rotate(t)
	token = idp.Token(t, domain.Principal{Subject: sys.Customer("carol"), Roles: []domain.Role{domain.RoleCustomer}})
	res = sys.Do(t, "GET", "/api/v1/me/bookings", map[string]string{"Authorization": "Bearer " + token}, nil)
	require.Equal(t, http.StatusOK, res.Status, "the rotated key is picked up: %s", res.Raw)
	assert.Len(t, res.Body["bookings"], 1)

	res = sys.Do(t, "GET", "/api/v1/me/bookings", map[string]string{"Authorization": "Bearer " + idp.ForeignToken(t)}, nil)
	assert.Equal(t, http.StatusUnauthorized, res.Status, "a key id the provider never published: %s", res.Raw)
	res = sys.Do(t, "GET", "/api/v1/me/bookings", map[string]string{"Authorization": "Bearer " + sys.Token(t,
		domain.Principal{Subject: "x", Roles: []domain.Role{domain.RoleCustomer}})}, nil)
	assert.Equal(t, http.StatusUnauthorized, res.Status, "an HS256 token where only the provider's keys count: %s", res.Raw)
}

func apiHoldLimits(maxActive, perCustomer, perAddress int) api.HoldLimits {
	return api.HoldLimits{MaxActive: maxActive, PerCustomerPerMinute: perCustomer, PerAddressPerMinute: perAddress}
}

func retryAfterSeconds(t *testing.T, res testsuite.Response) int {
	t.Helper()
	n, err := strconv.Atoi(res.Header.Get("Retry-After"))
	require.NoError(t, err, "a 429 says when to retry: %v", res.Header)
	return n
}
