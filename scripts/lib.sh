# Shared by scripts/dev, scripts/test, scripts/bench and scripts/chaos: install and start what bookflow needs
# on a fresh Debian/Ubuntu machine with Go. Sourced, not run.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA_DIR=${BOOKFLOW_DATA_DIR:-$ROOT/.data}
TEMPORAL_CLI_VERSION=v1.5.1 # Temporal server 1.29.1 with web UI 2.42.1
TOOLS_DIR=${BOOKFLOW_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/bookflow/tools}
PG_PORT=${BOOKFLOW_PG_PORT:-54329}
PG_DIR=$DATA_DIR/postgres
REDIS_PORT=${BOOKFLOW_REDIS_PORT:-63790}

BOOKFLOW_BIN=$DATA_DIR/bookflow
BOOKFLOW_BENCH_BIN=$DATA_DIR/bookflow-bench # scripts/bench: the benchmarks, beside the product they run
BOOKFLOW_CHAOS_BIN=$DATA_DIR/bookflow-chaos # scripts/chaos: the fault-injection suite

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    die "need root to run: $*"
  fi
}

# apt_install [--apt-option ...] PACKAGE... installs packages (options such as
# --no-install-recommends go to apt-get).
apt_install() {
  local opts=()
  while [[ ${1:-} == -* ]]; do opts+=("$1"); shift; done
  command -v apt-get >/dev/null || die "apt-get not found: install $* by hand"
  say "Installing $* from the Debian/Ubuntu packages"
  if [ -z "${APT_UPDATED:-}" ]; then as_root apt-get update -qq >&2; APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${opts[@]}" "$@" >&2
}

# check_deploy_files checks the files operators deploy with the tools that read them: promtool
# (Debian's prometheus package) on the Prometheus configuration, alert rules and their unit
# tests, docker-compose 1.29 on docker-compose.yml (Compose v2's parser, compose-go, runs in
# go test), and Helm on the chart (check_chart). Each is installed the first time, without what
# it merely recommends (a Docker engine, a node exporter).
check_deploy_files() {
  command -v promtool >/dev/null || apt_install --no-install-recommends prometheus
  command -v docker-compose >/dev/null || apt_install --no-install-recommends docker-compose
  # Each step returns on failure, so that a caller without set -e sees it too.
  promtool check config deploy/prometheus/prometheus.yml >/dev/null || return # and the rule files it names
  promtool check rules deploy/prometheus/alerts.yml >/dev/null || return
  promtool test rules deploy/prometheus/alerts_test.yml >/dev/null || return
  docker-compose -f docker-compose.yml config -q || return
  check_chart
}

# CHART_VALUES are the values files check_chart renders the chart with, beside its defaults.
CHART_VALUES=(deploy/helm/examples/production.yaml deploy/helm/examples/demo.yaml)
# CHART_REFUSED are values the chart must refuse, each with its message: a misspelt value or
# variable name (values.schema.json), a secret in the ConfigMap, an address the ports set, a
# chart-made Secret beside yours, a secret bookflow lacks.
CHART_REFUSED=(
  "api.replica=3|additional properties 'replica' not allowed"
  "config.log_level=debug|does not match pattern"
  "config.ADMIN_TOKEN=x|config.ADMIN_TOKEN is a secret"
  "config.HTTP_ADDR=0.0.0.0:1|comes from httpPort and metricsPort"
  "devSecret.enabled=true,existingSecret=mine|are exclusive"
  "devSecret.enabled=true,devSecret.values.TEMPORAL_ADDRESS=x|is not one of bookflow's secrets"
)

