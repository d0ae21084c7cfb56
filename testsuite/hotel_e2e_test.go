package testsuite_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

func TestMain(m *testing.M) {
	testsuite.RunWorkerProcessIfAsked()
	code := m.Run()
	testsuite.StopTemporal()
	os.Exit(code)
}

// stayFromNow returns a stay starting days from today (UTC) for nights nights.
func stayFromNow(days, nights int) domain.Stay {
	in := domain.DateOf(time.Now(), time.UTC).AddDays(days)
	return domain.Stay{CheckIn: in, CheckOut: in.AddDays(nights)}
}

// openRooms opens a room type for the stay's nights through the admin API.
func openRooms(t *testing.T, sys *testsuite.System, hotel, roomType string, stay domain.Stay, total int) {
	t.Helper()
	res := sys.Admin(t, http.MethodPut, fmt.Sprintf("/api/v1/admin/hotels/%s/room-types/%s/inventory", hotel, roomType),
		map[string]any{"from": stay.CheckIn, "to": stay.CheckOut, "totalRooms": total,
			"rate": testsuite.TestRate.Amount, "currency": testsuite.TestRate.Currency})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
}

func holdBody(customer, hotel, roomType string, stay domain.Stay, qty int) map[string]any {
	return map[string]any{"customerId": customer, "hotelId": hotel, "roomTypeId": roomType,
		"checkIn": stay.CheckIn, "checkOut": stay.CheckOut, "quantity": qty}
}

// hold asks for a hold as the customer the body names.
func hold(t *testing.T, sys *testsuite.System, key string, body map[string]any) testsuite.Response {
	t.Helper()
	return sys.Guest(t, body["customerId"].(string)).Do(t, http.MethodPost, "/api/v1/bookings",
		map[string]string{"Idempotency-Key": key}, body)
}

// staffView reads a booking as staff see it.
func staffView(t *testing.T, sys *testsuite.System, id string) testsuite.Response {
	t.Helper()
	return sys.Admin(t, http.MethodGet, "/api/v1/staff/bookings/"+id, nil)
}

// cancel cancels a booking as its customer.
func cancel(t *testing.T, sys *testsuite.System, customer, id string) testsuite.Response {
	t.Helper()
	return sys.Guest(t, customer).Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/cancel", nil, nil)
}

// roomsLeft reads the availability endpoint: rooms left over the whole stay for the room type.
func roomsLeft(t *testing.T, sys *testsuite.System, hotel, roomType string, stay domain.Stay) int {
	t.Helper()
	res := sys.Guest(t, "searcher").Do(t, http.MethodGet, fmt.Sprintf("/api/v1/hotels/%s/availability?checkIn=%s&checkOut=%s",
		hotel, stay.CheckIn, stay.CheckOut), nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	for _, rt := range res.Body["roomTypes"].([]any) {
		m := rt.(map[string]any)
		if m["roomTypeId"] == roomType {
			return int(m["available"].(float64))
		}
	}
	t.Fatalf("room type %s not in %s", roomType, res.Raw)
	return 0
}

// workflowsWithStatus counts the workflows of this system's hotel that operators would find in
// the Temporal UI with BookingStatus = status.
func workflowsWithStatus(t *testing.T, sys *testsuite.System, hotel, status string) int {
	t.Helper()
	res, err := sys.Temporal.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
		Query: fmt.Sprintf(`BookingStatus = %q AND HotelId = %q`, status, hotel)})
	require.NoError(t, err)
	return len(res.Executions)
}

