package testsuite_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/suppliers"
	"github.com/bookflow/bookflow/testsuite"
)

// reception is one delivery a test subscriber took.
type reception struct {
	eventID, typ, bookingID string
	signature               string
	body                    []byte
}

// subscriberServer is an integrator's endpoint: it answers 503 while down, checks every
// delivery's signature against its secrets, and keeps what it took.
type subscriberServer struct {
	*httptest.Server
	down     atomic.Bool
	mu       sync.Mutex
	secrets  []string
	got      []reception
	badSigns int
}

func newSubscriber(t *testing.T) *subscriberServer {
	s := &subscriberServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if s.down.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		sig := r.Header.Get(suppliers.SignatureHeader)
		for _, secret := range s.secrets {
			if err := suppliers.Verify(body, sig, secret, time.Now(), time.Minute); err != nil {
				s.badSigns++
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
		}
		var ev struct {
			ID   string `json:"id"`
			Type string `json:"type"`
			Data struct {
				BookingID string `json:"bookingId"`
			} `json:"data"`
		}
		var agentEvent bool
		if t := r.Header.Get("Bookflow-Event-Type"); strings.HasPrefix(t, "agent.") { // an agent's own body
			var a struct {
				BookingID string `json:"bookingId"`
			}
			_ = json.Unmarshal(body, &a)
			agentEvent, ev.Type, ev.Data.BookingID = true, t, a.BookingID
		} else {
			_ = json.Unmarshal(body, &ev)
		}
		if !agentEvent && (ev.ID != r.Header.Get("Bookflow-Event-Id") || ev.Type != r.Header.Get("Bookflow-Event-Type")) {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		s.got = append(s.got, reception{eventID: ev.ID, typ: ev.Type, bookingID: ev.Data.BookingID, signature: sig, body: body})
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *subscriberServer) setSecrets(secrets ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.secrets = secrets
}

func (s *subscriberServer) bad() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.badSigns
}

func (s *subscriberServer) receptions() []reception {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.got)
}

// typesFor are the event types received for a booking, repeats included, in arrival order.
func (s *subscriberServer) typesFor(booking string) []string {
	var out []string
	for _, r := range s.receptions() {
		if r.bookingID == booking {
			out = append(out, r.typ)
		}
	}
	return out
}

func subscribe(t *testing.T, sys *testsuite.System, id, url string, events ...string) string {
	t.Helper()
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/event-subscribers/"+id, map[string]any{"url": url, "events": events})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	assert.Equal(t, "/api/v1/admin/event-subscribers/"+id, res.Header.Get("Location"))
	secret, _ := res.Body["secret"].(string)
	require.True(t, strings.HasPrefix(secret, "whsec_"), res.Raw)
	return secret
}

