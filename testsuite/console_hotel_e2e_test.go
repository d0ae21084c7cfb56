package testsuite_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestConsoleHotelReceptionChecksAWalkInIn: a hotel's reception books a walk-in by phone for
// two nights from today under the rate plan it picks (with breakfast), takes the money on the card terminal and checks the guest in; today's
// arrivals and tomorrow's stays list the booking; the screens read in Simplified Chinese after
// the language is switched.
func TestConsoleHotelReceptionChecksAWalkInIn(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	today := domain.DateOf(time.Now(), time.UTC)
	s.DB.SetInventory(t, "h-desk", "double", today, today.AddDays(5), 3)
	putPlans(t, s, "h-desk", planDef{"BB", map[string]any{"name": "With breakfast", "board": "breakfast",
		"policy": map[string]any{"freeUntilHours": 24}, "derivedFrom": map[string]any{"parent": "BAR", "amount": 1500}}})
	b := testsuite.NewBrowser(t, "reception")
	b.DevSignIn(s, "reception-1", "front_desk", "hotel:h-desk")

	b.Visit(s.ConsoleURL() + "/hotels/h-desk/day")
	b.Screenshot("hotel-day-empty")
	b.Do(chromedp.SetValue(chromedp.ID("nights"), "2"), chromedp.SetValue(chromedp.ID("phone"), "+44 7700 900123"),
		chromedp.SetValue(chromedp.ID("name"), "Ada Lovelace"), chromedp.SetValue(chromedp.ID("ratePlan"), "BB"))
	b.Submit("#hotel-walk-in")
	b.Screenshot("hotel-booking-held")
	require.Equal(t, "HOLD", b.Attr("#booking-status", "data-status"))
	id := b.Text("main code")
	price := b.Text("#booking-price")
	assert.Equal(t, "With breakfast (BB)", b.Text("#booking-plan"), "the desk picked the plan")

	b.Do(chromedp.SetValue(chromedp.ID("pay-method"), "card_terminal"))
	b.Submit("#take-payment")
	assert.Equal(t, "CONFIRMED", b.Attr("#booking-status", "data-status"))
	assert.Equal(t, price, b.Text("#money-paid"))
	b.Submit("#check-in")
	assert.Equal(t, "COMPLETED", b.Attr("#booking-status", "data-status"))

	b.Visit(s.ConsoleURL() + "/hotels/h-desk/day")
	b.Screenshot("hotel-day-arrived")
	assert.Contains(t, b.Text("#arrivals + table"), "Ada Lovelace")
	b.Visit(s.ConsoleURL() + "/hotels/h-desk/day?date=" + today.AddDays(1).String())
	assert.Contains(t, b.Text("#staying + table"), "Ada Lovelace")

	var method string
	var amount, total int64
	require.NoError(t, s.DB.Pool.QueryRow(context.Background(), `SELECT p.method, p.amount, b.total FROM payments p
		JOIN bookings b ON b.id = p.booking_id WHERE b.id = $1`, id).Scan(&method, &amount, &total))
	assert.Equal(t, "card_terminal", method)
	assert.Equal(t, total, amount)

	b.Do(chromedp.SetValue(chromedp.ID("lang"), "zh-Hans"))
	b.Submit(`form[action="/console/language"] button`)
	b.Screenshot("hotel-day-zh")
	assert.Contains(t, b.Text("main"), "在住")
	b.Visit(s.ConsoleURL() + "/bookings/" + id)
	b.Screenshot("hotel-booking-zh")
	assert.Contains(t, b.Text("#booking-status"), "已签到")
}
