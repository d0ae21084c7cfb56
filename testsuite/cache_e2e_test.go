package testsuite_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/api"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// cachedLeft reads what the cache holds for a room type's night (found false: not cached).
func cachedLeft(t *testing.T, sys *testsuite.System, hotel, roomType string, night domain.Date) (left int, version int64, found bool) {
	t.Helper()
	var id int64
	require.NoError(t, sys.DB.Pool.QueryRow(context.Background(), `SELECT id FROM resources WHERE hotel_id = $1 AND code = $2`,
		hotel, roomType).Scan(&id))
	states, found, err := sys.Cache.Get(context.Background(), []db.UnitKey{{ResourceID: id, Start: night.Time()}})
	require.NoError(t, err)
	if !found {
		return 0, 0, false
	}
	return states[0].Left, states[0].Version, true
}

func TestSearchesReadTheCacheWhichFollowsEveryChange(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Cache: true})
	stay := stayFromNow(10, 2)
	openRooms(t, sys, "h-c", "double", stay, 5)
	require.Eventually(t, func() bool {
		left, version, found := cachedLeft(t, sys, "h-c", "double", stay.CheckIn)
		return found && left == 5 && version > 0
	}, 10*time.Second, 20*time.Millisecond, "opening the rooms reached the cache through the outbox")

	id, _ := holdRoom(t, sys, "h-c", "k1", stay, 2)
	require.Eventually(t, func() bool { return roomsLeft(t, sys, "h-c", "double", stay) == 3 }, 10*time.Second,
		20*time.Millisecond, "the hold reached the cache")
	left, _, _ := cachedLeft(t, sys, "h-c", "double", stay.CheckIn)
	assert.Equal(t, 3, left, "the search's answer is the cache's")
	require.Equal(t, http.StatusOK, cancel(t, sys, sys.Customer("guest"), id).Status)
	require.Eventually(t, func() bool { return roomsLeft(t, sys, "h-c", "double", stay) == 5 }, 10*time.Second,
		20*time.Millisecond, "and so did the release")
	p50, p99, n := sys.Relay.Lag()
	assert.Positive(t, n)
	t.Logf("relay lag over %d changes: p50 %s, p99 %s", n, p50, p99)

	// The answer is the cache's: a (made-up) newer value in Redis is what the search shows.
	var id64 int64
	require.NoError(t, sys.DB.Pool.QueryRow(context.Background(), `SELECT id FROM resources WHERE hotel_id = 'h-c'`).Scan(&id64))
	var planted []db.CachedUnit
	for _, n := range stay.NightDates() {
		planted = append(planted, db.CachedUnit{UnitKey: db.UnitKey{ResourceID: id64, Start: n.Time()}, Left: 42, Version: 1 << 40})
	}
	require.NoError(t, sys.Cache.Apply(context.Background(), planted))
	assert.Equal(t, 42, roomsLeft(t, sys, "h-c", "double", stay))
}

// TestReadThroughKeepsEachRoomTypesNights: several room types, a night not on sale, read
// through from the database on a miss and then from the cache, each with its own counts.
func TestReadThroughKeepsEachRoomTypesNights(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Cache: true})
	stay := stayFromNow(10, 3)
	sys.StopRelay() // a miss: nothing relayed yet
	openRooms(t, sys, "h-rt", "suite", stay, 1)
	openRooms(t, sys, "h-rt", "double", stay, 7)
	openRooms(t, sys, "h-rt", "single", domain.Stay{CheckIn: stay.CheckIn, CheckOut: stay.CheckOut.AddDays(-1)}, 4)
	for range 2 { // read through, then from the cache
		assert.Equal(t, 1, roomsLeft(t, sys, "h-rt", "suite", stay))
		assert.Equal(t, 7, roomsLeft(t, sys, "h-rt", "double", stay))
		assert.Equal(t, 0, roomsLeft(t, sys, "h-rt", "single", stay), "its last night is not on sale")
	}
}

