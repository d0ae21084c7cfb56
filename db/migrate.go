package db

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
)

//go:embed migrations/*.sql
var migrations embed.FS

// functions holds the current definition of each SQL function that more than one migration
// wrote (the reservation's): see functions/README.md.
//
//go:embed functions/*.sql
var functions embed.FS

// Migrate brings a database up to date: every embedded migration not yet applied, then every
// file of db/functions, each time, even when no migration was pending. Every command, script
// and test helper that migrates calls it, so none can leave the functions behind.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	if err := migrateTo(ctx, pool, 0); err != nil {
		return err
	}
	if err := applyFunctions(ctx, pool); err != nil {
		return err
	}
	return installLedger(ctx, pool)
}

// installLedger creates the money ledger's triggers (their functions are files of db/functions)
// and, the first time, posts the entries of the money rows written before the ledger existed,
// in one transaction under the functions' lock: two migrators never backfill twice.
func installLedger(ctx context.Context, pool *pgxpool.Pool) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('bookflow:functions', 0))`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT ledger_install_triggers()`); err != nil {
			return fmt.Errorf("install the ledger's triggers: %w", err)
		}
		_, err := tx.Exec(ctx, `SELECT ledger_backfill() FROM (SELECT 1) one
			WHERE NOT EXISTS (SELECT 1 FROM money_ledger_backfill)`)
		if err == nil {
			_, err = tx.Exec(ctx, `INSERT INTO money_ledger_backfill DEFAULT VALUES ON CONFLICT DO NOTHING`)
		}
		if err != nil {
			return fmt.Errorf("post the ledger of earlier money rows: %w", err)
		}
		return nil
	})
}

// migrateTo applies the embedded migrations not yet applied up to version (0: all of them),
// and nothing else.
func migrateTo(ctx context.Context, pool *pgxpool.Pool, version int64) error {
	sqlDB := stdlib.OpenDBFromPool(pool)
	defer sqlDB.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, mustSub(migrations, "migrations"))
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	if version == 0 {
		_, err = provider.Up(ctx)
	} else {
		_, err = provider.UpTo(ctx, version)
	}
	if err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	return nil
}

// applyFunctions runs every file of db/functions (CREATE OR REPLACE FUNCTION) in name order,
// in one transaction: all of them or none. The advisory lock keeps two migrators from
// replacing the same function at once, which PostgreSQL refuses ("tuple concurrently updated").
func applyFunctions(ctx context.Context, pool *pgxpool.Pool) error {
	files, err := functionFiles()
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('bookflow:functions', 0))`); err != nil {
			return err
		}
		for _, f := range files {
			// No arguments: the simple protocol, which runs a file of several statements.
			if _, err := tx.Exec(ctx, f.sql); err != nil {
				return fmt.Errorf("apply db/functions/%s: %w", f.name, err)
			}
		}
		return nil
	})
}

// functionFile is one file of db/functions: name is the function's name and ".sql".
type functionFile struct{ name, sql string }

// functionFiles reads db/functions in name order (fs.ReadDir sorts).
func functionFiles() ([]functionFile, error) {
	entries, err := fs.ReadDir(functions, "functions")
	if err != nil {
		return nil, err
	}
	var out []functionFile
	for _, e := range entries {
		b, err := fs.ReadFile(functions, path.Join("functions", e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, functionFile{name: e.Name(), sql: string(b)})
	}
	return out, nil
}

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err) // the directory is embedded at build time
	}
	return sub
}
