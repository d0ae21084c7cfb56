// Package product finds the bookflow binary that the bench and the fault-injection suite run
// as processes of their own (bookflow serve, bookflow worker), as a deployment runs them: the
// tools measure and break the product, and are not part of it.
package product

import (
	"fmt"
	"os"
	"path/filepath"
)

// Binary is the bookflow binary to run: the given path, or else bookflow in this program's
// own directory, where the scripts build both (.data/bookflow beside .data/bookflow-bench).
func Binary(given string) (string, error) {
	path := given
	if path == "" {
		self, err := os.Executable()
		if err != nil {
			return "", err
		}
		path = filepath.Join(filepath.Dir(self), "bookflow")
	}
	if info, err := os.Stat(path); err != nil || info.IsDir() {
		return "", fmt.Errorf("no bookflow binary at %s: build it (go build -o %s ./cmd/bookflow) or pass -bookflow PATH", path, path)
	}
	return path, nil
}
