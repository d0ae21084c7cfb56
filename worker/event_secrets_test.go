package worker_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/suppliers"
	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/worker"
)

// signedPosts is an integrator's endpoint that keeps the body and signature of each POST.
type signedPosts struct {
	mu     sync.Mutex
	bodies [][]byte
	sigs   []string
}

func (p *signedPosts) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bodies = append(p.bodies, body)
	p.sigs = append(p.sigs, r.Header.Get(suppliers.SignatureHeader))
}

// databaseAndEndpoint is a database and an integrator's endpoint, at url, that keeps its POSTs.
func databaseAndEndpoint(t *testing.T) (*testsuite.Database, *signedPosts, string) {
	t.Helper()
	posts := &signedPosts{}
	srv := httptest.NewServer(posts)
	t.Cleanup(srv.Close)
	return testsuite.NewDatabase(t), posts, srv.URL
}

// last is the body and signature of the last POST.
func (p *signedPosts) last(t *testing.T) ([]byte, string) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	require.NotEmpty(t, p.bodies, "nothing was delivered")
	return p.bodies[len(p.bodies)-1], p.sigs[len(p.sigs)-1]
}

// sendAt sends subscriber's due deliveries as the sender's clock reads at, and returns the last
// POST's body and signature.
func sendAt(t *testing.T, d *testsuite.Database, posts *signedPosts, subscriber string, at time.Time) ([]byte, string) {
	t.Helper()
	_, err := d.Pool.Exec(context.Background(), `UPDATE event_deliveries SET status = 'pending', next_attempt_at = now()
		WHERE subscriber_id = $1`, subscriber)
	require.NoError(t, err)
	sender := &worker.EventSender{Store: d.Store, Now: func() time.Time { return at }}
	n, err := sender.Once(context.Background(), subscriber)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	return posts.last(t)
}

// A subscriber whose secret is rotated twice within the day (an admin retrying a rotation whose
// answer was lost) still has its deliveries signed with the secret it held before both, until a
// day after the rotation that replaced it; and with the newest.
func TestASecretRotatedTwiceKeepsTheIntegratorsSecretSigningForADay(t *testing.T) {
	t.Parallel()
	d, posts, url := databaseAndEndpoint(t)
	ctx := context.Background()
	_, _, err := d.Store.PutEventSubscriber(ctx, db.EventSubscriber{ID: "crm", URL: url, Events: []string{"booking.held"}}, "whsec_held")
	require.NoError(t, err)
	_, err = d.Store.RotateEventSecret(ctx, "crm", "whsec_lost", 24*time.Hour)
	require.NoError(t, err)
	_, err = d.Store.RotateEventSecret(ctx, "crm", "whsec_new", 24*time.Hour)
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `INSERT INTO event_deliveries (event_id, subscriber_id, booking_id, type, payload)
		VALUES ('evt_1', 'crm', 'bk_1', 'booking.held', '{"id":"evt_1"}')`)
	require.NoError(t, err)

	now := time.Now()
	body, sig := sendAt(t, d, posts, "crm", now)
	assert.NoError(t, suppliers.Verify(body, sig, "whsec_held", now, time.Minute),
		"the secret the integrator holds stopped signing at the second rotation")
	assert.NoError(t, suppliers.Verify(body, sig, "whsec_new", now, time.Minute))

	later := now.Add(23 * time.Hour)
	body, sig = sendAt(t, d, posts, "crm", later)
	assert.NoError(t, suppliers.Verify(body, sig, "whsec_held", later, time.Minute), "dropped within the day")

	dayAfter := now.Add(24*time.Hour + time.Minute)
	body, sig = sendAt(t, d, posts, "crm", dayAfter)
	assert.Error(t, suppliers.Verify(body, sig, "whsec_held", dayAfter, time.Minute), "still signing after the day")
	assert.Error(t, suppliers.Verify(body, sig, "whsec_lost", dayAfter, time.Minute), "still signing after the day")
	assert.NoError(t, suppliers.Verify(body, sig, "whsec_new", dayAfter, time.Minute))
}

// An agent's webhook secret changed twice within the day (PUT /admin/agents, corrected) signs
// with the secret the agent held before both for the day, like a subscriber's rotation.
func TestAnAgentsWebhookSecretChangedTwiceKeepsTheAgentsSecretSigningForADay(t *testing.T) {
	t.Parallel()
	d, posts, url := databaseAndEndpoint(t)
	ctx := context.Background()
	require.NoError(t, d.Store.PutChannel(ctx, db.Channel{ID: "A"}))
	agent := db.Agent{ID: "agent-1", ChannelID: "A", WebhookURL: url, WebhookSecret: "agent-secret-held"}
	require.NoError(t, d.Store.PutAgent(ctx, agent))
	for _, secret := range []string{"agent-secret-typo", "agent-secret-new"} {
		agent.WebhookSecret = secret
		require.NoError(t, d.Store.PutAgent(ctx, agent))
	}
	n, err := d.Store.RecordAgentNotification(ctx, db.AgentNotification{AgentID: agent.ID, BookingID: "bk_1",
		Event: "confirmed", Detail: "confirmed by the supplier"})
	require.NoError(t, err)
	require.NoError(t, d.Store.QueueAgentNotification(ctx, n))

	now := time.Now()
	body, sig := sendAt(t, d, posts, "agent."+agent.ID, now)
	assert.NoError(t, suppliers.Verify(body, sig, "agent-secret-held", now, time.Minute),
		"the agent's secret stopped signing at the second change")
	assert.NoError(t, suppliers.Verify(body, sig, "agent-secret-new", now, time.Minute))

	dayAfter := now.Add(24*time.Hour + time.Minute)
	body, sig = sendAt(t, d, posts, "agent."+agent.ID, dayAfter)
	assert.Error(t, suppliers.Verify(body, sig, "agent-secret-held", dayAfter, time.Minute), "still signing after the day")
	assert.NoError(t, suppliers.Verify(body, sig, "agent-secret-new", dayAfter, time.Minute))
}
