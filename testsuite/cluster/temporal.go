package cluster

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/bookflow/bookflow/worker"
)

// Temporal is the Temporal server as a cluster runs it: frontend, two history processes,
// matching and the system worker, each a process of its own, on a PostgreSQL of its own (so a
// failover of bookflow's database is bookflow's alone to survive).
type Temporal struct {
	Frontend string     // host:port of the frontend (TEMPORAL_ADDRESS)
	Services []*Process // frontend, history-1, history-2, matching, worker
	db       *Postgres
	dbNode   *pgNode
}

// The Temporal server's configuration (its 4 history shards the two history processes share)
// and dynamic configuration, which scripts/lib.sh's start_temporal_server fills in too.
var (
	//go:embed temporal-server.yaml
	temporalServerConfig string
	//go:embed temporal-dynamicconfig.yaml
	temporalDynamicConfig string
)

// startTemporal sets up the persistence and visibility schemas (each step safe to repeat), then
// starts the services. ports: PostgreSQL, then a gRPC and a membership port per service, then
// the frontend's HTTP port.
func startTemporal(ctx context.Context, o Options, dir, pgDir string, ports []int, logf *os.File) (*Temporal, error) {
	t := &Temporal{Frontend: fmt.Sprintf("127.0.0.1:%d", ports[1])}
	bin, err := PGBin()
	if err != nil {
		return t, err
	}
	t.db = &Postgres{bin: bin, dir: pgDir}
	t.dbNode = &pgNode{Name: "temporal-postgres", Dir: filepath.Join(pgDir, "temporal-pg"), Port: ports[0]}
	if err := t.db.initServer(t.dbNode); err != nil {
		return t, err
	}
	if err := t.db.start(t.dbNode); err != nil {
		return t, err
	}
	for _, s := range []struct{ db, schema string }{{"temporal", "temporal"}, {"temporal_visibility", "visibility"}} {
		base := []string{"--plugin", "postgres12", "--ep", "127.0.0.1", "-p", fmt.Sprint(t.dbNode.Port), "-u", "postgres", "--db", s.db}
		for _, step := range [][]string{{"create-database"}, {"setup-schema", "-v", "0.0"}, {"update-schema", "-s", "postgresql/v12/" + s.schema}} {
			if out, err := exec.CommandContext(ctx, o.TemporalSQLTool, append(base, step...)...).CombinedOutput(); err != nil {
				return t, fmt.Errorf("temporal-sql-tool %s on %s: %w: %s", step[0], s.db, err, out)
			}
		}
	}
	cfgDir := filepath.Join(dir, "temporal-config")
	dynamic := filepath.Join(cfgDir, "dynamicconfig", "bookflow.yaml")
	if err := os.MkdirAll(filepath.Dir(dynamic), 0o755); err != nil {
		return t, err
	}
	if err := os.WriteFile(dynamic, []byte(temporalDynamicConfig), 0o644); err != nil {
		return t, err
	}
	for i, s := range temporalServices {
		conf, err := t.config(i, ports, dynamic)
		if err != nil {
			return t, err
		}
		if err := os.WriteFile(filepath.Join(cfgDir, s.name+".yaml"), []byte(conf), 0o644); err != nil {
			return t, err
		}
		t.Services = append(t.Services, &Process{Name: s.name, Log: logf, Addr: fmt.Sprintf("127.0.0.1:%d", ports[1+2*i]),
			Args: []string{o.TemporalServer, "--root", dir, "--config", "temporal-config", "--env", s.name, "--allow-no-auth",
				"start", "--service", s.service}})
	}
	// Each service writes the cluster's metadata record when it finds none, and one that loses
	// that race on a fresh database exits ("failed to initialize current cluster metadata"):
	// the frontend writes it first, then the others start.
	if err := t.Services[0].Start(); err != nil {
		return t, err
	}
	if err := waitFor(ctx, 60*time.Second, "Temporal's cluster metadata", t.metadataWritten, t.exited); err != nil {
		return t, err
	}
	for _, p := range t.Services[1:] {
		if err := p.Start(); err != nil {
			return t, err
		}
	}
	if err := t.waitHealthy(ctx); err != nil {
		return t, err
	}
	return t, t.prepareNamespace(ctx)
}

// temporalServices are the cluster's Temporal processes and the service each runs.
var temporalServices = []struct{ name, service string }{
	{"temporal-frontend", "frontend"}, {"temporal-history-1", "history"}, {"temporal-history-2", "history"},
	{"temporal-matching", "matching"}, {"temporal-worker", "worker"},
}

