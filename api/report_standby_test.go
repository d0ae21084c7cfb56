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

// TestStaffsDailyReportIsReadOnThePrimary: the change keeps "staff's slots and lists,
// and every read of a caller's own write" on the primary, and venueSlots marks staff's reads
// db.OnPrimary; but the daily report, a staff-only page (the till's end of day, right after the
// desk took money), reads the standby through s.reads like a guest's search. Here replay is
// paused on the standby (within a lenient bound, so the bound itself lets it be read), a booking
// is made on the primary, and the staff report of the day does not count it.
func TestStaffsDailyReportIsReadOnThePrimary(t *testing.T) {
	t.Parallel()
	r := testsuite.StartReplicated(t)
	ctx := context.Background()
	store := db.NewStore(r.Primary, 0)
	store.ReadFrom(r.Standby, time.Hour)
	in := domain.DateOf(time.Now(), time.UTC).AddDays(30)
	stay := domain.Stay{CheckIn: in, CheckOut: in.AddDays(1)}
	require.NoError(t, store.SetInventory(ctx, db.SetInventoryParams{HotelID: "h-rep", RoomTypeID: "double",
		From: stay.CheckIn, To: stay.CheckOut, TotalRooms: 5, Rate: &testsuite.TestRate}))
	r.WaitReplayed(t)
	_, err := r.Standby.Exec(ctx, `SELECT pg_wal_replay_pause()`)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = r.Standby.Exec(context.Background(), `SELECT pg_wal_replay_resume()`) })
	_, err = store.Reserve(ctx, db.ReserveParams{BookingID: domain.BookingID([]byte("ids"), "guest", "guest", "k1"),
		IdempotencyKey: "k1", CreatedBy: "guest", HoldTTL: 10 * time.Minute,
		Request: domain.HoldRequest{CustomerID: "guest", HotelID: "h-rep", RoomTypeID: "double", Stay: stay, Quantity: 1}})
	require.NoError(t, err)

	secret := []byte("a-test-secret-of-at-least-32-bytes!")
	verifier, err := auth.NewVerifier(ctx, auth.Config{Secret: secret})
	require.NoError(t, err)
	srv := httptest.NewServer(api.New(store, nil, api.Config{Auth: verifier, BookingIDKey: []byte("ids"),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	token, err := auth.Mint(secret, domain.Principal{Subject: "ada", Roles: []domain.Role{domain.RoleAdmin}}, time.Hour,
		auth.MintOptions{})
	require.NoError(t, err)
	hotel, err := store.GetHotel(ctx, "h-rep")
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/staff/reports/daily?hotelId=h-rep&date="+
		domain.DateOf(time.Now(), hotel.Location).String(), nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", body)
	var out struct {
		Report db.DailyReport `json:"report"`
	}
	require.NoError(t, json.Unmarshal(body, &out))
	onPrimary, err := store.DailyReport(db.OnPrimary(ctx), db.Site{HotelID: "h-rep"},
		domain.DayBounds(domain.DateOf(time.Now(), hotel.Location), hotel.Location))
	require.NoError(t, err)
	require.Equal(t, 1, onPrimary.Orders, "the control: the primary counts the booking")
	assert.Equal(t, 1, out.Report.Orders, "staff's report counts the booking just made: it reads the primary")
}
