package testsuite_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// The README and the pages under docs/ show shell examples a reader copies. An example nobody
// runs drifts from the system quietly, so TestDocsExamples holds every ```sh, ```bash and
// ```console block to one of two things: it is run here, against a real system, with what its
// comments promise checked; or the line before its fence says why it is not, as
// `<!-- not run: needs a real Stripe account -->` (see docs/testing.md).

// docsRoot is where README.md is, seen from this package's directory.
const docsRoot = ".."

// docsDevURL and docsDevBinary are what the examples assume of scripts/dev, rewritten to the
// test's system and binary before a block runs.
const (
	docsDevURL    = "http://127.0.0.1:8080"
	docsDevBinary = ".data/bookflow"
)

// docsBlock is one shell example: where it is, its text, and the reason it is not run, if marked.
type docsBlock struct {
	file    string // relative to the repository root
	line    int    // of the opening fence
	section string // the nearest heading above it
	ordinal int    // its place among the shell blocks of that section, from 1
	text    string
	notRun  string
	marked  bool
}

// key names a block in docsRunBlocks: `file#section` for the first block of a section, with
// `/ordinal` added for the next ones.
func (b docsBlock) key() string {
	k := b.file + "#" + b.section
	if b.ordinal > 1 {
		k += "/" + strconv.Itoa(b.ordinal)
	}
	return k
}

// docsRun is how a block is run and what its output must show.
type docsRun struct {
	// statuses are the HTTP statuses of the block's curl calls, in order.
	statuses []int
	// shows are patterns its output must match, in order.
	shows []string
	// suppliers runs `bookflow supplier-sim` beside the system first: the simulated supplier,
	// its hotels, the wholesale channel and its agent, as scripts/dev has them.
	suppliers bool
	// then checks what the block's comments promise for later, once it has run.
	then func(t *testing.T, sys *testsuite.System, output string)
}

