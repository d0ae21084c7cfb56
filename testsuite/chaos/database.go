package chaos

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// lockServer takes a lock file for the PostgreSQL server at adminURL, held until the file is
// closed: a second suite against the same server waits for none, it fails.
func lockServer(adminURL string) (*os.File, error) {
	cfg, err := pgx.ParseConfig(adminURL)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(os.TempDir(), fmt.Sprintf("bookflow-chaos-%s-%d.lock", strings.ReplaceAll(cfg.Host, "/", "_"), cfg.Port))
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("another chaos suite is running against %s:%d (%s)", cfg.Host, cfg.Port, path)
	}
	return f, nil
}

// createDatabase makes a database of its own on the admin server and returns its URL and how to
// drop it. Databases an interrupted suite left behind are dropped first (the lock says no other
// suite is using them).
func createDatabase(ctx context.Context, adminURL string) (string, func(), error) {
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return "", nil, fmt.Errorf("connect to %s: %w", adminURL, err)
	}
	defer admin.Close(ctx)
	rows, err := admin.Query(ctx, `SELECT datname FROM pg_database WHERE datname LIKE 'bookflow\_chaos\_%'`)
	if err != nil {
		return "", nil, err
	}
	stale, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", nil, err
	}
	for _, name := range stale {
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			return "", nil, err
		}
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "bookflow_chaos_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, err
	}
	u, err := url.Parse(adminURL)
	if err != nil {
		return "", nil, err
	}
	u.Path = "/" + name // the same server, user, password and options
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if admin, err := pgx.Connect(ctx, adminURL); err == nil {
			_, _ = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			_ = admin.Close(ctx)
		}
	}
	return u.String(), drop, nil
}