func TestHoldThenConfirm(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(30, 3)
	openRooms(t, sys, "h-confirm", "double", stay, 4)

	res := hold(t, sys, "key-1", holdBody(sys.Customer("guest-1"), "h-confirm", "double", stay, 2))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	assert.Equal(t, "HOLD", res.Body["status"])
	assert.Equal(t, float64(3), res.Body["nights"])
	expires, err := time.Parse(time.RFC3339Nano, res.Body["expiresAt"].(string))
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now().Add(10*time.Minute), expires, time.Minute)
	id := res.Body["id"].(string)
	assert.Equal(t, 2, roomsLeft(t, sys, "h-confirm", "double", stay), "rooms are taken when the hold is created")

	res = sys.Admin(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/confirm", nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "CONFIRMED", res.Body["status"])

	res = sys.Guest(t, sys.Customer("guest-1")).Do(t, http.MethodGet, "/api/v1/bookings/"+id, nil, nil)
	require.Equal(t, http.StatusOK, res.Status)
	assert.Equal(t, "CONFIRMED", res.Body["status"])
	assert.Equal(t, 2, roomsLeft(t, sys, "h-confirm", "double", stay))
	sys.DB.AssertInventoryMatchesBookings(t)
	assert.Eventually(t, func() bool { return workflowsWithStatus(t, sys, "h-confirm", "CONFIRMED") == 1 },
		10*time.Second, 200*time.Millisecond, "operators can filter by BookingStatus and HotelId")

	// Cancelling after confirmation gives the nights back.
	res = cancel(t, sys, sys.Customer("guest-1"), id)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "CANCELLED", res.Body["status"])
	assert.Equal(t, 4, roomsLeft(t, sys, "h-confirm", "double", stay))
	sys.DB.AssertInventoryMatchesBookings(t)
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "hold-confirm-cancel")
}

func TestHoldExpiresAndNightsReturn(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{HoldTTL: 2 * time.Second})
	stay := stayFromNow(10, 2)
	openRooms(t, sys, "h-expire", "single", stay, 1)

	res := hold(t, sys, "key-1", holdBody(sys.Customer("guest-1"), "h-expire", "single", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	assert.Equal(t, 0, roomsLeft(t, sys, "h-expire", "single", stay))

	require.Eventually(t, func() bool {
		return staffView(t, sys, id).Body["status"] == "EXPIRED"
	}, 20*time.Second, 100*time.Millisecond)
	assert.Equal(t, 1, roomsLeft(t, sys, "h-expire", "single", stay), "the expired hold gave its night back")

	res = sys.Admin(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/confirm", nil)
	assert.Equal(t, http.StatusConflict, res.Status, "a confirmation after expiry does not confirm: %s", res.Raw)
	assert.Contains(t, res.Raw, "EXPIRED")
	sys.DB.AssertInventoryMatchesBookings(t)
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "hold-expire")
}

func TestCancelDuringHold(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(5, 1)
	openRooms(t, sys, "h-cancel", "double", stay, 2)

	res := hold(t, sys, "key-1", holdBody(sys.Customer("guest-1"), "h-cancel", "double", stay, 2))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	res = cancel(t, sys, sys.Customer("guest-1"), res.Body["id"].(string))
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "CANCELLED", res.Body["status"])
	assert.Equal(t, 2, roomsLeft(t, sys, "h-cancel", "double", stay))
}

func TestIdempotentRetries(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(20, 2)
	openRooms(t, sys, "h-idem", "double", stay, 10)
	body := holdBody(sys.Customer("guest-1"), "h-idem", "double", stay, 1)

	first := hold(t, sys, "key-1", body)
	require.Equal(t, http.StatusCreated, first.Status, first.Raw)
	again := hold(t, sys, "key-1", body)
	require.Equal(t, http.StatusCreated, again.Status, again.Raw)
	assert.Equal(t, first.Body["id"], again.Body["id"])
	assert.Equal(t, first.Body["expiresAt"], again.Body["expiresAt"])

	changed := holdBody(sys.Customer("guest-1"), "h-idem", "double", stay, 2)
	res := hold(t, sys, "key-1", changed)
	assert.Equal(t, http.StatusUnprocessableEntity, res.Status, res.Raw)
	assert.Equal(t, "idempotency_key_reused", res.ErrorCode())

	// Ten concurrent requests with one new key create one booking.
	var wg sync.WaitGroup
	ids := make([]any, 10)
	statuses := make([]int, 10)
	for i := range 10 {
		wg.Go(func() {
			r := hold(t, sys, "key-2", body)
			ids[i], statuses[i] = r.Body["id"], r.Status
		})
	}
	wg.Wait()
	for i := range 10 {
		assert.Equal(t, http.StatusCreated, statuses[i])
		assert.Equal(t, ids[0], ids[i])
	}
	assert.Equal(t, 8, roomsLeft(t, sys, "h-idem", "double", stay), "two keys, two rooms")
	sys.DB.AssertInventoryMatchesBookings(t)
}

