package opb

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk/groupsel"
)

// TestRead reads a file with a product, a negated literal, a constraint
// over two lines and every relation, and checks the instance term by term.
func TestRead(t *testing.T) {
	src := `* #variable= 4 #constraint= 3
* a comment
min: +2 x1 x2 -3 x3 ;
+1 x1 +1 x2
  +1 x3 >= 2 ;
+4 ~x1 x4 = 4 ;
+1 x2 x1 <= 1 ;
`
	in, err := Read(strings.NewReader(src), "f.opb")
	if err != nil {
		t.Fatal(err)
	}
	// Terms in order of appearance: x1x2, x3, x1, x2, x4, x1x4 (from
	// 4 ~x1 x4 = 4 x4 - 4 x1 x4).
	want := &groupsel.Instance{N: 4, Sense: groupsel.Minimise,
		Terms:     [][]int{{0, 1}, {2}, {0}, {1}, {3}, {0, 3}},
		Objective: []float64{2, -3, 0, 0, 0, 0},
		Constraints: []groupsel.Constraint{
			{Coefs: []groupsel.Coef{{Term: 1, Value: 1}, {Term: 2, Value: 1}, {Term: 3, Value: 1}}, Rel: groupsel.GE, Bound: 2},
			{Coefs: []groupsel.Coef{{Term: 4, Value: 4}, {Term: 5, Value: -4}}, Rel: groupsel.EQ, Bound: 4},
			{Coefs: []groupsel.Coef{{Term: 0, Value: 1}}, Rel: groupsel.LE, Bound: 1},
		}}
	if !reflect.DeepEqual(in, want) {
		t.Errorf("got  %+v\nwant %+v", in, want)
	}
	// Its optimum by hand: x4 = 1 and x1 = 0 (the equality); two of x1..x3
	// (>= 2) with x1 = 0: x2 and x3; objective -3.
	s, err := groupsel.BranchAndBound(in, groupsel.Options{})
	if err != nil || s.Value != -3 || !reflect.DeepEqual(s.Selected, []int{1, 2, 3}) {
		t.Errorf("optimum %+v, %v; want x2 x3 x4 at -3", s, err)
	}
}

// TestErrors names the line of the statement at fault.
func TestErrors(t *testing.T) {
	for src, want := range map[string]string{
		"+1 x1 >= 1 ;\nmin: +1 x1 ;\n":     "f:2: the objective comes after constraints; OPB puts it first",
		"+1 x1 +2 y2 >= 1 ;\n":             `f:1: after coefficient +2: "y2" is not a literal (x1, ~x1, ...)`,
		"+1 x1\n+1 x0 >= 1 ;\n":            `f:1: literal "x0": want x1, x2, ... or ~x1, ~x2, ... (variables count from 1)`,
		"* c\n+1 x1 > 0 ;\n":               `f:2: relation ">": OPB has >= and = (and we accept <=)`,
		"+1 x1 >= 1\n":                     `f:1: statement "+1 x1 >= 1" does not end with ;`,
		"+1 x1 >= 1.5 ;\n":                 `f:1: bound "1.5": not an integer`,
		"+1 x1 >= 1 2 ;\n":                 `f:1: constraint "+1 x1 >= 1 2": want one integer after >=`,
		"+1 x1 +3 >= 1 ;\n":                `f:1: coefficient +3 has no literal after it (a sum is integer coefficients, each followed by a product of literals)`,
		"+99999999999999999 x1 >= 1 ;\n":   `f:1: coefficient "+99999999999999999": beyond 2^53, which the solvers cannot hold exactly`,
		"min: +1 x1 ;\nmax: +1 x1 ;\n":     "f:2: a second objective",
		";\n":                              "f:1: an empty statement (a lone ;)",
		"+1 x1 x2 >= 1 ; +1 x3 >= 1 ; ;\n": "f:1: an empty statement (a lone ;)",
		// A number too long for 64 bits is out of range, not "not an integer".
		"+1 x1 >= 12345678901234567890 ;\n": `f:1: bound "12345678901234567890": beyond 2^53, which the solvers cannot hold exactly`,
		"-12345678901234567890 x1 >= 1 ;\n": `f:1: coefficient "-12345678901234567890": beyond 2^53, which the solvers cannot hold exactly`,
		"":                                  "f:1: no objective and no constraint: the file holds no instance",
		"* #variable= 2\n* nothing else\n":  "f:2: no objective and no constraint: the file holds no instance",
		"* #variable= 2\n+1 x1 >= 1 ;\n+1 x1\n +1 x3 >= 1 ;\n+1 x4 >= 0 ;\n": `f:3: literal "x3" beyond the header's #variable= 2`,
		"* #variable= 2\nmin: +1 ~x3 ;\n+1 x1 >= 1 ;\n":                      `f:2: literal "~x3" beyond the header's #variable= 2`,
		"+1 x5 >= 1 ;\n* #variable= 2\n":                                     "f:1: literal x5 beyond the header's #variable= 2",
	} {
		_, err := Read(strings.NewReader(src), "f")
		var e *Error
		if !errors.As(err, &e) || err.Error() != want {
			t.Errorf("%q: %v\nwant %s", src, err, want)
		}
	}
}

// FuzzRead: any input gives an instance that validates, or an error naming
// a line; never a panic.
func FuzzRead(f *testing.F) {
	f.Add("min: +2 x1 x2 ;\n+1 x1 +1 ~x2 >= 1 ;\n")
	f.Add("* #variable= 3\n+1 x3 = 1 ;")
	f.Fuzz(func(t *testing.T, src string) {
		in, err := Read(strings.NewReader(src), "f")
		if err != nil {
			var e *Error
			if !errors.As(err, &e) && !strings.HasPrefix(err.Error(), "f: ") {
				t.Fatalf("error without a place: %v", err)
			}
			return
		}
		if err := in.Validate(); err != nil {
			t.Fatalf("an instance that does not validate: %v", err)
		}
	})
}
