package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

var (
	schemasOnce sync.Once
	testSchemas *schemas
	schemasErr  error
)

func loadTestSchemas(t *testing.T) *schemas {
	t.Helper()
	schemasOnce.Do(func() {
		dir, err := kubernetesSpecDir()
		if err != nil {
			schemasErr = err
			return
		}
		testSchemas, schemasErr = loadSchemas(dir)
	})
	if schemasErr != nil {
		t.Fatal(schemasErr)
	}
	return testSchemas
}

// checkText checks a rendered chart given as text.
func checkText(t *testing.T, text string) []error {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rendered.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errs := checkFile(loadTestSchemas(t), path, "../../../docs/configuration.md", "", nil)
	return errs
}

func TestTheControlPasses(t *testing.T) {
	good, err := os.ReadFile("testdata/good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if errs := checkText(t, string(good)); len(errs) > 0 {
		t.Fatalf("testdata/good.yaml: %v", errs)
	}
}

// TestBrokenManifestsFail breaks the control one way at a time: each must fail, for its reason.
// A validator that passes everything would pass the control too.
func TestBrokenManifestsFail(t *testing.T) {
	good, err := os.ReadFile("testdata/good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, from, to, want string
	}{
		// Caught by the strict decode and by the schema alike.
		{"unknown field", "httpGet: {path: /healthz, port: metrics}", "httpGet: {path: /healthz, prot: metrics}", `unknown field "prot"(.|\n)*additional properties .prot. not allowed`},
		{"misspelled top-level field", "  replicas: 1", "  replicas: 1\n  strategy: {type: Recreate}\n  paused: false\n  revisionHistoryLimits: 3", `unknown field "revisionHistoryLimits"(.|\n)*additional properties .revisionHistoryLimits. not allowed`},
		{"wrong type", "replicas: 1", `replicas: "one"`, `cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas`},
		{"repeated field", "          args: [\"worker\"]", "          args: [\"worker\"]\n          args: [\"serve\"]", `"args" already set`},
		{"unknown kind", "kind: PodDisruptionBudget", "kind: PodDisruptionBudgets", `unexpected kind`},
		{"old apiVersion", "apiVersion: policy/v1", "apiVersion: policy/v1beta1", `unexpected kind`},
		// Only the OpenAPI schema knows these: Go's types accept them.
		{"required field missing", "        - name: worker\n", "        - \n", `missing property 'name'`},
		{"selector missing", "  selector:\n    matchLabels: {app: w}\n  template", "  template", `missing property 'selector'`},
		{"quantity of the wrong type", "limits: {memory: 256Mi}", "limits: {memory: [256Mi]}", `cannot unmarshal array|got array`},
		// prometheus-operator's types.
		{"unknown ServiceMonitor field", "{port: metrics, interval: 30s}", "{port: metrics, intervall: 30s}", `ServiceMonitor "m".*unknown field "intervall"`},
		{"rule without expr", "          expr: up{job=~\"bookflow-.*\"} == 0\n", "", `needs an expr`},
		// The chart's promises.
		{"writable root filesystem", "readOnlyRootFilesystem: true", "readOnlyRootFilesystem: false", `read-only root filesystem`},
		{"root user", "runAsUser: 65532", "runAsUser: 0", `runAsNonRoot`},
		{"no readiness probe", "          readinessProbe:\n            httpGet: {path: /readyz, port: metrics}\n", "", `no readiness HTTP probe`},
		{"probe on an undeclared port", "httpGet: {path: /readyz, port: metrics}", "httpGet: {path: /readyz, port: http}", `does not declare`},
		{"a second image", "image: bookflow:local", "image: bookflow:latest\n        - name: sidecar\n          image: busybox", `images`},
		{"no memory limit", "limits: {memory: 256Mi}", "limits: {cpu: 1}", `limit memory`},
		{"undocumented configuration", "TEMPORAL_ADDRESS: temporal:7233", "TEMPORAL_ADRESS: temporal:7233", `TEMPORAL_ADRESS is not a variable`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(string(good), tc.from) {
				t.Fatalf("the control has no %q to break", tc.from)
			}
			errs := checkText(t, strings.Replace(string(good), tc.from, tc.to, 1))
			if len(errs) == 0 {
				t.Fatal("accepted")
			}
			var all []string
			for _, err := range errs {
				all = append(all, err.Error())
			}
			if !regexp.MustCompile(tc.want).MatchString(strings.Join(all, "\n")) {
				t.Fatalf("failed, but not for %q: %s", tc.want, strings.Join(all, "\n"))
			}
		})
	}
}

// TestComposeHealthchecksMatchTheProbes: a compose healthcheck asking what no probe asks fails.
func TestComposeHealthchecksMatchTheProbes(t *testing.T) {
	s := loadTestSchemas(t)
	if _, errs := checkFile(s, "testdata/good.yaml", "", "testdata/compose.yml", nil); len(errs) != 1 ||
		!strings.Contains(errs[0].Error(), "bookflow-api's healthcheck is not") {
		t.Fatalf("want only the missing bookflow-api service reported: %v", errs)
	}
	compose, err := os.ReadFile("testdata/compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "compose.yml")
	if err := os.WriteFile(path, []byte(strings.Replace(string(compose), "/healthz", "/livez", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errs := checkFile(s, "testdata/good.yaml", "", path, nil)
	if len(errs) != 2 || !strings.Contains(errs[1].Error()+errs[0].Error(), "asks http://127.0.0.1:9464/livez, which no probe") {
		t.Fatalf("want the worker's unprobed path reported: %v", errs)
	}
}

// TestAlertRulesHaveOneSource: the chart's files/alerts.yml is deploy/prometheus/alerts.yml
// itself, through a symlink that Helm follows (also into helm package's archive), so the
// PrometheusRule and Compose's Prometheus cannot drift apart.
func TestAlertRulesHaveOneSource(t *testing.T) {
	link := "../bookflow/files/alerts.yml"
	target, err := os.Readlink(link)
	if err != nil {
		t.Fatalf("%s must be a symlink to deploy/prometheus/alerts.yml, not a copy: %v", link, err)
	}
	if filepath.Clean(filepath.Join(filepath.Dir(link), target)) != filepath.Clean("../../prometheus/alerts.yml") {
		t.Fatalf("%s points at %s, not deploy/prometheus/alerts.yml", link, target)
	}
}

// TestVersionsAgree: the schemas are those of the Kubernetes release the Go types come from.
func TestVersionsAgree(t *testing.T) {
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`k8s.io/api v0\.(\d+\.\d+)`).FindSubmatch(mod)
	if m == nil || "v1."+string(m[1]) != kubernetesVersion {
		t.Fatalf("go.mod's k8s.io/api (%s) is not Kubernetes %s's", m, kubernetesVersion)
	}
}
