package testsuite_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/workflows"
)

// blockBody is a block of rooms doubles a night over stay at 80.00, released as release says.
func blockBody(code string, stay domain.Stay, rooms int, release map[string]any) map[string]any {
	var nights []map[string]any
	for d := stay.CheckIn; d.Before(stay.CheckOut); d = d.AddDays(1) {
		nights = append(nights, map[string]any{"date": d, "rooms": rooms, "price": 8000})
	}
	return map[string]any{"groupCode": code, "name": "Group " + code, "roomTypeId": "double", "currency": "EUR",
		"nights": nights, "release": release, "owner": map[string]any{"name": "Ada", "contact": "ada@example.com"}}
}

// blockDesk is the front desk of hotel.
func blockDesk(t *testing.T, sys *testsuite.System, hotel string) testsuite.Caller {
	return sys.As(t, domain.Principal{Subject: "desk-" + hotel, Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{hotel}})
}

// definiteBlockAt creates a block at hotel through the desk's API and makes it definite.
func definiteBlockAt(t *testing.T, sys *testsuite.System, hotel string, body map[string]any) map[string]any {
	t.Helper()
	d := blockDesk(t, sys, hotel)
	res := d.Do(t, http.MethodPost, "/api/v1/staff/hotels/"+hotel+"/blocks", nil, body)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	assert.Equal(t, "INQUIRY", res.Body["status"])
	res = d.Do(t, http.MethodPost, res.Header.Get("Location")+"/definite", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "DEFINITE", res.Body["status"])
	return res.Body
}

// TestABlocksScheduleReleasesItOnTheHotelsClockFarFromUTC: a block at a hotel on Kiritimati's
// clock (UTC+14) whose cut-off is the coming minute there: its schedule gives the unpicked rooms
// back to sale, records the release, and the rooms are then on sale.
func TestABlocksScheduleReleasesItOnTheHotelsClockFarFromUTC(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	ctx := t.Context()
	zone, err := time.LoadLocation("Pacific/Kiritimati")
	require.NoError(t, err)
	hotel, stay := "blk-tz-"+sys.ID, stayFromNow(20, 2)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	t.Cleanup(receiver.Close)
	subscribe(t, sys, "blocks", receiver.URL, "block.created", "block.definite", "block.released", "block.cancelled")
	res := sys.Admin(t, http.MethodPut, fmt.Sprintf("/api/v1/admin/hotels/%s/room-types/double/inventory", hotel),
		map[string]any{"from": stay.CheckIn, "to": stay.CheckOut, "totalRooms": 3, "timeZone": "Pacific/Kiritimati",
			"rate": testsuite.TestRate.Amount, "currency": testsuite.TestRate.Currency})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)

	// The cut-off: the next whole minute on the hotel's clock, far from the UTC date at times.
	cutOff := time.Now().In(zone).Truncate(time.Minute).Add(time.Minute)
	if time.Until(cutOff) < 5*time.Second {
		cutOff = cutOff.Add(time.Minute)
	}
	block := definiteBlockAt(t, sys, hotel, blockBody("TZ", stay, 3, map[string]any{"kind": "fixed",
		"date": domain.DateOf(cutOff, zone), "time": cutOff.Format("15:04")}))
	night := block["nights"].([]any)[0].(map[string]any)
	at, err := time.Parse(time.RFC3339, night["releaseAt"].(string))
	require.NoError(t, err)
	assert.True(t, at.Equal(cutOff), "released at %s on the hotel's clock, not %s", cutOff, at)
	assert.Equal(t, 0, roomsLeft(t, sys, hotel, "double", stay))

	guest := sys.Customer("guest")
	body := holdBody(guest, hotel, "double", stay, 1)
	body["groupCode"] = "tz"
	res = hold(t, sys, "k", body)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	assert.Equal(t, "TZ", res.Body["groupCode"])
	assert.EqualValues(t, 2*8000, res.Body["price"].(map[string]any)["total"])

	schedule, err := sys.Temporal.ScheduleClient().Create(ctx, client.ScheduleOptions{ID: "release-blocks-" + sys.ID,
		Spec: client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: time.Minute}}},
		Action: &client.ScheduleWorkflowAction{ID: "release-blocks-" + sys.ID, Workflow: workflows.ReleaseBlocksWorkflowName,
			TaskQueue: sys.TaskQueue}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = schedule.Delete(t.Context()) })
	time.Sleep(time.Until(cutOff) + time.Second)
	require.NoError(t, schedule.Trigger(ctx, client.ScheduleTriggerOptions{})) // rather than wait for its minute

	id := block["id"].(string)
	require.Eventually(t, func() bool {
		res = blockDesk(t, sys, hotel).Do(t, http.MethodGet, "/api/v1/staff/blocks/"+id, nil, nil)
		return res.Body["status"] == "RELEASED"
	}, 90*time.Second, 200*time.Millisecond, "never released: %s", res.Raw)
	for _, n := range res.Body["nights"].([]any) {
		n := n.(map[string]any)
		assert.EqualValues(t, 0, n["remaining"])
		assert.EqualValues(t, 1, n["picked"])
		assert.EqualValues(t, 2, n["released"])
		assert.NotEmpty(t, n["releasedAt"])
	}
	assert.Equal(t, 2, roomsLeft(t, sys, hotel, "double", stay), "the unpicked rooms are on sale")
	res = blockDesk(t, sys, hotel).Do(t, http.MethodGet, "/api/v1/staff/blocks/"+id+"/changes", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	var actions []any
	for _, c := range res.Body["changes"].([]any) {
		actions = append(actions, c.(map[string]any)["action"])
	}
	assert.Equal(t, []any{"created", "definite", "released_at_cut_off"}, actions)
	assert.Equal(t, []string{"block.created", "block.definite", "block.released"}, blockEvents(t, sys, id))
	checkInvariants(t, sys)
}