func deliveries(t *testing.T, sys *testsuite.System, subscriber, query string) []map[string]any {
	t.Helper()
	res := sys.Admin(t, http.MethodGet, "/api/v1/admin/event-subscribers/"+subscriber+"/deliveries"+query, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	var out []map[string]any
	for _, d := range res.Body["deliveries"].([]any) {
		out = append(out, d.(map[string]any))
	}
	return out
}

// TestIntegratorsReceiveSignedEventsOnceInOrder: a subscriber that is down while a booking is
// held, paid, cancelled and refunded receives every event it asked for once it is up, once each,
// in order, validly signed; a redelivery carries the same event id, so the subscriber tells it
// from a new event; a rotated secret signs beside the old one.
func TestIntegratorsReceiveSignedEventsOnceInOrder(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	sub := newSubscriber(t)
	for name, body := range map[string]map[string]any{
		"no url":        {"events": []string{"booking.held"}},
		"not http":      {"url": "ftp://example.com/x", "events": []string{"booking.held"}},
		"no events":     {"url": sub.URL},
		"unknown event": {"url": sub.URL, "events": []string{"booking.exploded"}},
	} {
		res := sys.Admin(t, http.MethodPut, "/api/v1/admin/event-subscribers/acme", body)
		assert.Equal(t, http.StatusBadRequest, res.Status, "%s: %s", name, res.Raw)
	}
	assert.Zero(t, count(t, sys, `SELECT count(*) FROM event_subscribers`), "nothing written")

	secret := subscribe(t, sys, "acme", sub.URL, "booking.held", "booking.confirmed", "booking.cancelled", "booking.refunded")
	sub.setSecrets(secret)
	list := sys.Admin(t, http.MethodGet, "/api/v1/admin/event-subscribers", nil)
	require.Equal(t, http.StatusOK, list.Status)
	assert.NotContains(t, list.Raw, secret, "secrets are shown only when made")

	sub.down.Store(true)
	stay := stayFromNow(40, 2)
	openRooms(t, sys, "h-events", "double", stay, 3)
	id, total := holdRoom(t, sys, "h-events", "ev-1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_ev_1", "pi_ev_1")
	require.Equal(t, http.StatusOK, cancel(t, sys, sys.Customer("guest"), id).Status)
	awaitStatus(t, sys, id, "REFUNDED")
	time.Sleep(500 * time.Millisecond) // several attempts fail meanwhile
	assert.Empty(t, sub.receptions())
	sub.down.Store(false)

	want := []string{"booking.held", "booking.confirmed", "booking.cancelled", "booking.refunded"}
	require.Eventually(t, func() bool { return len(sub.typesFor(id)) >= len(want) }, 20*time.Second, 50*time.Millisecond)
	time.Sleep(300 * time.Millisecond) // nothing more comes
	assert.Equal(t, want, sub.typesFor(id), "each event once, in order")
	assert.Zero(t, sub.bad())
	log := deliveries(t, sys, "acme", "?status=delivered")
	require.Len(t, log, 4)
	assert.Greater(t, log[len(log)-1]["attempts"], float64(1), "the first was tried while the subscriber was down")

	// A redelivery is the same event again: its id says so.
	confirmed := log[2]
	require.Equal(t, "booking.confirmed", confirmed["type"])
	res := sys.Admin(t, http.MethodPost, fmt.Sprintf("/api/v1/admin/event-deliveries/%.0f/redeliver", confirmed["id"]), nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool { return len(sub.typesFor(id)) == 5 }, 10*time.Second, 50*time.Millisecond)
	got := sub.receptions()
	assert.Equal(t, confirmed["eventId"], got[len(got)-1].eventID, "the subscriber finds the id it already has")

	// Rotation: both secrets sign until the integrator switches.
	rotated := sys.Admin(t, http.MethodPost, "/api/v1/admin/event-subscribers/acme/secret-rotation", nil)
	require.Equal(t, http.StatusOK, rotated.Status, rotated.Raw)
	newSecret := rotated.Body["secret"].(string)
	require.NotEqual(t, secret, newSecret)
	sub.setSecrets(secret, newSecret) // every delivery must verify under each
	second, _ := holdRoom(t, sys, "h-events", "ev-2", stay, 1)
	require.Eventually(t, func() bool { return len(sub.typesFor(second)) == 1 }, 10*time.Second, 50*time.Millisecond)
	assert.Zero(t, sub.bad(), "signed with the old secret and the new")
	assert.Equal(t, 2, strings.Count(sub.receptions()[len(sub.receptions())-1].signature, "v1="))
}

// TestAParkedEventHoldsBackItsBookingsLaterEventsUntilRedelivered: retried past EVENT_RETRY_FOR
// an event is parked; the later events of the same booking wait behind it (order holds), another
// booking's go on; an operator's redelivery sends it, then the ones behind it.
func TestAParkedEventHoldsBackItsBookingsLaterEventsUntilRedelivered(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{EventRetryFor: 300 * time.Millisecond})
	sub := newSubscriber(t)
	sub.setSecrets(subscribe(t, sys, "parks", sub.URL, "booking.held", "booking.confirmed"))
	stay := stayFromNow(41, 1)
	openRooms(t, sys, "h-park", "double", stay, 3)

	sub.down.Store(true)
	id, total := holdRoom(t, sys, "h-park", "park-1", stay, 1)
	require.Eventually(t, func() bool { return len(deliveries(t, sys, "parks", "?status=parked")) == 1 },
		10*time.Second, 50*time.Millisecond, "parked once tried for EVENT_RETRY_FOR")
	sub.down.Store(false)
	payAndConfirm(t, sys, id, total, "evt_park_1", "pi_park_1")
	other, _ := holdRoom(t, sys, "h-park", "park-2", stay, 1)
	require.Eventually(t, func() bool { return len(sub.typesFor(other)) == 1 }, 10*time.Second, 50*time.Millisecond,
		"another booking's events go on")
	time.Sleep(300 * time.Millisecond)
	assert.Empty(t, sub.typesFor(id), "the confirmation waits behind the parked hold")

	parked := deliveries(t, sys, "parks", "?status=parked")[0]
	assert.Equal(t, "booking.held", parked["type"])
	assert.NotEmpty(t, parked["lastError"])
	res := sys.Admin(t, http.MethodPost, fmt.Sprintf("/api/v1/admin/event-deliveries/%.0f/redeliver", parked["id"]), nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool { return len(sub.typesFor(id)) == 2 }, 10*time.Second, 50*time.Millisecond)
	assert.Equal(t, []string{"booking.held", "booking.confirmed"}, sub.typesFor(id))

	missing := sys.Admin(t, http.MethodPost, "/api/v1/admin/event-deliveries/999999/redeliver", nil)
	assert.Equal(t, http.StatusNotFound, missing.Status, missing.Raw)
}

