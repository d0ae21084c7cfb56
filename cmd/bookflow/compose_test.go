package main

import (
	"context"
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
	for name, s := range p.Services {
		for _, port := range s.Ports {
			assert.Equal(t, "127.0.0.1", port.HostIP, "%s publishes %s on every interface", name, port.Published)
		}
		if s.Build != nil {
			require.NotEmpty(t, s.Command, name)
			_, ok := commands[s.Command[0]]
			assert.True(t, ok, "%s runs bookflow %q, which is no command", name, s.Command[0])
			running[s.Command[0]] = true
		}
	}
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
