package activities_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	temporaltest "go.temporal.io/sdk/testsuite"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/telemetry"
	"github.com/bookflow/bookflow/testsuite"
)

// timingLines are the "Reservation timing" lines of the JSON log out.
func timingLines(t *testing.T, out *testsuite.SyncBuffer) []map[string]any {
	var lines []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m))
		if m["msg"] == "Reservation timing" {
			lines = append(lines, m)
		}
	}
	return lines
}

// The Reserve activity logs each attempt's timing: at Debug when it is quick, at Warn past a
// second, naming the lock it waited for and who held it.
func TestTheReserveActivityLogsWhereASlowReservationsTimeWent(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	checkIn := domain.DateOf(time.Now(), time.UTC).AddDays(10)
	d.SetInventory(t, "h1", "double", checkIn, checkIn.AddDays(1), 2)
	out := &testsuite.SyncBuffer{}
	var suite temporaltest.WorkflowTestSuite
	suite.SetLogger(telemetry.TemporalLogger(slog.New(slog.NewJSONHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	env := suite.NewTestActivityEnvironment()
	acts := &activities.Bookings{Store: d.Store}
	env.RegisterActivity(acts)
	reserve := func(customer string) {
		in := activities.ReserveInput{BookingID: "booking-" + customer, IdempotencyKey: "k", CreatedBy: customer,
			HoldTTL: time.Minute, Request: domain.HoldRequest{CustomerID: customer, HotelID: "h1", RoomTypeID: "double",
				Stay: domain.Stay{CheckIn: checkIn, CheckOut: checkIn.AddDays(1)}, Quantity: 1}}
		_, err := env.ExecuteActivity(acts.Reserve, in)
		require.NoError(t, err)
	}

	reserve("quick")
	lines := timingLines(t, out)
	require.Len(t, lines, 1)
	assert.Equal(t, "DEBUG", lines[0]["level"])
	assert.Equal(t, "booking-quick", lines[0]["bookingId"])
	assert.Equal(t, "alone", lines[0]["path"])
	assert.Contains(t, lines[0]["trips"], "reserve_stay")

	tx, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `SELECT 1 FROM inventory i JOIN resources r ON r.id = i.resource_id WHERE r.hotel_id = 'h1' FOR UPDATE OF i`)
	require.NoError(t, err)
	committed := make(chan error, 1)
	go func() {
		time.Sleep(1200 * time.Millisecond)
		committed <- tx.Commit(ctx) // the only use of tx from here on
	}()
	reserve("slow")
	require.NoError(t, <-committed)
	lines = timingLines(t, out)
	require.Len(t, lines, 2)
	slow := lines[1]
	assert.Equal(t, "WARN", slow["level"], "past a second")
	assert.Equal(t, "booking-slow", slow["bookingId"])
	assert.Equal(t, true, slow["sentBack"], "the writer's 50 ms bound sent it back")
	assert.Contains(t, slow["locks"], "units in reserve_stay")
	assert.Contains(t, slow["locks"], "held by")
	assert.Contains(t, slow, "startDelay")
	assert.Contains(t, slow, "boundLeft")
	t.Log(slow)
}