func TestRedisDownSearchesAndHoldsGoToTheDatabase(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Cache: true, CacheURL: "redis://127.0.0.1:1/0"})
	stay := stayFromNow(10, 2)
	openRooms(t, sys, "h-down", "double", stay, 1)
	assert.Equal(t, 1, roomsLeft(t, sys, "h-down", "double", stay), "degraded, not down")
	id, _ := holdRoom(t, sys, "h-down", "k1", stay, 1)
	assert.Equal(t, 0, roomsLeft(t, sys, "h-down", "double", stay))
	res := hold(t, sys, "k2", holdBody(sys.Customer("other"), "h-down", "double", stay, 1))
	assert.Equal(t, http.StatusConflict, res.Status, "the database refused it: %s", res.Raw)
	assert.Equal(t, 2, count(t, sys, `SELECT count(*) FROM bookings`), "the gate failed open: the second hold reached the database")
	assert.Equal(t, "HOLD", bookingStatus(t, sys, id))
	checkInvariants(t, sys)
}

// TestTheGateLetsThreeHoldsThroughOfTwoHundred: 200 concurrent buyers for 3 rooms. At most as
// many holds as rooms (plus a margin) race at a time; once the cache shows the stay sold out, the
// rest are refused without a workflow.
func TestTheGateLetsThreeHoldsThroughOfTwoHundred(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Cache: true})
	stay := stayFromNow(10, 2)
	openRooms(t, sys, "h-flash", "double", stay, 3)
	require.Eventually(t, func() bool {
		_, v, found := cachedLeft(t, sys, "h-flash", "double", stay.CheckIn)
		return found && v > 0
	},
		10*time.Second, 20*time.Millisecond)

	statuses := make([]int, 200)
	testsuite.Race(200, func(i int) {
		res := hold(t, sys, "flash", holdBody(sys.Customer(fmt.Sprintf("buyer%d", i)), "h-flash", "double", stay, 1))
		statuses[i] = res.Status
	})
	byStatus := map[int]int{}
	for _, s := range statuses {
		byStatus[s]++
	}
	t.Logf("answers: %v", byStatus)
	assert.Equal(t, 3, byStatus[http.StatusCreated], "exactly the 3 rooms were held")
	assert.Equal(t, 200, byStatus[http.StatusCreated]+byStatus[http.StatusConflict]+byStatus[http.StatusTooManyRequests],
		"everyone else was told 409 or 429")
	workflows := settledBookings(t, sys)
	assert.LessOrEqual(t, workflows, 3+10, "a handful of workflows beyond the winners reached the database")
	checkInvariants(t, sys)
}

