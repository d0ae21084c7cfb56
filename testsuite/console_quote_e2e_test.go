package testsuite_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestConsoleShowsTheQuoteBeforeChangingTheStay (issue 39, before committing): a receptionist
// extends a paid two-night stay by a night and first asks the price. The page says what the stay
// would cost against what it costs now, what more is to pay and how many rooms are left, and
// keeps the form as typed; nothing is changed. A suite is quoted the same way (the room type is
// changed in the form); five rooms are refused in a sentence, nothing changed. "Change" then
// makes the change.
func TestConsoleShowsTheQuoteBeforeChangingTheStay(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	stay := stayFromNow(3, 2)
	longer := domain.Stay{CheckIn: stay.CheckIn, CheckOut: stay.CheckOut.AddDays(1)}
	openRooms(t, s, "h-quote", "double", longer, 3)
	openRooms(t, s, "h-quote", "suite", longer, 1)
	id, total := holdRoom(t, s, "h-quote", "k-quote", stay, 1)
	payAndConfirm(t, s, id, total, "evt_quote", "pi_quote")
	night := testsuite.TestRate.Amount

	b := testsuite.NewBrowser(t, "quote")
	b.DevSignIn(s, "desk-quote", "front_desk", "hotel:h-quote")
	b.Visit(s.ConsoleURL() + "/bookings/" + id)
	b.Do(chromedp.SetValue(chromedp.ID("amend-out"), longer.CheckOut.String()))
	b.Submit("#amend-quote-button")
	assert.Equal(t, "The stay would cost EUR "+formatEUR(3*night)+" (now EUR "+formatEUR(2*night)+"). EUR "+
		formatEUR(night)+" more to pay.", b.Text("#amend-quote p"))
	assert.Equal(t, "double rooms left from "+longer.CheckIn.String()+" to "+longer.CheckOut.String()+": 2.", b.Text("#amend-left"))
	assert.Equal(t, longer.CheckOut.String(), fieldValue(t, b, "amend-out"), "the form as typed")
	b.Screenshot("quoted")
	b.AssertAccessible(t, "booking page with a quote")
	assert.Equal(t, stay.CheckOut.String(), staffView(t, s, id).Body["checkOut"], "a quote changes nothing")

	b.Do(chromedp.SetValue(chromedp.ID("amend-type"), "suite"))
	b.Submit("#amend-quote-button")
	assert.Equal(t, "suite rooms left from "+longer.CheckIn.String()+" to "+longer.CheckOut.String()+": 1.", b.Text("#amend-left"))
	assert.Equal(t, "suite", fieldValue(t, b, "amend-type"))

	b.Do(chromedp.SetValue(chromedp.ID("amend-type"), "double"), chromedp.SetValue(chromedp.ID("amend-qty"), "5"))
	b.Submit("#amend-quote-button")
	assert.Contains(t, b.Text("#amend-quote .error"), "Sold out")
	assert.Equal(t, "5", fieldValue(t, b, "amend-qty"))

	b.Do(chromedp.SetValue(chromedp.ID("amend-qty"), "1"))
	b.Submit("#amend-stay")
	assert.Contains(t, b.Text(".flash"), "Change")
	var status, after string
	require.NoError(t, s.DB.Pool.QueryRow(context.Background(), `SELECT status, after::text FROM booking_amendments
		WHERE booking_id = $1`, id).Scan(&status, &after))
	assert.Contains(t, after, longer.CheckOut.String(), "the change asked is the one quoted (%s)", status)
}