// TestAnAgentsWebhookIsASubscriberOfItsNotifications: an agent's notifications reach its webhook
// through the same deliveries (retried while it is down, in the delivery log of subscriber
// agent.<id>), in the body agents always had, and the notification shows it delivered; the
// subscriber is the agent's, changed only with the agent.
func TestAnAgentsWebhookIsASubscriberOfItsNotifications(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	sub := newSubscriber(t)
	sub.setSecrets(agentSecret)
	sub.down.Store(true)
	stay := stayFromNow(42, 1)
	openRooms(t, sys, "h-agent-ev", "double", stay, 2)
	// The channel first: an agent names its channel.
	for _, put := range []struct {
		path string
		body map[string]any
	}{
		{"/api/v1/admin/channels/resell", map[string]any{"name": "Resell"}},
		{"/api/v1/admin/agents/ana", map[string]any{"channelId": "resell", "name": "Ana Tours", "webhookUrl": sub.URL, "webhookSecret": agentSecret}},
	} {
		res := sys.Admin(t, http.MethodPut, put.path, put.body)
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
	}
	agent := sys.As(t, domain.Principal{Subject: "ana-user", Roles: []domain.Role{domain.RoleAgent}, Agent: "ana", Channel: "resell"})
	res := agent.Do(t, http.MethodPost, "/api/v1/agent/bookings", map[string]string{"Idempotency-Key": "ag-1"},
		map[string]any{"hotelId": "h-agent-ev", "roomTypeId": "double", "checkIn": stay.CheckIn, "checkOut": stay.CheckOut, "quantity": 1})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)

	require.Eventually(t, func() bool {
		log := deliveries(t, sys, "agent.ana", "")
		return len(log) == 1 && log[0]["attempts"].(float64) >= 2
	}, 20*time.Second, 50*time.Millisecond, "retried while the webhook is down")
	sub.down.Store(false)
	require.Eventually(t, func() bool { return len(sub.typesFor(id)) == 1 }, 20*time.Second, 50*time.Millisecond)
	assert.Equal(t, []string{"agent.confirmed"}, sub.typesFor(id))
	assert.Zero(t, sub.bad())
	var body map[string]any
	require.NoError(t, json.Unmarshal(sub.receptions()[0].body, &body))
	assert.Equal(t, "confirmed", body["event"], "the body agents always had")
	require.Eventually(t, func() bool {
		notes := agent.Do(t, http.MethodGet, "/api/v1/agent/notifications", nil, nil)
		list, _ := notes.Body["notifications"].([]any)
		return len(list) == 1 && list[0].(map[string]any)["deliveredAt"] != nil
	}, 10*time.Second, 50*time.Millisecond, "the notification shows it delivered")

	put := sys.Admin(t, http.MethodPut, "/api/v1/admin/event-subscribers/agent.ana", map[string]any{"url": sub.URL,
		"events": []string{"booking.held"}})
	assert.Equal(t, http.StatusBadRequest, put.Status, put.Raw)
	rotate := sys.Admin(t, http.MethodPost, "/api/v1/admin/event-subscribers/agent.ana/secret-rotation", nil)
	assert.Equal(t, http.StatusConflict, rotate.Status, rotate.Raw)
}

// TestAStuckRefundIsToldToIntegrators: a refund the provider keeps declining is handed to an
// operator, and subscribers of booking.payment_stuck hear of it once, with the step and the
// reason; the operator's retry then refunds it.
func TestAStuckRefundIsToldToIntegrators(t *testing.T) {
	t.Parallel()
	provider := decliningProvider()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider})
	sub := newSubscriber(t)
	sub.setSecrets(subscribe(t, sys, "ops", sub.URL, "booking.payment_stuck", "booking.refunded"))
	stay := stayFromNow(43, 1)
	openRooms(t, sys, "h-stuck-ev", "double", stay, 1)
	id, total := holdRoom(t, sys, "h-stuck-ev", "stuck-1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_stuck_ev", "pi_stuck_ev")
	require.Equal(t, http.StatusOK, cancel(t, sys, sys.Customer("guest"), id).Status)

	require.Eventually(t, func() bool { return len(sub.typesFor(id)) == 1 }, 30*time.Second, 50*time.Millisecond)
	assert.Equal(t, []string{"booking.payment_stuck"}, sub.typesFor(id))
	var ev struct {
		Data struct {
			Step, Reason string
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(sub.receptions()[0].body, &ev))
	assert.NotEmpty(t, ev.Data.Step)
	assert.NotEmpty(t, ev.Data.Reason)

	provider.SetAnswer(nil)
	finance := sys.As(t, domain.Principal{Subject: "fin", Roles: []domain.Role{domain.RoleFinance}})
	res := finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refund/retry", nil, map[string]any{"reason": "topped up"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitStatus(t, sys, id, "REFUNDED")
	require.Eventually(t, func() bool { return len(sub.typesFor(id)) == 2 }, 10*time.Second, 50*time.Millisecond)
	assert.Equal(t, []string{"booking.payment_stuck", "booking.refunded"}, sub.typesFor(id), "told once, then refunded")
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "paid-cancel-stuck-told-retry-refunded")
}
