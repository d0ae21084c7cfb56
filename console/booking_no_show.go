package console

import (
	"net/http"
	"strings"
	"time"

	"github.com/bookflow/bookflow/domain"
)

// A no-show marked by hand (issue 39): from the booking page, a second step with a reason (as a
// cancel), or from the venue's grid beside Late. Both send the API's POST
// /staff/bookings/{id}/no-show, which has the booking's workflow take its deadline's own step.

// noShowRoutes are the booking page's and the venue grid's routes of a no-show by hand.
func (c *Console) noShowRoutes(page func(method, path string, h handler, roles []domain.Role), desk []domain.Role) {
	page(http.MethodPost, "/bookings/:id/no-show", c.withReason("no-show"), desk) // a second step with a reason
	page(http.MethodPost, "/venues/:venueId/no-shows", c.noShowFromGrid, desk)
}

// noShowFromGrid marks a booking of the grid a no-show: its slot is under way or over and nobody
// checked in. The grid names no reason; the audit entry says who marked it.
func (c *Console) noShowFromGrid(r *request) error {
	venue, id := r.Param("venueId"), r.FormValue("bookingId")
	if !strings.HasPrefix(id, domain.BookingIDPrefix) {
		return r.fail(&apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: r.text.T("venue.lateNoBooking")})
	}
	if err := c.api.call(r.ctx(), r.who, http.MethodPost, "/staff/bookings/"+seg(id)+"/no-show", nil, "", nil); err != nil {
		return r.failOn(id, err)
	}
	r.flash(r.text.T("booking.done.no-show"))
	return r.Redirect(http.StatusSeeOther, q(Prefix+"/venues/"+seg(venue)+"/day", "date", r.FormValue("date")))
}

// noShowOpen reports whether a confirmed booking b (nobody checked in) may be marked a no-show at
// now, as the API's noShowable judges: a stay from its check-in date at the hotel, a venue order
// from its first slot's start.
func noShowOpen(b domain.Booking, now time.Time) bool {
	if b.Status != domain.StatusConfirmed {
		return false
	}
	if b.VenueID != "" {
		return !now.Before(b.OrderStarts())
	}
	return b.StayBegun(now)
}

// noShowText is the messages of a no-show by hand.
var noShowText = texts{
	"en": {
		"booking.noShow":         "Mark as no-show",
		"booking.noShowHint":     "Nobody came. As at the no-show deadline: the units go back on sale and the rate plan's terms decide what is kept and what is given back.",
		"booking.noShowOpen":     "Mark as no-show…",
		"booking.noShowButton":   "Mark as no-show",
		"booking.done.no-show":   "Marked a no-show.",
		"refusal.noShowTooEarly": "Too early for a no-show: a stay from its check-in date, a venue booking from the start of its first slot.",
		"venue.noShow":           "No-show",
		"venue.noShowAria":       "Mark as no-show: %s",
	},
	"zh-Hans": {
		"booking.noShow":         "标记为未到店",
		"booking.noShowHint":     "客人未到。与未到店截止时间相同：单位重新开放销售，保留与退还的金额由价格计划的条款决定。",
		"booking.noShowOpen":     "标记为未到店…",
		"booking.noShowButton":   "标记为未到店",
		"booking.done.no-show":   "已标记为未到店。",
		"refusal.noShowTooEarly": "尚不能标记未到店：酒店住宿自入住日起，场馆预订自首个时段开始起。",
		"venue.noShow":           "未到店",
		"venue.noShowAria":       "标记为未到店：%s",
	},
}
