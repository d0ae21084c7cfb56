package db

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// MigrateTo applies the migrations up to version and nothing else (not db/functions).
func MigrateTo(ctx context.Context, pool *pgxpool.Pool, version int64) error {
	return migrateTo(ctx, pool, version)
}

// FunctionFiles is the text of each file of db/functions, by file name.
func FunctionFiles() (map[string]string, error) {
	files, err := functionFiles()
	out := map[string]string{}
	for _, f := range files {
		out[f.name] = f.sql
	}
	return out, err
}
