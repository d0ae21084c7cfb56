package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
)

// The cost of a hold in CPU time, per process, read from /proc: what each tier of a real
// deployment must be sized for.

// clockTicks is the unit of /proc's CPU times (USER_HZ, 100 on Linux).
const clockTicks = 100

// meteredProcess is a process whose CPU time, and its children's, the bench reads.
type meteredProcess struct {
	name string
	pid  int
}

// procStat is what one /proc/<pid>/stat line says of CPU time (in ticks) and the parent.
type procStat struct {
	ppid                         int
	utime, stime, cutime, cstime int64
}

func readProcStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	// The command name is in parentheses and may hold spaces: the fields follow the last ')'.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 15 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	var st procStat
	st.ppid, _ = strconv.Atoi(f[1])
	for i, dst := range []*int64{&st.utime, &st.stime, &st.cutime, &st.cstime} {
		*dst, _ = strconv.ParseInt(f[11+i], 10, 64)
	}
	return st, nil
}

// treeCPU is the CPU time a process has used, with that of its children, living (PostgreSQL's
// backends) and reaped: monotonic while the process lives, whatever its children do.
func treeCPU(pid int) (time.Duration, error) {
	root, err := readProcStat(pid)
	if err != nil {
		return 0, err
	}
	ticks := root.utime + root.stime + root.cutime + root.cstime
	paths, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range paths {
		child, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err != nil || child == pid {
			continue
		}
		if st, err := readProcStat(child); err == nil && st.ppid == pid {
			ticks += st.utime + st.stime
		}
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// cpuSnapshot is every metered process's CPU time at one moment.
type cpuSnapshot map[string]time.Duration

func snapshotCPU(procs []meteredProcess) cpuSnapshot {
	s := cpuSnapshot{}
	for _, p := range procs {
		if d, err := treeCPU(p.pid); err == nil {
			s[p.name] = d
		}
	}
	return s
}

// perOp is the CPU time each process spent per operation between two snapshots.
func (s cpuSnapshot) perOp(later cpuSnapshot, ops int) map[string]time.Duration {
	out := map[string]time.Duration{}
	for name, before := range s {
		if after, ok := later[name]; ok && ops > 0 {
			out[name] = (after - before) / time.Duration(ops)
		}
	}
	return out
}

// postgresPID finds the PostgreSQL server's main process: the parent of this connection's
// backend. Zero when it is not on this machine.
func postgresPID(ctx context.Context, pool *pgxpool.Pool) int {
	var backend int
	if err := pool.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		return 0
	}
	st, err := readProcStat(backend)
	if err != nil {
		return 0 // a server elsewhere
	}
	return st.ppid
}

// redisPID asks Redis for its process id. Zero when there is no Redis, or it is elsewhere.
func redisPID(ctx context.Context, url string) int {
	if url == "" {
		return 0
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		return 0
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	info, err := rdb.Info(ctx, "server").Result()
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(strings.NewReader(info))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "process_id:"); ok {
			pid, _ := strconv.Atoi(v)
			if _, err := readProcStat(pid); err == nil {
				return pid
			}
		}
	}
	return 0
}
