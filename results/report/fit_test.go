package report

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results/fit"
)

// TestSplitTables cuts a table too wide for the page into parts that each
// repeat the key columns and hold every other column once, in order, and
// leaves a narrow table whole.
func TestSplitTables(t *testing.T) {
	wide := &table{Caption: "wide", Keys: 2, Head: []string{"workload", "policy"}, Class: []string{"", ""}}
	for i := range 30 {
		wide.Head = append(wide.Head, "column "+strings.Repeat("x", i%5))
		wide.Class = append(wide.Class, "n")
	}
	for r := range 3 {
		row := tableRow{Mark: r == 1, Cells: []string{"kth", "easy"}}
		for range 30 {
			row.Cells = append(row.Cells, "123456.7 [1.2, 3.4]")
		}
		wide.Rows = append(wide.Rows, row)
	}
	parts := split(wide)
	if len(parts) < 2 {
		t.Fatalf("a table of 32 wide columns stays whole")
	}
	var seen []string
	for i, p := range parts {
		w := 0.0
		for c := range p.Head {
			w += colWidth(p, c)
		}
		if w > tableWidth {
			t.Errorf("part %d is %.0f px wide, more than %d", i, w, tableWidth)
		}
		if !slices.Equal(p.Head[:2], []string{"workload", "policy"}) || !p.Rows[1].Mark || p.Rows[0].Mark {
			t.Errorf("part %d: head %v, marks %v %v", i, p.Head[:2], p.Rows[0].Mark, p.Rows[1].Mark)
		}
		if !strings.HasPrefix(p.Caption, "wide (part ") {
			t.Errorf("part %d: caption %q", i, p.Caption)
		}
		seen = append(seen, p.Head[2:]...)
	}
	if !slices.Equal(seen, wide.Head[2:]) {
		t.Errorf("the parts hold columns %v, want %v", seen, wide.Head[2:])
	}
	narrow := &table{Head: []string{"key", "value"}, Class: []string{"", "wrap"}, Rows: []tableRow{{Cells: []string{"a", "b"}}}}
	if got := split(narrow); len(got) != 1 || got[0] != narrow {
		t.Errorf("a narrow table was split into %d", len(got))
	}
}

// TestFamilyStyles gives every fitted law its own colour and dash pattern.
func TestFamilyStyles(t *testing.T) {
	seen := map[string]fit.Family{}
	for _, f := range fit.Families() {
		c, d := familyStyle(f)
		for _, key := range []string{fmt.Sprint("colour ", c), fmt.Sprint("dashes ", d)} {
			if g, ok := seen[key]; ok {
				t.Errorf("%s and %s share the %s", g, f, key)
			}
			seen[key] = f
		}
	}
}
