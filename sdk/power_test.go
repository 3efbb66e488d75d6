package sdk

import "testing"

// TestAddWatts checks what cores in use add to a node's draw, and the
// bounds of it whatever the node has in use, worked by hand on nodes of 4
// cores idle at 100 W: the line to 200 W (25 W a core) and the table
// 190, 200, 205, 210 W.
func TestAddWatts(t *testing.T) {
	line := NodePower{Idle: 100, Full: 200}
	table := NodePower{Idle: 100, Full: 210, Busy: []float64{190, 200, 205, 210}}
	for _, tc := range []struct {
		name              string
		m                 NodePower
		from, more        int64
		want, least, most float64
	}{
		{"line from idle", line, 0, 2, 50, 50, 50},
		{"line from 2", line, 2, 2, 50, 50, 50},
		{"table from idle", table, 0, 1, 90, 5, 90},
		{"table from 1", table, 1, 2, 15, 10, 100},
		{"table to full", table, 0, 4, 110, 110, 110},
		{"table none", table, 3, 0, 0, 0, 0},
	} {
		if w := tc.m.AddWatts(tc.from, tc.more, 4); w != tc.want {
			t.Errorf("%s: AddWatts %v, want %v", tc.name, w, tc.want)
		}
		if lo, hi := tc.m.AddWattsRange(tc.more, 4); lo != tc.least || hi != tc.most {
			t.Errorf("%s: AddWattsRange %v, %v, want %v, %v", tc.name, lo, hi, tc.least, tc.most)
		}
	}
}

// TestStartWattsOn checks a start's power on two nodes of a table and one
// of a line, with cores already in use on them.
func TestStartWattsOn(t *testing.T) {
	p := NodesPlatform("m", []NodeGroup{{Name: "t", Count: 2, Cores: 4}, {Name: "l", Count: 1, Cores: 4}}, nil, FirstFit)
	m := &Power{Groups: [][]NodePower{{{Idle: 100, Full: 210, Busy: []float64{190, 200, 205, 210}}, {Idle: 100, Full: 200}}}}
	l := NewLayout(p, 0)
	tasks := &Tasks{Count: 3, Cores: 1}
	a := Alloc{Nodes: []int32{0, 1, 2}, Tasks: []int32{1, 1, 1}}
	// Node 0 goes from 2 to 3 cores (+5 W), node 1 from 0 to 1 (+90 W),
	// node 2 by the line (+25 W; its in-use entry is not read).
	if w := m.StartWattsOn(l, 0, tasks, a, []int64{2, 0, 3}); w != 120 {
		t.Errorf("StartWattsOn %v, want 120", w)
	}
	// Without what is in use, the line from idle to full: 27.5 + 27.5 + 25.
	if w := m.StartWattsOn(l, 0, tasks, a, nil); w != 80 {
		t.Errorf("StartWattsOn without use %v, want 80", w)
	}
}
