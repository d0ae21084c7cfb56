package db_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/testsuite"
)

// TestAConnectionStringWithSeveralHostsFindsTheWritablePrimary: DATABASE_URL may name every
// node of a replicated PostgreSQL with target_session_attrs=read-write, as after a failover:
// pgx skips a node that is down and one that is not the primary. The control: asking for a
// standby of the same nodes finds none, so the attribute is what chose the node.
func TestAConnectionStringWithSeveralHostsFindsTheWritablePrimary(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	u, err := url.Parse(d.URL)
	require.NoError(t, err)
	u.Host = "127.0.0.1:1," + u.Host // a node that is down, first
	q := u.Query()
	q.Set("connect_timeout", "2")
	q.Set("target_session_attrs", "read-write")
	u.RawQuery = q.Encode()
	ctx := context.Background()
	pool, err := db.Connect(ctx, u.String())
	require.NoError(t, err, "the down node is skipped and the primary found")
	var readOnly string
	require.NoError(t, pool.QueryRow(ctx, `SHOW transaction_read_only`).Scan(&readOnly))
	assert.Equal(t, "off", readOnly)
	pool.Close()

	q.Set("target_session_attrs", "standby")
	u.RawQuery = q.Encode()
	_, err = db.Connect(ctx, u.String())
	assert.Error(t, err, "no standby among the nodes: the attribute decides")
}
