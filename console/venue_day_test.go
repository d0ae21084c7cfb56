package console

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// TestTheGridShowsACourtTakenWithoutABookingOnItsLinesAsTaken: a court's slot can be taken
// by units no listed booking's price lines name: a paid order's amendment that costs more holds
// its added units beside the order's own until the balance is paid (db/amend_orders.go, stored
// in booking_lines with the amendment's id by insertAmendment), while the booking's price lines
// (line_prices, which linesByResource reads) change only when it is settled. The API's slots say so (placesLeft
// 0), but the grid decides a court's state from the bookings' lines alone: it shows the slot
// free and offers a walk-in the API will refuse.
func TestTheGridShowsACourtTakenWithoutABookingOnItsLinesAsTaken(t *testing.T) {
	start := time.Date(2030, 6, 3, 10, 0, 0, 0, time.UTC)
	slots := []db.Slot{
		{ResourceID: "court-1", Kind: domain.KindExclusiveSlot, Start: start, End: start.Add(time.Hour), Capacity: 1,
			PlacesLeft: 0, Open: true},
		{ResourceID: "court-1", Kind: domain.KindExclusiveSlot, Start: start.Add(time.Hour), End: start.Add(2 * time.Hour),
			Capacity: 1, PlacesLeft: 1, Open: true},
	}
	v := layoutGrid(slots, nil, time.UTC)
	v.Zone = time.UTC
	v.label(catalogueFor("en"), nil)
	require.Len(t, v.Rows, 1)
	require.Len(t, v.Rows[0].Cells, 2)
	taken, free := v.Rows[0].Cells[0], v.Rows[0].Cells[1]
	assert.Equal(t, "free", free.State, "the control: a court with its place left is free")
	assert.True(t, free.Bookable)
	assert.NotEqual(t, "free", taken.State, "a court the API says has no place left is not shown free")
	assert.False(t, taken.Bookable, "nor offered for a walk-in")
}
