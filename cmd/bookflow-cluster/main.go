// Command bookflow-cluster runs bookflow as a cluster on this machine (package
// testsuite/cluster): PostgreSQL with a synchronous standby, Redis with Sentinel, the Temporal
// server's services apart, two workers and two APIs behind HAProxy. It seeds the demo hotels,
// prints what runs where and a token per role, and stops everything on Ctrl-C. scripts/cluster
// builds what it needs and runs it.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/bookflow/bookflow/cmd/internal/product"
	"github.com/bookflow/bookflow/testsuite/cluster"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	fs := flag.NewFlagSet("bookflow-cluster", flag.ExitOnError)
	dir := fs.String("dir", ".data/cluster", "where the cluster's data and logs go (emptied at start: nothing is kept between runs)")
	apiAddr := fs.String("api-addr", envOr("HTTP_ADDR", "127.0.0.1:8080"), "where the load balancer takes the API's requests")
	temporalAddr := fs.String("temporal-addr", "127.0.0.1:"+envOr("BOOKFLOW_TEMPORAL_PORT", "7233"), "the Temporal frontend's address")
	uiAddr := fs.String("ui-addr", "127.0.0.1:"+envOr("BOOKFLOW_TEMPORAL_UI_PORT", "8233"), "the Temporal web UI's address (with TEMPORAL_UI_SERVER)")
	bookflowBin := fs.String("bookflow", "", "the bookflow binary the processes run (default: bookflow beside this binary)")
	_ = fs.Parse(os.Args[1:])
	bookflow, err := product.Binary(*bookflowBin)
	if err != nil {
		return err
	}
	server, sqlTool := os.Getenv("TEMPORAL_SERVER"), os.Getenv("TEMPORAL_SQL_TOOL")
	if server == "" || sqlTool == "" {
		return fmt.Errorf("TEMPORAL_SERVER and TEMPORAL_SQL_TOOL are required: run scripts/cluster")
	}
	if err := os.RemoveAll(*dir); err != nil {
		return err
	}
	// Secrets of this run only: serve refuses weak ones.
	admin, jwt, idKey, webhook := secret(), secret(), secret(), "whsec_"+secret()
	env := []string{"ADMIN_TOKEN=" + admin, "AUTH_JWT_SECRET=" + jwt, "BOOKING_ID_KEY=" + idKey,
		"STRIPE_WEBHOOK_SECRET=" + webhook, "PAYMENT_PROVIDER=" + envOr("PAYMENT_PROVIDER", "fake"), "LOG_LEVEL=warn"}
	c, err := cluster.Start(ctx, cluster.Options{Dir: *dir, Bookflow: bookflow, TemporalServer: server, TemporalSQLTool: sqlTool,
		TemporalUI: os.Getenv("TEMPORAL_UI_SERVER"), UIAddr: *uiAddr, APIAddr: *apiAddr, TemporalAddr: *temporalAddr,
		Env: env, Events: os.Stderr})
	if err != nil {
		return err
	}
	defer func() { fmt.Fprintln(os.Stderr, "stopping the cluster"); c.Stop(true) }()
	seed := exec.CommandContext(ctx, bookflow, "seed")
	seed.Env = append(cluster.OwnEnviron(), "DATABASE_URL="+c.DatabaseURL)
	if out, err := seed.CombinedOutput(); err != nil {
		return fmt.Errorf("bookflow seed: %w: %s", err, out)
	}
	var tokens strings.Builder
	for _, t := range []struct{ name, sub, role string }{
		{"CUSTOMER_TOKEN", "alice", "customer"}, {"FINANCE_TOKEN", "fiona", "finance"}, {"ADMIN_JWT", "ada", "admin"},
	} {
		cmd := exec.CommandContext(ctx, bookflow, "token", "--sub", t.sub, "--role", t.role, "--ttl", "12h")
		cmd.Env = append(cluster.OwnEnviron(), "AUTH_JWT_SECRET="+jwt)
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("bookflow token: %w", err)
		}
		fmt.Fprintf(&tokens, "  export %s=%s\n", t.name, strings.TrimSpace(string(out)))
	}
	ui := "none: TEMPORAL_UI_SERVER is not set (scripts/cluster builds it)"
	if c.UI != nil {
		ui = "http://" + c.UI.Addr + "/namespaces/default/workflows"
	}
	checkIn := time.Now().AddDate(0, 0, 30).Format(time.DateOnly)
	fmt.Printf(`
The bookflow cluster is running. Ctrl-C stops everything.

%s
API (through HAProxy)  %s
Temporal UI            %s
Payments               PAYMENT_PROVIDER=%s; webhooks are signed with STRIPE_WEBHOOK_SECRET=%s
Break-glass            ADMIN_TOKEN=%s
Tokens (12 h):
%s
Try: curl -H "Authorization: Bearer $CUSTOMER_TOKEN" '%s/api/v1/hotels/grand-budapest/availability?checkIn=%s&checkOut=%s'
`, c.Table(), c.APIURL, ui, envOr("PAYMENT_PROVIDER", "fake"), webhook, admin, tokens.String(), c.APIURL, checkIn,
		time.Now().AddDate(0, 0, 32).Format(time.DateOnly))
	<-ctx.Done()
	return nil
}

func secret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
