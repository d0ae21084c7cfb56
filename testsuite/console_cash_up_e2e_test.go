package testsuite_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestConsoleDeskCashesUpItsShift: a front desk takes a cash deposit and the rest on the card
// terminal, and reverses a cash payment entered by mistake; at the end of the shift it opens
// the cash-up from its home page, sees what is expected (the reversal out of the cash), types
// what it counted (1.00 short), sees the difference, is refused with what it typed kept (an
// amount that does not read, then the same shift closed again), closes the shift once, and
// reads the closed cash-up; finance adds a note to it; the page in Simplified Chinese. Each
// screen passes axe-core.
func TestConsoleDeskCashesUpItsShift(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	stay := stayFromNow(20, 2)
	openRooms(t, sys, "h-cu", "double", stay, 5)
	res := sys.Admin(t, http.MethodGet, "/api/v1/staff/sites?hotelId=h-cu", nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	loc, err := time.LoadLocation(res.Body["sites"].([]any)[0].(map[string]any)["timeZone"].(string))
	require.NoError(t, err)
	from := time.Now().Add(-time.Minute).In(loc)
	desk := deskOf(t, sys, []string{"h-cu"}, nil)
	pay := func(id, key, method string, amount int64) {
		res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed(key),
			map[string]any{"amount": amount, "currency": "EUR", "method": method})
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
	}
	a, total := holdRoom(t, sys, "h-cu", "a", stay, 1)
	pay(a, "deposit", "cash", 10000)
	pay(a, "rest", "card_terminal", total-10000)
	b, _ := holdRoom(t, sys, "h-cu", "b", stay, 1)
	pay(b, "typo", "cash", 3000)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+b+"/refunds", keyed("undo"),
		map[string]any{"amount": 3000, "currency": "EUR", "reason": "entered by mistake", "reverses": domain.DeskPaymentID(b, "typo")})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitRefunded(t, sys, b, 3000)
	time.Sleep(1100 * time.Millisecond) // the shift ends at a whole second after the money moved
	card := formatEUR(total - 10000)

	br := testsuite.NewBrowser(t, "cashup")
	br.DevSignIn(sys, "desk-"+sys.ID, "front_desk", "hotel:h-cu")
	br.Submit(`a[href="/console/finance/cash-up?site=hotel:h-cu"]`)
	assert.Equal(t, "desk-"+sys.ID, br.Text("#cashier-name"), "a desk cashes up its own shift")
	br.Do(chromedp.SetValue(chromedp.ID("from"), from.Format("2006-01-02T15:04:05")))
	br.Submit("#cash-up-show")
	lines := br.Text("#cash-up-lines")
	assert.Contains(t, lines, "130.00 (2)", "the cash taken")
	assert.Contains(t, lines, "30.00 (1)", "the reversal gave 30.00 back from the drawer")
	assert.Contains(t, lines, "100.00", "expected in the drawer")
	assert.Contains(t, lines, card)
	br.Screenshot("cash-up")
	br.AssertAccessible(t, "cash-up")

	br.Do(chromedp.SetValue(chromedp.CSS(`input[name="counted_cash_EUR"]`), "99.00"),
		chromedp.SetValue(chromedp.CSS(`input[name="counted_card_terminal_EUR"]`), card),
		chromedp.SetValue(chromedp.ID("note"), "a coin missing"))
	br.Submit("#cash-up-check")
	assert.Contains(t, br.Text("#cash-up-lines"), "-1.00", "the difference of what was typed")

	br.Do(chromedp.SetValue(chromedp.CSS(`input[name="counted_card_terminal_EUR"]`), "twelve"))
	br.Submit("#cash-up-close")
	assert.Contains(t, br.Text("#cash-up-refused"), "Give what was counted")
	assert.Equal(t, "99.00", br.Attr(`input[name="counted_cash_EUR"]`, "value"), "what was typed is kept")
	assert.Equal(t, "a coin missing", br.Attr("#note", "value"))
	assert.Equal(t, "twelve", br.Attr(`input[name="counted_card_terminal_EUR"]`, "value"))
	br.Screenshot("cash-up-refused")
	br.AssertAccessible(t, "cash-up refused")

	br.Do(chromedp.SetValue(chromedp.CSS(`input[name="counted_card_terminal_EUR"]`), card))
	br.Submit("#cash-up-close")
	assert.Contains(t, br.Text("main"), "is closed", "the flash")
	closed := br.Text("section.cash-up")
	assert.Contains(t, closed, "-1.00")
	assert.Contains(t, closed, "a coin missing")
	br.Screenshot("cash-up-closed")

	// The same shift again, from a fresh form: refused, what was typed kept.
	br.Do(chromedp.SetValue(chromedp.CSS(`input[name="counted_cash_EUR"]`), "100.00"),
		chromedp.SetValue(chromedp.CSS(`input[name="counted_card_terminal_EUR"]`), card))
	br.Submit("#cash-up-close")
	assert.Contains(t, br.Text("#cash-up-refused"), "overlaps a cash-up closed before")
	assert.Equal(t, "100.00", br.Attr(`input[name="counted_cash_EUR"]`, "value"))
	res = sys.As(t, domain.Principal{Subject: "fin-1", Roles: []domain.Role{domain.RoleFinance}}).Do(t, http.MethodGet,
		"/api/v1/staff/sites/h-cu/cash-ups?date="+domain.DateOf(from, loc).String(), nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Len(t, res.Body["cashUps"], 1, "closed once")

	fin := testsuite.NewBrowser(t, "cashup-finance")
	fin.DevSignIn(sys, "fin-1", "finance", "")
	fin.Visit(sys.ConsoleURL() + "/finance")
	fin.Submit(`a[href="/console/finance/cash-up?site=hotel:h-cu"]`)
	fin.Do(chromedp.SetValue(chromedp.CSS(`input[id^="note-"]`), "the coin was under the drawer"))
	fin.Submit(`section.cash-up form button`)
	assert.Contains(t, fin.Text("section.cash-up"), "fin-1: the coin was under the drawer")
	fin.Do(chromedp.SetValue(chromedp.ID("lang"), "zh-Hans"))
	fin.Submit(`form[action="/console/language"] button`)
	main := fin.Text("main")
	assert.True(t, strings.Contains(main, "交班结账") && strings.Contains(main, "差额"), main)
	fin.Screenshot("cash-up-zh")
	fin.AssertAccessible(t, "cash-up zh")
}
