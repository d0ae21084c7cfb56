package api

import "testing"

func TestReportTextNeverRunsAsASpreadsheetFormula(t *testing.T) {
	for in, want := range map[string]string{"=HYPERLINK(\"x\")": "'=HYPERLINK(\"x\")", "+1": "'+1", "-2": "'-2", "@SUM": "'@SUM",
		"\tx": "'\tx", "BACS 123": "BACS 123", "": "", "desk-a": "desk-a"} {
		if got := csvText(in); got != want {
			t.Errorf("csvText(%q) = %q, want %q", in, got, want)
		}
	}
}
