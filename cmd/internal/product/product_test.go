package product

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A path given is used when a file is there; none there says how to build one.
func TestTheProductBinaryIsTheOneGivenWhenItExists(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "bookflow")
	_, err := Binary(bin)
	assert.ErrorContains(t, err, "go build -o "+bin+" ./cmd/bookflow")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755))
	got, err := Binary(bin)
	require.NoError(t, err)
	assert.Equal(t, bin, got)
}
