package testsuite_test

import (
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// gridCell is the text of a block grid's row on a night.
func gridCell(b *testsuite.Browser, row, night string) string {
	return b.Text(`#row-` + row + ` td[data-night="` + night + `"]`)
}

// TestConsoleDeskSeesABlocksPickupByNightAndReleasesRoomsEarly: from the hotel's day the desk
// opens its group blocks, makes a tentative one definite, sees a guest's pickup by night with
// the cut-off on the hotel's clock, and releases a room of one night early.
func TestConsoleDeskSeesABlocksPickupByNightAndReleasesRoomsEarly(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	hotel, stay := "h-blk-"+s.ID, stayFromNow(40, 2)
	openRooms(t, s, hotel, "double", stay, 6)
	res := blockDesk(t, s, hotel).Do(t, http.MethodPost, "/api/v1/staff/hotels/"+hotel+"/blocks", nil,
		blockBody("SUMMIT", stay, 3, map[string]any{"kind": "rolling", "days": 10, "time": "18:00"}))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	first, second := stay.CheckIn.String(), stay.CheckIn.AddDays(1).String()

	b := testsuite.NewBrowser(t, "blocks")
	b.DevSignIn(s, "desk-blk", "front_desk", "hotel:"+hotel)
	b.Visit(s.ConsoleURL() + "/hotels/" + hotel + "/day?date=" + first)
	b.Submit("#hotel-blocks")
	assert.Equal(t, "Tentative", b.Text(`#blocks tr[data-block="`+id+`"] .status`))
	b.Submit(`#blocks tr[data-block="` + id + `"] a`)
	assert.Equal(t, "3", gridCell(b, "tentative", first))
	b.Submit("#block-definite")
	b.Screenshot("block-definite")
	assert.Equal(t, "DEFINITE", b.Attr("#block-status", "data-status"))
	assert.Equal(t, "3", gridCell(b, "remaining", first))
	assert.Equal(t, stay.CheckIn.AddDays(-10).String()+" 18:00", gridCell(b, "cutoff", first), "the cut-off on the hotel's clock")

	guest := holdBody(s.Customer("guest"), hotel, "double", stay, 1)
	guest["groupCode"] = "SUMMIT"
	require.Equal(t, http.StatusCreated, hold(t, s, "k", guest).Status)
	b.Visit(b.Location())
	assert.Equal(t, "1", gridCell(b, "picked", first))
	assert.Equal(t, "2", gridCell(b, "remaining", second))

	b.Do(chromedp.SetValue(chromedp.ID("release-rooms"), "1"), chromedp.SetValue(chromedp.ID("release-night"), second))
	b.Submit("#block-release")
	b.Screenshot("block-released")
	assert.Equal(t, "1", gridCell(b, "released", second))
	assert.Equal(t, "1", gridCell(b, "remaining", second))
	assert.Equal(t, "2", gridCell(b, "remaining", first), "the other night keeps its rooms")
	assert.Equal(t, 3, roomsLeft(t, s, hotel, "double", stay), "the first night's six less the block's two and the guest's one")
	checkInvariants(t, s)
}
