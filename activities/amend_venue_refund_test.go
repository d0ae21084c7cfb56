package activities_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// venueDay is in Budapest's summer time (UTC+2): an order at 10:00 there starts at 08:00 UTC, and
// midnight of that UTC date at the venue is ten hours before it.
var venueDay = domain.NewDate(2030, 6, 3)

// budapestVenue is venue v1 in Europe/Budapest with the default terms (free cancellation until
// 24 hours before an order starts), a 6-place lane and 8 rackets by the hour, open 07:00-14:00
// on venueDay at 20.00 a unit, and a clock for it: the instant of a wall-clock time on venueDay.
func budapestVenue(t *testing.T) (*testsuite.Database, func(hour, minute, second int) time.Time) {
	t.Helper()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	v := domain.NewVenue("v1", "", "Europe/Budapest")
	require.NoError(t, v.Validate())
	_, err := d.Store.PutVenue(ctx, v)
	require.NoError(t, err)
	for _, r := range []domain.VenueResource{
		{ID: "lane-1", VenueID: "v1", Kind: domain.KindQuotaSlot, Capacity: 6},
		{ID: "rackets", VenueID: "v1", Kind: domain.KindEquipment, Unit: domain.UnitHour, Capacity: 8},
	} {
		require.NoError(t, r.Validate())
		_, err := d.Store.PutVenueResource(ctx, r)
		require.NoError(t, err)
		_, err = d.Store.ApplySchedule(ctx, "v1", r.ID, domain.Schedule{From: venueDay, To: venueDay.AddDays(1),
			Opens: "07:00", Closes: "14:00", SlotMinutes: 60, Price: domain.Money{Amount: 2000, Currency: "EUR"}})
		require.NoError(t, err)
	}
	loc, err := time.LoadLocation("Europe/Budapest")
	require.NoError(t, err)
	return d, func(hour, minute, second int) time.Time {
		return time.Date(2030, 6, 3, hour, minute, second, 0, loc)
	}
}

// paidVenueOrder is customer's order of lines at v1, confirmed with a provider payment of its
// price.
func paidVenueOrder(t *testing.T, d *testsuite.Database, customer string, lines ...domain.OrderLine) domain.Booking {
	t.Helper()
	ctx := context.Background()
	b, err := d.Store.ReserveOrder(ctx, db.OrderParams{BookingID: "booking-" + customer, IdempotencyKey: "k",
		Request: domain.OrderRequest{CustomerID: customer, VenueID: "v1", Lines: lines}, CreatedBy: customer, HoldTTL: time.Hour})
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, b.Status)
	b, err = d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_" + customer, Amount: b.Price.Total, Currency: "EUR"})
	require.NoError(t, err)
	return b
}

// amendOrderAt is the Amend activity's outcome for b's lines changed to lines, the workflow
// having accepted it at instant at.
func amendOrderAt(t *testing.T, d *testsuite.Database, b domain.Booking, at time.Time, lines ...domain.OrderLine) domain.Amendment {
	t.Helper()
	out, err := (&activities.Bookings{Store: d.Store}).Amend(context.Background(), activities.AmendInput{BookingID: b.ID,
		IdempotencyKey: "a1", Change: domain.Change{Lines: lines}, Actor: "desk-1", BalanceWindow: time.Hour, At: at})
	require.NoError(t, err)
	require.Equal(t, domain.AmendmentApplied, out.Amendment.Status, out.Amendment.Reason)
	return out.Amendment
}

// TestAVenueOrderAmendedDownOnItsOwnDayRefundsWhatACancelThenWould: at 08:00 the desk takes the
// rackets off a paid 10:00 order. A cancel of an order of just those rackets at 08:00 gives all
// of it back (the venue's policy refunds in full until the order starts), so the amendment
// refunds what the rackets cost, not nothing: the policy is judged from the order's start, not
// from midnight of its first line's UTC date, eight hours before 08:00 at the venue.
func TestAVenueOrderAmendedDownOnItsOwnDayRefundsWhatACancelThenWould(t *testing.T) {
	t.Parallel()
	d, at := budapestVenue(t)
	lane := domain.OrderLine{ResourceID: "lane-1", Start: at(10, 0, 0), End: at(11, 0, 0), Quantity: 1}
	rackets := domain.OrderLine{ResourceID: "rackets", Start: at(10, 0, 0), End: at(11, 0, 0), Quantity: 2}

	justRackets := paidVenueOrder(t, d, "g2", rackets)
	cancelled, err := (&activities.Bookings{Store: d.Store}).StartRefund(context.Background(),
		activities.StartRefundInput{BookingID: justRackets.ID, ByPolicy: true, CancelledAt: at(8, 0, 0)})
	require.NoError(t, err)
	require.Equal(t, int64(4000), cancelled.RefundDue, "a cancel at 08:00 refunds the rackets whole")

	b := paidVenueOrder(t, d, "g1", lane, rackets)
	require.Equal(t, int64(6000), b.Paid)
	a := amendOrderAt(t, d, b, at(8, 0, 0), lane)
	assert.Equal(t, int64(-4000), a.Difference)
	assert.Equal(t, cancelled.RefundDue, a.Refund, "the amendment refunds the rackets as a cancel at the same moment would")
}

// TestAVenueOrderAmendedDownRefundsNothingFromItsStart: the venue's policy refunds in full until
// the order's first line starts (a day before, at its free cancellation's limit, as a second
// before) and nothing from that instant on, also for a later line taken off once the order has
// begun: the rackets at 12:00 of an order that started at 10:00, taken off at 10:30.
func TestAVenueOrderAmendedDownRefundsNothingFromItsStart(t *testing.T) {
	t.Parallel()
	d, at := budapestVenue(t)
	lane := domain.OrderLine{ResourceID: "lane-1", Start: at(10, 0, 0), End: at(11, 0, 0), Quantity: 1}
	rackets := domain.OrderLine{ResourceID: "rackets", Start: at(12, 0, 0), End: at(13, 0, 0), Quantity: 2}
	for customer, c := range map[string]struct {
		at     time.Time
		refund int64
	}{
		"free-cancellation-limit": {at(10, 0, 0).Add(-24 * time.Hour), 4000},
		"second-before-start":     {at(9, 59, 59), 4000},
		"at-start":                {at(10, 0, 0), 0},
		"after-start":             {at(10, 30, 0), 0},
	} {
		b := paidVenueOrder(t, d, customer, lane, rackets)
		a := amendOrderAt(t, d, b, c.at, lane)
		assert.Equal(t, int64(-4000), a.Difference, customer)
		assert.Equal(t, c.refund, a.Refund, customer)
	}
}
