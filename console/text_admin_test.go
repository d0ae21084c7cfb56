package console

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// Every admin message is in both languages, and every one the admin pages name exists.
func TestAdminMessagesAreInBothLanguages(t *testing.T) {
	for lang, other := range map[string]string{"en": "zh-Hans", "zh-Hans": "en"} {
		for key := range adminText[lang] {
			if _, ok := adminText[other][key]; !ok {
				t.Errorf("%s has %q, %s does not", lang, key, other)
			}
		}
	}
	names, err := fs.Glob(templateFiles, "templates/admin*.html")
	if err != nil || len(names) < 3 {
		t.Fatalf("admin templates: %v %v", names, err)
	}
	used := regexp.MustCompile(`"(admin\.[A-Za-z_.]+[A-Za-z_])"`)
	for _, name := range names {
		b, err := fs.ReadFile(templateFiles, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range used.FindAllStringSubmatch(string(b), -1) {
			if strings.HasSuffix(m[1], ".") {
				continue // a prefix, completed in the template
			}
			if _, ok := adminText["en"][m[1]]; !ok {
				t.Errorf("%s uses %q, which the catalogue lacks", name, m[1])
			}
		}
	}
	// The keys completed in templates: every kind, unit, weekday and early departure.
	for _, key := range []string{"admin.kind.exclusive_slot", "admin.kind.quota_slot", "admin.kind.equipment",
		"admin.unit.slot", "admin.unit.hour", "admin.unit.day", "admin.weekday.1", "admin.weekday.7",
		"admin.early.none", "admin.early.all", "admin.early.all_but_first"} {
		if _, ok := adminText["en"][key]; !ok {
			t.Errorf("no message %q", key)
		}
	}
}

// A typed amount becomes minor units of its currency, and more decimals than it has are refused.
func TestAdminAmountsAreParsedInTheirCurrency(t *testing.T) {
	for _, c := range []struct {
		in, currency string
		want         int64
		ok           bool
	}{{"80.50", "CNY", 8050, true}, {"99.5", "EUR", 9950, true}, {"1200", "JPY", 1200, true},
		{"99.555", "EUR", 0, false}, {"12.5", "JPY", 0, false}, {"-3", "EUR", 0, false}} {
		got, err := parseAmount(c.in, c.currency)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseAmount(%q, %s) = %d, %v", c.in, c.currency, got, err)
		}
	}
}
