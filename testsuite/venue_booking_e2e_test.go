package testsuite_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// openVenue sets up venue id in UTC over HTTP, free to cancel until freeHours before a slot,
// with court-1, a 6-place lane-1 and 2 rackets, hourly from 07:00 to 12:00 on day, at 20.00 EUR
// a slot or racket-hour.
func openVenue(t *testing.T, sys *testsuite.System, id string, day domain.Date, freeHours int) {
	t.Helper()
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/venues/"+id, map[string]any{"timeZone": "UTC", "freeCancelHours": freeHours})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	for r, body := range map[string]map[string]any{
		"court-1": {"kind": "exclusive_slot", "sport": "badminton"},
		"lane-1":  {"kind": "quota_slot", "sport": "swimming", "capacity": 6},
		"rackets": {"kind": "equipment", "unit": "hour", "capacity": 2},
	} {
		res := sys.Admin(t, http.MethodPut, "/api/v1/admin/venues/"+id+"/resources/"+r, body)
		require.Equal(t, http.StatusCreated, res.Status, res.Raw)
		res = sys.Admin(t, http.MethodPost, "/api/v1/admin/venues/"+id+"/resources/"+r+"/schedule", map[string]any{
			"from": day, "to": day.AddDays(1), "opens": "07:00", "closes": "12:00", "slotMinutes": 60,
			"price": map[string]any{"amount": 2000, "currency": "EUR"}})
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
	}
}

func hourLine(resource string, day domain.Date, hour, hours, qty int) map[string]any {
	start := day.Time().Add(time.Duration(hour) * time.Hour)
	return map[string]any{"resourceId": resource, "start": start, "end": start.Add(time.Duration(hours) * time.Hour), "quantity": qty}
}

// placeOrder books at a venue as customer under key.
func placeOrder(t *testing.T, sys *testsuite.System, venue, customer, key string, lines ...map[string]any) testsuite.Response {
	t.Helper()
	return sys.Guest(t, customer).Do(t, http.MethodPost, "/api/v1/venues/"+venue+"/bookings",
		map[string]string{"Idempotency-Key": key}, map[string]any{"lines": lines})
}

