package db_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestAnAmendmentAndANewHoldRacingForTheLastRoomHaveOneWinner: in each round a two-night stay
// asks for a third night that has one room left while another guest's hold asks for the same
// night. Each round has its own nights.
func TestAnAmendmentAndANewHoldRacingForTheLastRoomHaveOneWinner(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	const rounds = 30
	d.SetInventory(t, "h1", "double", dec10, dec10.AddDays(3*rounds), 1)

	wins := map[string]int{}
	for r := range rounds {
		first := dec10.AddDays(3 * r)
		b := hold(t, d, fmt.Sprintf("g%d", r), nights(first, 2), 1)
		var a domain.Amendment
		var rival domain.Booking
		var errs [2]error
		testsuite.Race(2, func(i int) {
			if i == 0 {
				a, _, errs[0] = d.Store.Amend(ctx, amendParams(b, "k", domain.Change{CheckOut: first.AddDays(3)}))
			} else {
				rival, errs[1] = d.Store.Reserve(ctx, holdParams(fmt.Sprintf("rival%d", r), "k", nights(first.AddDays(2), 1), 1))
			}
		})
		require.NoError(t, errors.Join(errs[:]...), "round %d", r)
		amended, held := a.Status == domain.AmendmentApplied, rival.Status == domain.StatusHold
		require.True(t, amended != held, "round %d: exactly one wins (amendment %s, hold %s)", r, a.Status, rival.Status)
		if amended {
			assert.Equal(t, domain.StatusRejected, rival.Status, "round %d", r)
			wins["amendment"]++
		} else {
			assert.Equal(t, domain.AmendmentRefused, a.Status, "round %d", r)
			assert.Equal(t, "the night of "+first.AddDays(2).String()+" is not available", a.Reason, "round %d", r)
			wins["hold"]++
		}
		assert.Equal(t, []int{1, 1, 1}, d.Reserved(t, "h1", "double", nights(first, 3)), "round %d", r)
	}
	t.Logf("winners over %d rounds: %v", rounds, wins)
	d.AssertInventoryMatchesBookings(t)
}

// TestTwentyAmendmentsIntoTheLastFiveRoomsApplyFive: twenty one-room bookings move to another
// room type at once, which has five rooms left.
func TestTwentyAmendmentsIntoTheLastFiveRoomsApplyFive(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 20)
	d.SetInventory(t, "h1", "suite", dec10, dec13, 6)
	suite := holdParams("other", "k", stay3, 1) // one of the six is taken
	suite.Request.RoomTypeID = "suite"
	_, err := d.Store.Reserve(ctx, suite)
	require.NoError(t, err)
	var bookings [20]domain.Booking
	for i := range bookings {
		bookings[i] = hold(t, d, fmt.Sprintf("g%d", i), stay3, 1)
	}

	var got [20]domain.Amendment
	var errs [20]error
	testsuite.Race(20, func(i int) {
		got[i], _, errs[i] = d.Store.Amend(ctx, amendParams(bookings[i], "k", domain.Change{RoomTypeID: "suite"}))
	})

	require.NoError(t, errors.Join(errs[:]...), "no deadlock, no lock timeout")
	count := map[domain.AmendmentStatus]int{}
	for _, a := range got {
		count[a.Status]++
		if a.Status == domain.AmendmentRefused {
			assert.Equal(t, "the night of 2030-12-10 is not available", a.Reason)
		}
	}
	assert.Equal(t, map[domain.AmendmentStatus]int{domain.AmendmentApplied: 5, domain.AmendmentRefused: 15}, count)
	assert.Equal(t, []int{6, 6, 6}, d.Reserved(t, "h1", "suite", stay3))
	assert.Equal(t, []int{15, 15, 15}, d.Reserved(t, "h1", "double", stay3), "the five moved gave their doubles back")
	d.AssertInventoryMatchesBookings(t)
}
