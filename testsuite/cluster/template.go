package cluster

import (
	"fmt"
	"os"
	"sort"
	"strings"
)

// fillTemplate replaces each ${NAME} in text with vars[NAME], and fails on a name vars lacks.
// scripts/lib.sh's fill_template does the same to the same files (temporal-server.yaml).
func fillTemplate(text string, vars map[string]string) (string, error) {
	var missing []string
	out := os.Expand(text, func(name string) string {
		v, ok := vars[name]
		if !ok {
			missing = append(missing, name)
		}
		return v
	})
	if len(missing) > 0 {
		sort.Strings(missing)
		return "", fmt.Errorf("no value for %s", strings.Join(missing, ", "))
	}
	return out, nil
}