// TestAVenueOrderIsBookedPaidAndCancelledThroughTheWorkflow: a court slot with two rackets is
// held through the booking workflow for the venue's payment window, paid by webhook and
// confirmed; cancelled inside the free window it is refunded whole and its units go back.
func TestAVenueOrderIsBookedPaidAndCancelledThroughTheWorkflow(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	day := domain.DateOf(time.Now(), time.UTC).AddDays(5)
	openVenue(t, sys, "v-book", day, 24)
	guest := sys.Customer("guest")

	res := placeOrder(t, sys, "v-book", guest, "o1", hourLine("court-1", day, 8, 1, 1), hourLine("rackets", day, 8, 1, 2))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	assert.Equal(t, "HOLD", res.Body["status"])
	assert.Equal(t, "v-book", res.Body["venueId"])
	price := res.Body["price"].(map[string]any)
	assert.EqualValues(t, 6000, price["total"], "a court slot and two racket-hours")
	assert.Len(t, price["lines"], 2)
	expires, err := time.Parse(time.RFC3339Nano, res.Body["expiresAt"].(string))
	require.NoError(t, err)
	assert.InDelta(t, 15*time.Minute, time.Until(expires), float64(time.Minute), "held for the venue's 15 minutes")
	id := res.Body["id"].(string)

	again := placeOrder(t, sys, "v-book", guest, "o1", hourLine("court-1", day, 8, 1, 1), hourLine("rackets", day, 8, 1, 2))
	assert.Equal(t, http.StatusCreated, again.Status, "a retry finds the same order, still held: %s", again.Raw)
	assert.Equal(t, id, again.Body["id"])
	other := placeOrder(t, sys, "v-book", guest, "o2", hourLine("court-1", day, 8, 1, 1))
	assert.Equal(t, http.StatusConflict, other.Status, other.Raw)
	assert.Equal(t, "already_ordered", other.ErrorCode(), "a second click under another key: %s", other.Raw)
	rackets := placeOrder(t, sys, "v-book", sys.Customer("late"), "o1", hourLine("rackets", day, 8, 1, 1))
	assert.Equal(t, http.StatusConflict, rackets.Status, rackets.Raw)
	assert.Equal(t, "unavailable", rackets.ErrorCode(), "both rackets are held")
	assert.NotRegexp(t, "room|night|stay", rackets.Raw, "a venue's refusal speaks of slots and items")

	payAndConfirm(t, sys, id, 6000, "evt_venue_"+sys.ID, "pi_venue_"+sys.ID)
	cancel := sys.Guest(t, guest).Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/cancel", nil, nil)
	require.Equal(t, http.StatusOK, cancel.Status, cancel.Raw)
	awaitStatus(t, sys, id, "REFUNDED")
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = $1 AND amount = 6000`, "pi_venue_"+sys.ID),
		"refunded whole")
	rackets = placeOrder(t, sys, "v-book", sys.Customer("late"), "o2", hourLine("rackets", day, 8, 1, 2))
	assert.Equal(t, http.StatusCreated, rackets.Status, "the rackets are back: %s", rackets.Raw)
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "venue-order-paid-cancelled-refunded")

	// The day's report has the payment and its refund, to the cent, as JSON and as CSV.
	finance := sys.As(t, domain.Principal{Subject: "fin", Roles: []domain.Role{domain.RoleFinance}})
	var today string // the day the payment was recorded (the test may run across midnight)
	require.NoError(t, sys.DB.Pool.QueryRow(context.Background(), `SELECT to_char(succeeded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')
		FROM payments WHERE payment_id = $1`, "pi_venue_"+sys.ID).Scan(&today))
	res = finance.Do(t, http.MethodGet, "/api/v1/staff/reports/daily?venueId=v-book&date="+today, nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	report := res.Body["report"].(map[string]any)
	assert.Equal(t, []any{map[string]any{"channel": "online", "method": "provider", "currency": "EUR", "payments": 1.0,
		"paid": 6000.0, "refunds": 1.0, "refunded": 6000.0, "net": 0.0}}, report["totals"])
	assert.EqualValues(t, 3, report["orders"], "the order, and the two the rackets test made")
	res = finance.Do(t, http.MethodGet, "/api/v1/staff/reports/daily?venueId=v-book&format=csv&date="+today, nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "text/csv; charset=utf-8", res.Header.Get("Content-Type"))
	lines := strings.Split(strings.TrimSpace(res.Raw), "\n")
	require.Len(t, lines, 3, res.Raw)
	assert.Contains(t, lines[1], ",payment,online,"+id+",pi_venue_"+sys.ID+",,6000,EUR,,provider,,")
	assert.Contains(t, lines[2], ",refund,online,"+id+",pi_venue_"+sys.ID+",")
	assert.Contains(t, lines[2], ",-6000,EUR,,provider,,")
	// Columns added at the end (issue 39): the amount as a decimal, the guest, a refund's reason
	// and a desk payment's note.
	assert.Equal(t, "at,kind,channel,booking_id,payment_id,refund_id,amount_minor,currency,channel_id,method,reference,"+
		"taken_by,amount,guest,reason,note", lines[0])
	assert.True(t, strings.HasSuffix(lines[1], ",60.00,,,"), lines[1])
	assert.True(t, strings.HasPrefix(strings.SplitN(lines[2], ",-6000,EUR,,provider,,", 2)[1], ",-60.00,,"), lines[2])
}

// TestAVenueOrderNotPaidExpires: the hold runs out and gives its units back.
func TestAVenueOrderNotPaidExpires(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{HoldTTL: time.Second})
	day := domain.DateOf(time.Now(), time.UTC).AddDays(5)
	openVenue(t, sys, "v-exp", day, 24)
	res := placeOrder(t, sys, "v-exp", sys.Customer("guest"), "o1", hourLine("court-1", day, 9, 1, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	awaitStatus(t, sys, id, "EXPIRED")
	// Its history names who made each change: the guest held it, the hold timer expired it.
	history := sys.Admin(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/history", nil)
	require.Equal(t, http.StatusOK, history.Status, history.Raw)
	var path []string
	for _, c := range history.Body["changes"].([]any) {
		path = append(path, fmt.Sprint(c.(map[string]any)["to"], " by ", c.(map[string]any)["actor"]))
	}
	assert.Equal(t, []string{"HOLD by " + sys.Customer("guest"), "EXPIRED by system:hold-timer"}, path)
	res = placeOrder(t, sys, "v-exp", sys.Customer("other"), "o1", hourLine("court-1", day, 9, 1, 1))
	assert.Equal(t, http.StatusCreated, res.Status, "the slot is free again: %s", res.Raw)
	checkInvariants(t, sys)
}

// TestAfterTheFreeWindowOnlyStaffCancel: inside the last freeCancelHours before the slot the
// customer may not cancel a paid order; the front desk of the venue may, and it is refunded whole.
// A desk of another venue may not.
func TestAfterTheFreeWindowOnlyStaffCancel(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	day := domain.DateOf(time.Now(), time.UTC).AddDays(2)
	openVenue(t, sys, "v-late", day, 72) // the free window closed a day ago
	guest := sys.Customer("guest")
	res := placeOrder(t, sys, "v-late", guest, "o1", hourLine("lane-1", day, 10, 1, 2))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	payAndConfirm(t, sys, id, 4000, "evt_late_"+sys.ID, "pi_late_"+sys.ID)

	res = sys.Guest(t, guest).Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/cancel", nil, nil)
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Equal(t, "cancellation_closed", res.ErrorCode())
	otherDesk := sys.As(t, domain.Principal{Subject: "desk-x", Roles: []domain.Role{domain.RoleFrontDesk}, Venues: []string{"v-other"}})
	res = otherDesk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/cancel", nil, nil)
	assert.Equal(t, http.StatusForbidden, res.Status, res.Raw)
	desk := sys.As(t, domain.Principal{Subject: "desk-late", Roles: []domain.Role{domain.RoleFrontDesk}, Venues: []string{"v-late"}})
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/cancel", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitStatus(t, sys, id, "REFUNDED")
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = $1 AND amount = 4000`, "pi_late_"+sys.ID))

	// The desk books a walk-in at its venue, and not at another.
	walkIn := map[string]any{"customerId": "walk-in-7", "lines": []any{hourLine("court-1", day, 11, 1, 1)}}
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/venues/v-late/bookings", map[string]string{"Idempotency-Key": "d1"}, walkIn)
	assert.Equal(t, http.StatusCreated, res.Status, res.Raw)
	res = otherDesk.Do(t, http.MethodPost, "/api/v1/staff/venues/v-late/bookings", map[string]string{"Idempotency-Key": "d1"}, walkIn)
	assert.Equal(t, http.StatusForbidden, res.Status, res.Raw)
	checkInvariants(t, sys)
}

