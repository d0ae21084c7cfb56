package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// What one database of the local PostgreSQL spends, apart from the others in its cluster (the
// other build's database, Temporal's persistence, other people's tests): the time its
// statements ran and what they wrote, from pg_stat_database, and the CPU time of its backends,
// from /proc. pg_stat_statements would tell statements apart, but it must be preloaded when the
// server starts, and the shared development cluster does not load it.

// benchAppName names the bench's own connections, which the meter leaves out of the CPU time
// (their statements, its polls, are in the database's statement time: see poller).
const benchAppName = "bookflow-bench"

// statsSettle is how long after a burst of work a database's statistics are complete: a backend
// that flushed less than a second ago flushes again only after 10 s idle (PostgreSQL 15's
// PGSTAT_IDLE_INTERVAL).
const statsSettle = 11 * time.Second

// dbStats are a database's cumulative statistics.
type dbStats struct {
	activeMs     float64 // time spent running statements (pg_stat_database.active_time)
	xacts, wrote float64 // transactions ended; rows inserted, updated and deleted
}

func readDBStats(ctx context.Context, pool *pgxpool.Pool, dbName string) (dbStats, error) {
	var s dbStats
	err := pool.QueryRow(ctx, `SELECT active_time, xact_commit + xact_rollback, tup_inserted + tup_updated + tup_deleted
		FROM pg_stat_database WHERE datname = $1`, dbName).Scan(&s.activeMs, &s.xacts, &s.wrote)
	return s, err
}

func (s dbStats) minus(before dbStats) dbStats {
	return dbStats{s.activeMs - before.activeMs, s.xacts - before.xacts, s.wrote - before.wrote}
}

func (s dbStats) times(f float64) dbStats { return dbStats{s.activeMs * f, s.xacts * f, s.wrote * f} }

// idleRate is what the database does each second with nobody booking: the processes' own
// pollers (the outbox relay, the event sender) and the bench's connections. Measured over
// statsSettle, after a settle, so every backend has flushed at both ends.
func idleRate(ctx context.Context, pool *pgxpool.Pool, dbName string) (dbStats, error) {
	before, err := readDBStats(ctx, pool, dbName)
	if err != nil {
		return dbStats{}, err
	}
	start := time.Now()
	time.Sleep(statsSettle)
	after, err := readDBStats(ctx, pool, dbName)
	return after.minus(before).times(1 / time.Since(start).Seconds()), err
}

// backendsCPU is the CPU time each backend of the database has used so far, by pid, the
// bench's own connections left out.
func backendsCPU(ctx context.Context, pool *pgxpool.Pool, dbName string) (map[int]time.Duration, error) {
	rows, err := pool.Query(ctx, `SELECT pid FROM pg_stat_activity
		WHERE datname = $1 AND application_name <> $2 AND pid <> pg_backend_pid()`, dbName, benchAppName)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int]time.Duration{}
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			return nil, err
		}
		if d, ok := threadCPU(pid); ok {
			out[pid] = d
		}
	}
	return out, rows.Err()
}

// threadCPU is a single-threaded process's CPU time: from /proc/<pid>/schedstat in nanoseconds
// where the kernel keeps it, else /proc/<pid>/stat in 10 ms ticks.
func threadCPU(pid int) (time.Duration, bool) {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid)); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			if ns, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				return time.Duration(ns), true
			}
		}
	}
	st, err := readProcStat(pid)
	if err != nil {
		return 0, false
	}
	return time.Duration(st.utime+st.stime) * time.Second / clockTicks, true
}

// spentSince sums what the backends used between two readings: a backend that started
// meanwhile counts from zero; one that ended is lost, and counted in gone.
func spentSince(before, after map[int]time.Duration) (spent time.Duration, gone int) {
	for pid, t := range after {
		spent += t - before[pid]
	}
	for pid := range before {
		if _, ok := after[pid]; !ok {
			gone++
		}
	}
	return spent, gone
}

// withAppName is a PostgreSQL URL with application_name set, so the meter knows the bench's
// own connections.
func withAppName(url string) string {
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	return url + sep + "application_name=" + benchAppName
}

// dbNameOf is the database a PostgreSQL URL names.
func dbNameOf(ctx context.Context, pool *pgxpool.Pool) (string, error) {
	var name string
	err := pool.QueryRow(ctx, `SELECT current_database()`).Scan(&name)
	return name, err
}
