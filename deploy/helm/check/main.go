// Command check validates a rendered Helm chart (helm template's output) offline: every object
// strictly decoded into the Go types of Kubernetes and prometheus-operator, built-in objects
// validated against Kubernetes' own OpenAPI schemas (unknown fields rejected), and the chart's
// promises checked (non-root, read-only root filesystem, probes, one image). With -docs, every
// ConfigMap and Secret key must be documented there; with -compose, the compose services'
// healthchecks must ask what the chart's probes ask; with -rules-out, the one PrometheusRule's
// groups are written out as a Prometheus rule file, for promtool to check and test what the
// chart ships. scripts/lib.sh's check_deploy_files runs it.
//
// It is a module of its own so that Kubernetes' modules never enter bookflow's go.mod.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"sigs.k8s.io/yaml"
)

func main() {
	docs := flag.String("docs", "", "docs/configuration.md: ConfigMap and Secret keys must be variables it documents")
	compose := flag.String("compose", "", "docker-compose.yml: its bookflow healthchecks must match the chart's probes")
	rulesOut := flag.String("rules-out", "", "write the PrometheusRule's groups (exactly one across the files) to this rule file")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: check [-docs FILE] [-compose FILE] [-rules-out FILE] RENDERED.yaml...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	dir, err := kubernetesSpecDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s, err := loadSchemas(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	failed := false
	var rules [][]byte
	for _, path := range flag.Args() {
		n, errs := checkFile(s, path, *docs, *compose, &rules)
		for _, err := range errs {
			fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
		}
		if len(errs) > 0 {
			failed = true
			continue
		}
		fmt.Printf("%s: %d objects valid (Kubernetes %s schemas)\n", path, n, kubernetesVersion)
	}
	if !failed && *rulesOut != "" {
		if len(rules) != 1 {
			fmt.Fprintf(os.Stderr, "-rules-out: want one PrometheusRule across the files, found %d\n", len(rules))
			os.Exit(1)
		}
		if err := os.WriteFile(*rulesOut, rules[0], 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if failed {
		os.Exit(1)
	}
}

// checkFile checks one rendered chart and returns how many objects it holds and what is wrong.
// Each PrometheusRule's spec, as rendered, is added to rules as a Prometheus rule file.
func checkFile(s *schemas, path, docs, compose string, rules *[][]byte) (int, []error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, []error{err}
	}
	defer f.Close()
	objects, errs := decodeAll(f)
	if len(objects) == 0 && len(errs) == 0 {
		return 0, []error{fmt.Errorf("no objects")}
	}
	for _, o := range objects {
		apiVersion, kind := splitGVK(o.gvk)
		if kind == "PrometheusRule" && rules != nil {
			file, err := ruleFile(o)
			if err != nil {
				errs = append(errs, err)
			}
			*rules = append(*rules, file)
		}
		if !s.knows(apiVersion, kind) {
			continue // prometheus-operator's: its Go types are its schema here
		}
		if err := s.validate(apiVersion, kind, o.json); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", o, err))
		}
	}
	errs = append(errs, checkPolicy(objects)...)
	if docs != "" {
		errs = append(errs, checkDocumented(objects, docs)...)
	}
	if compose != "" {
		errs = append(errs, checkCompose(objects, compose)...)
	}
	return len(objects), errs
}

func splitGVK(gvk string) (apiVersion, kind string) {
	for i := len(gvk) - 1; i >= 0; i-- {
		if gvk[i] == ' ' {
			return gvk[:i], gvk[i+1:]
		}
	}
	return "", gvk
}

// ruleFile is a PrometheusRule's spec as it was rendered ({groups: [...]}), which is the format of
// a Prometheus rule file.
func ruleFile(o object) ([]byte, error) {
	var rule struct {
		Spec json.RawMessage `json:"spec"`
	}
	if err := json.Unmarshal(o.json, &rule); err != nil {
		return nil, fmt.Errorf("%s: %w", o, err)
	}
	out, err := yaml.JSONToYAML(rule.Spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o, err)
	}
	return out, nil
}
