package console

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// TestTheGridNamesABookingByItsGuest (issue 39): a booking on the venue grid reads by the
// guest's name when the desk wrote one down, else as the walk-in it is; in both languages.
func TestTheGridNamesABookingByItsGuest(t *testing.T) {
	start := time.Date(2030, 6, 3, 10, 0, 0, 0, time.UTC)
	slots := []db.Slot{{ResourceID: "court-1", Kind: domain.KindExclusiveSlot, Start: start, End: start.Add(time.Hour),
		Capacity: 1, Open: true}, {ResourceID: "court-2", Kind: domain.KindExclusiveSlot, Start: start,
		End: start.Add(time.Hour), Capacity: 1, Open: true}}
	line := func(res string) domain.Price {
		return domain.Price{Lines: []domain.LinePrice{{OrderLine: domain.OrderLine{ResourceID: res, Start: start, End: start.Add(time.Hour), Quantity: 1}}}}
	}
	bookings := []domain.Booking{
		{ID: "b-1", CustomerID: domain.WalkInPrefix + "+36301234567", Status: domain.StatusConfirmed, Price: line("court-1")},
		{ID: "b-2", CustomerID: domain.WalkInPrefix + "+36307654321", Status: domain.StatusHold, Price: line("court-2")},
	}
	for _, lang := range []string{"en", "zh-Hans"} {
		v := layoutGrid(slots, bookings, time.UTC)
		v.Zone = time.UTC
		text := catalogueFor(lang)
		v.label(text, nil)
		v.nameGuests(text, map[string]string{"b-1": "Grace Hopper"})
		require.Len(t, v.Rows, 2)
		named, walkIn := v.Rows[0].Cells[0].Bookings[0], v.Rows[1].Cells[0].Bookings[0]
		assert.Equal(t, text.T("status.CONFIRMED")+": Grace Hopper", named.Label, lang)
		assert.Equal(t, text.T("status.HOLD")+": "+text.Guest(bookings[1].CustomerID), walkIn.Label, lang)
	}
}
