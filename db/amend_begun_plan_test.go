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

// TestABegunStayDoesNotChangeItsPlan: once the stay has begun only its check-out may move
// (docs/amendments.md, 409 stay_started: "the front desk only its check-out"; checkBegunStay). A
// change of plan re-prices every night, the nights already begun included, and refunds the fall
// of them: it must be refused as a change of the begun stay, nothing changed.
func TestABegunStayDoesNotChangeItsPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	today := domain.DateOf(time.Now(), time.UTC) // the hotel's time zone is UTC
	d.SetInventory(t, "h1", "double", today, today.AddDays(4), 5)
	putPlan(t, d, derived("FLEX", "-10"))
	b := paidBooking(t, d, "g1", nights(today, 3), 1, 0)
	require.Equal(t, int64(30000), b.Price.Total)

	a, after, err := d.Store.Amend(ctx, amendParams(b, "replan-begun", domain.Change{RatePlan: "FLEX"}))
	assert.ErrorIs(t, err, db.ErrStayStarted, "amendment %+v", a)
	assert.Equal(t, domain.DefaultRatePlan, after.RatePlan, "the begun stay keeps its plan")
	got, err := d.Store.GetBooking(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, b.Price, got.Price, "the nights begun keep their price")
	assert.Equal(t, b.Paid, got.Paid, "nothing refunded of nights begun")
}
