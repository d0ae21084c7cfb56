package chaos

import (
	"context"
	"fmt"
	"time"

	"github.com/bookflow/bookflow/testsuite/cluster"
)

// The topologies a suite runs against.
const (
	TopologySingle  = "single"  // one Temporal dev server, one worker, one API, one PostgreSQL
	TopologyCluster = "cluster" // package cluster: every tier more than once
)

// Faults is how many faults the topology injects in turn.
func Faults(topology string) int { return len(faultsFor(topology)) }

// clusterFaults are the cluster topology's: a node of each tier fails while the others run.
var clusterFaults = []fault{
	{"kill an API process (SIGKILL), HAProxy routes round it", func(ctx context.Context, s *system) error {
		return restart(ctx, s, s.cluster.APIs[s.turn(len(s.cluster.APIs))], func(p *cluster.Process) error {
			return s.cluster.WaitAPI(ctx, p)
		})
	}},
	{"kill a worker (SIGKILL) mid-activities", func(ctx context.Context, s *system) error {
		return restart(ctx, s, s.cluster.Workers[s.turn(len(s.cluster.Workers))], nil)
	}},
	{"kill a Temporal history process (SIGKILL)", func(ctx context.Context, s *system) error {
		return restart(ctx, s, s.cluster.Temporal.Service(fmt.Sprintf("history-%d", 1+s.turn(2))), nil)
	}},
	{"kill the Redis primary (Sentinel promotes the replica)", func(ctx context.Context, s *system) error {
		return s.cluster.Redis.KillPrimary(ctx)
	}},
	{"kill the PostgreSQL primary, promote the standby", func(ctx context.Context, s *system) error {
		pg := s.cluster.Postgres
		if err := pg.KillPrimary(); err != nil {
			return err
		}
		sleep(ctx, time.Second) // the time a failure detector takes to decide
		if err := pg.Promote(ctx); err != nil {
			return err
		}
		// The old primary comes back as the standby of the new one, so the next run starts
		// synchronous again.
		return pg.RebuildStandby(ctx)
	}},
	{"stop the PostgreSQL standby for 5 s while the primary runs", func(ctx context.Context, s *system) error {
		pg := s.cluster.Postgres
		if err := pg.StopStandby(); err != nil {
			return err
		}
		sleep(ctx, 5*time.Second)
		return pg.StartStandby(ctx)
	}},
}

// restart kills p, starts it again a second later and waits for ready when given, else two
// seconds in which it must not exit. A process that had already exited is an error: the fault
// would break nothing.
func restart(ctx context.Context, s *system, p *cluster.Process, ready func(*cluster.Process) error) error {
	if p == nil {
		return fmt.Errorf("no such process")
	}
	if p.Exited() {
		return fmt.Errorf("%s had exited before the fault", p.Name)
	}
	p.Kill()
	sleep(ctx, time.Second)
	if err := p.Start(); err != nil {
		return err
	}
	if ready != nil {
		return ready(p)
	}
	sleep(ctx, 2*time.Second)
	if p.Exited() {
		return fmt.Errorf("%s exited again once started (see the cluster's processes.log)", p.Name)
	}
	return nil
}
