package db_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// A database migrated from empty and one migrated to 00026 first, used a little, then brought
// up to date end with the same functions and triggers: what runs does not depend on where a
// database started.
func TestAFreshAndAnUpgradedDatabaseEndWithTheSameFunctions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fresh := testsuite.NewDatabase(t)

	old := testsuite.NewEmptyDatabase(t)
	require.NoError(t, db.MigrateToForTodaysStore(ctx, old.Pool, 26)) // today's SetInventory reads the waitlist
	old.SetInventory(t, "h1", "double", dec10, dec13, 2)
	require.NoError(t, db.Migrate(ctx, old.Pool))

	assert.Equal(t, schemaFunctions(t, fresh.Pool), schemaFunctions(t, old.Pool))
	assert.Equal(t, schemaTriggers(t, fresh.Pool), schemaTriggers(t, old.Pool))

	// The upgraded database reserves its nights of before, through reserve_stay.
	b, err := old.Store.Reserve(ctx, holdParams("b1", "k1", domain.Stay{CheckIn: dec10, CheckOut: dec13}, 1))
	require.NoError(t, err)
	assert.Equal(t, domain.StatusHold, b.Status)
}

// What runs is db/functions: each file's function has the file's body, and db.Migrate puts it
// back every time, even with no migration pending.
func TestTheFunctionsThatRunAreTheFilesOfDbFunctions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	files, err := db.FunctionFiles()
	require.NoError(t, err)
	require.NotEmpty(t, files)
	assertBodies := func() {
		t.Helper()
		for name, text := range files {
			var src string
			require.NoError(t, d.Pool.QueryRow(ctx, `SELECT prosrc FROM pg_proc WHERE proname = $1
				AND pronamespace = 'public'::regnamespace`, strings.TrimSuffix(name, ".sql")).Scan(&src), name)
			assert.Equal(t, functionBody(t, text), src, "the body of %s", name)
		}
	}
	assertBodies()

	_, err = d.Pool.Exec(ctx, `CREATE OR REPLACE FUNCTION record_inventory_change() RETURNS trigger
		LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$`)
	require.NoError(t, err)
	require.NoError(t, db.Migrate(ctx, d.Pool))
	assertBodies()
}

// functionBody is the body of the one function a file of db/functions creates: what is
// between its dollar quotes.
func functionBody(t *testing.T, text string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)\bAS \$\$(.*)\$\$;\s*$`).FindStringSubmatch(text)
	require.NotNil(t, m, "one CREATE OR REPLACE FUNCTION ... AS $$ ... $$; ending the file")
	return m[1]
}

// schemaFunctions is every function of the database's own (not an extension's): its name and
// arguments, and its definition.
func schemaFunctions(t *testing.T, pool *pgxpool.Pool) map[string]string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')',
			pg_get_functiondef(p.oid)
		FROM pg_proc p
		WHERE p.pronamespace = 'public'::regnamespace AND p.prokind IN ('f', 'p')
			AND NOT EXISTS (SELECT 1 FROM pg_depend e WHERE e.classid = 'pg_proc'::regclass AND e.objid = p.oid
				AND e.deptype = 'e')`)
	require.NoError(t, err)
	out := map[string]string{}
	for rows.Next() {
		var name, def string
		require.NoError(t, rows.Scan(&name, &def))
		out[name] = def
	}
	require.NoError(t, rows.Err())
	require.Contains(t, out, "reserve_stays(p_hotel text, p_room_type text, p_lock_timeout_ms bigint, p_bookings jsonb)")
	return out
}

// schemaTriggers is every trigger's definition, by table and name.
func schemaTriggers(t *testing.T, pool *pgxpool.Pool) map[string]string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT tgrelid::regclass || '.' || tgname, pg_get_triggerdef(oid)
		FROM pg_trigger WHERE NOT tgisinternal`)
	require.NoError(t, err)
	out := map[string]string{}
	for rows.Next() {
		var name, def string
		require.NoError(t, rows.Scan(&name, &def))
		out[name] = def
	}
	require.NoError(t, rows.Err())
	require.NotEmpty(t, out)
	return out
}
