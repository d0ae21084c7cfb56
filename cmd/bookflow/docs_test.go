package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The documentation is the README and the pages under docs/, which link to each other and to
// the code. A page renamed, a heading reworded or a file moved breaks those links silently, so
// TestDocsLinksResolve follows every relative link and anchor and fails on one that leads
// nowhere. It needs no server.

// repoRoot is where README.md is, seen from this package's directory.
const repoRoot = "../.."

var (
	// mdLink is an inline Markdown link: [text](target), target without spaces.
	mdLink = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	// inlineCode is a code span, whose text is not a link.
	inlineCode = regexp.MustCompile("`[^`]*`")
)

func TestDocsLinksResolve(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(repoRoot, "README.md"))
	anchors := map[string]map[string]bool{}
	for _, page := range pages {
		anchors[filepath.Clean(page)] = headingAnchors(t, page)
	}
	checked := 0
	for _, page := range pages {
		for _, link := range pageLinks(t, page) {
			if strings.Contains(link.target, "://") || strings.HasPrefix(link.target, "mailto:") {
				continue
			}
			checked++
			file, anchor, _ := strings.Cut(link.target, "#")
			target := filepath.Clean(page)
			if file != "" {
				target = filepath.Clean(filepath.Join(filepath.Dir(page), file))
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s:%d: %s: no such file %s", page, link.line, link.target, target)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			known, ok := anchors[target]
			if !ok {
				t.Errorf("%s:%d: %s: an anchor into a file that is not a Markdown page", page, link.line, link.target)
				continue
			}
			if !known[anchor] {
				t.Errorf("%s:%d: %s: %s has no heading #%s", page, link.line, link.target, target, anchor)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found: the pages moved?")
	}
}

type docLink struct {
	target string
	line   int
}

// pageLinks lists the links of a page outside code blocks and code spans.
func pageLinks(t *testing.T, page string) []docLink {
	var links []docLink
	for i, line := range proseLines(t, page) {
		for _, m := range mdLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, ""), -1) {
			links = append(links, docLink{target: m[1], line: i + 1})
		}
	}
	return links
}

// headingAnchors gives the anchors GitHub makes of a page's headings: lower case, punctuation
// dropped, spaces to hyphens, and -1, -2, ... for a repeated one.
func headingAnchors(t *testing.T, page string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(t, page) {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		slug := slugify(text)
		if n := seen[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

func slugify(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// proseLines is the page with the lines inside fenced code blocks blanked, so that a shell
// comment is not a heading and a command is not a link; line numbers stay right.
func proseLines(t *testing.T, page string) []string {
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	inFence := false
	for i, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			lines[i] = ""
			continue
		}
		if inFence {
			lines[i] = ""
		}
	}
	return lines
}
