package testsuite_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/testsuite"
)

// openShanghaiVenue opens a venue in Asia/Shanghai with one court sold by the hour, 07:00 to
// 12:00 local, at 20.00 EUR a slot, on day.
func openShanghaiVenue(t *testing.T, sys *testsuite.System, id string, day domain.Date) {
	t.Helper()
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/venues/"+id, map[string]any{"timeZone": "Asia/Shanghai", "freeCancelHours": 24})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	res = sys.Admin(t, http.MethodPut, "/api/v1/admin/venues/"+id+"/resources/court-1", map[string]any{"kind": "exclusive_slot", "sport": "badminton"})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	res = sys.Admin(t, http.MethodPost, "/api/v1/admin/venues/"+id+"/resources/court-1/schedule", map[string]any{
		"from": day, "to": day.AddDays(1), "opens": "07:00", "closes": "12:00", "slotMinutes": 60,
		"price": map[string]any{"amount": 2000, "currency": "EUR"}})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
}

// localLine is hours of court-1 from hour o'clock on day, local to loc.
func localLine(day domain.Date, loc *time.Location, hour, hours int) map[string]any {
	d := day.Time()
	start := time.Date(d.Year(), d.Month(), d.Day(), hour, 0, 0, 0, loc)
	return map[string]any{"resourceId": "court-1", "start": start, "end": start.Add(time.Duration(hours) * time.Hour), "quantity": 1}
}

// csvDownload is what the browser got from the console's CSV link.
type csvDownload struct {
	Status      int    `json:"status"`
	Type        string `json:"type"`
	Disposition string `json:"disposition"`
	Body        string `json:"body"`
}

// downloadCSV fetches path in the signed-in browser, as its "Download CSV" link would.
func downloadCSV(t *testing.T, b *testsuite.Browser, path string) csvDownload {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, 30*time.Second)
	defer cancel()
	js := `fetch(` + strconv.Quote(path) + `).then(async r => JSON.stringify({status: r.status,
		type: r.headers.get("content-type"), disposition: r.headers.get("content-disposition"), body: await r.text()}))`
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	var d csvDownload
	require.NoError(t, json.Unmarshal([]byte(raw), &d))
	return d
}

