package testsuite_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// morningZone is a fixed-offset time zone in which it is now 09:xx, so a venue there opens
// its slots within the hour and a guest may check in to the first one (an hour ahead).
func morningZone(now time.Time) *time.Location {
	offset := (9 - now.UTC().Hour() + 24) % 24 // hours east of UTC
	if offset > 14 {
		offset -= 24
	}
	name := "Etc/GMT"
	switch {
	case offset > 0:
		name += fmt.Sprintf("-%d", offset) // the Etc zones' signs are inverted
	case offset < 0:
		name += fmt.Sprintf("+%d", -offset)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// openMorningVenue opens venue id in a zone where it is 09:xx, with court-1 and a 6-place
// lane-1 bookable hourly from 10:00 to 14:00 today at 20.00 EUR, and returns the local date.
func openMorningVenue(t *testing.T, sys *testsuite.System, id string) (domain.Date, *time.Location) {
	t.Helper()
	loc := morningZone(time.Now())
	day := domain.DateOf(time.Now(), loc)
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/venues/"+id, map[string]any{"name": "Hall " + id, "timeZone": loc.String()})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	for r, body := range map[string]map[string]any{
		"court-1": {"kind": "exclusive_slot", "name": "Court 1", "sport": "badminton"},
		"lane-1":  {"kind": "quota_slot", "name": "Lane 1", "sport": "swimming", "capacity": 6},
	} {
		res := sys.Admin(t, http.MethodPut, "/api/v1/admin/venues/"+id+"/resources/"+r, body)
		require.Equal(t, http.StatusCreated, res.Status, res.Raw)
		res = sys.Admin(t, http.MethodPost, "/api/v1/admin/venues/"+id+"/resources/"+r+"/schedule", map[string]any{
			"from": day, "to": day.AddDays(1), "opens": "10:00", "closes": "14:00", "slotMinutes": 60,
			"price": map[string]any{"amount": 2000, "currency": "EUR"}})
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
	}
	return day, loc
}

// cellState is the state the grid shows for resource's slot starting at hhmm.
func cellState(b *testsuite.Browser, resource, hhmm string) string {
	var state string
	ctx, cancel := context.WithTimeout(b.Ctx, 10*time.Second)
	defer cancel()
	state, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(
		`document.querySelector('td[data-resource=%q][data-start=%q]').dataset.state`, resource, hhmm)))
	if err != nil {
		return "missing: " + err.Error()
	}
	return state
}

