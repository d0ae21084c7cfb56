package console

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
)

// TestEveryMessageIsInEveryLanguage: the catalogue has the same keys in English and Simplified
// Chinese, with as many format verbs.
func TestEveryMessageIsInEveryLanguage(t *testing.T) {
	verbs := regexp.MustCompile(`%(\[\d+\])?[dsv]`) // an argument may be named by its index, in the order a language needs
	for key, en := range messages["en"] {
		zh, ok := messages["zh-Hans"][key]
		if assert.True(t, ok, "%s has no Simplified Chinese", key) {
			assert.Len(t, verbs.FindAllString(zh, -1), len(verbs.FindAllString(en, -1)), "%s: the format verbs differ", key)
		}
	}
	for key := range messages["zh-Hans"] {
		assert.Contains(t, messages["en"], key, "%s has no English", key)
	}
}

// TestEveryMessageUsedIsInTheCatalogue: each key a template or handler names exists, and so does
// each key a template builds from a state, a method, a role or a cell.
func TestEveryMessageUsedIsInTheCatalogue(t *testing.T) {
	literal := regexp.MustCompile(`\.T\.T "([^"]+)"|\.T\("([^"]+)"`)
	used := map[string]bool{}
	require.NoError(t, fs.WalkDir(os.DirFS("."), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".html") || strings.HasSuffix(path, ".go")) ||
			strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(filepath.Clean(path))
		for _, m := range literal.FindAllStringSubmatch(string(b), -1) {
			if key := m[1] + m[2]; !strings.HasSuffix(key, ".") { // a prefix: its keys are listed below
				used[key] = true
			}
		}
		return err
	}))
	require.NotEmpty(t, used)
	for _, s := range []domain.Status{domain.StatusHold, domain.StatusConfirmed, domain.StatusCompleted, domain.StatusExpired,
		domain.StatusCancelled, domain.StatusRejected, domain.StatusRefunding, domain.StatusRefunded, domain.StatusNoShow} {
		used["status."+string(s)] = true
	}
	for _, m := range append([]string{domain.MethodProvider}, domain.DeskMethods...) {
		used["method."+m] = true
	}
	for _, m := range []string{"succeeded", "failed", "requested", "pending"} {
		used["money."+m] = true
	}
	for _, a := range []domain.AmendmentStatus{domain.AmendmentApplied, domain.AmendmentBalanceDue, domain.AmendmentLapsed,
		domain.AmendmentRefused, domain.AmendmentQuoted, domain.AmendmentSupplierPending} {
		used["amendment."+string(a)] = true
	}
	for _, c := range []string{"free", "held", "paid", "in", "closed"} {
		used["cell."+c] = true
	}
	for _, r := range devRoles {
		used["role."+string(r)] = true
	}
	for _, a := range []string{"check-in", "confirm", "cancel"} {
		used["booking.done."+a] = true
	}
	for key := range used {
		_, ok := messages["en"][key]
		assert.True(t, ok, "%q is used but not in the catalogue", key)
	}
}

func TestTheBrowsersLanguagePicksTheCatalogue(t *testing.T) {
	assert.Equal(t, "zh-Hans", matchLanguage("zh-CN,zh;q=0.9,en;q=0.8"))
	assert.Equal(t, "zh-Hans", matchLanguage("zh-Hans"))
	assert.Equal(t, "en", matchLanguage("en-GB,en;q=0.9"))
	assert.Equal(t, "en", matchLanguage("fr-FR"))
	assert.Equal(t, "en", matchLanguage(""))
}
