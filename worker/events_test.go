package worker_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/worker"
)

// A subscriber that does not answer holds back nobody else: each is worked through on its own,
// and a healthy subscriber's event behind a dead one's backlog of 300 is sent at once.
func TestADeadSubscriberDoesNotHoldBackTheOthers(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer hang.Close()
	var got atomic.Int64
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got.Add(1) }))
	defer ok.Close()
	for id, url := range map[string]string{"dead": hang.URL, "healthy": ok.URL} {
		_, _, err := d.Store.PutEventSubscriber(ctx, db.EventSubscriber{ID: id, URL: url, Events: []string{"booking.held"}}, "whsec_x")
		require.NoError(t, err)
	}
	// The dead subscriber's backlog (one event of each of 300 bookings), then the healthy one's.
	_, err := d.Pool.Exec(ctx, `INSERT INTO event_deliveries (event_id, subscriber_id, booking_id, type, payload)
		SELECT 'evt_' || g, 'dead', 'bk_' || g, 'booking.held', '{}' FROM generate_series(1, 300) g`)
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `INSERT INTO event_deliveries (event_id, subscriber_id, booking_id, type, payload)
		VALUES ('evt_h', 'healthy', 'bk_h', 'booking.held', '{}')`)
	require.NoError(t, err)

	sender := &worker.EventSender{Store: d.Store, Poll: 10 * time.Millisecond, FirstBackoff: time.Minute,
		Client: &http.Client{Timeout: 500 * time.Millisecond}}
	run, stop := context.WithCancel(ctx)
	defer stop()
	go sender.Run(run)
	assert.Eventually(t, func() bool { return got.Load() > 0 }, 1200*time.Millisecond, 10*time.Millisecond,
		"the healthy subscriber's event waited behind the dead one's backlog")
}

// A subscriber's endpoint (the integrator's, not the admin's) answering 307 is a failed attempt:
// the signed event is never POSTed where the redirect points (an internal address, say).
func TestASubscribersRedirectIsNotFollowed(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	var inside atomic.Int64
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Bookflow-Signature") != "" {
			inside.Add(1)
		}
	}))
	defer internal.Close()
	integrator := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, internal.URL+"/admin/do-something", http.StatusTemporaryRedirect)
	}))
	defer integrator.Close()
	_, _, err := d.Store.PutEventSubscriber(ctx, db.EventSubscriber{ID: "crm", URL: integrator.URL,
		Events: []string{"booking.held"}}, "whsec_x")
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `INSERT INTO event_deliveries (event_id, subscriber_id, booking_id, type, payload)
		VALUES ('evt_1', 'crm', 'bk_1', 'booking.held', '{}')`)
	require.NoError(t, err)

	_, err = (&worker.EventSender{Store: d.Store}).Once(ctx, "crm")
	require.NoError(t, err)
	assert.Zero(t, inside.Load(), "the signed event was POSTed to the redirect's target")
	log, err := d.Store.EventDeliveries(ctx, "crm", "pending", 0, 10)
	require.NoError(t, err)
	require.Len(t, log, 1)
	assert.Contains(t, log[0].LastError, "redirects are not followed")
}
