package main

import (
	"context"
	"net"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDockerComposeLoadsAndIsSafeToRun reads docker-compose.yml with compose-go, the parser of
// Compose v2 (scripts/test also loads it with docker-compose 1.29), and checks what an SRE would:
// nothing published beyond this machine, a healthcheck on every long-running service and
// dependencies on them, bookflow commands that exist, and the walk-throughs' data seeded.
func TestDockerComposeLoadsAndIsSafeToRun(t *testing.T) {
	opts, err := cli.NewProjectOptions([]string{"../../docker-compose.yml"},
		cli.WithWorkingDirectory("../.."), cli.WithName("bookflow"), cli.WithEnv(nil))
	require.NoError(t, err)
	p, err := opts.LoadProject(context.Background())
	require.NoError(t, err)

	running := map[string]bool{} // bookflow's commands the services run
	image := chartImage(t)
	builds := 0
	for name, s := range p.Services {
		for _, port := range s.Ports {
			assert.Equal(t, "127.0.0.1", port.HostIP, "%s publishes %s on every interface", name, port.Published)
		}
		// One image for every bookflow service, the chart's: built by one service, never pulled.
		if s.Build != nil {
			builds++
		}
		if s.Build != nil || strings.HasPrefix(s.Image, "bookflow") {
			assert.Equal(t, image, s.Image, "%s runs another image than the chart's", name)
			if s.Build == nil {
				assert.Equal(t, types.PullPolicyNever, s.PullPolicy, "%s would pull %s, which is on no registry", name, s.Image)
			}
			require.NotEmpty(t, s.Command, name)
			_, ok := commands[s.Command[0]]
			assert.True(t, ok, "%s runs bookflow %q, which is no command", name, s.Command[0])
			running[s.Command[0]] = true
			if s.HealthCheck != nil {
				assertBookflowHealth(t, name, s)
			}
		}
	}
	assert.Equal(t, 1, builds, "the bookflow image is built once")
	for _, name := range []string{"postgres", "redis", "temporal", "bookflow-api", "bookflow-worker", "supplier-sim"} {
		require.Contains(t, p.Services, name)
		hc := p.Services[name].HealthCheck
		if assert.NotNil(t, hc, "%s has no healthcheck", name) {
			assert.NotEmpty(t, hc.Test, name)
		}
	}
	assert.Contains(t, strings.Join(p.Services["temporal"].HealthCheck.Test, " "), "$(hostname -i)",
		"the container's shell, not Compose, expands $(hostname -i)")
	for _, name := range []string{"bookflow-api", "bookflow-worker"} {
		assert.Equal(t, types.ServiceConditionHealthy, p.Services[name].DependsOn["redis"].Condition, "%s waits for Redis", name)
	}
	assert.Equal(t, types.ServiceConditionHealthy, p.Services["bookflow-worker"].DependsOn["supplier-sim"].Condition,
		"the worker schedules the suppliers' pulls once they are seeded")
	// The namespace appears after the server answers: the job must outlast that wait.
	assert.True(t, slices.Contains(p.Services["temporal-search-attributes"].Command, "--wait"))
	assert.True(t, running["seed"] && running["supplier-sim"], "the demo hotels and the supplier walk-through's data are seeded")
}

// chartImage is the image the Helm chart runs by default (deploy/helm/bookflow/values.yaml's
// image.repository and image.tag), read without a YAML parser bookflow would not otherwise need.
func chartImage(t *testing.T) string {
	values, err := os.ReadFile("../../deploy/helm/bookflow/values.yaml")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^image:\n(?:  #.*\n)*  repository: (\S+)\n  tag: (\S+)\n`).FindSubmatch(values)
	require.NotNil(t, m, "values.yaml: image.repository then image.tag")
	return string(m[1]) + ":" + string(m[2])
}

// assertBookflowHealth wants a bookflow service's healthcheck in the form the chart's probes
// mirror (deploy/helm/check compares their paths and ports): the image has no shell, so bookflow
// itself asks one of its own endpoints on one of its own listeners (HTTP_ADDR, METRICS_ADDR, or
// the simulated supplier's SUPPLIER_SIM_ADDR).
func assertBookflowHealth(t *testing.T, name string, s types.ServiceConfig) {
	test := s.HealthCheck.Test
	if !assert.Len(t, test, 4, "%s: healthcheck", name) {
		return
	}
	assert.Equal(t, []string{"CMD", "/bookflow", "health"}, []string(test[:3]), "%s: the healthcheck runs bookflow health", name)
	u, err := url.Parse(test[3])
	require.NoError(t, err, name)
	assert.Equal(t, "127.0.0.1", u.Hostname(), "%s asks itself", name)
	var listens []string
	for _, v := range []string{"HTTP_ADDR", "METRICS_ADDR", "SUPPLIER_SIM_ADDR"} {
		if addr := s.Environment[v]; addr != nil {
			_, port, err := net.SplitHostPort(*addr)
			require.NoError(t, err, "%s: %s", name, v)
			listens = append(listens, port)
		}
	}
	assert.Contains(t, listens, u.Port(), "%s asks a port it does not listen on", name)
}
