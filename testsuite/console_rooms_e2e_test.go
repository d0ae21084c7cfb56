package testsuite_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// TestConsoleRoomsAssignMoveAndOutOfOrder (issue 39, rooms): a hotel's doubles are 101 to 104.
// On a two-night stay's page the desk is offered only the free rooms (not 102, another guest's
// tonight), puts the guest in 101, is refused a night outside the stay in a sentence with the
// form as typed, and moves the guest to 103 from the second night. On the hotel's day the arrival
// shows its room, and the rooms panel shows 101 and 102 occupied (linked to their bookings), 103
// free; the desk puts 104 out of order with a reason, is refused 101 (a guest is in it) with the
// form as typed, in English and in Chinese, and puts 104 back in order; another hotel's desk may
// not. Every page passes axe.
func TestConsoleRoomsAssignMoveAndOutOfOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	hotel := "h-rooms"
	s, today, desk := hotelDesk(t, hotel, 4)
	res := s.Admin(t, http.MethodPut, "/api/v1/admin/hotels/"+hotel+"/room-types/double/rooms",
		map[string]any{"numbers": []string{"101", "102", "103", "104"}})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	guest := bookRoom(t, desk, hotel, "+447700900301", today, 2, 0)
	res = desk.Do(t, http.MethodPut, "/api/v1/staff/bookings/"+guest+"/guest", nil, map[string]any{"name": "Ada Lovelace"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	other := bookRoom(t, desk, hotel, "+447700900302", today, 1, 0)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+other+"/rooms", nil, map[string]any{"room": "102"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)

	blocked := func() (nights []int) { // the doubles' blocked rooms from tonight, four nights
		require.NoError(t, s.DB.Pool.QueryRow(ctx, `SELECT array_agg(i.blocked ORDER BY i.unit_start) FROM inventory i
			JOIN resources r ON r.id = i.resource_id WHERE r.hotel_id = $1 AND i.unit_start >= $2 AND i.unit_start < $3`,
			hotel, today.Time(), today.AddDays(4).Time()).Scan(&nights))
		return nights
	}

	b := testsuite.NewBrowser(t, "rooms")
	b.DevSignIn(s, "desk-rooms", "front_desk", "hotel:"+hotel)
	b.Visit(s.ConsoleURL() + "/bookings/" + guest)
	assert.Contains(t, b.Text("#room-none"), "No room assigned yet")
	offered := b.Text("#room-pick")
	assert.Contains(t, offered, "101")
	assert.NotContains(t, offered, "102", "102 is another guest's tonight")
	b.AssertAccessible(t, "booking room")
	b.Do(chromedp.SetValue(chromedp.ID("room-pick"), "101"))
	b.Submit("#assign-room")
	assert.Contains(t, b.Text("main"), "The guest is in room 101")
	assert.Contains(t, b.Text("#booking-rooms"), "101\t"+today.String()+" → "+today.AddDays(2).String())

	// A night outside the stay: a sentence for staff, the form as typed, nothing changed.
	b.Do(chromedp.SetValue(chromedp.ID("room-pick"), "103"), chromedp.SetValue(chromedp.ID("room-from"), today.AddDays(5).String()))
	b.Submit("#assign-room")
	assert.Equal(t, "That night is not a night of the stay.", b.Text("#room-refused"))
	assert.Equal(t, today.AddDays(5).String(), b.Attr("#room-from", "value"), "the form keeps what was typed")
	b.Screenshot("room-refused")
	b.AssertAccessible(t, "booking room refused")

	// The guest moves to 103 from the second night: 101 ends the night before.
	b.Visit(s.ConsoleURL() + "/bookings/" + guest)
	b.Do(chromedp.SetValue(chromedp.ID("room-pick"), "103"), chromedp.SetValue(chromedp.ID("room-from"), today.AddDays(1).String()))
	b.Submit("#assign-room")
	rooms := b.Text("#booking-rooms")
	assert.Contains(t, rooms, "101\t"+today.String()+" → "+today.AddDays(1).String())
	assert.Contains(t, rooms, "103\t"+today.AddDays(1).String()+" → "+today.AddDays(2).String())
	b.Screenshot("room-moved")

	// The day: the arrival's room, and every room free, occupied or out of order.
	b.Visit(s.ConsoleURL() + "/hotels/" + hotel + "/day")
	assert.Equal(t, "101", b.Text("#arrivals-room-"+guest))
	assert.Equal(t, "occupied", b.Attr("#room-101", "data-state"))
	assert.Contains(t, b.Text("#room-101"), "Ada Lovelace")
	assert.Equal(t, "/console/bookings/"+guest, b.Attr("#room-101 a", "href"))
	assert.Equal(t, "occupied", b.Attr("#room-102", "data-state"))
	assert.Equal(t, "/console/bookings/"+other, b.Attr("#room-102 a", "href"))
	assert.Equal(t, "free", b.Attr("#room-103", "data-state"))
	b.Do(chromedp.SetValue(chromedp.ID("ooo-room"), "104"), chromedp.SetValue(chromedp.ID("ooo-to"), today.AddDays(3).String()),
		chromedp.SetValue(chromedp.ID("ooo-reason"), "Leak in the bathroom"))
	b.Submit("#put-out-of-order")
	assert.Contains(t, b.Text("main"), "Room 104 is out of order from "+today.String()+" to "+today.AddDays(3).String())
	assert.Equal(t, "out-of-order", b.Attr("#room-104", "data-state"))
	assert.Contains(t, b.Text("#room-104"), "Leak in the bathroom")
	assert.Equal(t, "free", b.Attr("#room-103", "data-state"))
	b.AssertAccessible(t, "hotel day rooms")
	b.Screenshot("hotel-rooms")
	assert.Equal(t, []int{1, 1, 1, 0}, blocked(), "a room out of order is a blocked room on each of its nights")

	// 101 has a guest: refused in a sentence, the form as typed, in English and in Chinese.
	refuse := func() {
		b.Do(chromedp.SetValue(chromedp.ID("ooo-room"), "101"), chromedp.SetValue(chromedp.ID("ooo-reason"), "Paint"))
		b.Submit("#put-out-of-order")
		assert.Equal(t, "101", b.Attr("#ooo-room option[selected]", "value"))
		assert.Equal(t, "Paint", b.Attr("#ooo-reason", "value"), "the form keeps what was typed")
	}
	refuse()
	assert.Equal(t, "A guest is in that room on one of those nights: move them to another room first.", b.Text("#rooms-refused"))
	b.AssertAccessible(t, "hotel day rooms refused")
	b.Do(chromedp.SetValue(chromedp.ID("lang"), "zh-Hans"))
	b.Submit(`form[action="/console/language"] button`)
	b.Visit(s.ConsoleURL() + "/hotels/" + hotel + "/day")
	refuse()
	assert.Equal(t, "该房间在其中某晚有客人入住：请先为客人换房。", b.Text("#rooms-refused"))
	b.Screenshot("hotel-rooms-refused-zh")
	b.Do(chromedp.SetValue(chromedp.ID("lang"), "en"))
	b.Submit(`form[action="/console/language"] button`)

	// 104 back in order from tonight: free again, nothing blocked.
	b.Visit(s.ConsoleURL() + "/hotels/" + hotel + "/day")
	b.Submit("#back-in-order-104")
	assert.Contains(t, b.Text("main"), "Room 104 is back in order: 3 night(s).")
	assert.Equal(t, "free", b.Attr("#room-104", "data-state"))
	assert.Equal(t, []int{0, 0, 0, 0}, blocked())
	res = deskOf(t, s, []string{"h-elsewhere"}, nil).Do(t, http.MethodPost, "/api/v1/staff/hotels/"+hotel+"/rooms/103/out-of-order",
		nil, map[string]any{"from": today, "to": today.AddDays(1), "reason": "Leak"})
	assert.Equal(t, http.StatusForbidden, res.Status, "another hotel's desk: %s", res.Raw)
	var reason string
	require.NoError(t, s.DB.Pool.QueryRow(ctx, `SELECT reason FROM audit_log WHERE action = 'room-out-of-order'`).Scan(&reason))
	assert.Equal(t, "Leak in the bathroom", reason, "audited with its reason")
}