# check_chart lints the Helm chart (--strict) and renders it with its defaults and each of
# CHART_VALUES (and refuses CHART_REFUSED), packages it (with the alert rules inside), then
# validates every rendered object offline with deploy/helm/check (strict decoding into
# Kubernetes' and prometheus-operator's Go types, Kubernetes' OpenAPI schemas, the chart's
# promises), runs that checker's own tests (a broken manifest must fail), and has promtool check
# and unit-test the alert rules as the rendered PrometheusRule carries them. About 5 s once Helm
# is built and the modules are in the module cache.
check_chart() {
  local chart=deploy/helm/bookflow out values name refusal
  ensure_helm
  out=$DATA_DIR/chart-check # the rendered manifests stay there for a look after a failure
  rm -rf "$out" && mkdir -p "$out" || return
  for values in "" "${CHART_VALUES[@]}"; do
    name=$(basename "${values:-default.yaml}")
    helm_quiet lint --strict "$chart" ${values:+-f "$values"} >/dev/null || return
    helm_quiet template bookflow "$chart" ${values:+-f "$values"} >"$out/$name" || return
  done
  # The packaged chart carries the alert rules themselves, not the symlink to them.
  helm_quiet package "$chart" -d "$out" >/dev/null || return
  tar -xOzf "$out"/bookflow-*.tgz bookflow/files/alerts.yml | cmp -s - deploy/prometheus/alerts.yml ||
    { echo "helm package: the chart's files/alerts.yml is not deploy/prometheus/alerts.yml" >&2; return 1; }
  for values in "${CHART_REFUSED[@]}"; do
    # Captured whole, not piped to grep -q: under pipefail, Helm killed by the early-closed pipe
    # would fail the check at random.
    refusal=$("$HELM" template bookflow "$chart" --set "${values%%|*}" 2>&1 >/dev/null || true)
    if [[ $refusal == *"${values#*|}"* ]]; then continue; fi
    echo "deploy/helm/bookflow: --set ${values%%|*} must fail with \"${values#*|}\"" >&2
    return 1
  done
  if ! (cd deploy/helm/check && go vet ./... && go test -count=1 ./... && go build -o "$out/check" .) >"$out/checker.log" 2>&1; then
    cat "$out/checker.log" >&2
    echo "deploy/helm/check: its vet, tests or build failed" >&2
    return 1
  fi
  "$out/check" -docs docs/configuration.md -compose docker-compose.yml -rules-out "$out/alerts.yml" "$out"/*.yaml >/dev/null || return
  cp deploy/prometheus/alerts_test.yml "$out/" # it names alerts.yml beside itself: the rendered one
  promtool check rules "$out/alerts.yml" >/dev/null || return
  promtool test rules "$out/alerts_test.yml" >/dev/null
}

# helm_quiet runs $HELM without its note that the chart's files/alerts.yml is a symlink (the
# one source of the alert rules: deploy/prometheus/alerts.yml), printing its other messages.
helm_quiet() {
  local err rc=0
  err=$(mktemp)
  "$HELM" "$@" 2>"$err" || rc=$?
  grep -v 'found symbolic link in path: .*/files/alerts.yml' "$err" >&2 || true
  rm -f "$err"
  return "$rc"
}

# ensure_helm sets HELM to the pinned Helm, building it through the Go module proxy the first
# time (a minute or two on 2 cores): check_chart lints and renders the chart with it.
HELM_VERSION=v3.22.0
ensure_helm() {
  HELM=$TOOLS_DIR/helm-$HELM_VERSION/helm
  if [ ! -x "$HELM" ]; then
    say "Building Helm $HELM_VERSION into $(dirname "$HELM") (first time only)"
    go_install_slowly "Helm" "$(dirname "$HELM")" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
  fi
  export HELM
}

require_go() {
  command -v go >/dev/null || die "Go 1.26 or newer is required (https://go.dev/doc/install)"
}

# build_bookflow builds the bookflow binary into $BOOKFLOW_BIN.
build_bookflow() {
  say "Building bookflow"
  mkdir -p "$DATA_DIR"
  go build -o "$BOOKFLOW_BIN" ./cmd/bookflow
}

# build_tool NAME builds cmd/NAME (bookflow-bench or bookflow-chaos) into $DATA_DIR/NAME, beside
# the bookflow binary whose processes it runs (build_bookflow too).
build_tool() {
  say "Building $1"
  mkdir -p "$DATA_DIR"
  go build -o "$DATA_DIR/$1" "./cmd/$1"
}

