package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// SentinelMaster is the name the Sentinels monitor bookflow's Redis by (REDIS_SENTINEL_MASTER).
const SentinelMaster = "bookflow"

// Redis is a primary, a replica and three Sentinels (a quorum of two), each a redis-server of
// its own. Either server may be the primary after a failover.
type Redis struct {
	Servers   [2]*Process
	Sentinels [3]*Process
	ports     [2]int
	Failovers int // promotions the Sentinels made for KillPrimary
}

func startRedis(ctx context.Context, dir string, ports []int, logf *os.File) (*Redis, error) {
	r := &Redis{ports: [2]int{ports[0], ports[1]}}
	for i, port := range r.ports {
		args := []string{"redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--dir", filepath.Join(dir, fmt.Sprintf("redis-%d", i+1))} // a replica's full resync writes its copy here
		if err := os.MkdirAll(args[len(args)-1], 0o755); err != nil {
			return r, err
		}
		if i == 1 {
			args = append(args, "--replicaof", "127.0.0.1", strconv.Itoa(r.ports[0]))
		}
		r.Servers[i] = &Process{Name: fmt.Sprintf("redis-%d", i+1), Args: args, Log: logf, Addr: fmt.Sprintf("127.0.0.1:%d", port)}
	}
	for i := range r.Sentinels {
		port := ports[2+i]
		conf := filepath.Join(dir, fmt.Sprintf("sentinel-%d.conf", i+1))
		// Sentinels rewrite their file as they learn the topology: each has its own.
		if err := os.WriteFile(conf, fmt.Appendf(nil, "port %d\nbind 127.0.0.1\nsentinel monitor %s 127.0.0.1 %d 2\n"+
			"sentinel down-after-milliseconds %s 1000\nsentinel failover-timeout %s 10000\n",
			port, SentinelMaster, r.ports[0], SentinelMaster, SentinelMaster), 0o644); err != nil {
			return r, err
		}
		r.Sentinels[i] = &Process{Name: fmt.Sprintf("sentinel-%d", i+1), Args: []string{"redis-server", conf, "--sentinel"},
			Log: logf, Addr: fmt.Sprintf("127.0.0.1:%d", port)}
	}
	for _, p := range append(r.Servers[:], r.Sentinels[:]...) {
		if err := p.Start(); err != nil {
			return r, fmt.Errorf("%w (is redis-server installed? apt-get install redis-server)", err)
		}
	}
	return r, waitFor(ctx, 30*time.Second, "the Sentinels to find the replica", func() bool {
		replicas, err := r.sentinel().Replicas(ctx, SentinelMaster).Result()
		return err == nil && len(replicas) == 1 && replicas[0]["flags"] == "slave"
	})
}

// SentinelAddrs is REDIS_SENTINELS: every Sentinel's host:port, comma-separated.
func (r *Redis) SentinelAddrs() string {
	s := ""
	for i, p := range r.Sentinels {
		if i > 0 {
			s += ","
		}
		s += p.Addr
	}
	return s
}

func (r *Redis) sentinel() *redis.SentinelClient {
	return redis.NewSentinelClient(&redis.Options{Addr: r.Sentinels[0].Addr, DialTimeout: time.Second})
}

// primary is the index of the server the Sentinels call the primary.
func (r *Redis) primary(ctx context.Context) (int, error) {
	s := r.sentinel()
	defer s.Close()
	addr, err := s.GetMasterAddrByName(ctx, SentinelMaster).Result()
	if err != nil {
		return 0, err
	}
	for i, port := range r.ports {
		if addr[1] == strconv.Itoa(port) {
			return i, nil
		}
	}
	return 0, fmt.Errorf("the Sentinels name an unknown primary %v", addr)
}

// KillPrimary kills the primary's process (SIGKILL), waits until the Sentinels have promoted the
// replica, then starts the old primary again, which the Sentinels turn into the new replica.
func (r *Redis) KillPrimary(ctx context.Context) error {
	old, err := r.primary(ctx)
	if err != nil {
		return err
	}
	r.Servers[old].Kill()
	if err := waitFor(ctx, 30*time.Second, "the Sentinels to promote the replica", func() bool {
		now, err := r.primary(ctx)
		return err == nil && now != old
	}); err != nil {
		return err
	}
	r.Failovers++
	if err := r.Servers[old].Start(); err != nil {
		return err
	}
	s := r.sentinel()
	defer s.Close()
	return waitFor(ctx, 60*time.Second, "the old primary to rejoin as a replica", func() bool {
		replicas, err := s.Replicas(ctx, SentinelMaster).Result()
		return err == nil && len(replicas) == 1 && replicas[0]["flags"] == "slave" &&
			replicas[0]["master-link-status"] == "ok"
	})
}

func (r *Redis) stop() {
	for _, p := range append(r.Sentinels[:], r.Servers[:]...) {
		if p != nil {
			p.Stop()
		}
	}
}
