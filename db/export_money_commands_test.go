package db

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
)

// RedoMigration undoes the migrations from version on and applies them again up to version: a
// migration that moves data over runs again on the rows written since.
func RedoMigration(ctx context.Context, pool *pgxpool.Pool, version int64) error {
	sqlDB := stdlib.OpenDBFromPool(pool)
	defer sqlDB.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, mustSub(migrations, "migrations"))
	if err != nil {
		return err
	}
	if _, err := provider.DownTo(ctx, version-1); err != nil {
		return err
	}
	_, err = provider.UpTo(ctx, version)
	return err
}