# go_install_slowly WHAT DIR PACKAGE... builds packages into DIR with go install, printing a
# progress line every 15 s (a first build takes minutes on 2 cores), and the log if it fails.
go_install_slowly() {
  local what=$1 dir=$2 log start pid
  shift 2
  require_go
  mkdir -p "$dir"
  log=$(mktemp)
  start=$(date +%s)
  GOBIN=$dir go install "$@" >"$log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 15
    kill -0 "$pid" 2>/dev/null && printf '    ... still building the %s (%ds elapsed)\n' "$what" $(($(date +%s) - start)) >&2
  done
  if ! wait "$pid"; then cat "$log" >&2; rm -f "$log"; die "building the $what failed"; fi
  rm -f "$log"
  say "$what built in $(($(date +%s) - start))s"
}

# ensure_temporal sets TEMPORAL_CLI to the pinned Temporal CLI, building it through the Go
# module proxy the first time (several minutes; later versions cannot be installed this way).
ensure_temporal() {
  TEMPORAL_CLI=$TOOLS_DIR/temporal-$TEMPORAL_CLI_VERSION/temporal
  if [ ! -x "$TEMPORAL_CLI" ]; then
    say "Building the Temporal CLI $TEMPORAL_CLI_VERSION (server + web UI) into $(dirname "$TEMPORAL_CLI")"
    say "First time only: this takes about 5-7 minutes on 2 cores."
    go_install_slowly "Temporal CLI" "$(dirname "$TEMPORAL_CLI")" "github.com/temporalio/cli/cmd/temporal@$TEMPORAL_CLI_VERSION"
  fi
  export TEMPORAL_CLI
}

# ensure_temporal_server sets TEMPORAL_SERVER and TEMPORAL_SQL_TOOL to the Temporal server itself
# (the engine a production cluster runs, the same release as the pinned dev server) and its schema
# tool, building them through the Go module proxy the first time (about 8 minutes on 2 cores).
# Only the production-like profile needs them.
TEMPORAL_SERVER_VERSION=v1.29.1
ensure_temporal_server() {
  local dir=$TOOLS_DIR/temporal-server-$TEMPORAL_SERVER_VERSION
  TEMPORAL_SERVER=$dir/server TEMPORAL_SQL_TOOL=$dir/sql
  if [ -x "$TEMPORAL_SERVER" ] && [ -x "$TEMPORAL_SQL_TOOL" ]; then return; fi
  say "Building the Temporal server $TEMPORAL_SERVER_VERSION and its schema tool into $dir"
  say "First time only: this takes about 8 minutes on 2 cores."
  go_install_slowly "Temporal server" "$dir" "go.temporal.io/server/cmd/server@$TEMPORAL_SERVER_VERSION" \
    "go.temporal.io/server/cmd/tools/sql@$TEMPORAL_SERVER_VERSION"
}

# ensure_temporal_ui sets TEMPORAL_UI_SERVER to the Temporal web UI's server, the release the
# pinned CLI embeds (its assets come inside the Go module), building it the first time (about
# 2 minutes). Only the cluster profile needs it: the dev server has the UI built in.
TEMPORAL_UI_VERSION=v2.42.1
ensure_temporal_ui() {
  local dir=$TOOLS_DIR/temporal-ui-$TEMPORAL_UI_VERSION
  TEMPORAL_UI_SERVER=$dir/server
  if [ ! -x "$TEMPORAL_UI_SERVER" ]; then
    say "Building the Temporal web UI $TEMPORAL_UI_VERSION into $dir (first time only)"
    go_install_slowly "Temporal web UI" "$dir" "github.com/temporalio/ui-server/v2/cmd/server@$TEMPORAL_UI_VERSION"
  fi
  export TEMPORAL_UI_SERVER
}

# ensure_stripe_mock sets STRIPE_MOCK to the pinned stripe-mock (a local Stripe API for the
# payment tests), building it through the Go module proxy the first time (seconds).
STRIPE_MOCK_VERSION=v0.203.0
ensure_stripe_mock() {
  STRIPE_MOCK=$TOOLS_DIR/stripe-mock-$STRIPE_MOCK_VERSION/stripe-mock
  if [ ! -x "$STRIPE_MOCK" ]; then
    require_go
    say "Building stripe-mock $STRIPE_MOCK_VERSION into $(dirname "$STRIPE_MOCK")"
    GOBIN=$(dirname "$STRIPE_MOCK") go install "github.com/stripe/stripe-mock@$STRIPE_MOCK_VERSION" >&2
  fi
  export STRIPE_MOCK
}