// TestConcurrentOrdersOverHTTPSellTheCourtOnce: eight customers click the same court slot at
// once; one holds it.
func TestConcurrentOrdersOverHTTPSellTheCourtOnce(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	day := domain.DateOf(time.Now(), time.UTC).AddDays(5)
	openVenue(t, sys, "v-race", day, 24)
	statuses := make([]int, 8)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = placeOrder(t, sys, "v-race", sys.Customer(fmt.Sprintf("c%d", i)), "k", hourLine("court-1", day, 7, 1, 1)).Status
		}()
	}
	wg.Wait()
	got := map[int]int{}
	for _, s := range statuses {
		got[s]++
	}
	assert.Equal(t, map[int]int{http.StatusCreated: 1, http.StatusConflict: 7}, got)
	checkInvariants(t, sys)
}

// TestBadOrdersAreRefusedWithAReason: nothing is written for them. A line that is not whole
// units (half past the hour on an hourly court or racket, half a day of a locker rented by the
// day) is malformed, 400, not 409 unavailable.
func TestBadOrdersAreRefusedWithAReason(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	day := domain.DateOf(time.Now(), time.UTC).AddDays(5)
	openVenue(t, sys, "v-bad", day, 24)
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/venues/v-bad/resources/locker", map[string]any{"kind": "equipment",
		"unit": "day", "capacity": 4})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	res = sys.Admin(t, http.MethodPost, "/api/v1/admin/venues/v-bad/resources/locker/schedule", map[string]any{
		"from": day, "to": day.AddDays(2), "price": map[string]any{"amount": 500, "currency": "EUR"}})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	halfHour := func(resource string) map[string]any {
		line := hourLine(resource, day, 9, 1, 1)
		line["start"], line["end"] = line["start"].(time.Time).Add(30*time.Minute), line["end"].(time.Time).Add(30*time.Minute)
		return line
	}
	past := domain.DateOf(time.Now(), time.UTC).AddDays(-1)
	for name, c := range map[string]struct {
		venue  string
		lines  []map[string]any
		status int
	}{
		"no lines":               {"v-bad", nil, http.StatusBadRequest},
		"unknown venue":          {"v-none", []map[string]any{hourLine("court-1", day, 7, 1, 1)}, http.StatusNotFound},
		"unknown resource":       {"v-bad", []map[string]any{hourLine("court-9", day, 7, 1, 1)}, http.StatusNotFound},
		"in the past":            {"v-bad", []map[string]any{hourLine("court-1", past, 7, 1, 1)}, http.StatusBadRequest},
		"ends first":             {"v-bad", []map[string]any{hourLine("court-1", day, 7, -1, 1)}, http.StatusBadRequest},
		"twice the court":        {"v-bad", []map[string]any{hourLine("court-1", day, 7, 1, 1), hourLine("court-1", day, 7, 1, 1)}, http.StatusBadRequest},
		"half past on the court": {"v-bad", []map[string]any{halfHour("court-1")}, http.StatusBadRequest},
		"a racket at half past":  {"v-bad", []map[string]any{hourLine("court-1", day, 7, 1, 1), halfHour("rackets")}, http.StatusBadRequest},
		"half a day of a locker, a day and a half": {"v-bad", []map[string]any{hourLine("locker", day, 0, 36, 1)}, http.StatusBadRequest},
		"a locker for half a day":                  {"v-bad", []map[string]any{hourLine("locker", day, 0, 12, 1)}, http.StatusBadRequest},
	} {
		res := placeOrder(t, sys, c.venue, sys.Customer("guest"), "k-"+fmt.Sprint(len(name)), c.lines...)
		assert.Equal(t, c.status, res.Status, "%s: %s", name, res.Raw)
		assert.NotEmpty(t, res.ErrorCode(), res.Raw)
		if strings.Contains(name, "half") {
			assert.Contains(t, res.Raw, "whole units", name)
		}
	}
	assert.Zero(t, count(t, sys, `SELECT count(*) FROM bookings`), "nothing written")
}