// TestConsoleFrontDeskRunsAWalkIn: a front desk signs in, sees today's grid, books a walk-in
// by phone on a free court, takes cash and checks the guest in; the database, the daily report
// and the audit log agree with what the screens showed. Closing a slot with a reason shows on
// the grid.
func TestConsoleFrontDeskRunsAWalkIn(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	day, _ := openMorningVenue(t, s, "v-desk")
	b := testsuite.NewBrowser(t, "desk")
	b.DevSignIn(s, "desk-a", "front_desk", "venue:v-desk")

	b.Visit(s.ConsoleURL() + "/venues/v-desk/day")
	b.Screenshot("venue-day")
	require.Equal(t, "free", cellState(b, "court-1", "10:00"))
	assert.Contains(t, b.Text("caption"), day.String())

	b.Submit(`td[data-resource="court-1"][data-start="10:00"] a`)
	b.Screenshot("walk-in")
	b.Do(chromedp.SetValue(chromedp.ID("phone"), "+36 30 123 4567"), chromedp.SetValue(chromedp.ID("name"), "Anna Kovacs"))
	b.Submit("#walk-in-book")
	b.Screenshot("booking-held")
	assert.Equal(t, "HOLD", b.Attr("#booking-status", "data-status"))
	assert.Equal(t, "EUR 20.00", b.Text("#money-due"))
	id := b.Text("main code")

	b.Do(chromedp.SetValue(chromedp.ID("pay-method"), "cash"))
	b.Submit("#take-payment")
	b.Screenshot("booking-paid")
	assert.Equal(t, "CONFIRMED", b.Attr("#booking-status", "data-status"))
	assert.Equal(t, "EUR 20.00", b.Text("#money-paid"))
	assert.Equal(t, "EUR 0.00", b.Text("#money-due"))

	b.Submit("#check-in")
	b.Screenshot("booking-checked-in")
	assert.Equal(t, "COMPLETED", b.Attr("#booking-status", "data-status"))

	b.Visit(s.ConsoleURL() + "/venues/v-desk/day")
	assert.Equal(t, "in", cellState(b, "court-1", "10:00"))

	// The database and the report agree with the screens.
	ctx := context.Background()
	var status, method, takenBy, customer string
	var amount int64
	require.NoError(t, s.DB.Pool.QueryRow(ctx, `SELECT b.status, b.customer_id, p.method, p.taken_by, p.amount
		FROM bookings b JOIN payments p ON p.booking_id = b.id WHERE b.id = $1`, id).Scan(&status, &customer, &method, &takenBy, &amount))
	assert.Equal(t, []any{"COMPLETED", domain.WalkInPrefix + "+36301234567", "cash", "desk-a", int64(2000)},
		[]any{status, customer, method, takenBy, amount})
	finance := s.As(t, domain.Principal{Subject: "fin-1", Roles: []domain.Role{domain.RoleFinance}})
	report := finance.Do(t, http.MethodGet, "/api/v1/staff/reports/daily?venueId=v-desk&date="+day.String(), nil, nil)
	require.Equal(t, http.StatusOK, report.Status, report.Raw)
	assert.Contains(t, report.Raw, `"method":"cash"`)
	assert.Contains(t, report.Raw, `"amount":2000`)
	audit := finance.Do(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/audit", nil, nil)
	for _, action := range []string{"money-desk-payment", "check-in"} {
		assert.Contains(t, audit.Raw, `"action":"`+action+`"`)
	}
	assert.Contains(t, audit.Raw, `"actor":"desk-a"`)
	s.DB.AssertInventoryMatchesBookings(t)

	// Closing a slot with a reason: the grid shows it closed, and why.
	b.Do(chromedp.SetValue(chromedp.ID("close-resource"), "court-1"),
		chromedp.SetValue(chromedp.ID("close-reason"), "net broken"))
	b.Do(chromedp.SetValue(chromedp.ID("close-start"), b.OptionValue("#close-start", "11:00")))
	b.Submit("#close-units")
	b.Screenshot("venue-day-closed")
	assert.Equal(t, "closed", cellState(b, "court-1", "11:00"))
	assert.Contains(t, b.Text(`td[data-resource="court-1"][data-start="11:00"]`), "net broken")
	assert.Equal(t, "free", cellState(b, "court-1", "12:00"))
}

// TestConsoleOtherVenuesDeskIsRefused: a front desk of another venue gets 403 on the first
// venue's grid, its booking's page and its actions, and nothing is written.
func TestConsoleOtherVenuesDeskIsRefused(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	day, loc := openMorningVenue(t, s, "v-one")
	openMorningVenue(t, s, "v-two")
	start := day.At(10, loc)
	deskOne := s.As(t, domain.Principal{Subject: "desk-one", Roles: []domain.Role{domain.RoleFrontDesk}, Venues: []string{"v-one"}})
	res := deskOne.Do(t, http.MethodPost, "/api/v1/staff/venues/v-one/bookings", map[string]string{"Idempotency-Key": "w-1"},
		map[string]any{"phone": "+36301112222", "lines": []map[string]any{{"resourceId": "court-1", "start": start,
			"end": start.Add(time.Hour), "quantity": 1}}})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)

	b := testsuite.NewBrowser(t, "other-desk")
	b.DevSignIn(s, "desk-two", "front_desk", "venue:v-two")
	for _, page := range []string{"/venues/v-one/day", "/bookings/" + id} {
		status, err := chromedp.Run(b.Ctx, chromedp.NavigateResponse(s.ConsoleURL()+page))
		require.NoError(t, err)
		assert.Equal(t, http.StatusForbidden, int(status.Status), page)
		b.Screenshot("forbidden")
	}
	b.Visit(s.ConsoleURL() + "/venues/v-two/day") // its own page, for its CSRF token
	for path, fields := range map[string]map[string]string{
		"/venues/v-one/closures":             {"resourceId": "court-1", "date": day.String(), "reason": "not mine"},
		"/bookings/" + id + "/check-in":      {},
		"/bookings/" + id + "/cancel":        {},
		"/bookings/" + id + "/desk-payments": {"amount": "20.00", "currency": "EUR", "method": "cash", "key": "k-1"},
	} {
		assert.Equal(t, http.StatusForbidden, b.PostForm(testsuite.ConsolePath(path), fields, true), path)
	}
	var closed, payments int
	require.NoError(t, s.DB.Pool.QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM inventory i JOIN resources r ON r.id = i.resource_id WHERE r.venue_id = 'v-one' AND i.closed_at IS NOT NULL),
		(SELECT count(*) FROM payments WHERE booking_id = $1)`, id).Scan(&closed, &payments))
	assert.Zero(t, closed)
	assert.Zero(t, payments)
	got := deskOne.Do(t, http.MethodGet, "/api/v1/staff/bookings/"+id, nil, nil)
	assert.Equal(t, "HOLD", got.Body["status"])
}

// TestConsoleErrorPagesSayWhatHappened: a booking that does not exist is the 404 page; an
// action on a booking that changed since its page was drawn is the conflict page, which says
// how the booking stands now, and writes nothing.
func TestConsoleErrorPagesSayWhatHappened(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	day, loc := openMorningVenue(t, s, "v-err")
	desk := s.As(t, domain.Principal{Subject: "desk-err", Roles: []domain.Role{domain.RoleFrontDesk}, Venues: []string{"v-err"}})
	start := day.At(11, loc)
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/venues/v-err/bookings", map[string]string{"Idempotency-Key": "e-1"},
		map[string]any{"phone": "+36301113333", "lines": []map[string]any{{"resourceId": "court-1", "start": start,
			"end": start.Add(time.Hour), "quantity": 1}}})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)

	b := testsuite.NewBrowser(t, "errors")
	b.DevSignIn(s, "desk-err", "front_desk", "venue:v-err")
	missing, err := chromedp.Run(b.Ctx, chromedp.NavigateResponse(s.ConsoleURL()+"/bookings/booking-aaaaaaaaaaaaaaaaaaaaaaaaaa"))
	require.NoError(t, err)
	assert.Equal(t, http.StatusNotFound, int(missing.Status))
	b.Screenshot("not-found")

	b.Visit(s.ConsoleURL() + "/bookings/" + id)
	require.Equal(t, "HOLD", b.Attr("#booking-status", "data-status"))
	// A colleague cancels it meanwhile; this page still offers to take the money.
	cancel := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/cancel", nil, nil)
	require.Equal(t, http.StatusOK, cancel.Status, cancel.Raw)
	b.Submit("#take-payment")
	b.Screenshot("conflict")
	assert.Contains(t, b.Text("main"), "Cancelled")
	var payments int
	require.NoError(t, s.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM payments WHERE booking_id = $1`, id).Scan(&payments))
	assert.Zero(t, payments)
}

