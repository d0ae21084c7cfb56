package api_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
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

// TestStaffsExplanationSeesTheStockTheyJustSet: explainAvailability reads the sale
// rules (and the room type) from the primary but the stock through s.Availability, which now
// reads the standby for everyone, staff included. Staff who have just cut a room type's stock and
// ask why a sale is (not) possible get an answer built from fresh rules and stale stock. Here the
// stock goes from 5 to 1 with the standby's replay paused (within a lenient bound), and the
// explanation of a sale of 2 still says it is available.
func TestStaffsExplanationSeesTheStockTheyJustSet(t *testing.T) {
	t.Parallel()
	r := testsuite.StartReplicated(t)
	ctx := context.Background()
	store := db.NewStore(r.Primary, 0)
	store.ReadFrom(r.Standby, time.Hour)
	in := domain.DateOf(time.Now(), time.UTC).AddDays(30)
	stay := domain.Stay{CheckIn: in, CheckOut: in.AddDays(1)}
	setRooms := func(n int) {
		require.NoError(t, store.SetInventory(ctx, db.SetInventoryParams{HotelID: "h-exp", RoomTypeID: "double",
			From: stay.CheckIn, To: stay.CheckOut, TotalRooms: n, Rate: &testsuite.TestRate}))
	}
	setRooms(5)
	r.WaitReplayed(t)
	_, err := r.Standby.Exec(ctx, `SELECT pg_wal_replay_pause()`)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = r.Standby.Exec(context.Background(), `SELECT pg_wal_replay_resume()`) })
	setRooms(1) // staff cut the stock

	secret := []byte("a-test-secret-of-at-least-32-bytes!")
	verifier, err := auth.NewVerifier(ctx, auth.Config{Secret: secret})
	require.NoError(t, err)
	srv := httptest.NewServer(api.New(store, nil, api.Config{Auth: verifier, BookingIDKey: []byte("ids"),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	token, err := auth.Mint(secret, domain.Principal{Subject: "ada", Roles: []domain.Role{domain.RoleAdmin}}, time.Hour,
		auth.MintOptions{})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/hotels/h-exp/availability/explain?roomTypeId=double&quantity=2&checkIn="+
		stay.CheckIn.String()+"&checkOut="+stay.CheckOut.String(), nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", body)
	var out struct {
		Available bool   `json:"available"`
		Because   string `json:"because"`
	}
	require.NoError(t, json.Unmarshal(body, &out))
	assert.False(t, out.Available, "1 room is left, a sale of 2 is not possible; the explanation said: %s", out.Because)
}