// TestConsoleFinanceDailyReportAddsUpToThePaymentsMade: the desk takes cash, a card terminal and
// a bank transfer at a venue in Shanghai, a guest pays online, and the desk gives part of a
// transfer back; finance opens the venue's daily report in the console, on today in Shanghai,
// sees every line at Shanghai's time, and the CSV it downloads adds up to the cent to the
// money the test moved.
func TestConsoleFinanceDailyReportAddsUpToThePaymentsMade(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	loc, err := time.LoadLocation("Asia/Shanghai")
	require.NoError(t, err)
	started := time.Now()
	day := domain.DateOf(started, loc).AddDays(5)
	openShanghaiVenue(t, sys, "v-fin", day)
	desk := deskOf(t, sys, nil, []string{"v-fin"})
	book := func(key string, hour, hours int) string {
		res := desk.Do(t, http.MethodPost, "/api/v1/staff/venues/v-fin/bookings", keyed(key),
			map[string]any{"customerId": "walk-in-" + key, "lines": []any{localLine(day, loc, hour, hours)}})
		require.Equal(t, http.StatusCreated, res.Status, res.Raw)
		return res.Body["id"].(string)
	}
	pay := func(id, key string, amount int64, method string) {
		res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed(key),
			map[string]any{"amount": amount, "currency": "EUR", "method": method})
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
	}
	twoHours := book("a", 7, 2) // 40.00: a cash deposit, the rest on the card terminal
	pay(twoHours, "a-cash", 1234, "cash")
	pay(twoHours, "a-card", 4000-1234, "card_terminal")
	awaitStatus(t, sys, twoHours, "CONFIRMED")
	transfer := book("b", 9, 1)
	pay(transfer, "b-bank", 2000, "bank_transfer")
	awaitStatus(t, sys, transfer, "CONFIRMED")
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+transfer+"/refunds", keyed("b-back"),
		map[string]any{"amount": 555, "currency": "EUR", "reason": "the lights failed for a while"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitRefunded(t, sys, transfer, 555)
	online := placeOrder(t, sys, "v-fin", sys.Customer("guest"), "c", localLine(day, loc, 10, 1))
	require.Equal(t, http.StatusCreated, online.Status, online.Raw)
	onlineID := online.Body["id"].(string)
	payAndConfirm(t, sys, onlineID, 2000, "evt_fin_"+sys.ID, "pi_fin_"+sys.ID)
	finished := time.Now()

	b := testsuite.NewBrowser(t, "finance")
	b.DevSignIn(sys, "fin-1", "finance", "")
	b.Visit(sys.ConsoleURL() + "/finance")
	b.Screenshot("finance-home")
	b.Submit(`a[href="/console/finance/report?site=venue:v-fin"]`)
	b.Screenshot("daily-report")
	today := domain.DateOf(started, loc)
	// What the page shows is checked when the money all moved on one Shanghai day (the CSV is
	// checked for every day it moved on).
	oneDay := domain.DateOf(finished, loc) == today
	main := b.Text("main")
	if oneDay {
		date, err := chromedp.Run(b.Ctx, chromedp.Value(chromedp.ID("date")))
		require.NoError(t, err)
		assert.Equal(t, today.String(), date, "the report opens on today in the venue's time zone")
		for _, id := range []string{twoHours, transfer, onlineID} {
			assert.Contains(t, main, id, "every booking that moved money has its line")
		}
		assert.Contains(t, b.Text("#report-totals"), "Card terminal")
		assert.Contains(t, main, "desk-"+sys.ID, "who took the desk's money")
	}

	// The CSV, for each day the money was moved on (two if the test ran over Shanghai's midnight).
	paid := map[string]int64{}
	var refunded int64
	var firstAt time.Time
	for d := today; d.String() <= domain.DateOf(finished, loc).String(); d = d.AddDays(1) {
		got := downloadCSV(t, b, "/console/finance/report.csv?site=venue:v-fin&date="+d.String())
		require.Equal(t, http.StatusOK, got.Status, got.Body)
		assert.Equal(t, "text/csv; charset=utf-8", got.Type)
		assert.Equal(t, `attachment; filename="venue-v-fin-`+d.String()+`.csv"`, got.Disposition)
		rows, err := csv.NewReader(strings.NewReader(got.Body)).ReadAll()
		require.NoError(t, err)
		require.NotEmpty(t, rows)
		col := map[string]int{}
		for i, name := range rows[0] {
			col[name] = i
		}
		for _, row := range rows[1:] {
			amount, err := strconv.ParseInt(row[col["amount_minor"]], 10, 64)
			require.NoError(t, err)
			require.Equal(t, "EUR", row[col["currency"]])
			at, err := time.Parse(time.RFC3339, row[col["at"]])
			require.NoError(t, err)
			_, offset := at.Zone()
			assert.Equal(t, 8*3600, offset, "at %s is Shanghai's time", row[col["at"]])
			if firstAt.IsZero() {
				firstAt = at
			}
			switch row[col["kind"]] {
			case "payment":
				paid[row[col["method"]]] += amount
			case "refund":
				refunded += amount
			}
		}
	}
	assert.Equal(t, map[string]int64{"cash": 1234, "card_terminal": 2766, "bank_transfer": 2000, "provider": 2000}, paid,
		"the CSV's payments are the payments made, by method, to the cent")
	assert.Equal(t, int64(-555), refunded, "and its refunds the refund given")
	require.False(t, firstAt.IsZero())
	if oneDay {
		assert.Contains(t, main, firstAt.In(loc).Format("2006-01-02 15:04"), "the page shows the lines at Shanghai's time")
	}

	// The day before: nothing moved.
	b.Do(chromedp.SetValue(chromedp.ID("date"), today.AddDays(-1).String()))
	b.Submit("#report-show")
	b.Screenshot("daily-report-day-before")
	assert.Contains(t, b.Location(), "date="+today.AddDays(-1).String())
	assert.Contains(t, b.Text("main"), "No money moved this day.")

	// In Simplified Chinese, back on the day the money moved.
	b.Visit(sys.ConsoleURL() + "/finance/report?site=venue:v-fin&date=" + today.String())
	b.Do(chromedp.SetValue(chromedp.ID("lang"), "zh-Hans"))
	b.Submit(`form[action="/console/language"] button`)
	b.Screenshot("daily-report-zh")
	assert.Contains(t, b.Text("h1"), "日报")
	if oneDay {
		assert.Contains(t, b.Text("#report-totals"), "刷卡终端")
	}
	assert.Contains(t, b.Location(), "date="+today.String(), "the language changes, the page stays")
}

