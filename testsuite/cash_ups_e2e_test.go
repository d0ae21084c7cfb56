package testsuite_test

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// cashUpLines are a cash-up's or a preview's lines as "method currency": [expected, counted?].
func cashUpLines(t *testing.T, body map[string]any) map[string][]any {
	t.Helper()
	out := map[string][]any{}
	for _, l := range body["lines"].([]any) {
		line := l.(map[string]any)
		v := []any{line["expected"]}
		if c, ok := line["counted"]; ok {
			v = append(v, c, line["difference"])
		}
		out[line["method"].(string)+" "+line["currency"].(string)] = v
	}
	return out
}

// A desk's shift through the API: a cash deposit and the rest on the terminal, a cash payment
// reversed as entered by mistake (given back in cash by the same desk), another desk's cash; the
// preview, the close (once, under its key), the list and a note; who may do what.
func TestADeskCashesUpItsShiftThroughTheAPI(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(20, 2)
	openRooms(t, sys, "h-cash", "double", stay, 5)
	openRooms(t, sys, "h-else", "double", stay, 5)
	desk := deskOf(t, sys, []string{"h-cash"}, nil)
	other := sys.As(t, domain.Principal{Subject: "other-" + sys.ID, Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-cash"}})
	elsewhere := sys.As(t, domain.Principal{Subject: "desk-" + sys.ID, Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-else"}})
	finance := sys.As(t, domain.Principal{Subject: "fin-" + sys.ID, Roles: []domain.Role{domain.RoleFinance}})
	from := time.Now().Add(-time.Second).UTC()

	pay := func(c testsuite.Caller, id, key, method string, amount int64) {
		res := c.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed(key),
			map[string]any{"amount": amount, "currency": "EUR", "method": method})
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
	}
	a, total := holdRoom(t, sys, "h-cash", "a", stay, 1)
	pay(desk, a, "deposit", "cash", 10000)
	pay(desk, a, "rest", "card_terminal", total-10000)
	b, _ := holdRoom(t, sys, "h-cash", "b", stay, 1)
	pay(desk, b, "typo", "cash", 5000)
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+b+"/refunds", keyed("undo"),
		map[string]any{"amount": 5000, "currency": "EUR", "reason": "entered by mistake", "reverses": domain.DeskPaymentID(b, "typo")})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitRefunded(t, sys, b, 5000)
	c, _ := holdRoom(t, sys, "h-cash", "c", stay, 1)
	pay(other, c, "theirs", "cash", 7000)
	time.Sleep(10 * time.Millisecond)
	to := time.Now().UTC()

	base := "/api/v1/staff/sites/h-cash/cash-ups"
	window := url.Values{"from": {from.Format(time.RFC3339Nano)}, "to": {to.Format(time.RFC3339Nano)}}
	res = desk.Do(t, http.MethodGet, base+"/preview?"+window.Encode(), nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "desk-"+sys.ID, res.Body["cashier"], "the caller's own shift by default")
	assert.Equal(t, map[string][]any{"cash EUR": {float64(10000)}, "card_terminal EUR": {float64(total - 10000)}},
		cashUpLines(t, res.Body), "150.00 cash taken, 50.00 of it given back by the reversal; the other desk's cash is theirs")

	theirs := url.Values{"cashier": {"other-" + sys.ID}, "from": window["from"], "to": window["to"]}
	res = desk.Do(t, http.MethodGet, base+"/preview?"+theirs.Encode(), nil, nil)
	assert.Equal(t, http.StatusForbidden, res.Status, "a desk previews its own shift only: %s", res.Raw)
	res = elsewhere.Do(t, http.MethodGet, base+"/preview?"+window.Encode(), nil, nil)
	assert.Equal(t, http.StatusForbidden, res.Status, "another hotel's desk: %s", res.Raw)
	res = finance.Do(t, http.MethodGet, base+"/preview?"+theirs.Encode(), nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, map[string][]any{"cash EUR": {float64(7000)}}, cashUpLines(t, res.Body), "finance reads any cashier's")
	res = finance.Do(t, http.MethodGet, "/api/v1/staff/sites/nowhere/cash-ups/preview?"+window.Encode(), nil, nil)
	assert.Equal(t, http.StatusNotFound, res.Status, res.Raw)

	body := map[string]any{"from": window.Get("from"), "to": window.Get("to"), "note": "short by 1.00",
		"counted": []map[string]any{{"method": "cash", "currency": "EUR", "amount": 9900},
			{"method": "card_terminal", "currency": "EUR", "amount": total - 10000}}}
	res = desk.Do(t, http.MethodPost, base, nil, body)
	assert.Equal(t, http.StatusBadRequest, res.Status, "a close takes an Idempotency-Key: %s", res.Raw)
	res = desk.Do(t, http.MethodPost, base, keyed("close-1"), map[string]any{"from": body["from"], "to": body["to"],
		"counted": []map[string]any{{"method": "cash", "currency": "EUR", "amount": 9900}}})
	assert.Equal(t, http.StatusBadRequest, res.Status, "the terminal's takings are counted too: %s", res.Raw)
	res = desk.Do(t, http.MethodPost, base, keyed("close-1"), body)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"]
	assert.Equal(t, map[string][]any{"cash EUR": {float64(10000), float64(9900), float64(-100)},
		"card_terminal EUR": {float64(total - 10000), float64(total - 10000), float64(0)}}, cashUpLines(t, res.Body))
	again := desk.Do(t, http.MethodPost, base, keyed("close-1"), body)
	require.Equal(t, http.StatusOK, again.Status, again.Raw)
	assert.Equal(t, id, again.Body["id"], "the same close again answers the cash-up it closed")
	res = desk.Do(t, http.MethodPost, base, keyed("close-2"), body)
	assert.Equal(t, http.StatusConflict, res.Status, "the shift is closed once: %s", res.Raw)
	body["counted"] = []map[string]any{{"method": "cash", "currency": "EUR", "amount": 10000},
		{"method": "card_terminal", "currency": "EUR", "amount": total - 10000}}
	res = desk.Do(t, http.MethodPost, base, keyed("close-1"), body)
	assert.Equal(t, http.StatusUnprocessableEntity, res.Status, "the key with other counts: %s", res.Raw)
	late := map[string]any{"from": window.Get("to"), "to": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}
	res = desk.Do(t, http.MethodPost, base, keyed("close-3"), late)
	assert.Equal(t, http.StatusBadRequest, res.Status, "a shift not ended yet: %s", res.Raw)

	res = other.Do(t, http.MethodGet, base, nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Empty(t, res.Body["cashUps"], "a desk lists its own cash-ups")
	res = finance.Do(t, http.MethodGet, base+"?date="+domain.DateOf(to, time.UTC).String(), nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Len(t, res.Body["cashUps"], 1)
	res = other.Do(t, http.MethodPost, base+"/"+jsonNumber(id)+"/notes", nil, map[string]any{"note": "mine?"})
	assert.Equal(t, http.StatusForbidden, res.Status, "another desk's cash-up: %s", res.Raw)
	res = finance.Do(t, http.MethodPost, base+"/"+jsonNumber(id)+"/notes", nil, map[string]any{"note": "the 1.00 was in the tips jar"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Len(t, res.Body["notes"], 1)
	res = finance.Do(t, http.MethodGet, "/api/v1/staff/audit", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Contains(t, res.Raw, `"action":"cash-up"`)
	assert.Contains(t, res.Raw, `"action":"cash-up-note"`)
}

// jsonNumber is a JSON number decoded as float64, as a path segment.
func jsonNumber(v any) string { return strconv.FormatInt(int64(v.(float64)), 10) }