// config is the configuration of temporalServices[i]: ports as startTemporal takes them, and
// every service's ports in it, its own history ports for history.
func (t *Temporal) config(i int, ports []int, dynamic string) (string, error) {
	vars := map[string]string{"DB": "temporal", "VISIBILITY_DB": "temporal_visibility",
		"PG_ADDR": fmt.Sprintf("127.0.0.1:%d", t.dbNode.Port), "DYNAMIC_CONFIG": dynamic,
		"FRONTEND_HTTP_PORT": fmt.Sprint(ports[len(ports)-1])}
	named := map[string]int{"frontend": 0, "history": 1, "matching": 3, "worker": 4} // index in temporalServices
	if temporalServices[i].service == "history" {
		named["history"] = i
	}
	for service, j := range named {
		key := strings.ToUpper(service)
		vars[key+"_PORT"], vars[key+"_MEMBERSHIP_PORT"] = fmt.Sprint(ports[1+2*j]), fmt.Sprint(ports[2+2*j])
	}
	return fillTemplate(temporalServerConfig, vars)
}

// waitHealthy waits until the frontend answers a health check.
func (t *Temporal) waitHealthy(ctx context.Context) error {
	return waitFor(ctx, 120*time.Second, "the Temporal frontend", func() bool {
		c, err := client.DialContext(ctx, client.Options{HostPort: t.Frontend, Logger: QuietLogger{}})
		if err != nil {
			return false
		}
		defer c.Close()
		_, err = c.CheckHealth(ctx, &client.CheckHealthRequest{})
		return err == nil
	}, t.exited)
}

// metadataWritten reports whether a service has written the cluster's metadata record.
func (t *Temporal) metadataWritten() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, t.dbNode.url("temporal"))
	if err != nil {
		return false
	}
	defer conn.Close(ctx)
	var written bool
	return conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM cluster_metadata_info)`).Scan(&written) == nil && written
}

// exited names a service that has exited, as an error.
func (t *Temporal) exited() error {
	for _, p := range t.Services {
		if p.Exited() {
			return fmt.Errorf("%s exited (see its log)", p.Name)
		}
	}
	return nil
}

// prepareNamespace creates the default namespace (the server makes none) and bookflow's search
// attributes, retrying while a new namespace reaches every service's cache.
func (t *Temporal) prepareNamespace(ctx context.Context) error {
	c, err := client.DialContext(ctx, client.Options{HostPort: t.Frontend, Logger: QuietLogger{}})
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.WorkflowService().RegisterNamespace(ctx, &workflowservice.RegisterNamespaceRequest{
		Namespace: "default", WorkflowExecutionRetentionPeriod: durationpb.New(72 * time.Hour)})
	var exists *serviceerror.NamespaceAlreadyExists
	if err != nil && !errors.As(err, &exists) {
		return fmt.Errorf("register the default namespace: %w", err)
	}
	var last error
	err = waitFor(ctx, 60*time.Second, "bookflow's search attributes", func() bool {
		last = worker.RegisterSearchAttributes(ctx, c, "default")
		return last == nil
	})
	if err != nil {
		return fmt.Errorf("%w: %v", err, last)
	}
	return nil
}

// startUI starts the Temporal web UI's server against the frontend.
func (t *Temporal) startUI(ctx context.Context, bin, dir, addr string, port int, logf *os.File) (*Process, error) {
	if addr == "" {
		addr = fmt.Sprintf("127.0.0.1:%d", port)
	}
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("the UI's address %q: %w", addr, err)
	}
	cfgDir := filepath.Join(dir, "temporal-ui")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		return nil, err
	}
	conf := fmt.Sprintf("temporalGrpcAddress: %s\nhost: %s\nport: %s\nenableUi: true\ndefaultNamespace: default\n"+
		"cors:\n  cookieInsecure: true\n", t.Frontend, host, p)
	if err := os.WriteFile(filepath.Join(cfgDir, "cluster.yaml"), []byte(conf), 0o644); err != nil {
		return nil, err
	}
	ui := &Process{Name: "temporal-ui", Args: []string{bin, "--root", dir, "--config", "temporal-ui", "--env", "cluster", "start"},
		Log: logf, Addr: addr}
	if err := ui.Start(); err != nil {
		return nil, err
	}
	return ui, waitFor(ctx, 30*time.Second, "the Temporal web UI", func() bool {
		res, err := (&http.Client{Timeout: time.Second}).Get("http://" + addr + "/")
		if err != nil {
			return false
		}
		_ = res.Body.Close()
		return res.StatusCode == http.StatusOK
	})
}

// Service returns the named Temporal service's process.
func (t *Temporal) Service(name string) *Process {
	for _, p := range t.Services {
		if p.Name == name || strings.TrimPrefix(p.Name, "temporal-") == name {
			return p
		}
	}
	return nil
}

func (t *Temporal) stop() {
	for i := len(t.Services) - 1; i >= 0; i-- {
		t.Services[i].Stop()
	}
	if t.dbNode != nil {
		t.dbNode.srv.Stop(syscall.SIGINT)
	}
}