// docsRunBlocks are the blocks this test runs, each against a system of its own with the demo
// data loaded (`bookflow seed`, as scripts/dev does).
var docsRunBlocks = map[string]docsRun{
	"README.md#Try it": {
		statuses: []int{200, 201, 200, 200, 200, 200, 404},
		shows: []string{
			`"roomTypeId":"double"`,
			`(?m)^booking-[a-z2-7]{26}$`,
			`"paymentId":"pi_fake_`,
			`booking booking-[a-z2-7]{26} is CONFIRMED \(paid 42000 EUR\)`,
			`"status":"CONFIRMED"`,
			`"bookings":\[\{"id":"booking-`,
			`"status":"REFUND(ING|ED)"`,
			`"code":"not_found"`,
		},
		then: refundedInTheEnd,
	},
	"docs/api.md#Who is calling": {
		statuses: []int{200, 401, 403},
		shows:    []string{`"bookings":\[\]`, `"code":"unauthorized"`, `"code":"forbidden"`},
	},
	"docs/api.md#Generate a client": {statuses: []int{200}},
	"docs/hotels.md#Stock, rates and the cancellation policy": {
		statuses: []int{200, 200, 200, 200},
		shows:    []string{`"totalRooms":12`, `"nightsUpdated":2`, `"feePercent":20`, `"available":12`},
	},
	"docs/rates-and-restrictions.md#Writing plans": {
		statuses: []int{200, 200, 200, 400, 200},
		shows:    []string{`"code":"BAR"`, `"percent":"-10"`, `"board":"breakfast"`, `cycle`, `"nights":\[\{"date":"[0-9-]+","amount":[0-9]+`},
	},
	"docs/rates-and-restrictions.md#Restrictions": {
		statuses: []int{201, 201, 200},
		shows:    []string{`"kind":"closed_to_arrival"`, `"kind":"stay_through"`, `"refusedBy":.*closed to arrival on`},
	},
	"docs/rates-and-restrictions.md#What search answers": {
		statuses: []int{200, 200, 201},
		shows:    []string{`"offers":\[\{"ratePlan":"BAR"`, `"ratePlan":"NR","name":"Non-refundable"`, `"ratePlan":"NR"`, `"nonRefundable":true`},
	},
	"docs/rates-and-restrictions.md#The bulk write and the calendar": {
		statuses: []int{200, 200},
		shows:    []string{`"rules":\{"written":[1-9]`, `"closed":true`, `"minStay":2`},
	},
	"docs/hotels.md#Rooms": {
		statuses: []int{200, 200, 200},
		shows:    []string{`"numbers":\["101","102"\]`, `"reason":"Leak in the bathroom"`, `"outOfOrder"`},
	},
	"docs/hotels.md#The front desk": {
		statuses: []int{201, 200, 200},
		shows:    []string{`"status":"CONFIRMED"`, `"action":"confirm"`},
	},
	"docs/suppliers-and-channels.md#Try it": {
		suppliers: true,
		statuses:  []int{200, 200, 201, 200, 201, 201},
		shows: []string{
			`"roomTypeId":"studio"`,
			`"supplier":"simlive \(direct_connect\)"`,
			`"status":"HOLD"`,
			`"notifications":\[`,
			`"kind":"stop_sell"`,
			`"minLos":3`,
		},
		then: func(t *testing.T, sys *testsuite.System, _ string) {
			agent := sys.As(t, docsDevTokens["AGENT_TOKEN"])
			assert.Eventually(t, func() bool {
				res := agent.Do(t, http.MethodGet, "/api/v1/agent/notifications", nil, nil)
				return res.Status == http.StatusOK && strings.Contains(res.Raw, `"confirmed"`)
			}, 10*time.Second, 100*time.Millisecond, "the agent is told the supplier confirmed")
		},
	},
	"docs/waitlists.md#Try it": {
		statuses: []int{200, 201, 201, 200, 200},
		shows: []string{
			`"totalRooms":1`,
			`(?m)^booking-[a-z2-7]{26}$`,
			`"status":"waiting","place":1`,
			`"status":"CANCELLED"`,
			`"status":"offered".*"offerBookingId":"booking-wl[0-9]+-1-[a-z0-9]+","offerExpiresAt":"`,
		},
	},
	"docs/groups-and-blocks.md#Try it": {
		statuses: []int{200, 201, 200, 200, 201, 200},
		shows: []string{
			`"totalRooms":5`,
			`(?m)^blk_[a-z0-9]{16}$`,
			`"status":"DEFINITE"`,
			`"available":2`,
			`"status":"HOLD".*"total":19000.*"groupCode":"WED-0612"`,
			`"remaining":1,"picked":1,"released":1`,
		},
	},
	"docs/venues.md#Try it": {
		statuses: []int{200, 200, 201, 201, 200, 201, 409, 200, 200, 200},
		shows: []string{
			`"resourceId":"court-1"`,
			`"available":12`,
			`"units":30,"created":30`,
			`(?m)^booking-[a-z2-7]{26}$`,
			`is CONFIRMED`,
			`"code":"too_early"`,
		},
	},
	"docs/amendments.md#Try it": {
		statuses: []int{201, 200, 200, 200, 200, 200, 200, 422, 409, 200, 200},
		shows: []string{
			`is CONFIRMED \(paid 42000 EUR\)`,
			`"status":"QUOTE"`,
			`"difference":14000,.*"status":"BALANCE_DUE"`,
			`"amount":14000`,
			`is CONFIRMED \(paid 56000 EUR\)`,
			`"total":56000`,
			`"difference":-14000,"currency":"EUR","refund":14000,"status":"APPLIED"`,
			`"refund":14000,"status":"APPLIED"`,
			`"code":"idempotency_key_reused"`,
			`"code":"unavailable","message":"the night of \d{4}-\d\d-\d\d is not available"`,
			`"status":"BALANCE_DUE"`,
			`"amendments":\[\{"id":1,.*"status":"APPLIED".*\{"id":3,.*"status":"REFUSED".*\{"id":4,.*"status":"BALANCE_DUE"`,
		},
	},
	"docs/payments-and-refunds.md#Money staff steer": {
		statuses: []int{201, 200, 200, 200, 200, 200, 200, 200},
		shows: []string{
			`"status":"CONFIRMED","price":\{"currency":"USD","total":\d+.*"paid":5000`, // the deposit keeps the booking
			`"due":0`,
			`"method":"cash"`,
			`"status":"succeeded","method":"card_terminal","recordedBy":"dora-desk"`, // finance's refund, handed over by the desk
		},
		then: func(t *testing.T, sys *testsuite.System, output string) {
			id := regexp.MustCompile(`booking-[a-z2-7]{26}`).FindString(output)
			require.NotEmpty(t, id, "a booking id in the output")
			awaitRefunded(t, sys, id, 2500)
		},
	},
	"docs/payments-and-refunds.md#Try it": {
		statuses: []int{201, 200, 200, 200, 200},
		shows: []string{
			`"paymentId":"pi_fake_`,
			`is CONFIRMED`,
			`"status":"REFUND(ING|ED)"`,
			`"status":"REFUND(ING|ED)"`,
		},
		then: refundedInTheEnd,
	},
}

// refundedInTheEnd checks "REFUNDING, then REFUNDED": alice's booking, the first id in the
// output, reaches REFUNDED.
func refundedInTheEnd(t *testing.T, sys *testsuite.System, output string) {
	id := regexp.MustCompile(`booking-[a-z2-7]{26}`).FindString(output)
	require.NotEmpty(t, id, "a booking id in the output")
	alice := sys.As(t, docsDevTokens["CUSTOMER_TOKEN"])
	assert.Eventually(t, func() bool {
		res := alice.Do(t, http.MethodGet, "/api/v1/bookings/"+id, nil, nil)
		return res.Status == http.StatusOK && res.Body["status"] == "REFUNDED"
	}, 10*time.Second, 100*time.Millisecond, "booking %s is REFUNDED", id)
}