// TestAStaleCacheNeverRefusesWhatTheDatabaseWouldAccept: the cache says the last room is taken,
// but its release is on its way. The gate waits for the relay (bounded) instead of refusing; with
// the relay down it says "retry shortly" (429), and once no relay vouches for the cache it lets
// holds through to the database. A stay truly sold out is refused without a workflow.
func TestAStaleCacheNeverRefusesWhatTheDatabaseWouldAccept(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Cache: true})
	stay := stayFromNow(10, 2)
	openRooms(t, sys, "h-stale", "double", stay, 1)
	id, _ := holdRoom(t, sys, "h-stale", "k1", stay, 1)
	require.Eventually(t, func() bool { left, _, _ := cachedLeft(t, sys, "h-stale", "double", stay.CheckIn); return left == 0 },
		10*time.Second, 20*time.Millisecond)

	// Truly sold out: refused by the gate, nothing written.
	res := hold(t, sys, "k2", holdBody(sys.Customer("late"), "h-stale", "double", stay, 1))
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM bookings`), "no workflow, no booking row")
	// A retry of the winner's own request is answered by its booking, not by the gate.
	res = hold(t, sys, "k1", holdBody(sys.Customer("guest"), "h-stale", "double", stay, 1))
	assert.Equal(t, http.StatusCreated, res.Status, res.Raw)
	assert.Equal(t, id, res.Body["id"])

	// The release is on its way while the relay is down for 30 ms: the gate waits for it.
	sys.StopRelay()
	require.Equal(t, http.StatusOK, cancel(t, sys, sys.Customer("guest"), id).Status)
	left, _, _ := cachedLeft(t, sys, "h-stale", "double", stay.CheckIn)
	require.Equal(t, 0, left, "the cache is stale by one release")
	go func() { time.Sleep(30 * time.Millisecond); sys.StartRelay(t) }()
	res = hold(t, sys, "k3", holdBody(sys.Customer("patient"), "h-stale", "double", stay, 1))
	assert.Equal(t, http.StatusCreated, res.Status, "held once the relay caught up: %s", res.Raw)

	// The relay down for good: "retry shortly", then, once no relay vouches for the cache, the
	// database decides.
	require.Eventually(t, func() bool { left, _, _ := cachedLeft(t, sys, "h-stale", "double", stay.CheckIn); return left == 0 },
		10*time.Second, 20*time.Millisecond)
	sys.StopRelay()
	require.Equal(t, http.StatusOK, cancel(t, sys, sys.Customer("patient"), res.Body["id"].(string)).Status)
	res = hold(t, sys, "k4", holdBody(sys.Customer("last"), "h-stale", "double", stay, 1))
	assert.Equal(t, http.StatusTooManyRequests, res.Status, res.Raw)
	assert.Equal(t, "1", res.Header.Get("Retry-After"))
	require.Eventually(t, func() bool {
		return hold(t, sys, "k4", holdBody(sys.Customer("last"), "h-stale", "double", stay, 1)).Status == http.StatusCreated
	}, 15*time.Second, 500*time.Millisecond, "failed open to the database once the relay stopped vouching")
	checkInvariants(t, sys)
}

// TestWithoutTheGateEveryBuyerStartsAWorkflow is the control for the test above: buyers with no
// cache in front each start a workflow and a reservation (50 of them are enough to show it).
func TestWithoutTheGateEveryBuyerStartsAWorkflow(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(10, 2)
	openRooms(t, sys, "h-nogate", "double", stay, 3)
	created := make([]bool, 50)
	testsuite.Race(50, func(i int) {
		res := hold(t, sys, "flash", holdBody(sys.Customer(fmt.Sprintf("buyer%d", i)), "h-nogate", "double", stay, 1))
		created[i] = res.Status == http.StatusCreated
	})
	n := 0
	for _, c := range created {
		if c {
			n++
		}
	}
	assert.LessOrEqual(t, n, 3, "the database alone never oversells")
	assert.Greater(t, settledBookings(t, sys), 3+10,
		"without the gate far more than a handful of workflows reach the database, or the test above proves nothing")
	checkInvariants(t, sys)
}

// settledBookings counts the booking rows once workflows still starting have reserved: the
// count no longer moves over half a second (under load a request may have answered 503 pending
// before its workflow reached the database).
func settledBookings(t *testing.T, sys *testsuite.System) int {
	t.Helper()
	last := -1
	require.Eventually(t, func() bool {
		n := count(t, sys, `SELECT count(*) FROM bookings`)
		settled := n == last
		last = n
		return settled
	}, 60*time.Second, 500*time.Millisecond)
	return last
}

// TestHoldsAtOneHotelAreRateLimitedAcrossProcesses: the per-hotel rate (counted in Redis, so
// shared by every API process) answers 429 past it, and another hotel is not affected.
func TestHoldsAtOneHotelAreRateLimitedAcrossProcesses(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Cache: true, HoldLimits: api.HoldLimits{PerHotelPerSecond: 2}})
	stay := stayFromNow(10, 2)
	openRooms(t, sys, "h-rate", "double", stay, 20)
	openRooms(t, sys, "h-calm", "double", stay, 20)
	limited := 0
	for i := range 6 {
		res := hold(t, sys, fmt.Sprintf("r%d", i), holdBody(sys.Customer(fmt.Sprintf("g%d", i)), "h-rate", "double", stay, 1))
		if res.Status == http.StatusTooManyRequests {
			limited++
			assert.Equal(t, "rate_limited", res.ErrorCode())
			assert.NotEmpty(t, res.Header.Get("Retry-After"))
		}
	}
	assert.Positive(t, limited, "6 holds in well under 3 s at 2 a second")
	res := hold(t, sys, "calm", holdBody(sys.Customer("calm"), "h-calm", "double", stay, 1))
	assert.Equal(t, http.StatusCreated, res.Status, res.Raw)
}