// TestStaffCheckGuestsIn: a venue order checked in within the hour before its slot is
// COMPLETED (its customer can no longer cancel it); earlier is too early. A hotel guest is
// checked in on the check-in date, and an early departure afterwards keeps the booking COMPLETED.
func TestStaffCheckGuestsIn(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	desk := sys.As(t, domain.Principal{Subject: "desk", Roles: []domain.Role{domain.RoleFrontDesk}, Venues: []string{"v-in"},
		Hotels: []string{"h-in"}})
	checkIn := func(id string) testsuite.Response {
		return desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/check-in", nil, nil)
	}

	// A slot at the next full hour, and one in five days.
	next := time.Now().UTC().Truncate(time.Hour).Add(time.Hour)
	closes := next.Add(time.Hour).Format("15:04")
	if closes == "00:00" {
		closes = "24:00"
	}
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/venues/v-in", map[string]any{"timeZone": "UTC"})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	res = sys.Admin(t, http.MethodPut, "/api/v1/admin/venues/v-in/resources/court-1", map[string]any{"kind": "exclusive_slot"})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	for _, sched := range []map[string]any{
		{"from": domain.DateOf(next, time.UTC), "to": domain.DateOf(next, time.UTC).AddDays(1), "opens": next.Format("15:04"), "closes": closes},
		{"from": domain.DateOf(next, time.UTC).AddDays(5), "to": domain.DateOf(next, time.UTC).AddDays(6), "opens": "10:00", "closes": "11:00"},
	} {
		sched["slotMinutes"], sched["price"] = 60, map[string]any{"amount": 2000, "currency": "EUR"}
		res = sys.Admin(t, http.MethodPost, "/api/v1/admin/venues/v-in/resources/court-1/schedule", sched)
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
	}
	guest := sys.Customer("guest")
	soon := placeOrder(t, sys, "v-in", guest, "soon", map[string]any{"resourceId": "court-1", "start": next,
		"end": next.Add(time.Hour), "quantity": 1})
	require.Equal(t, http.StatusCreated, soon.Status, soon.Raw)
	later := placeOrder(t, sys, "v-in", guest, "later", hourLine("court-1", domain.DateOf(next, time.UTC).AddDays(5), 10, 1, 1))
	require.Equal(t, http.StatusCreated, later.Status, later.Raw)
	soonID, laterID := soon.Body["id"].(string), later.Body["id"].(string)
	payAndConfirm(t, sys, soonID, 2000, "evt_soon_"+sys.ID, "pi_soon_"+sys.ID)
	payAndConfirm(t, sys, laterID, 2000, "evt_later_"+sys.ID, "pi_later_"+sys.ID)

	res = checkIn(laterID)
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Equal(t, "too_early", res.ErrorCode())
	res = checkIn(soonID)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "COMPLETED", res.Body["status"])
	res = checkIn(soonID)
	assert.Equal(t, http.StatusOK, res.Status, "a repeated check-in changes nothing: %s", res.Raw)
	assert.Equal(t, "COMPLETED", res.Body["status"])
	res = sys.Guest(t, guest).Do(t, http.MethodPost, "/api/v1/bookings/"+soonID+"/cancel", nil, nil)
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Equal(t, "checked_in", res.ErrorCode())

	// The hotel: check-in today, then the guest leaves after the first night.
	stay := stayFromNow(0, 3)
	openRooms(t, sys, "h-in", "double", stay, 2)
	id, total := holdRoom(t, sys, "h-in", "stay", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_stay_"+sys.ID, "pi_stay_"+sys.ID)
	res = checkIn(id)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "COMPLETED", res.Body["status"])
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/cancel", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "COMPLETED", res.Body["status"], "an early departure keeps the booking")
	assert.Equal(t, stay.CheckIn.AddDays(1).String(), res.Body["checkOut"])
	testsuite.ReplayAndRecord(t, sys.Temporal, soonID, "venue-order-checked-in")
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "hotel-checked-in-departed-early")
	audit := sys.As(t, domain.Principal{Subject: "fin", Roles: []domain.Role{domain.RoleFinance}}).Do(t, http.MethodGet,
		"/api/v1/staff/bookings/"+id+"/audit", nil, nil)
	assert.Contains(t, audit.Raw, `"action":"check-in"`)

	// Support asks why the venue order is in its state, and what happened to its slot.
	history := desk.Do(t, http.MethodGet, "/api/v1/staff/bookings/"+soonID+"/history", nil, nil)
	require.Equal(t, http.StatusOK, history.Status, history.Raw)
	var path []string
	for _, c := range history.Body["changes"].([]any) {
		path = append(path, c.(map[string]any)["to"].(string))
	}
	assert.Equal(t, []string{"HOLD", "CONFIRMED", "COMPLETED"}, path)
	assert.Nil(t, history.Body["staffActions"], "the audit log is finance's and admin's")
	history = sys.As(t, domain.Principal{Subject: "fin", Roles: []domain.Role{domain.RoleFinance}}).Do(t, http.MethodGet,
		"/api/v1/staff/bookings/"+soonID+"/history", nil, nil)
	assert.Contains(t, history.Raw, `"action":"check-in"`, "with who checked them in")
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+soonID+"/cancel", nil, nil)
	assert.Equal(t, http.StatusConflict, res.Status, "its slot is in use: %s", res.Raw)
	assert.Equal(t, "checked_in", res.ErrorCode())
	slot := desk.Do(t, http.MethodGet, "/api/v1/staff/inventory/history?venueId=v-in&resourceId=court-1&date="+
		domain.DateOf(next, time.UTC).String(), nil, nil)
	require.Equal(t, http.StatusOK, slot.Status, slot.Raw)
	unit := slot.Body["units"].([]any)[0].(map[string]any)
	assert.EqualValues(t, 1, unit["reserved"])
	assert.Len(t, unit["changes"], 2, "laid out, then taken by the order")
	other := sys.As(t, domain.Principal{Subject: "x", Roles: []domain.Role{domain.RoleFrontDesk}, Venues: []string{"v-x"}})
	res = other.Do(t, http.MethodGet, "/api/v1/staff/inventory/history?venueId=v-in&resourceId=court-1&date=2030-01-01", nil, nil)
	assert.Equal(t, http.StatusForbidden, res.Status, res.Raw)
	checkInvariants(t, sys)
}

