package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestHotelTermsReadsWhatEachReadReads: the one-round-trip read of a hotel's terms gives what
// the separate reads give, and ErrNotFound for an unknown hotel.
func TestHotelTermsReadsWhatEachReadReads(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 2)
	d.SetInventory(t, "h1", "suite", dec10, dec13, 1)
	supplierHotel(t, d, "sup", db.ModeDirectProcure, "h1")
	createRule(t, d, domain.SaleRule{Kind: domain.RuleStopSell, HotelID: "h1", RoomTypeID: "suite",
		From: dec10, To: dec13, Reason: "maintenance"})

	terms, err := d.Store.HotelTerms(ctx, "h1")
	require.NoError(t, err)
	hotel, err := d.Store.GetHotel(ctx, "h1")
	require.NoError(t, err)
	sup, err := d.Store.HotelSupplier(ctx, "h1")
	require.NoError(t, err)
	rules, err := d.Store.SaleRulesInForce(ctx, "h1")
	require.NoError(t, err)
	plans, err := d.Store.RatePlans(ctx, "h1")
	require.NoError(t, err)
	assert.Equal(t, db.HotelTerms{Hotel: hotel, Supplier: sup, Rules: rules, Rooms: terms.Rooms, Plans: plans}, terms)
	assert.Equal(t, "sup", terms.Supplier.ID)
	assert.Len(t, terms.Rules, 1)
	require.Len(t, terms.Rooms, 2)
	assert.Equal(t, []string{"double", "suite"}, []string{terms.Rooms[0].Code, terms.Rooms[1].Code}, "in code order")

	d.SetInventory(t, "h2", "double", dec10, dec13, 2)
	plain, err := d.Store.HotelTerms(ctx, "h2")
	require.NoError(t, err)
	assert.Zero(t, plain.Supplier, "no supplier")
	assert.Empty(t, plain.Rules)

	_, err = d.Store.HotelTerms(ctx, "nowhere")
	assert.ErrorIs(t, err, domain.ErrNotFound)
}
