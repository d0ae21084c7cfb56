package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// Review of the layers around group blocks (issue 37): each test below fails on a defect.

// A wash whose percent rounds every night down to 0 rooms (50 percent of 1) releases nothing,
// yet it is answered 200, recorded as "washed" and told to integrators as block.released with
// no rooms released: an event for a change that did not happen (and a 2xx that did nothing).
func TestAWashThatReleasesNothingIsNotToldAsARelease(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	_, err := d.Pool.Exec(ctx, `INSERT INTO event_subscribers (id, url, events, secret)
		VALUES ('rv-blocks', 'http://127.0.0.1:9/hook', '{block.released}', 'whsec_review')`)
	require.NoError(t, err)
	b := definiteBlock(t, d, groupBlock("WASH0", 1, 1, 1))

	got, err := d.Store.ReleaseBlockRooms(ctx, b.ID, "admin-1", domain.BlockRoomsChange{Percent: 50})
	if err == nil {
		for _, n := range got.Nights {
			require.Equal(t, 0, n.Released, "nothing was released")
		}
	}
	var events int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM event_deliveries WHERE booking_id = $1 AND type = 'block.released'`,
		"block-"+b.ID).Scan(&events))
	assert.Zero(t, events, "block.released for a wash that released no room (err: %v)", err)
}
