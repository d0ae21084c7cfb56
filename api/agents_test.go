package api_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/api"
	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestEveryAgentRouteChecksTheStoredAgent: a token naming agent-a with another channel than
// agent-a's, or an agent no channel knows, is 403 on every /agent route, before anything is read
// or started; agent-a's own token reads its booking and notifications (the control).
func TestEveryAgentRouteChecksTheStoredAgent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	for _, ch := range []string{"A", "B"} {
		require.NoError(t, d.Store.PutChannel(ctx, db.Channel{ID: ch}))
	}
	require.NoError(t, d.Store.PutAgent(ctx, db.Agent{ID: "agent-a", ChannelID: "A"}))
	require.NoError(t, d.Store.PutAgent(ctx, db.Agent{ID: "agent-b", ChannelID: "B"}))
	checkIn := domain.DateOf(time.Now(), time.UTC).AddDays(30)
	d.SetInventory(t, "h1", "double", checkIn, checkIn.AddDays(2), 5)
	b, err := d.Store.Reserve(ctx, db.ReserveParams{BookingID: "booking-agenta", IdempotencyKey: "k",
		Request: domain.HoldRequest{CustomerID: "guest", HotelID: "h1", RoomTypeID: "double",
			Stay: domain.Stay{CheckIn: checkIn, CheckOut: checkIn.AddDays(2)}, Quantity: 1},
		CreatedBy: "agent-user", HoldTTL: time.Hour, ChannelID: "A", AgentID: "agent-a"})
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, b.Status)
	_, err = d.Store.RecordAgentNotification(ctx, db.AgentNotification{AgentID: "agent-a", BookingID: b.ID, Event: "confirmed"})
	require.NoError(t, err)

	secret := []byte("agent-route-tests-secret-of-32-bytes")
	verifier, err := auth.NewVerifier(ctx, auth.Config{Secret: secret})
	require.NoError(t, err)
	e := api.New(d.Store, nil, api.Config{Auth: verifier, BookingIDKey: []byte("k"), Logger: slog.New(slog.DiscardHandler)})
	call := func(agent, channel, method, path string) (int, string) {
		token, err := auth.Mint(secret, domain.Principal{Subject: "agent-user", Roles: []domain.Role{domain.RoleAgent},
			Agent: agent, Channel: channel}, time.Hour, auth.MintOptions{})
		require.NoError(t, err)
		body := `{"hotelId":"h1","roomTypeId":"double","checkIn":"` + checkIn.String() + `","checkOut":"` +
			checkIn.AddDays(2).String() + `","quantity":1}`
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "agent-route-test")
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	routes := []struct{ method, path string }{
		{http.MethodPost, "/api/v1/agent/bookings"},
		{http.MethodGet, "/api/v1/agent/bookings"},
		{http.MethodGet, "/api/v1/agent/bookings/" + b.ID},
		{http.MethodPost, "/api/v1/agent/bookings/" + b.ID + "/cancel"},
		{http.MethodGet, "/api/v1/agent/notifications"},
	}
	for _, tok := range []struct{ name, agent, channel string }{
		{"agent-a claiming channel B", "agent-a", "B"},
		{"an agent no channel knows", "agent-ghost", "A"},
	} {
		for _, r := range routes {
			status, body := call(tok.agent, tok.channel, r.method, r.path)
			assert.Equal(t, http.StatusForbidden, status, "%s: %s %s: %s", tok.name, r.method, r.path, body)
			assert.Contains(t, body, `"forbidden"`, "%s: %s %s", tok.name, r.method, r.path)
		}
	}

	// The control: agent-a's own token reads what it sold and was told.
	status, body := call("agent-a", "A", http.MethodGet, "/api/v1/agent/bookings")
	require.Equal(t, http.StatusOK, status, body)
	var list struct {
		Bookings []struct{ ID string } `json:"bookings"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &list))
	require.Len(t, list.Bookings, 1)
	assert.Equal(t, b.ID, list.Bookings[0].ID)
	status, body = call("agent-a", "A", http.MethodGet, "/api/v1/agent/bookings/"+b.ID)
	assert.Equal(t, http.StatusOK, status, body)
	status, body = call("agent-a", "A", http.MethodGet, "/api/v1/agent/notifications")
	require.Equal(t, http.StatusOK, status, body)
	assert.Contains(t, body, b.ID)
	// Another stored agent of another channel sees none of it.
	status, body = call("agent-b", "B", http.MethodGet, "/api/v1/agent/bookings/"+b.ID)
	assert.Equal(t, http.StatusNotFound, status, body)
	status, body = call("agent-b", "B", http.MethodGet, "/api/v1/agent/notifications")
	require.Equal(t, http.StatusOK, status, body)
	assert.NotContains(t, body, b.ID)
}