// TestAPaidOrderNobodyCheckedInIsANoShow: past its deadline (brought forward to seconds here),
// the booking workflow marks it NO_SHOW; its slot goes back on sale and the payment is kept.
func TestAPaidOrderNobodyCheckedInIsANoShow(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{NoShowAfter: 3 * time.Second})
	day := domain.DateOf(time.Now(), time.UTC).AddDays(5)
	openVenue(t, sys, "v-noshow", day, 24)
	res := placeOrder(t, sys, "v-noshow", sys.Customer("guest"), "o1", hourLine("court-1", day, 9, 1, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	payAndConfirm(t, sys, id, 2000, "evt_ns_"+sys.ID, "pi_ns_"+sys.ID)
	awaitStatus(t, sys, id, "NO_SHOW")
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "venue-order-no-show")
	assert.Zero(t, count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = $1`, "pi_ns_"+sys.ID), "the payment is kept")
	res = placeOrder(t, sys, "v-noshow", sys.Customer("other"), "o1", hourLine("court-1", day, 9, 1, 1))
	assert.Equal(t, http.StatusCreated, res.Status, "the slot is back on sale: %s", res.Raw)
	checkInvariants(t, sys)
}

// TestTheDeskBooksWalkInsByPhone: a guest without an account is found again by their phone
// number however it is typed; a bad number is refused with nothing written.
func TestTheDeskBooksWalkInsByPhone(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	day := domain.DateOf(time.Now(), time.UTC).AddDays(5)
	openVenue(t, sys, "v-walk", day, 24)
	stay := stayFromNow(20, 2)
	openRooms(t, sys, "h-walk", "double", stay, 2)
	desk := sys.As(t, domain.Principal{Subject: "desk", Roles: []domain.Role{domain.RoleFrontDesk}, Venues: []string{"v-walk"},
		Hotels: []string{"h-walk"}})
	book := func(key, phone string, hour int) testsuite.Response {
		return desk.Do(t, http.MethodPost, "/api/v1/staff/venues/v-walk/bookings", map[string]string{"Idempotency-Key": key},
			map[string]any{"phone": phone, "name": "Ana", "lines": []any{hourLine("court-1", day, hour, 1, 1)}})
	}
	bad := book("w0", "0151 1234 5678", 7)
	assert.Equal(t, http.StatusBadRequest, bad.Status, "a number without its country code: %s", bad.Raw)
	missing := desk.Do(t, http.MethodPost, "/api/v1/staff/venues/v-walk/bookings", map[string]string{"Idempotency-Key": "w9"},
		map[string]any{"phone": "+49 151 1234 5678", "lines": []any{hourLine("court-9", day, 7, 1, 1)}})
	assert.Equal(t, http.StatusNotFound, missing.Status, missing.Raw)
	assert.Zero(t, count(t, sys, `SELECT count(*) FROM walk_in_customers`), "nothing written")

	first := book("w1", "+49 151 1234 5678", 7)
	require.Equal(t, http.StatusCreated, first.Status, first.Raw)
	second := book("w2", "0049-151-12345678", 8)
	require.Equal(t, http.StatusCreated, second.Status, second.Raw)
	assert.Equal(t, "walk-in:+4915112345678", first.Body["customerId"])
	assert.Equal(t, first.Body["customerId"], second.Body["customerId"], "the same guest, found by phone")
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings", map[string]string{"Idempotency-Key": "w3"},
		map[string]any{"phone": "+49 151 12345678", "hotelId": "h-walk", "roomTypeId": "double", "checkIn": stay.CheckIn,
			"checkOut": stay.CheckOut, "quantity": 1})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	assert.Equal(t, first.Body["customerId"], res.Body["customerId"], "at the hotel too")
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM walk_in_customers WHERE name = 'Ana'`))
	both := desk.Do(t, http.MethodPost, "/api/v1/staff/venues/v-walk/bookings", map[string]string{"Idempotency-Key": "w4"},
		map[string]any{"phone": "+4915112345678", "customerId": "x", "lines": []any{hourLine("court-1", day, 9, 1, 1)}})
	assert.Equal(t, http.StatusBadRequest, both.Status, both.Raw)

	// The desk lists its venue's bookings, and its hotels' and venues' together.
	list := desk.Do(t, http.MethodGet, "/api/v1/staff/bookings?venueId=v-walk", nil, nil)
	require.Equal(t, http.StatusOK, list.Status, list.Raw)
	assert.Len(t, list.Body["bookings"], 2)
	list = desk.Do(t, http.MethodGet, "/api/v1/staff/bookings?customerId=walk-in:%2B4915112345678", nil, nil)
	assert.Len(t, list.Body["bookings"], 3, list.Raw)
	other := sys.As(t, domain.Principal{Subject: "x", Roles: []domain.Role{domain.RoleFrontDesk}, Venues: []string{"v-x"}})
	assert.Equal(t, http.StatusForbidden, other.Do(t, http.MethodGet, "/api/v1/staff/bookings?venueId=v-walk", nil, nil).Status)
	list = other.Do(t, http.MethodGet, "/api/v1/staff/bookings", nil, nil)
	assert.Empty(t, list.Body["bookings"], "another venue's desk sees none of them")
	checkInvariants(t, sys)
}

