package chaos

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// TestTheClusterLosesNothing starts the cluster topology (package cluster), books, pays and
// cancels through each API process, then injects each of the cluster's faults once under light
// load (an API, a worker and a Temporal history process killed, a Redis failover, a PostgreSQL
// promotion, the standby stopped), with every loss counter at zero. The counting is the single
// topology's, whose controls TestEveryFaultLosesNothing runs.
func TestTheClusterLosesNothing(t *testing.T) {
	server, sqlTool := os.Getenv("TEMPORAL_SERVER"), os.Getenv("TEMPORAL_SQL_TOOL")
	if os.Getenv("BOOKFLOW_CHAOS") != "1" || server == "" || sqlTool == "" {
		t.Skip("starts a cluster of its own and breaks it, so it runs alone: scripts/test runs it after the rest " +
			"(or BOOKFLOW_CHAOS=1 with TEMPORAL_SERVER and TEMPORAL_SQL_TOOL from scripts/lib.sh ensure_temporal_server)")
	}
	bin := filepath.Join(t.TempDir(), "bookflow")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/bookflow/bookflow/cmd/bookflow").CombinedOutput()
	require.NoError(t, err, "%s", out)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	h, err := start(ctx, Options{Topology: TopologyCluster, LoadFor: 6 * time.Second, Clients: 4, MoneyClients: 2, Bookflow: bin,
		TemporalServer: server, TemporalSQLTool: sqlTool, Out: os.Stdout})
	require.NoError(t, err)
	failed := true
	defer func() {
		if logs := h.close(failed); logs != "" {
			t.Logf("the cluster's logs: %s", logs)
		}
	}()

	// Both workers wrote the schedules at start: the server keeps one of each for the cluster.
	ids := map[string]int{}
	iter, err := h.s.client.ScheduleClient().List(ctx, client.ScheduleListOptions{})
	require.NoError(t, err)
	for iter.HasNext() {
		e, err := iter.Next()
		require.NoError(t, err)
		ids[e.ID]++
	}
	for _, id := range []string{workflows.InvariantCheckScheduleID, workflows.ReconcileScheduleID, workflows.ExpireStopSellsScheduleID} {
		require.Equal(t, 1, ids[id], "schedule %s among %v", id, ids)
	}

	for i, api := range h.s.cluster.APIs {
		h.holdPayCancel(t, ctx, "http://"+api.Addr, fmt.Sprintf("each-api-%d", i))
	}
	lost, findings, err := h.count(ctx)
	require.NoError(t, err)
	require.Zero(t, lost, "%v", findings)

	for run, f := range clusterFaults {
		lost, findings, injected, err := h.runOnce(ctx, run, f)
		require.NoError(t, err, f.name)
		require.True(t, injected, f.name)
		require.Zero(t, lost, "%s: %v", f.name, findings)
		require.Empty(t, findings, f.name)
	}
	degraded, restored := h.s.cluster.Postgres.Stats()
	t.Logf("PostgreSQL: commits went asynchronous %d times and synchronous again %d times", degraded, restored)
	failed = false
}

// holdPayCancel holds a room through one API process, pays for it, waits until it is confirmed,
// cancels it and waits until it is refunded, all through that process, and writes each step in
// the ledger so the counters judge it.
func (h *harness) holdPayCancel(t *testing.T, ctx context.Context, base, key string) {
	ld := &load{s: h.s, l: h.l, stay: h.stay, http: &http.Client{Timeout: 20 * time.Second}, base: base, run: -1}
	token, err := auth.Mint(h.s.jwtSecret, domain.Principal{Subject: "each-api", Roles: []domain.Role{domain.RoleCustomer}},
		time.Hour, auth.MintOptions{})
	require.NoError(t, err)
	var b bookingView
	status, ok := ld.call(ctx, http.MethodPost, "/api/v1/bookings", token, key, map[string]any{
		"hotelId": h.hotels[1], "roomTypeId": "double", "checkIn": h.stay.CheckIn, "checkOut": h.stay.CheckOut, "quantity": 1}, &b)
	require.True(t, ok && status == http.StatusCreated && b.Status == "HOLD", "hold through %s: %d %+v", base, status, b)
	h.l.book(b.ID, &granted{run: -1, hotel: h.hotels[1], price: b.Price.Total, expiresAt: b.ExpiresAt})
	pi := ld.checkout(ctx, b.ID, token)
	ld.pay(ctx, pi, b.ID, b.Price.Total, true, false)
	h.waitStatus(t, ctx, ld, token, b.ID, "CONFIRMED")
	h.l.cancelTried(b.ID)
	status, _ = ld.call(ctx, http.MethodPost, "/api/v1/bookings/"+b.ID+"/cancel", token, "", nil, nil)
	require.Equal(t, http.StatusOK, status, "cancel through %s", base)
	h.l.cancelled(b.ID)
	h.waitStatus(t, ctx, ld, token, b.ID, "REFUNDED")
}

func (h *harness) waitStatus(t *testing.T, ctx context.Context, ld *load, token, id, want string) {
	var b bookingView
	require.Eventually(t, func() bool {
		status, ok := ld.call(ctx, http.MethodGet, "/api/v1/bookings/"+id, token, "", nil, &b)
		return status == http.StatusOK && ok && b.Status == want
	}, 30*time.Second, 200*time.Millisecond, "booking %s through %s: want %s, last %s", id, ld.base, want, b.Status)
}