# ensure_staticcheck sets STATICCHECK to the pinned staticcheck, building it the first time.
STATICCHECK_VERSION=v0.8.2
ensure_staticcheck() {
  STATICCHECK=$TOOLS_DIR/staticcheck-$STATICCHECK_VERSION/staticcheck
  if [ ! -x "$STATICCHECK" ]; then
    require_go
    say "Building staticcheck $STATICCHECK_VERSION into $(dirname "$STATICCHECK") (about a minute, first time only)"
    GOBIN=$(dirname "$STATICCHECK") go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION" >&2
  fi
}

# ensure_cluster_packages installs what the cluster profile runs beside Go programs: PostgreSQL
# (with pg_basebackup), Redis (its Sentinels are redis-server --sentinel) and HAProxy.
ensure_cluster_packages() {
  local want=()
  [ -n "$(pg_bin)" ] || want+=(postgresql)
  command -v redis-server >/dev/null || want+=(redis-server)
  command -v haproxy >/dev/null || want+=(haproxy)
  [ ${#want[@]} = 0 ] || apt_install "${want[@]}"
  if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
  fi
}

# pg_bin prints the bin directory of the newest PostgreSQL whose server is installed (a client
# package alone has no initdb), nothing when none is: testsuite/cluster's PGBin picks the same.
pg_bin() {
  local initdb
  initdb=$(ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1) || true
  [ -z "$initdb" ] || dirname "$initdb"
}

# as_pg runs a PostgreSQL server command; the server refuses to run as root.
as_pg() {
  if [ "$(id -u)" = 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

# ensure_postgres starts a private PostgreSQL cluster under $DATA_DIR (installing the server
# package when needed) and sets PG_ADMIN_URL; PG_STARTED=1 says this call started it.
ensure_postgres() {
  if [ -z "$(pg_bin)" ]; then apt_install postgresql; fi
  local bin
  bin=$(pg_bin)
  [ -n "$bin" ] || die "PostgreSQL server binaries not found under /usr/lib/postgresql"
  if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
  fi
  mkdir -p "$DATA_DIR"
  # The server runs as the postgres user, which may not be able to reach a checkout under a
  # private folder; then the cluster lives in postgres's own home instead.
  if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$DATA_DIR"; then
    PG_DIR=$(getent passwd postgres | cut -d: -f6)/bookflow-$PG_PORT
    mkdir -p "$PG_DIR"
  fi
  if [ ! -f "$PG_DIR/PG_VERSION" ]; then
    say "Creating a private PostgreSQL cluster in $PG_DIR"
    mkdir -p "$PG_DIR"
    [ "$(id -u)" = 0 ] && chown postgres: "$PG_DIR" && chmod 700 "$PG_DIR"
    as_pg "$bin/initdb" -D "$PG_DIR" -U postgres --auth=trust -E UTF8 >/dev/null
  fi
  if as_pg "$bin/pg_ctl" -D "$PG_DIR" status >/dev/null 2>&1; then
    PG_PORT=$(head -n 4 "$PG_DIR/postmaster.pid" | tail -n 1) # the port it is running on
  else
    local wanted=$PG_PORT
    while port_taken "$PG_PORT"; do
      PG_PORT=$((PG_PORT + 1))
      [ "$PG_PORT" -lt $((wanted + 50)) ] || die "no free port from $wanted on; set BOOKFLOW_PG_PORT"
    done
    [ "$PG_PORT" = "$wanted" ] || say "Port $wanted is taken; using $PG_PORT"
    say "Starting PostgreSQL on 127.0.0.1:$PG_PORT"
    PG_STARTED=1
    as_pg "$bin/pg_ctl" -D "$PG_DIR" -l "$PG_DIR/server.log" -w -t 60 start \
      -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=200" >/dev/null \
      || { cat "$PG_DIR/server.log" >&2; die "PostgreSQL did not start"; }
  fi
  PG_ADMIN_URL="postgres://postgres@127.0.0.1:$PG_PORT/postgres?sslmode=disable"
  export PG_ADMIN_URL
}

# port_taken PORT: something listens on 127.0.0.1:PORT.
port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# ensure_redis starts a private Redis (installed from the distribution's packages if missing) on
# REDIS_PORT, keeping nothing on disk, unless one of ours already runs there; REDIS_STARTED says
# this run started it. It exports REDIS_ADMIN_URL.
# ensure_chromium installs Debian's Chromium for the console's browser tests (chromedp drives it
# headless), with a CJK font so the Simplified Chinese screens render, unless BOOKFLOW_CHROMIUM
# names a browser already.
ensure_chromium() {
  if [ -n "${BOOKFLOW_CHROMIUM:-}" ]; then return; fi
  if ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null; then
    apt_install --no-install-recommends chromium fonts-noto-cjk
  fi
  if [ ! -d /usr/share/fonts/opentype/noto ] && command -v apt-get >/dev/null; then
    apt_install --no-install-recommends fonts-noto-cjk
  fi
}

# ensure_axe_core sets AXE_CORE_JS to the pinned axe-core's axe.min.js, installed from npm into
# the tools cache the first time (Node.js and npm from the distribution when missing): the
# console's browser tests run it on each page for WCAG 2.1 A and AA (TestConsoleAccessibility).
AXE_CORE_VERSION=4.14.1
ensure_axe_core() {
  local dir=$TOOLS_DIR/axe-core-$AXE_CORE_VERSION
  AXE_CORE_JS=$dir/node_modules/axe-core/axe.min.js
  if [ ! -f "$AXE_CORE_JS" ]; then
    command -v npm >/dev/null || apt_install --no-install-recommends nodejs npm
    say "Installing axe-core $AXE_CORE_VERSION from npm into $dir (first time only)"
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-save --no-audit --no-fund --ignore-scripts --loglevel=error \
      "axe-core@$AXE_CORE_VERSION" >&2 || die "installing axe-core $AXE_CORE_VERSION from npm failed"
    [ -f "$AXE_CORE_JS" ] || die "npm installed no $AXE_CORE_JS"
  fi
  export AXE_CORE_JS
}

ensure_redis() {
  command -v redis-server >/dev/null || apt_install redis-server
  mkdir -p "$DATA_DIR"
  local pidfile=$DATA_DIR/redis.pid
  if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null && [ -f "$DATA_DIR/redis.port" ]; then
    REDIS_PORT=$(cat "$DATA_DIR/redis.port") # ours, still running
  else
    local wanted=$REDIS_PORT
    while port_taken "$REDIS_PORT"; do
      REDIS_PORT=$((REDIS_PORT + 1))
      [ "$REDIS_PORT" -lt $((wanted + 50)) ] || die "no free port from $wanted on; set BOOKFLOW_REDIS_PORT"
    done
    say "Starting Redis on 127.0.0.1:$REDIS_PORT"
    REDIS_STARTED=1
    redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
      --pidfile "$pidfile" --logfile "$DATA_DIR/redis.log" >/dev/null || die "Redis did not start (see $DATA_DIR/redis.log)"
    for _ in $(seq 50); do port_taken "$REDIS_PORT" && break; sleep 0.1; done
    port_taken "$REDIS_PORT" || die "Redis did not start (see $DATA_DIR/redis.log)"
    echo "$REDIS_PORT" >"$DATA_DIR/redis.port"
  fi
  REDIS_ADMIN_URL="redis://127.0.0.1:$REDIS_PORT/0"
  export REDIS_ADMIN_URL
}

stop_redis() {
  local pidfile=$DATA_DIR/redis.pid
  [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
  rm -f "$pidfile" "$DATA_DIR/redis.port"
}

stop_postgres() {
  local bin
  bin=$(pg_bin)
  [ -n "$bin" ] && [ -f "$PG_DIR/PG_VERSION" ] && as_pg "$bin/pg_ctl" -D "$PG_DIR" -m fast stop >/dev/null 2>&1 || true
}

# pg_restart_cmd prints a shell command that restarts the private cluster at once (no shutdown
# checkpoint, as in a crash), for the fault-injection suite; pg_ctl restart keeps the options it
# was started with, and the log file keeps the server off the caller's pipes.
pg_restart_cmd() {
  local restart
  restart="$(pg_bin)/pg_ctl -D $PG_DIR -l $PG_DIR/server.log -m immediate -w -t 60 restart"
  if [ "$(id -u)" = 0 ]; then restart="cd / && runuser -u postgres -- $restart"; fi
  printf '%s\n' "$restart"
}

# create_database NAME creates a database on the private cluster unless it exists.
create_database() {
  local bin
  bin=$(pg_bin)
  if ! "$bin/psql" -qtA "$PG_ADMIN_URL" -c "SELECT 1 FROM pg_database WHERE datname = '$1'" | grep -q 1; then
    "$bin/psql" -q "$PG_ADMIN_URL" -c "CREATE DATABASE \"$1\"" >/dev/null
  fi
}

# without_otel runs a command without the OTEL_* settings meant for bookflow: the Temporal server
# reads them too, and refuses to start on values it does not support (OTEL_TRACES_EXPORTER=console).
# It replaces the shell it runs in (exec), so a caller's `without_otel cmd &` and $! name the
# command itself, which a later kill then stops.
without_otel() {
  local unset=() v
  for v in $(compgen -e | grep '^OTEL_' || true); do unset+=(-u "$v"); done
  exec env "${unset[@]}" "$@"
}

# fill_template FILE NAME=VALUE... prints FILE with each ${NAME} replaced by its VALUE, as
# testsuite/cluster's fillTemplate does, and fails on a name left without one.
fill_template() {
  local file=$1 text pair
  shift
  text=$(<"$file") || return
  for pair in "$@"; do text=${text//"\${${pair%%=*}}"/"${pair#*=}"}; done
  if [[ $text == *'${'* ]]; then
    echo "$file: no value for $(grep -o '\${[A-Z_]*}' <<<"$text" | sort -u | tr '\n' ' ')" >&2
    return 1
  fi
  printf '%s\n' "$text"
}

# start_temporal_server PORT starts the Temporal server as production runs it, not the dev server:
# every service in one process, 4 history shards, persistence and visibility on the private
# PostgreSQL (databases temporal_PORT and temporal_visibility_PORT, kept between runs), frontend
# on 127.0.0.1:PORT and the other services on PORT+1 to PORT+3 (membership on PORT+101 to
# PORT+103, frontend HTTP on PORT+200). It has no web UI. Sets TEMPORAL_PID, creates the default
# namespace and bookflow's search attributes (build_bookflow and ensure_postgres first).
start_temporal_server() {
  local port=$1 dir db store sa name type
  dir=$DATA_DIR/temporal-server-$port
  ensure_temporal
  ensure_temporal_server
  mkdir -p "$dir/config/dynamicconfig"
  for db in "temporal_$port:temporal" "temporal_visibility_$port:visibility"; do
    store=${db#*:} db=${db%%:*}
    # Each step is safe to repeat: an existing database or schema version is kept.
    "$TEMPORAL_SQL_TOOL" --plugin postgres12 --ep 127.0.0.1 -p "$PG_PORT" -u postgres --db "$db" create-database >/dev/null 2>&1 || true
    "$TEMPORAL_SQL_TOOL" --plugin postgres12 --ep 127.0.0.1 -p "$PG_PORT" -u postgres --db "$db" setup-schema -v 0.0 >/dev/null 2>&1 || true
    "$TEMPORAL_SQL_TOOL" --plugin postgres12 --ep 127.0.0.1 -p "$PG_PORT" -u postgres --db "$db" \
      update-schema -s "postgresql/v12/$store" >"$dir/schema-$store.log" 2>&1 ||
      { cat "$dir/schema-$store.log" >&2; die "setting up the Temporal $store schema in $db failed"; }
  done
  # The configuration is testsuite/cluster's, the cluster profile's: one process with every
  # service here.
  cp "$ROOT/testsuite/cluster/temporal-dynamicconfig.yaml" "$dir/config/dynamicconfig/bookflow.yaml"
  fill_template "$ROOT/testsuite/cluster/temporal-server.yaml" DB="temporal_$port" VISIBILITY_DB="temporal_visibility_$port" \
    PG_ADDR="127.0.0.1:$PG_PORT" DYNAMIC_CONFIG="$dir/config/dynamicconfig/bookflow.yaml" \
    FRONTEND_PORT="$port" FRONTEND_MEMBERSHIP_PORT=$((port + 100)) FRONTEND_HTTP_PORT=$((port + 200)) \
    HISTORY_PORT=$((port + 1)) HISTORY_MEMBERSHIP_PORT=$((port + 101)) \
    MATCHING_PORT=$((port + 2)) MATCHING_MEMBERSHIP_PORT=$((port + 102)) \
    WORKER_PORT=$((port + 3)) WORKER_MEMBERSHIP_PORT=$((port + 103)) >"$dir/config/bookflow.yaml" ||
    die "writing the Temporal server's configuration failed"
  say "Starting the Temporal server $TEMPORAL_SERVER_VERSION on 127.0.0.1:$port (PostgreSQL persistence, 4 history shards, no web UI)"
  without_otel "$TEMPORAL_SERVER" --root "$dir" --config config --env bookflow --allow-no-auth start >"$dir/server.log" 2>&1 &
  TEMPORAL_PID=$!
  for _ in $(seq 1 120); do
    if "$TEMPORAL_CLI" operator cluster health --address "127.0.0.1:$port" >/dev/null 2>&1; then break; fi
    kill -0 "$TEMPORAL_PID" 2>/dev/null || { tail -50 "$dir/server.log" >&2; die "the Temporal server exited"; }
    sleep 0.5
  done
  "$TEMPORAL_CLI" operator cluster health --address "127.0.0.1:$port" >/dev/null 2>&1 ||
    die "the Temporal server did not answer within 60s (see $dir/server.log)"
  # Unlike the dev server it makes no namespace, and registers no search attribute.
  "$TEMPORAL_CLI" operator namespace describe --address "127.0.0.1:$port" -n default >/dev/null 2>&1 ||
    "$TEMPORAL_CLI" operator namespace create --address "127.0.0.1:$port" -n default --retention 72h >/dev/null
  # A new namespace reaches every service's cache within seconds: retry until it has.
  for sa in $("$BOOKFLOW_BIN" search-attributes); do
    name=${sa%%=*} type=${sa#*=}
    for attempt in $(seq 1 60); do
      if "$TEMPORAL_CLI" operator search-attribute list --address "127.0.0.1:$port" -n default 2>/dev/null | grep -qw "$name" ||
        "$TEMPORAL_CLI" operator search-attribute create --address "127.0.0.1:$port" -n default \
          --name "$name" --type "$type" >/dev/null 2>&1; then
        break
      fi
      [ "$attempt" = 60 ] && die "could not create the search attribute $name on the Temporal server"
      sleep 0.5
    done
  done
}

# start_temporal PORT UI_PORT [DB_FILE] starts the Temporal dev server in the background (sets
# TEMPORAL_PID) and waits until it answers. Without DB_FILE the server keeps everything in memory.
# The search attributes come from the workflows' own list (build_bookflow first).
start_temporal() {
  local port=$1 ui_port=$2 db_file=${3:-} args=() sa
  for sa in $("$BOOKFLOW_BIN" search-attributes); do args+=(--search-attribute "$sa"); done
  [ -n "$db_file" ] && args+=(--db-filename "$db_file")
  say "Starting the Temporal dev server on 127.0.0.1:$port (UI on http://127.0.0.1:$ui_port)"
  without_otel "$TEMPORAL_CLI" server start-dev --ip 127.0.0.1 --port "$port" --ui-port "$ui_port" \
    --log-level warn "${args[@]}" >"$DATA_DIR/temporal.log" 2>&1 &
  TEMPORAL_PID=$!
  for _ in $(seq 1 120); do
    if "$TEMPORAL_CLI" operator cluster health --address "127.0.0.1:$port" >/dev/null 2>&1; then return; fi
    kill -0 "$TEMPORAL_PID" 2>/dev/null || { cat "$DATA_DIR/temporal.log" >&2; die "the Temporal dev server exited"; }
    sleep 0.5
  done
  die "the Temporal dev server did not answer within 60s (see $DATA_DIR/temporal.log)"
}
