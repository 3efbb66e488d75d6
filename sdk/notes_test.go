package sdk

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestNotesCheck(t *testing.T) {
	col := func(name string, vals ...float64) NoteColumn { return NoteColumn{Name: name, Values: vals} }
	spells := func(ws ...WaitSpell) [][]WaitSpell { return [][]WaitSpell{ws, nil} }
	for _, c := range []struct {
		name string
		n    Notes
		ok   bool
	}{
		{"good", Notes{Columns: []NoteColumn{col("priority", 1, math.NaN()), col("age_2", 0, 0)},
			Waits: spells(WaitSpell{1, "Priority"}, WaitSpell{5, "Resources"})}, true},
		{"no waits", Notes{Columns: []NoteColumn{col("x", 1, 2)}}, true},
		{"short column", Notes{Columns: []NoteColumn{col("x", 1)}}, false},
		{"repeated name", Notes{Columns: []NoteColumn{col("x", 1, 2), col("x", 1, 2)}}, false},
		{"upper case", Notes{Columns: []NoteColumn{col("X", 1, 2)}}, false},
		{"empty name", Notes{Columns: []NoteColumn{col("", 1, 2)}}, false},
		{"infinite", Notes{Columns: []NoteColumn{col("x", math.Inf(1), 2)}}, false},
		{"waits of one job", Notes{Waits: [][]WaitSpell{nil}}, false},
		{"no reason", Notes{Waits: spells(WaitSpell{1, ""})}, false},
		{"same time", Notes{Waits: spells(WaitSpell{1, "A"}, WaitSpell{1, "B"})}, false},
		{"back in time", Notes{Waits: spells(WaitSpell{3, "A"}, WaitSpell{1, "B"})}, false},
		{"reason repeated", Notes{Waits: spells(WaitSpell{1, "A"}, WaitSpell{3, "A"})}, false},
		{"nothing", Notes{}, false},
		{"the reasons' name", Notes{Columns: []NoteColumn{col("wait_from", 1, 2)}}, false},
		{"the reasons' other name", Notes{Columns: []NoteColumn{col("wait_reason_x", 1, 2)}}, false},
		{"long name", Notes{Columns: []NoteColumn{col(strings.Repeat("x", 65), 1, 2)}}, false},
		{"long reason", Notes{Waits: spells(WaitSpell{1, strings.Repeat("x", MaxReason+1)})}, false},
		{"longest reason", Notes{Waits: spells(WaitSpell{1, strings.Repeat("x", MaxReason)})}, true},
		{"not UTF-8", Notes{Waits: spells(WaitSpell{1, "\xff"})}, false},
	} {
		err := c.n.Check(2)
		if (err == nil) != c.ok || err != nil && !errors.Is(err, ErrNotes) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	n := Notes{Columns: []NoteColumn{col("x", 1)}, Waits: [][]WaitSpell{}}
	n.Pad(3)
	if len(n.Columns[0].Values) != 3 || !math.IsNaN(n.Columns[0].Values[2]) || len(n.Waits) != 3 || n.Check(3) != nil {
		t.Errorf("padded to %+v", n)
	}
}