// notRunMarker is the comment that marks the block below it as not run, with its reason.
var notRunMarker = regexp.MustCompile(`^<!--\s*not run:(.*?)-->\s*$`)

func TestDocsExamples(t *testing.T) {
	blocks := docsShellBlocks(t)
	seen := map[string]bool{}
	var toRun []docsBlock
	for _, b := range blocks {
		_, run := docsRunBlocks[b.key()]
		seen[b.key()] = true
		switch {
		case b.marked && b.notRun == "":
			t.Errorf("%s:%d: a not-run marker without its reason", b.file, b.line)
		case b.marked && run:
			t.Errorf("%s:%d: %q is marked not run, but this test runs it", b.file, b.line, b.key())
		case run:
			toRun = append(toRun, b)
		case !b.marked:
			t.Errorf("%s:%d: a shell example neither run by this test (docsRunBlocks[%q]) nor marked "+
				"<!-- not run: why -->", b.file, b.line, b.key())
		}
	}
	for key := range docsRunBlocks {
		if !seen[key] {
			t.Errorf("docsRunBlocks[%q]: no such shell example in the docs", key)
		}
	}
	if t.Failed() {
		return
	}
	binary := filepath.Join(t.TempDir(), "bookflow")
	build := exec.Command("go", "build", "-o", binary, "github.com/bookflow/bookflow/cmd/bookflow")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	for _, b := range toRun {
		t.Run(b.key(), func(t *testing.T) {
			t.Parallel()
			runDocsBlock(t, binary, b, docsRunBlocks[b.key()])
		})
	}
}

// runDocsBlock runs one block with bash against a system of its own, as scripts/dev's reader
// would, and checks its HTTP statuses and output.
func runDocsBlock(t *testing.T, binary string, b docsBlock, want docsRun) {
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	u, err := url.Parse(sys.URL)
	require.NoError(t, err)
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"DATABASE_URL=" + sys.DB.URL,
		"AUTH_JWT_SECRET=" + string(sys.JWTSecret),
		"STRIPE_WEBHOOK_SECRET=" + sys.WebhookSecret,
		"HTTP_ADDR=" + u.Host,
	}
	for name, p := range docsDevTokens {
		env = append(env, name+"="+sys.Token(t, p))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	seed := exec.CommandContext(ctx, binary, "seed")
	seed.Env, seed.Dir = env, dir
	out, err := seed.CombinedOutput()
	require.NoError(t, err, "bookflow seed: %s", out)
	if want.suppliers {
		startDocsSupplierSim(ctx, t, binary, env)
	}

	// The block as the reader sees it, but for the address and the binary; curl reports each
	// call's status on stderr, since `curl -s` does not fail on a 4xx.
	script := strings.NewReplacer(docsDevURL, sys.URL, docsDevBinary, binary).Replace(b.text)
	prelude := "set -euo pipefail\n" +
		`curl() { command curl -w '%{stderr}HTTP %{http_code} %{method} %{url_effective}\n' "$@"; }` + "\n"
	cmd := exec.CommandContext(ctx, "bash", "-c", prelude+script)
	cmd.Env, cmd.Dir = env, dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	t.Logf("%s:%d output:\n%s\nstderr:\n%s", b.file, b.line, stdout.String(), stderr.String())
	require.NoError(t, err, "the block failed")

	var statuses []int
	for _, m := range regexp.MustCompile(`(?m)^HTTP (\d{3}) `).FindAllStringSubmatch(stderr.String(), -1) {
		n, _ := strconv.Atoi(m[1])
		statuses = append(statuses, n)
	}
	assert.Equal(t, want.statuses, statuses, "the HTTP statuses of the block's curl calls")
	rest := stdout.String()
	for _, pattern := range want.shows {
		loc := regexp.MustCompile(pattern).FindStringIndex(rest)
		if !assert.NotNil(t, loc, "the output shows %s (after what came before)", pattern) {
			break
		}
		rest = rest[loc[1]:]
	}
	if want.then != nil {
		want.then(t, sys, stdout.String())
	}
}

