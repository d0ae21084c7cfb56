package testsuite_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// ariPlanDay is a plan's night in an ARI export: its amount and whether it is closed to arrival.
func ariPlanDay(t *testing.T, export testsuite.Response, roomType, plan string, night int) map[string]any {
	t.Helper()
	for _, rt := range export.Body["roomTypes"].([]any) {
		m := rt.(map[string]any)
		if m["roomTypeId"] != roomType {
			continue
		}
		for _, p := range m["plans"].([]any) {
			if pm := p.(map[string]any); pm["ratePlan"] == plan {
				return pm["days"].([]any)[night].(map[string]any)
			}
		}
	}
	t.Fatalf("no %s/%s in %s", roomType, plan, export.Raw)
	return nil
}

// ariRooms is a room type's rooms on each night of an ARI export.
func ariRooms(t *testing.T, export testsuite.Response, roomType string) []float64 {
	t.Helper()
	var out []float64
	for _, rt := range export.Body["roomTypes"].([]any) {
		if m := rt.(map[string]any); m["roomTypeId"] == roomType {
			for _, d := range m["days"].([]any) {
				out = append(out, d.(map[string]any)["available"].(float64))
			}
		}
	}
	return out
}

// ariKinds lists a feed page's changes as "kind roomType/plan".
func ariKinds(page testsuite.Response) []string {
	var out []string
	changes, _ := page.Body["changes"].([]any)
	for _, c := range changes {
		m := c.(map[string]any)
		plan, _ := m["ratePlan"].(string)
		room, _ := m["roomTypeId"].(string)
		out = append(out, fmt.Sprintf("%s %s/%s", m["kind"], room, plan))
	}
	return out
}

// TestTheARIFeedFollowsACancellationAndAPriceChange: a channel manager exports a hotel, then
// follows the feed: a hold and its cancellation show as availability changes of the room type, a
// new rate as a rate change; the export read again has the rooms back and the derived plan's new
// price. Polling with the page's ETag answers 304 until a restriction is written, then 200; a
// cursor the retention passed is 410.
func TestTheARIFeedFollowsACancellationAndAPriceChange(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	hotel, stay := "h-ari", stayFromNow(30, 2)
	openRooms(t, sys, hotel, "double", stay, 3)
	putPlans(t, sys, hotel, planDef{"NR", map[string]any{"name": "Non-refundable", "policy": map[string]any{"nonRefundable": true},
		"derivedFrom": map[string]any{"parent": "BAR", "percent": "-10"}}})
	ari := fmt.Sprintf("/api/v1/admin/hotels/%s/ari", hotel)
	exportPath := fmt.Sprintf("%s?from=%s&to=%s", ari, stay.CheckIn, stay.CheckOut)

	export := sys.Admin(t, http.MethodGet, exportPath, nil)
	require.Equal(t, http.StatusOK, export.Status, export.Raw)
	assert.Equal(t, []float64{3, 3}, ariRooms(t, export, "double"))
	assert.Equal(t, float64(9000), ariPlanDay(t, export, "double", "NR", 0)["amount"])
	cursor := export.Body["cursor"].(string)

	guest := sys.Customer("ari-guest")
	res := hold(t, sys, "ari-1", holdBody(guest, hotel, "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	res = cancel(t, sys, guest, res.Body["id"].(string))
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool { return roomsLeft(t, sys, hotel, "double", stay) == 3 }, 20*time.Second,
		50*time.Millisecond, "the cancelled hold's room is back")
	res = sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/"+hotel+"/room-types/double/rates",
		map[string]any{"from": stay.CheckIn, "to": stay.CheckOut, "rate": 12000, "currency": "EUR"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)

	// the hold and its release, then the rate: in that order, after whatever the export already
	// showed (a change of a transaction younger than one in flight then may come again)
	var page testsuite.Response
	require.Eventually(t, func() bool {
		page = sys.Admin(t, http.MethodGet, ari+"/changes?since="+cursor, nil)
		require.Equal(t, http.StatusOK, page.Status, page.Raw)
		kinds := ariKinds(page)
		return len(kinds) >= 3 && kinds[len(kinds)-1] == "rate double/"
	}, 30*time.Second, 50*time.Millisecond, "the feed lists the rate change")
	kinds := ariKinds(page)
	assert.Equal(t, []string{"availability double/", "availability double/", "rate double/"}, kinds[len(kinds)-3:], page.Raw)
	last := page.Body["changes"].([]any)[len(kinds)-1].(map[string]any)
	assert.Equal(t, stay.CheckIn.String(), last["from"])
	assert.Equal(t, stay.CheckOut.String(), last["to"])
	next := page.Body["next"].(string)
	assert.Equal(t, last["cursor"], next)

	export = sys.Admin(t, http.MethodGet, exportPath+"&ratePlan=NR", nil)
	require.Equal(t, http.StatusOK, export.Status, export.Raw)
	assert.Equal(t, []float64{3, 3}, ariRooms(t, export, "double"), "the cancelled room is back")
	assert.Equal(t, float64(10800), ariPlanDay(t, export, "double", "NR", 1)["amount"], "NR follows BAR's new rate")

	// nothing new: the page's ETag answers 304; a restriction written: 200 with it
	poll := ari + "/changes?since=" + next
	empty := sys.Admin(t, http.MethodGet, poll, nil)
	require.Equal(t, http.StatusOK, empty.Status, empty.Raw)
	assert.Empty(t, empty.Body["changes"])
	assert.Equal(t, next, empty.Body["next"])
	etag := empty.Header.Get("ETag")
	assert.Equal(t, fmt.Sprintf(`"ari.%s.%s.500"`, hotel, next), etag)
	notModified := sys.Do(t, http.MethodGet, poll, map[string]string{"Authorization": "Bearer " + sys.AdminToken,
		"If-None-Match": etag}, nil)
	assert.Equal(t, http.StatusNotModified, notModified.Status, notModified.Raw)
	assert.Empty(t, notModified.Raw)

	res = sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/"+hotel+"/restrictions", map[string]any{"items": []any{
		map[string]any{"roomTypeId": "double", "ratePlan": "NR", "from": stay.CheckIn, "to": stay.CheckIn.AddDays(1),
			"closedToArrival": true}}})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool {
		page = sys.Do(t, http.MethodGet, poll, map[string]string{"Authorization": "Bearer " + sys.AdminToken,
			"If-None-Match": etag}, nil)
		return page.Status == http.StatusOK
	}, 30*time.Second, 50*time.Millisecond, "the restriction ends the 304s")
	assert.Equal(t, []string{"restriction double/NR"}, ariKinds(page))
	assert.NotEqual(t, etag, page.Header.Get("ETag"))

	// the retention passes the export's cursor: 410, export again
	_, err := sys.DB.Pool.Exec(context.Background(), `UPDATE ari_changes SET created_at = now() - interval '8 days'`)
	require.NoError(t, err)
	_, err = sys.DB.Store.PruneARIChanges(context.Background(), 7*24*time.Hour, 1000)
	require.NoError(t, err)
	gone := sys.Admin(t, http.MethodGet, ari+"/changes?since="+cursor, nil)
	assert.Equal(t, http.StatusGone, gone.Status, gone.Raw)
	assert.Equal(t, "cursor_gone", gone.ErrorCode())
	bad := sys.Admin(t, http.MethodGet, ari+"/changes", nil)
	assert.Equal(t, http.StatusBadRequest, bad.Status, bad.Raw)
}
