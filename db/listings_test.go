package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestADayListsNoVenueOrderThatEndedAsItBegan: ?date on the staff list keeps "a venue
// order with a line that day" (api/listings.go). BookingFilter.Meeting compares the booking
// row's own (first) line with unit_to >= the day's start, which a stay's departure needs but
// a venue's line does not: an order that ended at midnight, the day before, is listed on the
// next day too (its further lines, in booking_lines, are compared strictly and are not).
func TestADayListsNoVenueOrderThatEndedAsItBegan(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	venueWith(t, d.Store, "UTC", court)
	_, err := d.Store.ApplySchedule(ctx, "v1", "court-1", schedule(orderDay, orderDay.AddDays(2), "22:00", "24:00", 60))
	require.NoError(t, err)
	late := domain.OrderLine{ResourceID: "court-1", Start: at(23), End: at(24), Quantity: 1}
	b, err := d.Store.ReserveOrder(ctx, order("night-owl", "k", late))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, b.Status)

	list := func(day domain.Date) []string {
		span := domain.DayBounds(day, time.UTC)
		got, _, err := d.Store.ListBookings(ctx, db.BookingFilter{VenueIDs: []string{"v1"}, Meeting: &span, Limit: 100})
		require.NoError(t, err)
		ids := []string{}
		for _, b := range got {
			ids = append(ids, b.ID)
		}
		return ids
	}
	assert.Equal(t, []string{b.ID}, list(orderDay), "the control: the order is listed on its own day")
	assert.Empty(t, list(orderDay.AddDays(1)), "an order of 23:00-24:00 has no line the next day")
}
