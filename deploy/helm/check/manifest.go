package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// kinds are the objects the chart may render, each with the Go type the API server (or
// prometheus-operator) decodes it into. Anything else is an error: a typo in a kind or an
// apiVersion no cluster serves.
var kinds = map[string]func() any{
	"v1 ConfigMap":                            func() any { return &corev1.ConfigMap{} },
	"v1 Secret":                               func() any { return &corev1.Secret{} },
	"v1 Service":                              func() any { return &corev1.Service{} },
	"v1 ServiceAccount":                       func() any { return &corev1.ServiceAccount{} },
	"apps/v1 Deployment":                      func() any { return &appsv1.Deployment{} },
	"batch/v1 Job":                            func() any { return &batchv1.Job{} },
	"policy/v1 PodDisruptionBudget":           func() any { return &policyv1.PodDisruptionBudget{} },
	"autoscaling/v2 HorizontalPodAutoscaler":  func() any { return &autoscalingv2.HorizontalPodAutoscaler{} },
	"monitoring.coreos.com/v1 ServiceMonitor": func() any { return &monitoringv1.ServiceMonitor{} },
	"monitoring.coreos.com/v1 PrometheusRule": func() any { return &monitoringv1.PrometheusRule{} },
}

// object is one rendered document, decoded.
type object struct {
	source string // where it came from, for messages (Helm's "# Source:" comment)
	gvk    string // "apps/v1 Deployment"
	name   string
	json   []byte // as the API server would receive it
	typed  any    // one of kinds; nil when the object does not decode into it
}

func (o object) String() string { return fmt.Sprintf("%s %q (%s)", o.gvk, o.name, o.source) }

// decodeAll splits a rendered chart into its documents and decodes each strictly: an unknown or
// repeated field, or a value of the wrong type, is an error, as the API server's strict field
// validation would make it.
func decodeAll(r io.Reader) ([]object, []error) {
	var objects []object
	var errs []error
	reader := utilyaml.NewYAMLReader(bufio.NewReader(r))
	for i := 1; ; i++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return objects, append(errs, fmt.Errorf("document %d: %w", i, err))
		}
		source := fmt.Sprintf("document %d", i)
		if _, after, ok := bytes.Cut(doc, []byte("# Source: ")); ok {
			line, _, _ := bytes.Cut(after, []byte("\n"))
			source = string(line)
		}
		var meta struct {
			metav1.TypeMeta `json:",inline"`
			Metadata        struct{ Name string } `json:"metadata"`
		}
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", source, err))
			continue
		}
		if meta.Kind == "" && meta.APIVersion == "" {
			continue // empty: a template that rendered nothing
		}
		o := object{source: source, gvk: meta.APIVersion + " " + meta.Kind, name: meta.Metadata.Name}
		newTyped, ok := kinds[o.gvk]
		if !ok {
			errs = append(errs, fmt.Errorf("%s: unexpected kind (apiVersion %q, kind %q)", o, meta.APIVersion, meta.Kind))
			continue
		}
		if o.json, err = yaml.YAMLToJSON(doc); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", o, err))
			continue
		}
		// The schemas still see an object its type refuses: each check names what it finds.
		typed := newTyped()
		if err := yaml.UnmarshalStrict(doc, typed); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", o, err))
		} else {
			o.typed = typed
		}
		if o.name == "" {
			errs = append(errs, fmt.Errorf("%s: no metadata.name", o))
		}
		objects = append(objects, o)
	}
	return objects, errs
}
