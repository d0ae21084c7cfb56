package main

import (
	"fmt"
	"maps"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// checkPolicy holds the chart to what docs/kubernetes.md promises, beyond what the schemas say:
// every pod non-root on a read-only root filesystem with resources set, long-running pods
// probed on ports they declare, one image throughout, and monitoring resources that say
// something.
func checkPolicy(objects []object) []error {
	var errs []error
	images := map[string]bool{}
	for _, o := range objects {
		var spec *corev1.PodSpec
		switch t := o.typed.(type) {
		case *appsv1.Deployment:
			spec = &t.Spec.Template.Spec
			for _, c := range spec.Containers {
				errs = append(errs, checkProbes(o, c)...)
			}
		case *batchv1.Job:
			spec = &t.Spec.Template.Spec
		case *monitoringv1.ServiceMonitor:
			if len(t.Spec.Endpoints) == 0 {
				errs = append(errs, fmt.Errorf("%s: no endpoints to scrape", o))
			}
		case *monitoringv1.PrometheusRule:
			errs = append(errs, checkRules(o, t)...)
		}
		if spec == nil {
			continue
		}
		errs = append(errs, checkPod(o, spec)...)
		for _, c := range spec.Containers {
			images[c.Image] = true
		}
	}
	if len(images) > 1 {
		errs = append(errs, fmt.Errorf("the pods run %d images (%s): the API, the worker and the migrations share one", len(images), strings.Join(slices.Sorted(maps.Keys(images)), ", ")))
	}
	return errs
}

func checkPod(o object, spec *corev1.PodSpec) []error {
	var errs []error
	psc := spec.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		errs = append(errs, fmt.Errorf("%s: the pod must set runAsNonRoot: true and a non-zero numeric runAsUser", o))
	}
	for _, c := range spec.Containers {
		sc := c.SecurityContext
		if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
			sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
			sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
			errs = append(errs, fmt.Errorf("%s: container %s must have a read-only root filesystem, no privilege escalation and drop ALL capabilities", o, c.Name))
		}
		r := c.Resources
		if r.Requests.Cpu().IsZero() || r.Requests.Memory().IsZero() || r.Limits.Memory().IsZero() {
			errs = append(errs, fmt.Errorf("%s: container %s must request CPU and memory and limit memory", o, c.Name))
		}
	}
	return errs
}

// checkProbes wants liveness and readiness HTTP probes on ports the container declares.
func checkProbes(o object, c corev1.Container) []error {
	var errs []error
	for what, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
		if p == nil || p.HTTPGet == nil {
			errs = append(errs, fmt.Errorf("%s: container %s has no %s HTTP probe", o, c.Name, what))
			continue
		}
		if probePort(c, p) == 0 {
			errs = append(errs, fmt.Errorf("%s: container %s probes %s on port %s, which it does not declare", o, c.Name, what, p.HTTPGet.Port.String()))
		}
	}
	return errs
}

// probePort is the container port number an HTTP probe asks, or 0 if it declares no such port.
func probePort(c corev1.Container, p *corev1.Probe) int32 {
	for _, port := range c.Ports {
		if p.HTTPGet.Port.String() == port.Name || p.HTTPGet.Port.IntValue() == int(port.ContainerPort) {
			return port.ContainerPort
		}
	}
	return 0
}

func checkRules(o object, r *monitoringv1.PrometheusRule) []error {
	var errs []error
	n := 0
	for _, g := range r.Spec.Groups {
		for _, rule := range g.Rules {
			n++
			noExpr := rule.Expr == (intstr.IntOrString{}) || rule.Expr.String() == "" // the zero value reads "0"
			if noExpr || (rule.Alert == "") == (rule.Record == "") {
				errs = append(errs, fmt.Errorf("%s: group %s: a rule needs an expr and either alert or record", o, g.Name))
			}
		}
	}
	if n == 0 {
		errs = append(errs, fmt.Errorf("%s: no rules", o))
	}
	return errs
}

// documentedName is a variable in the first column of docs/configuration.md's table.
var documentedName = regexp.MustCompile("`([A-Z][A-Z0-9_]+)`")

// checkDocumented wants every ConfigMap and Secret key to be a variable docs/configuration.md
// documents (the OpenTelemetry ones it defers to their specification for start with OTEL_).
func checkDocumented(objects []object, docsPath string) []error {
	data, err := os.ReadFile(docsPath)
	if err != nil {
		return []error{err}
	}
	known := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if cells := strings.Split(line, "|"); strings.HasPrefix(line, "| `") && len(cells) > 2 {
			for _, m := range documentedName.FindAllStringSubmatch(cells[1], -1) {
				known[m[1]] = true
			}
		}
	}
	if len(known) < 10 {
		return []error{fmt.Errorf("%s: found only %d variables: has its table moved?", docsPath, len(known))}
	}
	var errs []error
	for _, o := range objects {
		var keys []string
		switch t := o.typed.(type) {
		case *corev1.ConfigMap:
			keys = slices.Collect(maps.Keys(t.Data))
		case *corev1.Secret:
			keys = append(slices.Collect(maps.Keys(t.StringData)), slices.Collect(maps.Keys(t.Data))...)
		}
		for _, k := range keys {
			if !known[k] && !strings.HasPrefix(k, "OTEL_") {
				errs = append(errs, fmt.Errorf("%s: %s is not a variable %s documents", o, k, docsPath))
			}
		}
	}
	return errs
}

// composeHealth maps docker-compose.yml's services to the chart's components whose probes their
// healthchecks must match: the same image, so the same command asking the same endpoints.
var composeHealth = map[string]string{"bookflow-api": "api", "bookflow-worker": "worker"}

// checkCompose wants each of those services' `bookflow health URL` to ask a path and port the
// chart's Deployment probes too.
func checkCompose(objects []object, composePath string) []error {
	data, err := os.ReadFile(composePath)
	if err != nil {
		return []error{err}
	}
	var compose struct {
		Services map[string]struct {
			HealthCheck struct{ Test []string } `json:"healthcheck"`
		}
	}
	if err := yaml.Unmarshal(data, &compose); err != nil {
		return []error{fmt.Errorf("%s: %w", composePath, err)}
	}
	var errs []error
	for service, component := range composeHealth {
		test := compose.Services[service].HealthCheck.Test
		if len(test) != 4 || test[0] != "CMD" || test[1] != "/bookflow" || test[2] != "health" {
			errs = append(errs, fmt.Errorf("%s: %s's healthcheck is not [CMD, /bookflow, health, URL]: %q", composePath, service, test))
			continue
		}
		u, err := url.Parse(test[3])
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: %w", composePath, service, err))
			continue
		}
		if !probed(objects, component, u.Port(), u.Path) {
			errs = append(errs, fmt.Errorf("%s: %s asks %s, which no probe of the chart's %s Deployment asks", composePath, service, test[3], component))
		}
	}
	return errs
}

func probed(objects []object, component, port, path string) bool {
	for _, o := range objects {
		d, ok := o.typed.(*appsv1.Deployment)
		if !ok || d.Labels["app.kubernetes.io/component"] != component {
			continue
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, p := range []*corev1.Probe{c.StartupProbe, c.LivenessProbe, c.ReadinessProbe} {
				if p != nil && p.HTTPGet != nil && p.HTTPGet.Path == path && fmt.Sprint(probePort(c, p)) == port {
					return true
				}
			}
		}
	}
	return false
}
