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

// TestConsoleChecksAGuestOutEarlyAndSaysWhatItGivesBack (issue 39, defect 4): a checked-in guest
// of three paid nights leaves after the first. The booking page offers a check-out, not "Cancel
// the booking"; before the desk confirms it says what leaving today does (the stay ends
// tomorrow, two nights back on sale, the rate's policy gives 200.00 back); checking out says what
// it did, the page shows who checked the guest out and when, no check-out is offered again, and
// the refund was made.
func TestConsoleChecksAGuestOutEarlyAndSaysWhatItGivesBack(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	stay := stayFromNow(0, 3)
	openRooms(t, s, "h-leave", "double", stay, 1)
	res := s.Admin(t, http.MethodPut, "/api/v1/admin/hotels/h-leave/cancellation-policy",
		map[string]any{"earlyDeparture": domain.EarlyDepartureAll})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	id, total := holdRoom(t, s, "h-leave", "k-leave", stay, 1)
	payAndConfirm(t, s, id, total, "evt_leave", "pi_leave")
	desk := s.As(t, domain.Principal{Subject: "desk-leave", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-leave"}})
	require.Equal(t, http.StatusOK, desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/check-in", nil, nil).Status)

	b := testsuite.NewBrowser(t, "check-out")
	b.DevSignIn(s, "desk-leave", "front_desk", "hotel:h-leave")
	b.Visit(s.ConsoleURL() + "/bookings/" + id)
	b.Screenshot("check-out-offered")
	assert.Equal(t, 0, countOf(t, b, "#cancel-booking"), "a checked-in stay is checked out, never cancelled")
	night := testsuite.TestRate.Amount
	tomorrow := stay.CheckIn.AddDays(1).String()
	assert.Equal(t, "Leaving early: the stay ends on "+tomorrow+", 2 night(s) not stayed go back on sale. "+
		"The rate's policy gives them back: EUR "+formatEUR(2*night)+" is refunded to the guest.", b.Text("#check-out-preview"))

	b.Do(chromedp.Click(chromedp.ID("check-out-open")))
	b.Submit("#check-out")
	b.Screenshot("checked-out")
	assert.Equal(t, "Checked out early: the stay ends on "+tomorrow+", 2 night(s) not stayed are back on sale. "+
		"The rate's policy gives them back: EUR "+formatEUR(2*night)+" is refunded to the guest.", b.Text(".flash"))
	assert.Contains(t, b.Text("#checked-out"), "by desk-leave")
	assert.Equal(t, 0, countOf(t, b, "#check-out, #cancel-booking"), "nothing more to check out")
	var checkedOut *time.Time
	require.NoError(t, s.DB.Pool.QueryRow(context.Background(), `SELECT checked_out_at FROM bookings WHERE id = $1`, id).Scan(&checkedOut))
	assert.NotNil(t, checkedOut)
	require.Eventually(t, func() bool {
		return count(t, s, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND status = 'succeeded' AND amount = $2`,
			id, 2*night) == 1
	}, 20*time.Second, 50*time.Millisecond, "the two nights were given back")
}

// formatEUR is minor units of EUR as the console writes them (20000 is "200.00").
func formatEUR(minor int64) string {
	return fmt.Sprintf("%d.%02d", minor/100, minor%100)
}
