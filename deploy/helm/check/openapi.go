package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// kubernetesVersion is the release whose OpenAPI schemas the manifests are checked against: the
// module k8s.io/kubernetes carries them (api/openapi-spec/v3), fetched through the Go module
// proxy like any module, and matches the k8s.io/api in go.mod (TestVersionsAgree).
const kubernetesVersion = "v1.37.2"

// specFiles are the OpenAPI documents of the API groups the chart renders.
var specFiles = []string{
	"api__v1_openapi.json", "apis__apps__v1_openapi.json", "apis__batch__v1_openapi.json",
	"apis__policy__v1_openapi.json", "apis__autoscaling__v2_openapi.json",
}

// kubernetesSpecDir downloads (once; then the module cache has it) k8s.io/kubernetes and returns
// its OpenAPI v3 directory. It runs outside any module so nothing's go.mod changes.
func kubernetesSpecDir() (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", "k8s.io/kubernetes@"+kubernetesVersion)
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download k8s.io/kubernetes@%s: %v: %s", kubernetesVersion, err, stderr.String())
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return "", fmt.Errorf("go mod download k8s.io/kubernetes@%s: %s%s", kubernetesVersion, mod.Error, out)
	}
	return filepath.Join(mod.Dir, "api", "openapi-spec", "v3"), nil
}

// schemas validates built-in objects against the OpenAPI schemas of their group and version.
type schemas struct {
	compiler *jsonschema.Compiler
	byGVK    map[string]string // "apps/v1 Deployment" -> the schema's URL
	compiled map[string]*jsonschema.Schema
}

func loadSchemas(dir string) (*schemas, error) {
	s := &schemas{compiler: jsonschema.NewCompiler(), byGVK: map[string]string{}, compiled: map[string]*jsonschema.Schema{}}
	for _, name := range specFiles {
		path := filepath.Join(dir, name)
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		components, _ := doc.(map[string]any)["components"].(map[string]any)
		defs, _ := components["schemas"].(map[string]any)
		if len(defs) == 0 {
			return nil, fmt.Errorf("%s: no components.schemas", path)
		}
		url := "file://" + filepath.ToSlash(path)
		for id, def := range defs {
			def := def.(map[string]any)
			closeObjects(def)
			gvks, _ := def["x-kubernetes-group-version-kind"].([]any)
			for _, g := range gvks {
				g := g.(map[string]any)
				apiVersion := g["version"].(string)
				if group := g["group"].(string); group != "" {
					apiVersion = group + "/" + apiVersion
				}
				s.byGVK[apiVersion+" "+g["kind"].(string)] = url + "#/components/schemas/" + id
			}
		}
		if err := s.compiler.AddResource(url, doc); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// closeObjects makes a schema reject fields it does not list, as the API server's strict field
// validation does: Kubernetes' schemas leave additionalProperties open.
func closeObjects(v any) {
	switch v := v.(type) {
	case map[string]any:
		_, props := v["properties"]
		_, extra := v["additionalProperties"]
		_, open := v["x-kubernetes-preserve-unknown-fields"]
		if props && !extra && !open {
			v["additionalProperties"] = false
		}
		for _, child := range v {
			closeObjects(child)
		}
	case []any:
		for _, child := range v {
			closeObjects(child)
		}
	}
}

// knows reports whether the schemas cover apiVersion and kind.
func (s *schemas) knows(apiVersion, kind string) bool {
	_, ok := s.byGVK[apiVersion+" "+kind]
	return ok
}

// validate checks one object, given as JSON, against its kind's schema.
func (s *schemas) validate(apiVersion, kind string, object []byte) error {
	key := apiVersion + " " + kind
	url, ok := s.byGVK[key]
	if !ok {
		return fmt.Errorf("no OpenAPI schema for %s", key)
	}
	sch, ok := s.compiled[key]
	if !ok {
		var err error
		if sch, err = s.compiler.Compile(url); err != nil {
			return fmt.Errorf("compiling the schema of %s: %w", key, err)
		}
		s.compiled[key] = sch
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(object)))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}
