package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// products runs bookflow commands (serve, worker) as child processes, as a deployment runs
// them, each logging to its own file under logs; stop ends them all.
type products struct {
	bookflow, logs string
	env            []string // every child's environment; a command's extra variables win
	children       []*exec.Cmd
}

// productEnv is the environment the bench gives bookflow's processes: the fake provider, one
// customer making every hold without limits, holds that outlast the run (no expiry adds work to
// a later measurement), no metrics listener (several children on one machine would clash) and
// no tracing, as in production by default.
func productEnv(temporalAddress, queue, adminToken string) []string {
	return append(os.Environ(), "TASK_QUEUE="+queue, "TEMPORAL_ADDRESS="+temporalAddress, "ADMIN_TOKEN="+adminToken,
		"PAYMENT_PROVIDER=fake", "LOG_LEVEL=warn", "AUTH_JWT_SECRET="+string(benchIDKey), "BOOKING_ID_KEY="+string(benchIDKey),
		"MAX_ACTIVE_HOLDS=0", "HOLD_RATE_PER_CUSTOMER=0", "HOLD_RATE_PER_ADDRESS=0", "HOLD_RATE_PER_HOTEL=0", "HOLD_TTL=1h",
		"METRICS_ADDR=none", "OTEL_TRACES_EXPORTER=none")
}

// start starts `bookflow <command>` with the extra environment variables.
func (p *products) start(ctx context.Context, command string, extra ...string) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, p.bookflow, command)
	cmd.Env = append(slices.Clone(p.env), extra...)
	out, err := os.Create(filepath.Join(p.logs, fmt.Sprintf("%s-%d.log", command, len(p.children))))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p.children = append(p.children, cmd)
	return cmd, nil
}

// serve starts `bookflow serve` on a free loopback port and waits until it answers; it returns
// the API's base URL and the process id.
func (p *products) serve(ctx context.Context, extra ...string) (string, int, error) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		return "", 0, err
	}
	cmd, err := p.start(ctx, "serve", append([]string{"HTTP_ADDR=" + addr}, extra...)...)
	if err != nil {
		return "", 0, err
	}
	if err := waitHealthy(ctx, "http://"+addr+"/healthz", time.Minute); err != nil {
		return "", 0, fmt.Errorf("bookflow serve on %s: %w (its log is in %s)", addr, err, p.logs)
	}
	return "http://" + addr + "/api/v1", cmd.Process.Pid, nil
}

func (p *products) stop() { stopChildren(p.children) }

// call sends body (none when empty) to url with a bearer token and an idempotency key (none
// when empty), wants the status want, and decodes the answer into out (when not nil).
func call(ctx context.Context, c *http.Client, method, url, bearer, key, body string, want int, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer drain(res)
	if res.StatusCode != want {
		msg, _ := io.ReadAll(io.LimitReader(res.Body, 300))
		return fmt.Errorf("%s %s: status %d: %s", method, url, res.StatusCode, strings.TrimSpace(string(msg)))
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(res.Body).Decode(out)
}

// drain reads a response to its end and closes it, so its connection is used again: a body
// closed unread costs the next request a new TCP connection.
func drain(res *http.Response) {
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
}

// freeLoopbackAddr picks a free loopback port for a child process to listen on.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// waitHealthy polls url until it answers 200.
func waitHealthy(ctx context.Context, url string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("status %d", res.StatusCode)
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return cmp.Or(ctx.Err(), fmt.Errorf("not healthy after %s: %w", within, err))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stopChildren asks each child process to stop (SIGTERM) and waits for it.
func stopChildren(children []*exec.Cmd) {
	for _, c := range children {
		_ = c.Process.Signal(syscall.SIGTERM)
	}
	for _, c := range children {
		if err := c.Wait(); err != nil && !errors.Is(err, context.Canceled) {
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				fmt.Fprintf(os.Stderr, "bench: %s: %v\n", strings.Join(c.Args, " "), err)
			}
		}
	}
}