// blockEvents lists the event types queued for a block, in order.
func blockEvents(t *testing.T, sys *testsuite.System, id string) []string {
	t.Helper()
	rows, err := sys.DB.Pool.Query(t.Context(), `SELECT type FROM event_deliveries WHERE booking_id = $1 ORDER BY id`, "block-"+id)
	require.NoError(t, err)
	types, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return types
}

// TestAGroupCodeIsBookedOnAnAgentsChannel: a block its channel may book is picked up by the
// channel's agent, and refused to a direct guest.
func TestAGroupCodeIsBookedOnAnAgentsChannel(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_procure", testsuite.SystemOptions{})
	sys := w.sys
	hotel, stay := "blk-agent-"+sys.ID, stayFromNow(24, 2)
	openRooms(t, sys, hotel, "double", stay, 4)
	body := blockBody("TOUR", stay, 2, map[string]any{"kind": "none"})
	body["direct"], body["channels"] = false, []string{"wholesale"}
	block := definiteBlockAt(t, sys, hotel, body)

	guest := holdBody(sys.Customer("guest"), hotel, "double", stay, 1)
	guest["groupCode"] = "TOUR"
	res := hold(t, sys, "k", guest)
	require.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Contains(t, res.Raw, "group TOUR is booked through its channels")

	res = w.agent.Do(t, http.MethodPost, "/api/v1/agent/bookings", map[string]string{"Idempotency-Key": "k"},
		map[string]any{"hotelId": hotel, "roomTypeId": "double", "checkIn": stay.CheckIn, "checkOut": stay.CheckOut,
			"quantity": 2, "groupCode": "TOUR"})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	assert.Equal(t, "wholesale", res.Body["channelId"])
	assert.Equal(t, block["id"], res.Body["blockId"])
	assert.EqualValues(t, 2*2*8000, res.Body["price"].(map[string]any)["total"])
	assert.Equal(t, 2, roomsLeft(t, sys, hotel, "double", stay), "the block's rooms, not the open ones")

	path := "/api/v1/hotels/" + hotel + "/groups/tour/availability"
	res = w.agent.Do(t, http.MethodGet, path, nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	night := res.Body["nights"].([]any)[0].(map[string]any)
	assert.EqualValues(t, 0, night["remaining"])
	assert.EqualValues(t, 2, night["picked"])
	assert.NotContains(t, res.Raw, "Ada", "never the organiser")
	res = sys.Guest(t, sys.Customer("guest")).Do(t, http.MethodGet, path, nil, nil)
	assert.Equal(t, http.StatusNotFound, res.Status, "a block its channels book is not a direct guest's: %s", res.Raw)
	checkInvariants(t, sys)
}

// roomingList is a CSV of guests over stay: the first withPhone by phone, the rest by name only.
func roomingList(n, withPhone int, stay domain.Stay) string {
	var b strings.Builder
	b.WriteString("name,checkIn,checkOut,phone\n")
	for i := range n {
		phone := ""
		if i < withPhone {
			phone = fmt.Sprintf("+3670%07d", 1000000+i)
		}
		fmt.Fprintf(&b, "Guest %d,%s,%s,%s\n", i+1, stay.CheckIn, stay.CheckOut, phone)
	}
	return b.String()
}

// TestARoomingListOfFiftyLinesBooksEachGuestAndIsAnsweredLineByLine: fifty guests uploaded in
// one request are fifty pickups, each its own booking through the booking workflow; the same
// upload sent again answers the same bookings.
func TestARoomingListOfFiftyLinesBooksEachGuestAndIsAnsweredLineByLine(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	hotel, stay := "blk-rooming-"+sys.ID, stayFromNow(30, 2)
	openRooms(t, sys, hotel, "double", stay, 60)
	block := definiteBlockAt(t, sys, hotel, blockBody("CONF", stay, 50, map[string]any{"kind": "rolling", "days": 7}))
	path := "/api/v1/staff/blocks/" + block["id"].(string) + "/rooming-list"
	csvHeaders := map[string]string{"Idempotency-Key": "rl-1", "Content-Type": "text/csv"}

	res := blockDesk(t, sys, hotel).Do(t, http.MethodPost, path, csvHeaders, roomingList(50, 10, stay))
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, true, res.Body["kept"])
	assert.EqualValues(t, 50, res.Body["held"])
	assert.EqualValues(t, 0, res.Body["refused"])
	lines := res.Body["lines"].([]any)
	require.Len(t, lines, 50)
	ids := map[string]bool{}
	for i, l := range lines {
		l := l.(map[string]any)
		assert.EqualValues(t, i+2, l["line"])
		assert.EqualValues(t, http.StatusCreated, l["status"], "%v", l)
		assert.Equal(t, "HOLD", l["bookingStatus"])
		ids[l["bookingId"].(string)] = true
	}
	assert.Len(t, ids, 50, "each line its own booking")
	got := blockDesk(t, sys, hotel).Do(t, http.MethodGet, "/api/v1/staff/blocks/"+block["id"].(string), nil, nil)
	for _, n := range got.Body["nights"].([]any) {
		assert.EqualValues(t, 50, n.(map[string]any)["picked"])
	}
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM walk_in_customers WHERE name = 'Guest 1'`), "a phone's guest is a walk-in")
	assert.Equal(t, 40, count(t, sys, `SELECT count(*) FROM block_guests WHERE block_id = $1`, block["id"]), "the rest by name")

	again := blockDesk(t, sys, hotel).Do(t, http.MethodPost, path, csvHeaders, roomingList(50, 10, stay))
	require.Equal(t, http.StatusOK, again.Status, again.Raw)
	for i, l := range again.Body["lines"].([]any) {
		assert.Equal(t, lines[i].(map[string]any)["bookingId"], l.(map[string]any)["bookingId"], "sent again: the same booking")
	}
	assert.Equal(t, 10, roomsLeft(t, sys, hotel, "double", stay))
	checkInvariants(t, sys)
}

// TestARoomingListAllOrNothingKeepsNothingWhenALineIsRefused: six guests for a block of five,
// all or nothing: the sixth is refused, the five held are cancelled, the block has its five.
func TestARoomingListAllOrNothingKeepsNothingWhenALineIsRefused(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	hotel, stay := "blk-all-"+sys.ID, stayFromNow(31, 1)
	openRooms(t, sys, hotel, "double", stay, 5)
	block := definiteBlockAt(t, sys, hotel, blockBody("ALL", stay, 5, map[string]any{"kind": "none"}))
	id := block["id"].(string)

	res := blockDesk(t, sys, hotel).Do(t, http.MethodPost, "/api/v1/staff/blocks/"+id+"/rooming-list?allOrNothing=true",
		map[string]string{"Idempotency-Key": "rl-all", "Content-Type": "text/csv"}, roomingList(6, 0, stay))
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, false, res.Body["kept"])
	assert.EqualValues(t, 0, res.Body["held"])
	refused, released := 0, 0
	for _, l := range res.Body["lines"].([]any) {
		l := l.(map[string]any)
		if l["status"] == float64(http.StatusConflict) {
			refused++
			assert.Contains(t, l["error"].(map[string]any)["message"], "group ALL has 0 rooms left")
		}
		if l["released"] == true {
			released++
		}
	}
	assert.Equal(t, 1, refused)
	assert.Equal(t, 5, released)
	got := blockDesk(t, sys, hotel).Do(t, http.MethodGet, "/api/v1/staff/blocks/"+id, nil, nil)
	night := got.Body["nights"].([]any)[0].(map[string]any)
	assert.EqualValues(t, 5, night["remaining"], "the five came back to the block")
	assert.EqualValues(t, 0, night["picked"])

	bad := blockDesk(t, sys, hotel).Do(t, http.MethodPost, "/api/v1/staff/blocks/"+id+"/rooming-list",
		map[string]string{"Idempotency-Key": "rl-bad", "Content-Type": "text/csv"}, "name,checkIn\nAda,2031-01-01\n")
	assert.Equal(t, http.StatusBadRequest, bad.Status, bad.Raw)
	assert.Contains(t, bad.Raw, "no checkout column")
	checkInvariants(t, sys)
}
