package console

import (
	"net/http"
	"strconv"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// blockRoutes are a hotel's group blocks (docs/groups-and-blocks.md): the list, one block's
// pickup by night, and what the desk does to it.
func (c *Console) blockRoutes(page func(method, path string, h handler, roles []domain.Role), desk, anyStaff []domain.Role) {
	page(http.MethodGet, "/hotels/:hotelId/blocks", c.hotelBlocks, anyStaff)
	page(http.MethodGet, "/blocks/:blockId", c.block, anyStaff)
	page(http.MethodPost, "/blocks/:blockId/definite", c.blockAction("definite"), desk)
	page(http.MethodPost, "/blocks/:blockId/releases", c.blockAction("releases"), desk)
	page(http.MethodPost, "/blocks/:blockId/cancel", c.blockAction("cancel"), desk)
}

// blocksView is a hotel's blocks.
type blocksView struct {
	Site   db.SiteSummary
	Blocks []blockRow
}

// blockRow is one block in a list, its nights summed.
type blockRow struct {
	ID, GroupCode, Name, Status, StatusCode string
	From, To                                domain.Date
	Rooms, Picked, Remaining                int
}

// hotelBlocks lists a hotel's blocks from today on (GET /staff/hotels/{hotelId}/blocks).
func (c *Console) hotelBlocks(r *request) error {
	site, err := r.site("hotel", r.Param("hotelId"))
	if err != nil {
		return r.fail(err)
	}
	var out struct {
		Blocks []db.Block `json:"blocks"`
	}
	if err := c.api.call(r.ctx(), r.who, http.MethodGet, "/staff/hotels/"+seg(site.ID)+"/blocks", nil, "", &out); err != nil {
		return r.fail(err)
	}
	v := blocksView{Site: site}
	for _, b := range out.Blocks {
		row := blockRow{ID: b.ID, GroupCode: b.GroupCode, Name: b.Name, StatusCode: string(b.Status),
			Status: r.text.T("block.status." + string(b.Status))}
		for i, n := range b.Nights {
			if i == 0 {
				row.From = n.Date
			}
			row.To = n.Date.AddDays(1)
			row.Rooms, row.Picked, row.Remaining = row.Rooms+n.Rooms, row.Picked+n.Picked, row.Remaining+n.Remaining
		}
		v.Blocks = append(v.Blocks, row)
	}
	return r.render(http.StatusOK, "blocks", r.text.T("block.listTitle", siteName(site)), v)
}

// blockView is one block's pickup by night, and what the desk may do to it.
type blockView struct {
	Block  db.Block
	Site   db.SiteSummary
	Nights []blockNightCell
	Desk   bool
}

// blockNightCell is a night of the grid, its cut-off on the hotel's clock.
type blockNightCell struct {
	db.BlockNightState
	CutOff, ReleasedAt string
}

// block shows a block's nights as a grid: promised, remaining (or tentative), picked, released,
// and each night's cut-off in the hotel's time zone.
func (c *Console) block(r *request) error {
	var b db.Block
	if err := c.api.call(r.ctx(), r.who, http.MethodGet, "/staff/blocks/"+seg(r.Param("blockId")), nil, "", &b); err != nil {
		return r.fail(err)
	}
	site, err := r.site("hotel", b.HotelID)
	if err != nil {
		return r.fail(err)
	}
	zone, err := time.LoadLocation(site.TimeZone)
	if err != nil {
		return r.fail(err)
	}
	v := blockView{Block: b, Site: site, Desk: r.who.CanBook(b.HotelID)}
	for _, n := range b.Nights {
		cell := blockNightCell{BlockNightState: n, CutOff: r.text.T("block.noCutOff")}
		if n.ReleaseAt != nil {
			cell.CutOff = n.ReleaseAt.In(zone).Format("2006-01-02 15:04")
		}
		if n.ReleasedAt != nil {
			cell.ReleasedAt = n.ReleasedAt.In(zone).Format("2006-01-02 15:04")
		}
		v.Nights = append(v.Nights, cell)
	}
	return r.render(http.StatusOK, "block", r.text.T("block.title", b.GroupCode, b.Name), v)
}

// blockAction makes a block definite, releases rooms of it early, or cancels it, through the
// API, and says what happened.
func (c *Console) blockAction(action string) handler {
	return func(r *request) error {
		id := r.Param("blockId")
		var body any
		switch action {
		case "releases":
			rooms, err := strconv.Atoi(r.FormValue("rooms"))
			if err != nil || rooms < 1 {
				r.flash(r.text.T("block.roomsNeeded"))
				return r.Redirect(http.StatusSeeOther, Prefix+"/blocks/"+seg(id))
			}
			change := map[string]any{"rooms": rooms, "reason": r.FormValue("reason")}
			if night := r.FormValue("night"); night != "" {
				change["nights"] = []string{night}
			}
			body = change
		case "cancel":
			body = map[string]any{"reason": r.FormValue("reason")}
		}
		var b db.Block
		if err := c.api.call(r.ctx(), r.who, http.MethodPost, "/staff/blocks/"+seg(id)+"/"+action, body, "", &b); err != nil {
			return r.fail(err)
		}
		r.flash(r.text.T("block.done."+action, b.GroupCode))
		return r.Redirect(http.StatusSeeOther, Prefix+"/blocks/"+seg(id))
	}
}
