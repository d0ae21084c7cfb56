package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

// startBookflow starts the workers, then the APIs, then HAProxy in front of the APIs, and waits
// until every API is ready and HAProxy sees them all. ports: an HTTP and a metrics port per API,
// a metrics port per worker.
func (c *Cluster) startBookflow(ctx context.Context, ports []int, lbPort int) error {
	if _, err := exec.LookPath("haproxy"); err != nil {
		return fmt.Errorf("haproxy is not installed (apt-get install haproxy)")
	}
	env := c.bookflowEnv()
	for i := range c.o.Workers {
		addr := fmt.Sprintf("127.0.0.1:%d", ports[2*c.o.APIs+i])
		c.Workers = append(c.Workers, &Process{Name: fmt.Sprintf("worker-%d", i+1), Args: []string{c.o.Bookflow, "worker"},
			Env: append(slices.Clone(env), "METRICS_ADDR="+addr), Log: c.logf, Addr: addr})
	}
	for i := range c.o.APIs {
		addr := fmt.Sprintf("127.0.0.1:%d", ports[2*i])
		c.APIs = append(c.APIs, &Process{Name: fmt.Sprintf("api-%d", i+1), Args: []string{c.o.Bookflow, "serve"},
			Env: append(slices.Clone(env), "HTTP_ADDR="+addr, fmt.Sprintf("METRICS_ADDR=127.0.0.1:%d", ports[2*i+1])), Log: c.logf, Addr: addr})
	}
	for _, p := range append(c.Workers, c.APIs...) {
		if err := p.Start(); err != nil {
			return err
		}
	}
	for _, p := range c.APIs {
		if err := c.WaitAPI(ctx, p); err != nil {
			return err
		}
	}
	lbAddr := c.o.APIAddr
	if lbAddr == "" {
		lbAddr = fmt.Sprintf("127.0.0.1:%d", lbPort)
	}
	cfg := filepath.Join(c.dir, "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(haproxyConfig(lbAddr, c.APIs)), 0o644); err != nil {
		return err
	}
	c.Balancer = &Process{Name: "haproxy", Args: []string{"haproxy", "-db", "-f", cfg}, Log: c.logf, Addr: lbAddr}
	if err := c.Balancer.Start(); err != nil {
		return err
	}
	c.APIURL = "http://" + lbAddr
	return waitFor(ctx, 30*time.Second, "HAProxy at "+lbAddr, func() bool { return Ready(c.APIURL) })
}

// WaitAPI waits until an API process answers /readyz.
func (c *Cluster) WaitAPI(ctx context.Context, p *Process) error {
	return waitFor(ctx, 60*time.Second, p.Name, func() bool { return Ready("http://" + p.Addr) })
}

// haproxyConfig balances the APIs round robin and takes one out after two failed health checks
// half a second apart. A request is sent again to the other API only when it could not be sent
// at all (retry-on conn-failure): a hold or a payment that reached an API is never sent twice.
func haproxyConfig(addr string, apis []*Process) string {
	s := fmt.Sprintf(`global
  maxconn 4096
defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  retries 2
  retry-on conn-failure
  option redispatch
frontend api
  bind %s
  default_backend bookflow
backend bookflow
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter 500ms fall 2 rise 1
`, addr)
	for _, p := range apis {
		s += fmt.Sprintf("  server %s %s check\n", p.Name, p.Addr)
	}
	return s
}