// TestConsoleFrontDeskMovesAVenueBooking: a walk-in paid at the desk for 12:00 is moved to
// 13:00 from its booking's page (an amendment of the order's line): the grid shows 13:00 paid
// and 12:00 free again, and the units agree.
func TestConsoleFrontDeskMovesAVenueBooking(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	day, loc := openMorningVenue(t, s, "v-move")
	desk := s.As(t, domain.Principal{Subject: "desk-move", Roles: []domain.Role{domain.RoleFrontDesk}, Venues: []string{"v-move"}})
	start := day.At(12, loc)
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/venues/v-move/bookings", map[string]string{"Idempotency-Key": "m-1"},
		map[string]any{"phone": "+36301114444", "lines": []map[string]any{{"resourceId": "court-1", "start": start,
			"end": start.Add(time.Hour), "quantity": 1}}})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	pay := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", map[string]string{"Idempotency-Key": "p-1"},
		map[string]any{"amount": 2000, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, pay.Status, pay.Raw)

	b := testsuite.NewBrowser(t, "move")
	b.DevSignIn(s, "desk-move", "front_desk", "venue:v-move")
	b.Visit(s.ConsoleURL() + "/bookings/" + id)
	b.Do(chromedp.SetValue(chromedp.ID("move-start-0"), day.String()+"T13:00"))
	b.Screenshot("booking-move")
	b.Submit("#move-line-0")
	b.Screenshot("booking-moved")
	assert.Contains(t, b.Text(".flash"), "applied")
	b.Visit(s.ConsoleURL() + "/venues/v-move/day")
	assert.Equal(t, "paid", cellState(b, "court-1", "13:00"))
	assert.Equal(t, "free", cellState(b, "court-1", "12:00"))
	s.DB.AssertInventoryMatchesBookings(t)
}
