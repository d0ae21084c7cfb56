package testsuite

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// ColumnsHolding lists every text, jsonb or bytea column of every table in the public schema,
// as "table.column", that holds needle in some row (jsonb and bytea read as text): after an
// erasure none may hold the customer's id, phone or name.
func ColumnsHolding(t *testing.T, pool *pgxpool.Pool, needle string) []string {
	t.Helper()
	ctx := context.Background()
	rows, err := pool.Query(ctx, `SELECT table_name, column_name, data_type FROM information_schema.columns
		WHERE table_schema = current_schema() AND data_type IN ('text', 'character varying', 'jsonb', 'json', 'bytea')
		ORDER BY table_name, column_name`)
	require.NoError(t, err)
	cols, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([3]string, error) {
		var c [3]string
		return c, r.Scan(&c[0], &c[1], &c[2])
	})
	require.NoError(t, err)
	require.NotEmpty(t, cols, "the schema has text columns")
	var found []string
	for _, c := range cols {
		table, col := pgx.Identifier{c[0]}.Sanitize(), pgx.Identifier{c[1]}.Sanitize()
		holds := `strpos(` + col + `::text, $1) > 0`
		if c[2] == "bytea" {
			holds = `position(convert_to($1, 'UTF8') in ` + col + `) > 0`
		}
		var n int
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE `+holds, needle).Scan(&n))
		if n > 0 {
			found = append(found, c[0]+"."+c[1])
		}
	}
	return found
}
