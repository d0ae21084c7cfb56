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

// Reviewer's tests (issue 36, raises): changes that let a waited-for product sell but offer it
// to nobody, so the public takes it.

// TestRatesSetOnUnpricedNightsAreOfferedToTheWaitlist: a night with no rate refuses
// every hold, so a customer may join; SetRates then puts the stay on sale without an offer.
func TestRatesSetOnUnpricedNightsAreOfferedToTheWaitlist(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	require.NoError(t, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: "h1", RoomTypeID: "double",
		From: dec10, To: dec13, TotalRooms: 1})) // no rate: not sold yet
	e := waitFor(t, d, "w1", stay3, 1)

	_, err := d.Store.SetRates(ctx, "h1", "double", dec10, dec13, testsuite.TestRate, false)
	require.NoError(t, err)

	public, err := d.Store.Reserve(ctx, holdParams("p1", "k", stay3, 1))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, public.Status, "the public took the room the entry waited for")
	raiseOffered(t, d, e)
}

// TestARuleCreatedThatOverridesAGlobalOneIsOfferedToTheWaitlist: a channel's rule with
// overridesGlobal lets its channel sell a stay the hotel's global rule refuses; CreateSaleRules
// is no rule write the waitlist hears of.
func TestARuleCreatedThatOverridesAGlobalOneIsOfferedToTheWaitlist(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	// Within a channel's default booking window.
	in := domain.DateOf(time.Now().AddDate(0, 0, 30), time.UTC)
	stay := domain.Stay{CheckIn: in, CheckOut: in.AddDays(3)}
	d.SetInventory(t, "h1", "double", stay.CheckIn, stay.CheckOut, 1)
	require.NoError(t, d.Store.PutChannel(ctx, db.Channel{ID: "A"}))
	five, one := 5, 1
	createRule(t, d, domain.SaleRule{Kind: domain.RuleLengthOfStay, HotelID: "h1", MinLOS: &five})
	var id int64
	require.NoError(t, d.Pool.QueryRow(ctx, `INSERT INTO waitlist_entries (customer_id, created_by, resource_id,
			unit_from, unit_to, quantity, channel_id)
		SELECT 'w1', 'w1', id, $1, $2, 1, 'A' FROM resources WHERE hotel_id = 'h1' AND code = 'double' RETURNING id`,
		stay.CheckIn.Time(), stay.CheckOut.Time()).Scan(&id))
	e, err := d.Store.WaitlistEntry(ctx, id)
	require.NoError(t, err)

	before := holdParams("p0", "k", stay, 1)
	before.ChannelID = "A"
	refused, err := d.Store.Reserve(ctx, before)
	require.NoError(t, err)
	require.Equal(t, domain.StatusRejected, refused.Status, "the global rule refuses the stay before")

	createRule(t, d, domain.SaleRule{Kind: domain.RuleLengthOfStay, HotelID: "h1", ChannelID: "A", MinLOS: &one,
		OverridesGlobal: true})

	p := holdParams("p1", "k", stay, 1)
	p.ChannelID = "A"
	public, err := d.Store.Reserve(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, public.Status, "channel A's public hold took the room the entry waited for")
	raiseOffered(t, d, e)
}