func TestSoldOutIs409(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(40, 3)
	openRooms(t, sys, "h-sold", "suite", stay, 1)

	res := hold(t, sys, "key-1", holdBody(sys.Customer("guest-1"), "h-sold", "suite", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	res = hold(t, sys, "key-2", holdBody(sys.Customer("guest-2"), "h-sold", "suite", stay, 1))
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Equal(t, "unavailable", res.ErrorCode())
	// The refusal is remembered under its key.
	res = hold(t, sys, "key-2", holdBody(sys.Customer("guest-2"), "h-sold", "suite", stay, 1))
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	sys.DB.AssertInventoryMatchesBookings(t)
}

func TestBadInputIsRefusedAndWritesNothing(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(3, 2)
	openRooms(t, sys, "h-bad", "double", stay, 5)
	today := domain.DateOf(time.Now(), time.UTC)
	key := map[string]string{"Idempotency-Key": "k"}
	valid := func(change func(m map[string]any)) map[string]any {
		m := holdBody(sys.Customer("guest-1"), "h-bad", "double", stay, 1)
		change(m)
		return m
	}

	cases := []struct {
		name    string
		headers map[string]string
		body    any
		status  int
	}{
		{"malformed JSON", key, `{"customerId": `, 400},
		{"not an object", key, `[1,2]`, 400},
		{"empty body", key, ``, 400},
		{"unknown field", key, valid(func(m map[string]any) { m["price"] = 1 }), 400},
		{"missing Idempotency-Key", nil, valid(func(map[string]any) {}), 400},
		{"checkOut equals checkIn", key, valid(func(m map[string]any) { m["checkOut"] = stay.CheckIn }), 400},
		{"checkOut before checkIn", key, valid(func(m map[string]any) { m["checkOut"] = stay.CheckIn.AddDays(-1) }), 400},
		{"bad date", key, valid(func(m map[string]any) { m["checkIn"] = "2030-02-30" }), 400},
		{"quantity 0", key, valid(func(m map[string]any) { m["quantity"] = 0 }), 400},
		{"quantity negative", key, valid(func(m map[string]any) { m["quantity"] = -3 }), 400},
		{"quantity absurd", key, valid(func(m map[string]any) { m["quantity"] = 1_000_000 }), 400},
		{"quantity overflows", key, `{"customerId":"g-1","hotelId":"h-bad","roomTypeId":"double","checkIn":"` +
			stay.CheckIn.String() + `","checkOut":"` + stay.CheckOut.String() + `","quantity":1e40}`, 400},
		{"stay too long", key, valid(func(m map[string]any) { m["checkOut"] = stay.CheckIn.AddDays(31) }), 400},
		{"check-in in the past", key, valid(func(m map[string]any) {
			m["checkIn"], m["checkOut"] = today.AddDays(-2), today.AddDays(1)
		}), 400},
		{"beyond the sale horizon", key, valid(func(m map[string]any) {
			m["checkIn"], m["checkOut"] = today.AddDays(400), today.AddDays(401)
		}), 400},
		{"another customer's id", key, valid(func(m map[string]any) { m["customerId"] = "someone-else" }), 403},
		{"unknown hotel", key, valid(func(m map[string]any) { m["hotelId"] = "nowhere" }), 404},
		{"unknown room type", key, valid(func(m map[string]any) { m["roomTypeId"] = "igloo" }), 404},
	}
	guest := sys.Guest(t, sys.Customer("guest-1"))
	for _, c := range cases {
		res := guest.Do(t, http.MethodPost, "/api/v1/bookings", c.headers, c.body)
		assert.Equal(t, c.status, res.Status, "%s: %s", c.name, res.Raw)
		assert.NotEmpty(t, res.ErrorCode(), "%s: every error has a code: %s", c.name, res.Raw)
	}

	other := []struct {
		name, method, path string
		as                 string // guest, admin or nobody
		body               any
		status             int
	}{
		{"availability without dates", "GET", "/api/v1/hotels/h-bad/availability", "guest", nil, 400},
		{"availability of unknown hotel", "GET", "/api/v1/hotels/nowhere/availability?checkIn=" + stay.CheckIn.String() + "&checkOut=" + stay.CheckOut.String(), "guest", nil, 404},
		{"unknown booking", "GET", "/api/v1/bookings/booking-xyz", "guest", nil, 404},
		{"confirm unknown booking", "POST", "/api/v1/staff/bookings/booking-xyz/confirm", "admin", nil, 404},
		{"confirm as a customer", "POST", "/api/v1/staff/bookings/booking-xyz/confirm", "guest", nil, 403},
		{"admin without token", "PUT", "/api/v1/admin/hotels/h-bad/room-types/double/inventory", "nobody",
			map[string]any{"from": stay.CheckIn, "to": stay.CheckOut, "totalRooms": 1}, 401},
		{"admin without totalRooms", "PUT", "/api/v1/admin/hotels/h-bad/room-types/double/inventory", "admin",
			map[string]any{"from": stay.CheckIn, "to": stay.CheckOut}, 400},
		{"admin with a bad time zone", "PUT", "/api/v1/admin/hotels/h-new/room-types/double/inventory", "admin",
			map[string]any{"from": stay.CheckIn, "to": stay.CheckOut, "totalRooms": 1, "timeZone": "Mars/Olympus"}, 400},
		{"unknown route", "GET", "/api/v1/nothing", "nobody", nil, 404},
	}
	for _, c := range other {
		var res testsuite.Response
		switch c.as {
		case "admin":
			res = sys.Admin(t, c.method, c.path, c.body)
		case "guest":
			res = guest.Do(t, c.method, c.path, nil, c.body)
		default:
			res = sys.Do(t, c.method, c.path, nil, c.body)
		}
		assert.Equal(t, c.status, res.Status, "%s: %s", c.name, res.Raw)
		assert.NotEmpty(t, res.ErrorCode(), "%s: %s", c.name, res.Raw)
	}

	var bookings int
	require.NoError(t, sys.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM bookings`).Scan(&bookings))
	assert.Zero(t, bookings, "refused requests write nothing")
	var hotels int
	require.NoError(t, sys.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM hotels`).Scan(&hotels))
	assert.Equal(t, 1, hotels, "the refused admin call created no hotel")
	assert.Equal(t, 5, roomsLeft(t, sys, "h-bad", "double", stay))
}

func TestLoweringTotalBelowReservedIs409(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(8, 2)
	openRooms(t, sys, "h-lower", "double", stay, 3)
	res := hold(t, sys, "key-1", holdBody(sys.Customer("guest-1"), "h-lower", "double", stay, 2))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)

	res = sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/h-lower/room-types/double/inventory",
		map[string]any{"from": stay.CheckIn, "to": stay.CheckOut, "totalRooms": 1})
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Equal(t, 1, roomsLeft(t, sys, "h-lower", "double", stay), "nothing changed")
}

