package testsuite_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/worker"
)

// TestOffersStartedByStartersThatDieOrRaceRunOnceAndNoneIsLost: a starter that started an offer's
// workflow and died before recording it, then two starters racing over every offer: each offer's
// workflow runs once, none is left unstarted, and each is paid and booked.
func TestOffersStartedByStartersThatDieOrRaceRunOnceAndNoneIsLost(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{ManualOffers: true})
	ctx := context.Background()
	hotel, stay := "wl-fault-"+sys.ID, stayFromNow(24, 2)
	const rooms = 4
	openRooms(t, sys, hotel, "double", stay, rooms)
	var holds []string
	for i := range rooms {
		res := hold(t, sys, "k", holdBody(sys.Customer(fmt.Sprintf("holder-%d", i)), hotel, "double", stay, 1))
		require.Equal(t, http.StatusCreated, res.Status, res.Raw)
		holds = append(holds, res.Body["id"].(string))
	}
	for i := range rooms {
		waiter := sys.Customer(fmt.Sprintf("waiter-%d", i))
		require.Equal(t, http.StatusCreated, joinWaitlist(t, sys, holdBody(waiter, hotel, "double", stay, 1)).Status)
	}
	for i, id := range holds {
		require.Equal(t, http.StatusOK, cancel(t, sys, sys.Customer(fmt.Sprintf("holder-%d", i)), id).Status)
	}
	opts := worker.ResumeOptions{TaskQueue: sys.TaskQueue}

	// The starter that dies: it claims one offer for a moment, starts its workflow, records nothing.
	claimed, err := sys.DB.Store.ClaimOfferStarts(ctx, 1, 200*time.Millisecond)
	require.NoError(t, err)
	require.Len(t, claimed, 1)
	require.NoError(t, worker.StartOffer(ctx, sys.Temporal, sys.DB.Store, claimed[0], opts))
	time.Sleep(300 * time.Millisecond) // its lease runs out

	starters := [2]*worker.OfferStarter{}
	started := [2]int{}
	errs := [2]error{}
	var wg sync.WaitGroup
	for i := range starters {
		starters[i] = &worker.OfferStarter{Temporal: sys.Temporal, Store: sys.DB.Store, Resume: opts}
		wg.Go(func() { started[i], errs[i] = starters[i].StartDue(ctx) })
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs[:]...))
	assert.Equal(t, rooms, started[0]+started[1], "every offer started once between them, the dead one's included")
	assert.Zero(t, count(t, sys, `SELECT count(*) FROM waitlist_offer_starts WHERE started_at IS NULL`), "none is left")

	rows, err := sys.DB.Pool.Query(ctx, `SELECT booking_id FROM waitlist_offer_starts ORDER BY booking_id`)
	require.NoError(t, err)
	var offers []string
	for rows.Next() {
		var id string
		require.NoError(t, rows.Scan(&id))
		offers = append(offers, id)
	}
	require.Len(t, offers, rooms, "one offer per freed room")
	for i, id := range offers {
		runs, err := sys.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: fmt.Sprintf(`WorkflowId = %q`, id)})
		require.NoError(t, err)
		assert.Len(t, runs.Executions, 1, "offer %s's workflow ran once", id)
		payAndConfirm(t, sys, id, 20000, fmt.Sprintf("evt_wlf_%d_%s", i, sys.ID), fmt.Sprintf("pi_wlf_%d_%s", i, sys.ID))
	}
	assert.Equal(t, rooms, count(t, sys, `SELECT count(*) FROM waitlist_entries WHERE closed_reason = 'booked'`))
	checkInvariants(t, sys)
}