// TestConsoleFinanceStuckRefundsAreRetriedAndResolved: two paid bookings are cancelled while the
// provider declines refunds, so both get stuck. Finance sees them in the console; one resolved
// meanwhile through the API answers the console's stale form with the conflict page; the other
// is retried from the console once the provider accepts refunds again, as finance's own subject.
// An event bookflow cannot act on shows on the unprocessable webhooks page.
func TestConsoleFinanceStuckRefundsAreRetriedAndResolved(t *testing.T) {
	t.Parallel()
	provider := decliningProvider()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider, Console: true})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-fin", "double", stay, 2)
	retried, total := holdRoom(t, sys, "h-fin", "k1", stay, 1)
	payAndConfirm(t, sys, retried, total, "evt_r_"+sys.ID, "pi_r_"+sys.ID)
	resolved, total2 := holdRoom(t, sys, "h-fin", "k2", stay, 1)
	payAndConfirm(t, sys, resolved, total2, "evt_s_"+sys.ID, "pi_s_"+sys.ID)
	for _, id := range []string{retried, resolved} {
		res := cancel(t, sys, sys.Customer("guest"), id)
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
	}
	finance := sys.As(t, domain.Principal{Subject: "fin-api", Roles: []domain.Role{domain.RoleFinance}})
	require.Eventually(t, func() bool {
		res := finance.Do(t, http.MethodGet, "/api/v1/staff/bookings/stuck", nil, nil)
		listed, _ := res.Body["bookings"].([]any)
		return len(listed) == 2
	}, 120*time.Second, 200*time.Millisecond, "both bookings are PAYMENT_STUCK")
	// 51 events without a booking, oldest first: one more than the webhooks page shows at once.
	var res testsuite.Response
	for i := range 51 {
		bad := payments.EventPayload(fmt.Sprintf("evt_bad_%02d_%s", i, sys.ID), "payment_intent.succeeded",
			payments.PaymentIntentObject(fmt.Sprintf("pi_bad_%02d_%s", i, sys.ID), "", 999, "EUR"), time.Now())
		res = sys.Webhook(t, bad, time.Now())
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
	}

	b := testsuite.NewBrowser(t, "finance")
	b.DevSignIn(sys, "fin-1", "finance", "")
	b.Visit(sys.ConsoleURL() + "/finance")
	b.Submit("#finance-stuck")
	b.Screenshot("stuck-refunds")
	row := func(id string) string { return `tr[id="stuck-` + id + `"]` }
	assert.Contains(t, b.Text(row(retried)), "EUR")
	assert.Contains(t, b.Text(row(resolved)), "EUR")

	// Resolved meanwhile through the API: the page's form is stale, the API answers 409.
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+resolved+"/refund/resolve", nil,
		map[string]any{"reason": "refunded by bank transfer"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	b.Do(chromedp.SetValue(chromedp.CSS(row(resolved)+` form[action$="/resolve"] input[name="reason"]`), "paid back by hand"))
	b.Submit(row(resolved) + " button.resolve")
	b.Screenshot("stuck-conflict")
	assert.Equal(t, "It changed meanwhile", b.Text("h1"))

	// The provider takes refunds again: finance retries from the console.
	provider.SetAnswer(nil)
	b.Visit(sys.ConsoleURL() + "/finance/stuck")
	b.Do(chromedp.SetValue(chromedp.CSS(row(retried)+` form[action$="/retry"] input[name="reason"]`), "balance topped up"))
	b.Submit(row(retried) + " button.retry")
	b.Screenshot("stuck-retried")
	assert.Contains(t, b.Text(".flash"), "was tried again")
	assert.Contains(t, b.Location(), "/console/finance/stuck")
	awaitStatus(t, sys, retried, "REFUNDED")
	res = finance.Do(t, http.MethodGet, "/api/v1/staff/bookings/"+retried+"/audit", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	entries := res.Body["entries"].([]any)
	require.Len(t, entries, 1)
	assert.Equal(t, "fin-1", entries[0].(map[string]any)["actor"], "the console acts as the signed-in person")
	assert.Equal(t, "balance topped up", entries[0].(map[string]any)["reason"])

	b.Visit(sys.ConsoleURL() + "/finance/webhooks")
	b.Screenshot("unprocessable-webhooks")
	first := b.Text("#webhooks")
	assert.Contains(t, first, "evt_bad_50_"+sys.ID, "the newest first")
	assert.Contains(t, first, "evt_bad_01_"+sys.ID)
	assert.NotContains(t, first, "evt_bad_00_"+sys.ID, "the oldest is on the next page")
	b.Submit("#webhooks-older")
	b.Screenshot("unprocessable-webhooks-older")
	older := b.Text("#webhooks")
	assert.Contains(t, older, "evt_bad_00_"+sys.ID)
	assert.NotContains(t, older, "evt_bad_01_"+sys.ID)
	checkInvariants(t, sys)
}

// TestConsoleFinanceRecordsARefundMadeByHand: a guest pays a confirmed booking twice; the
// provider declines giving the second payment back, so finance pays it back by bank transfer
// and records that in the console. The refund shows on the hotel's daily report with its
// reference and finance's name. The form sent twice records it once; a second refund past what
// is left of the payment is the API's conflict, and records nothing.
func TestConsoleFinanceRecordsARefundMadeByHand(t *testing.T) {
	t.Parallel()
	provider := decliningProvider()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider, Console: true})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-hand", "double", stay, 1)
	id, total := holdRoom(t, sys, "h-hand", "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_1_"+sys.ID, "pi_1_"+sys.ID)
	twice := "pi_2_" + sys.ID
	res := sys.Webhook(t, testsuite.PaymentEvent("evt_2_"+sys.ID, twice, id, 4321, "EUR"), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool { return stuckState(t, sys, id) }, 120*time.Second, 200*time.Millisecond,
		"the second payment's refund is stuck")

	b := testsuite.NewBrowser(t, "finance")
	b.DevSignIn(sys, "fin-1", "finance", "")
	// The booking's money: both payments, and the refund the provider declined.
	b.Visit(sys.ConsoleURL() + "/finance/bookings/" + id)
	b.Screenshot("booking-money")
	assert.Contains(t, b.Text("#money-payments"), twice)
	assert.Contains(t, b.Text("#money-payments"), "EUR 43.21")
	assert.Contains(t, b.Text("#money-refunds"), "declined")
	b.Submit(`a[href="/console/finance/manual-refunds?payment=` + twice + `"]`)
	payment, err := chromedp.Run(b.Ctx, chromedp.Value(chromedp.ID("payment")))
	require.NoError(t, err)
	assert.Equal(t, twice, payment, "the form names the payment it was opened for")
	fill := func() {
		b.Do(chromedp.SetValue(chromedp.ID("payment"), twice), chromedp.SetValue(chromedp.ID("amount"), "43.21"),
			chromedp.SetValue(chromedp.ID("currency"), "eur"), chromedp.SetValue(chromedp.ID("method"), "bank_transfer"),
			chromedp.SetValue(chromedp.ID("reference"), "TRF-77"), chromedp.SetValue(chromedp.ID("reason"), "paid twice"))
	}
	fill()
	b.Screenshot("manual-refund")
	// A double click: the form is sent once behind the person's back, then by its button; both
	// carry the key made with the form.
	sent, err := chromedp.Run(b.Ctx, chromedp.Evaluate[int](`(() => {
		const f = document.querySelector('form[action="/console/finance/manual-refunds"]');
		return fetch(f.action, {method: "POST", body: new URLSearchParams(new FormData(f))}).then(r => r.status);
	})()`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, sent, "recorded, and redirected to the form again")
	b.Submit("#manual-submit")
	b.Screenshot("manual-refund-recorded")
	assert.Contains(t, b.Text(".flash"), "EUR 43.21")
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = $1 AND status = 'succeeded'
		AND amount = 4321 AND method = 'bank_transfer' AND reference = 'TRF-77' AND recorded_by = 'fin-1'`, twice))

	// Past what is left of the payment: the API's conflict, shown as the error page.
	fill()
	b.Submit("#manual-submit")
	b.Screenshot("manual-refund-too-much")
	assert.Equal(t, "It changed meanwhile", b.Text("h1"))
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = $1 AND status = 'succeeded'`, twice))

	b.Visit(sys.ConsoleURL() + "/finance/report?site=hotel:h-hand")
	b.Screenshot("report-with-manual-refund")
	refunds := b.Text("#refunds + table")
	assert.Contains(t, refunds, "TRF-77")
	assert.Contains(t, refunds, "fin-1")
	assert.Contains(t, refunds, "EUR -43.21")
}
