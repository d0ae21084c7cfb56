package testsuite_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/workflows"
)

// joinWaitlist joins a product's waitlist as the customer the body names.
func joinWaitlist(t *testing.T, sys *testsuite.System, body map[string]any) testsuite.Response {
	t.Helper()
	return sys.Guest(t, body["customerId"].(string)).Do(t, http.MethodPost, "/api/v1/waitlist", nil, body)
}

// waitlistEntry reads one of the customer's entries from GET /me/waitlist.
func waitlistEntry(t *testing.T, sys *testsuite.System, customer string, id float64) map[string]any {
	t.Helper()
	res := sys.Guest(t, customer).Do(t, http.MethodGet, "/api/v1/me/waitlist", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	for _, e := range res.Body["entries"].([]any) {
		if m := e.(map[string]any); m["id"] == id {
			return m
		}
	}
	t.Fatalf("entry %v not in %s", id, res.Raw)
	return nil
}

// awaitEntry waits until the customer's entry has status (and, when closed, reason).
func awaitEntry(t *testing.T, sys *testsuite.System, customer string, id float64, status, reason string) map[string]any {
	t.Helper()
	var e map[string]any
	require.Eventually(t, func() bool {
		e = waitlistEntry(t, sys, customer, id)
		return e["status"] == status && (reason == "" || e["closedReason"] == reason)
	}, 20*time.Second, 50*time.Millisecond, "entry %v never became %s %s: %v", id, status, reason, e)
	return e
}

// awaitOfferWorkflow waits until the offer's booking workflow answers the staff view as HOLD.
func awaitOfferWorkflow(t *testing.T, sys *testsuite.System, id string) {
	t.Helper()
	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM waitlist_offer_starts WHERE booking_id = $1 AND started_at IS NOT NULL`, id) == 1
	}, 20*time.Second, 50*time.Millisecond, "the offer's workflow never started")
}

// TestAWaitlistOfferIsAHoldPaidAsAnyOther: a sold-out room freed by a cancel is held for the
// first in line, whose entry shows the offer; the second moves up. Paid by webhook, the offer
// confirms and its entry closes as booked; the give-back never put the room on public sale.
func TestAWaitlistOfferIsAHoldPaidAsAnyOther(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	subscribeToWaitlists(t, sys)
	hotel, stay := "wl-paid-"+sys.ID, stayFromNow(20, 2)
	openRooms(t, sys, hotel, "double", stay, 1)
	first, second := sys.Customer("first"), sys.Customer("second")
	res := hold(t, sys, "k", holdBody(sys.Customer("holder"), hotel, "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	taken := res.Body["id"].(string)

	res = joinWaitlist(t, sys, holdBody(first, hotel, "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	assert.EqualValues(t, 1, res.Body["place"])
	assert.Equal(t, "/api/v1/me/waitlist", res.Header.Get("Location"))
	entry := res.Body["id"].(float64)
	again := joinWaitlist(t, sys, holdBody(first, hotel, "double", stay, 1))
	assert.Equal(t, http.StatusOK, again.Status, "joining twice answers the same entry: %s", again.Raw)
	assert.Equal(t, entry, again.Body["id"])
	res = joinWaitlist(t, sys, holdBody(second, hotel, "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	next := res.Body["id"].(float64)
	assert.EqualValues(t, 2, res.Body["place"])

	require.Equal(t, http.StatusOK, cancel(t, sys, sys.Customer("holder"), taken).Status)
	e := awaitEntry(t, sys, first, entry, "offered", "")
	offer := e["offerBookingId"].(string)
	assert.NotEmpty(t, e["offerExpiresAt"])
	assert.Equal(t, 0, roomsLeft(t, sys, hotel, "double", stay), "the freed room went to the waitlist, not to sale")
	assert.EqualValues(t, 1, waitlistEntry(t, sys, second, next)["place"], "the second moved up")
	mine := sys.Guest(t, first).Do(t, http.MethodGet, "/api/v1/bookings/"+offer, nil, nil)
	require.Equal(t, http.StatusOK, mine.Status, mine.Raw)
	assert.Equal(t, "HOLD", mine.Body["status"])

	awaitOfferWorkflow(t, sys, offer)
	price := mine.Body["price"].(map[string]any)
	payAndConfirm(t, sys, offer, int64(price["total"].(float64)), "evt_wl_"+sys.ID, "pi_wl_"+sys.ID)
	awaitEntry(t, sys, first, entry, "closed", "booked")
	assert.Equal(t, "waiting", waitlistEntry(t, sys, second, next)["status"])
	testsuite.ReplayAndRecord(t, sys.Temporal, offer, "waitlist-offer-paid")
	assert.Equal(t, []any{"waitlist.joined", "waitlist.offered", "waitlist.closed"}, waitlistEvents(t, sys, entry))
	checkInvariants(t, sys)
}

// subscribeToWaitlists subscribes a receiver that answers 200 to every waitlist event.
func subscribeToWaitlists(t *testing.T, sys *testsuite.System) {
	t.Helper()
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	t.Cleanup(receiver.Close)
	subscribe(t, sys, "waitlists", receiver.URL, "waitlist.joined", "waitlist.offered", "waitlist.expired",
		"waitlist.declined", "waitlist.closed")
}

// waitlistEvents lists the event types queued for an entry, in order.
func waitlistEvents(t *testing.T, sys *testsuite.System, entry float64) []any {
	t.Helper()
	rows, err := sys.DB.Pool.Query(t.Context(), `SELECT type FROM event_deliveries WHERE booking_id = $1 ORDER BY id`,
		fmt.Sprintf("waitlist-%d", int64(entry)))
	require.NoError(t, err)
	var out []any
	for rows.Next() {
		var typ string
		require.NoError(t, rows.Scan(&typ))
		out = append(out, typ)
	}
	return out
}

// TestAnOfferExpiredOrDeclinedGoesToTheNextAtOnce: an offer not paid in its time goes to the next
// entry when its hold expires, not at a sweep; declined, the next one (none here) or public sale.
func TestAnOfferExpiredOrDeclinedGoesToTheNextAtOnce(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	subscribeToWaitlists(t, sys)
	hotel, stay := "wl-exp-"+sys.ID, stayFromNow(21, 2)
	openRooms(t, sys, hotel, "double", stay, 1)
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/"+hotel+"/waitlist-settings", map[string]any{"offerSeconds": 3, "fit": "skip"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/"+hotel+"/waitlist-settings", map[string]any{"offerSeconds": 0, "fit": "skip"})
	assert.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	res = hold(t, sys, "k", holdBody(sys.Customer("holder"), hotel, "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	taken := res.Body["id"].(string)
	slow, quick := sys.Customer("slow"), sys.Customer("quick")
	a := joinWaitlist(t, sys, holdBody(slow, hotel, "double", stay, 1)).Body["id"].(float64)
	b := joinWaitlist(t, sys, holdBody(quick, hotel, "double", stay, 1)).Body["id"].(float64)

	require.Equal(t, http.StatusOK, cancel(t, sys, sys.Customer("holder"), taken).Status)
	first := awaitEntry(t, sys, slow, a, "offered", "")["offerBookingId"].(string)
	awaitStatus(t, sys, first, "EXPIRED")
	awaitEntry(t, sys, slow, a, "closed", "offer_expired")
	awaitEntry(t, sys, quick, b, "offered", "")
	assert.Equal(t, 0, roomsLeft(t, sys, hotel, "double", stay), "the expired offer went to the next, not to sale")

	res = sys.Guest(t, slow).Do(t, http.MethodPost, fmt.Sprintf("/api/v1/me/waitlist/%d/decline", int64(b)), nil, nil)
	assert.Equal(t, http.StatusNotFound, res.Status, "another customer's entry: %s", res.Raw)
	res = sys.Guest(t, quick).Do(t, http.MethodDelete, fmt.Sprintf("/api/v1/me/waitlist/%d", int64(b)), nil, nil)
	assert.Equal(t, http.StatusConflict, res.Status, "an entry with a live offer is left by declining it: %s", res.Raw)
	res = sys.Guest(t, quick).Do(t, http.MethodPost, fmt.Sprintf("/api/v1/me/waitlist/%d/decline", int64(b)), nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "declined", res.Body["closedReason"])
	assert.Equal(t, 1, roomsLeft(t, sys, hotel, "double", stay), "nobody else waits: back on sale")
	assert.Equal(t, []any{"waitlist.joined", "waitlist.offered", "waitlist.expired", "waitlist.closed"}, waitlistEvents(t, sys, a))
	assert.Equal(t, []any{"waitlist.joined", "waitlist.offered", "waitlist.declined", "waitlist.closed"}, waitlistEvents(t, sys, b))
	checkInvariants(t, sys)
}

// TestAnEntryClosesWhenItsGuestIsBookedAtTheDesk: the desk books the guest part of the stay they
// wait for; confirmed, the entry closes.
func TestAnEntryClosesWhenItsGuestIsBookedAtTheDesk(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	hotel, stay := "wl-desk-"+sys.ID, stayFromNow(22, 3)
	openRooms(t, sys, hotel, "double", stay, 1)
	last := domain.Stay{CheckIn: stay.CheckIn.AddDays(2), CheckOut: stay.CheckOut}
	res := hold(t, sys, "k", holdBody(sys.Customer("holder"), hotel, "double", last, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	guest := sys.Customer("guest")
	res = joinWaitlist(t, sys, holdBody(guest, hotel, "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	entry := res.Body["id"].(float64)
	res = sys.Guest(t, guest).Do(t, http.MethodPost, "/api/v1/waitlist", nil, holdBody(sys.Customer("free"), hotel, "double",
		domain.Stay{CheckIn: stay.CheckIn, CheckOut: last.CheckIn}, 1))
	assert.Equal(t, http.StatusForbidden, res.Status, "someone else's entry: %s", res.Raw)
	res = sys.Guest(t, guest).Do(t, http.MethodPost, "/api/v1/waitlist", nil, holdBody(guest, hotel, "double",
		domain.Stay{CheckIn: stay.CheckIn, CheckOut: last.CheckIn}, 1))
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Equal(t, "on_sale", res.ErrorCode(), "the first nights can be held now")

	desk := sys.As(t, domain.Principal{Subject: "desk", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{hotel}})
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings", map[string]string{"Idempotency-Key": "d1"},
		holdBody(guest, hotel, "double", domain.Stay{CheckIn: stay.CheckIn, CheckOut: last.CheckIn}, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+res.Body["id"].(string)+"/confirm", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitEntry(t, sys, guest, entry, "closed", "booked_elsewhere")

	res = desk.Do(t, http.MethodGet, fmt.Sprintf("/api/v1/staff/waitlist?hotelId=%s&roomTypeId=double&checkIn=%s&checkOut=%s",
		hotel, stay.CheckIn, stay.CheckOut), nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Empty(t, res.Body["entries"], "no open entry is left")
	other := sys.As(t, domain.Principal{Subject: "desk2", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"elsewhere"}})
	res = other.Do(t, http.MethodGet, fmt.Sprintf("/api/v1/staff/waitlist?hotelId=%s&roomTypeId=double&checkIn=%s&checkOut=%s",
		hotel, stay.CheckIn, stay.CheckOut), nil, nil)
	assert.Equal(t, http.StatusForbidden, res.Status, res.Raw)
}

// TestAVenueSlotsWaitlistIsOfferedAndPaid: a court slot's waitlist gets the slot a cancel frees.
func TestAVenueSlotsWaitlistIsOfferedAndPaid(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	day := domain.DateOf(time.Now(), time.UTC).AddDays(6)
	venue := "wl-v-" + sys.ID
	openVenue(t, sys, venue, day, 24)
	holder, waiter := sys.Customer("holder"), sys.Customer("waiter")
	res := placeOrder(t, sys, venue, holder, "o1", hourLine("court-1", day, 9, 1, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	taken := res.Body["id"].(string)
	slot := hourLine("court-1", day, 9, 1, 1)
	res = joinWaitlist(t, sys, map[string]any{"customerId": waiter, "venueId": venue, "resourceId": "court-1",
		"start": slot["start"], "end": slot["end"], "quantity": 1})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	entry := res.Body["id"].(float64)

	require.Equal(t, http.StatusOK, cancel(t, sys, holder, taken).Status)
	offer := awaitEntry(t, sys, waiter, entry, "offered", "")["offerBookingId"].(string)
	view := staffView(t, sys, offer)
	assert.Equal(t, venue, view.Body["venueId"])
	awaitOfferWorkflow(t, sys, offer)
	payAndConfirm(t, sys, offer, 2000, "evt_wlv_"+sys.ID, "pi_wlv_"+sys.ID)
	awaitEntry(t, sys, waiter, entry, "closed", "booked")
	checkInvariants(t, sys)
}

// TestAnAgentsWaitlistEntryIsBookedOnItsChannel: an agent's entry, offered, is confirmed on its
// channel's account as the agent's own sale would be.
func TestAnAgentsWaitlistEntryIsBookedOnItsChannel(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_procure", testsuite.SystemOptions{})
	sys := w.sys
	hotel, stay := "wl-agent-"+sys.ID, stayFromNow(23, 2)
	openRooms(t, sys, hotel, "double", stay, 1)
	res := hold(t, sys, "k", holdBody(sys.Customer("holder"), hotel, "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	taken := res.Body["id"].(string)
	res = w.agent.Do(t, http.MethodPost, "/api/v1/agent/waitlist", nil,
		map[string]any{"hotelId": hotel, "roomTypeId": "double", "checkIn": stay.CheckIn, "checkOut": stay.CheckOut, "quantity": 1})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	assert.Equal(t, "wholesale", res.Body["channelId"])
	entry := res.Body["id"]

	require.Equal(t, http.StatusOK, cancel(t, sys, sys.Customer("holder"), taken).Status)
	var offer string
	require.Eventually(t, func() bool {
		res = w.agent.Do(t, http.MethodGet, fmt.Sprintf("/api/v1/agent/waitlist?hotelId=%s&roomTypeId=double&checkIn=%s&checkOut=%s",
			hotel, stay.CheckIn, stay.CheckOut), nil, nil)
		entries, _ := res.Body["entries"].([]any)
		if len(entries) == 0 {
			return true // closed once booked
		}
		e := entries[0].(map[string]any)
		offer, _ = e["offerBookingId"].(string)
		return false
	}, 20*time.Second, 50*time.Millisecond, res.Raw)
	require.NoError(t, sys.DB.Pool.QueryRow(t.Context(), `SELECT offer_booking_id FROM waitlist_entries WHERE id = $1`, entry).Scan(&offer))
	awaitStatus(t, sys, offer, "CONFIRMED")
	res = w.agent.Do(t, http.MethodGet, "/api/v1/agent/bookings/"+offer, nil, nil)
	require.Equal(t, http.StatusOK, res.Status, "the agent sees the offer as its own booking: %s", res.Raw)
	w.notified(t, offer, workflows.EventConfirmed)
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, offer, "waitlist-offer-agent-on-account")
}
