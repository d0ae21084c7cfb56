package testsuite_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

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
	checkInvariants(t, sys)
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
	checkInvariants(t, sys)
}