func TestHealth(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	assert.Equal(t, http.StatusOK, sys.Do(t, http.MethodGet, "/healthz", nil, nil).Status)
	res := sys.Do(t, http.MethodGet, "/readyz", nil, nil)
	assert.Equal(t, http.StatusOK, res.Status, res.Raw)
}

// TestUpdatesThatChangeNothingAreNotWrittenToHistory: Temporal caps an execution's updates, so a
// client repeating a cancel or a hold must not fill the booking's history. Rejected updates are
// not stored; the answers stay what they were.
func TestUpdatesThatChangeNothingAreNotWrittenToHistory(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(6, 1)
	openRooms(t, sys, "h-noop", "double", stay, 2)
	guest := sys.Customer("guest")
	body := holdBody(guest, "h-noop", "double", stay, 1)
	res := hold(t, sys, "k1", body)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	require.Equal(t, http.StatusOK, cancel(t, sys, guest, id).Status)
	before := historyLength(t, sys, id)

	for range 20 {
		res := cancel(t, sys, guest, id)
		require.Equal(t, http.StatusOK, res.Status, "cancelling again is answered as the first time: %s", res.Raw)
		assert.Equal(t, "CANCELLED", res.Body["status"])
		res = hold(t, sys, "k1", body)
		require.Equal(t, http.StatusOK, res.Status, "a retry after the hold moved on: %s", res.Raw)
		assert.Equal(t, "CANCELLED", res.Body["status"])
		res = sys.Admin(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/confirm", nil)
		require.Equal(t, http.StatusConflict, res.Status, res.Raw)
	}
	assert.Equal(t, before, historyLength(t, sys, id), "60 requests that changed nothing wrote nothing")
	changed := holdBody(guest, "h-noop", "double", stay, 2)
	assert.Equal(t, http.StatusUnprocessableEntity, hold(t, sys, "k1", changed).Status, "a different body under the key")
}

func historyLength(t *testing.T, sys *testsuite.System, id string) int {
	t.Helper()
	iter := sys.Temporal.GetWorkflowHistory(context.Background(), id, "", false, 0)
	n := 0
	for iter.HasNext() {
		_, err := iter.Next()
		require.NoError(t, err)
		n++
	}
	return n
}

// TestACancelMidStayReleasesOnlyTheNightsAfterToday: from check-in on a customer cannot cancel;
// a front desk's cancel is an early departure that keeps tonight sold and gives back the nights
// after it.
func TestACancelMidStayReleasesOnlyTheNightsAfterToday(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(0, 3) // checks in today (the hotel is on UTC)
	openRooms(t, sys, "h-midstay", "double", stay, 1)
	guest := sys.Customer("guest")
	res := hold(t, sys, "k1", holdBody(guest, "h-midstay", "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	require.Equal(t, http.StatusOK, sys.Admin(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/confirm", nil).Status)

	res = cancel(t, sys, guest, id)
	assert.Equal(t, http.StatusConflict, res.Status, "the guest is sleeping in the room: %s", res.Raw)
	assert.Equal(t, "stay_started", res.ErrorCode())
	assert.Equal(t, []int{1, 1, 1}, sys.DB.Reserved(t, "h-midstay", "double", stay), "nothing was released")

	desk := sys.As(t, domain.Principal{Subject: "desk", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-midstay"}})
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/cancel", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "CONFIRMED", res.Body["status"], "an early departure, not a cancellation")
	assert.Equal(t, stay.CheckIn.AddDays(1).String(), res.Body["checkOut"], "the guest leaves tomorrow morning")
	assert.Equal(t, []int{1, 0, 0}, sys.DB.Reserved(t, "h-midstay", "double", stay), "tonight stays sold, the rest is back on sale")
	sys.DB.AssertInventoryMatchesBookings(t)

	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/cancel", nil, nil)
	assert.Equal(t, http.StatusOK, res.Status, "asking again changes nothing: %s", res.Raw)
	assert.Equal(t, []int{1, 0, 0}, sys.DB.Reserved(t, "h-midstay", "double", stay))
}

// TestAHoldNeverCommitsAfterTheAPIGaveUp: a night locked by someone else keeps the reservation
// retrying past the API's wait (503 pending). When the lock goes, the abandoned reservation must
// not take the room for nobody: it ends without a hold, and the room stays on sale.
// The reservation runs as a local activity by default, and as an activity with
// RESERVE_LOCAL_ACTIVITY=false; both hold, confirm and give back the same.
func TestTheReservationRunsAsALocalActivityOrAsAnActivity(t *testing.T) {
	t.Parallel()
	for _, asActivity := range []bool{false, true} {
		t.Run(fmt.Sprintf("as an activity %v", asActivity), func(t *testing.T) {
			t.Parallel()
			sys := testsuite.NewSystem(t, testsuite.SystemOptions{ReserveAsActivity: asActivity})
			stay := stayFromNow(20, 2)
			openRooms(t, sys, "h-mode", "double", stay, 3)

			res := hold(t, sys, "key-1", holdBody(sys.Customer("guest-1"), "h-mode", "double", stay, 2))
			require.Equal(t, http.StatusCreated, res.Status, res.Raw)
			id := res.Body["id"].(string)
			assert.Equal(t, 1, roomsLeft(t, sys, "h-mode", "double", stay))
			res = sys.Admin(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/confirm", nil)
			require.Equal(t, http.StatusOK, res.Status, res.Raw)
			res = cancel(t, sys, sys.Customer("guest-1"), id)
			require.Equal(t, http.StatusOK, res.Status, res.Raw)
			assert.Equal(t, 3, roomsLeft(t, sys, "h-mode", "double", stay))
			sys.DB.AssertInventoryMatchesBookings(t)

			scheduled, markers := 0, 0
			iter := sys.Temporal.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for iter.HasNext() {
				ev, err := iter.Next()
				require.NoError(t, err)
				if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.ActivityType.GetName() == "Reserve" {
					scheduled++
				}
				if m := ev.GetMarkerRecordedEventAttributes(); m.GetMarkerName() == "LocalActivity" &&
					strings.Contains(string(m.GetDetails()["data"].GetPayloads()[0].GetData()), `"ActivityType":"Reserve"`) {
					markers++ // the confirmation is a local activity too
				}
			}
			if asActivity {
				assert.Equal(t, []int{1, 0}, []int{scheduled, markers}, "Reserve scheduled as an activity")
			} else {
				assert.Equal(t, []int{0, 1}, []int{scheduled, markers}, "Reserve run as a local activity")
			}
			testsuite.ReplayAndRecord(t, sys.Temporal, id, fmt.Sprintf("hold-confirm-cancel-reserve-as-activity-%v", asActivity))
		})
	}
}

func TestAHoldNeverCommitsAfterTheAPIGaveUp(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{WorkflowTimeout: 2 * time.Second})
	stay := stayFromNow(14, 1)
	openRooms(t, sys, "h-ghost", "double", stay, 1)
	ctx := context.Background()
	tx, err := sys.DB.Pool.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `SELECT 1 FROM inventory FOR UPDATE`) // a long transaction elsewhere
	require.NoError(t, err)

	res := hold(t, sys, "k1", holdBody(sys.Customer("guest"), "h-ghost", "double", stay, 1))
	assert.Equal(t, http.StatusServiceUnavailable, res.Status, "the API stops waiting: %s", res.Raw)
	time.Sleep(2 * time.Second) // the reservation is still retrying behind the lock
	require.NoError(t, tx.Rollback(ctx))

	id := sys.BookingID(sys.Customer("guest"), sys.Customer("guest"), "k1")
	require.Eventually(t, func() bool {
		st := staffView(t, sys, id).Body["status"]
		return st == "REJECTED" || st == "EXPIRED"
	}, 20*time.Second, 100*time.Millisecond, "the abandoned reservation ends without a hold")
	time.Sleep(3 * time.Second) // give a stray attempt every chance to commit
	assert.Equal(t, []int{0}, sys.DB.Reserved(t, "h-ghost", "double", stay), "the room was never taken for nobody")
	assert.Equal(t, 1, roomsLeft(t, sys, "h-ghost", "double", stay))
	sys.DB.AssertInventoryMatchesBookings(t)
}