// docsDevTokens are the tokens scripts/dev prints, by the variable it prints them for.
var docsDevTokens = map[string]domain.Principal{
	"CUSTOMER_TOKEN":       {Subject: "alice", Roles: []domain.Role{domain.RoleCustomer}},
	"OTHER_CUSTOMER_TOKEN": {Subject: "bob", Roles: []domain.Role{domain.RoleCustomer}},
	"DESK_TOKEN": {Subject: "desk-budapest", Roles: []domain.Role{domain.RoleFrontDesk},
		Hotels: []string{"grand-budapest"}},
	"FINANCE_TOKEN": {Subject: "ana-finance", Roles: []domain.Role{domain.RoleFinance}},
	"ADMIN_JWT":     {Subject: "root-admin", Roles: []domain.Role{domain.RoleAdmin}},
	"AGENT_TOKEN": {Subject: "agent-lena", Roles: []domain.Role{domain.RoleAgent},
		Agent: "lena-travel", Channel: "wholesale"},
	"SUPPLIER_TOKEN": {Subject: "sim-staff", Roles: []domain.Role{domain.RoleSupplier},
		Suppliers: []string{"simsupply"}},
}

// startDocsSupplierSim runs `bookflow supplier-sim` on a port of its own until the block ends,
// and waits until it has registered its hotels, channel and agent in the system's database.
func startDocsSupplierSim(ctx context.Context, t *testing.T, binary string, env []string) {
	sim := exec.CommandContext(ctx, binary, "supplier-sim")
	sim.Env = append(env, "SUPPLIER_SIM_ADDR=127.0.0.1:0")
	logs, err := sim.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, sim.Start())
	t.Cleanup(func() { _ = sim.Process.Kill(); _ = sim.Wait() })
	seeded := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(logs)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "seeded demo suppliers") {
				close(seeded)
				break
			}
		}
		_, _ = io.Copy(io.Discard, logs)
	}()
	select {
	case <-seeded:
	case <-ctx.Done():
		t.Fatal("bookflow supplier-sim did not seed its suppliers")
	}
}

// docsShellBlocks finds every shell block in README.md and docs/*.md.
func docsShellBlocks(t *testing.T) []docsBlock {
	pages, err := filepath.Glob(filepath.Join(docsRoot, "docs", "*.md"))
	require.NoError(t, err)
	pages = append([]string{filepath.Join(docsRoot, "README.md")}, pages...)
	var blocks []docsBlock
	for _, page := range pages {
		rel, err := filepath.Rel(docsRoot, page)
		require.NoError(t, err)
		blocks = append(blocks, pageShellBlocks(t, page, filepath.ToSlash(rel))...)
	}
	require.NotEmpty(t, blocks)
	return blocks
}

// pageShellBlocks parses one page: its headings outside code, and its fenced blocks.
func pageShellBlocks(t *testing.T, page, rel string) []docsBlock {
	f, err := os.Open(page)
	require.NoError(t, err)
	defer f.Close()
	var (
		blocks   []docsBlock
		section  string
		ordinals = map[string]int{}
		prev     string
		current  *docsBlock
		inFence  bool
		body     strings.Builder
	)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case inFence && strings.HasPrefix(line, "```"):
			inFence = false
			if current != nil {
				current.text = body.String()
				blocks = append(blocks, *current)
				current = nil
			}
		case inFence:
			body.WriteString(line + "\n")
		case strings.HasPrefix(line, "```"):
			inFence = true
			switch lang := strings.TrimSpace(strings.TrimPrefix(line, "```")); lang {
			case "sh", "bash", "console":
				ordinals[section]++
				current = &docsBlock{file: rel, line: n, section: section, ordinal: ordinals[section]}
				if m := notRunMarker.FindStringSubmatch(prev); m != nil {
					current.marked, current.notRun = true, strings.TrimSpace(m[1])
				}
				body.Reset()
			}
		case strings.HasPrefix(line, "#"):
			section = strings.TrimSpace(strings.TrimLeft(line, "#"))
		}
		prev = line
	}
	require.NoError(t, sc.Err())
	require.False(t, inFence, "%s: a fence left open", rel)
	return blocks
}

// TestDocsExamplesParsing: blocks are found by language and section, with their markers.
func TestDocsExamplesParsing(t *testing.T) {
	page := filepath.Join(t.TempDir(), "page.md")
	require.NoError(t, os.WriteFile(page, []byte("# A\n\n<!-- not run: -->\n```sh\nls\n```\n\n"+
		"## B\n\n<!-- not run: needs a real Stripe account -->\n```bash\nls\n```\n```\nplain\n```\n```console\nls\n```\n"), 0o600))
	blocks := pageShellBlocks(t, page, "page.md")
	require.Len(t, blocks, 3)
	assert.Equal(t, docsBlock{file: "page.md", line: 4, section: "A", ordinal: 1, text: "ls\n", marked: true}, blocks[0])
	assert.Equal(t, "needs a real Stripe account", blocks[1].notRun)
	assert.Equal(t, "page.md#B/2", blocks[2].key())
	assert.False(t, blocks[2].marked)
}