// TestAVenuesHoldLimitDoesNotSpeakOfRooms: a customer at the active-hold limit is refused a
// venue order in a venue's terms; a hotel's refusal keeps its wording.
func TestAVenuesHoldLimitDoesNotSpeakOfRooms(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{HoldLimits: apiHoldLimits(1, 0, 0)})
	day := domain.DateOf(time.Now(), time.UTC).AddDays(5)
	openVenue(t, sys, "v-limit", day, 24)
	guest := sys.Customer("guest")
	res := placeOrder(t, sys, "v-limit", guest, "o1", hourLine("court-1", day, 8, 1, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	res = placeOrder(t, sys, "v-limit", guest, "o2", hourLine("court-1", day, 9, 1, 1))
	require.Equal(t, http.StatusTooManyRequests, res.Status, res.Raw)
	assert.Equal(t, "too_many_holds", res.ErrorCode())
	assert.NotContains(t, res.Raw, "room", "a venue sells slots and items")

	stay := stayFromNow(12, 1)
	openRooms(t, sys, "h-limit", "double", stay, 5)
	res = hold(t, sys, "k1", holdBody(guest, "h-limit", "double", stay, 1))
	require.Equal(t, http.StatusTooManyRequests, res.Status, res.Raw)
	assert.Contains(t, res.Raw, "you already hold rooms in 1 unpaid bookings", "a hotel's refusal is as it was")
}
