package table1

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestGenerate checks the generator's instances: the same seed gives the
// same instance; terms of 1..Degree distinct variables; coefficients in
// range; shared terms used by the objective and every constraint, separate
// ones not; bounds at the capacity share of each constraint's sum.
func TestGenerate(t *testing.T) {
	for _, shared := range []bool{true, false} {
		p := Paper(120)
		p.Shared = shared
		a, err := Generate(p, rand.New(rand.NewPCG(7, 1)))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Generate(p, rand.New(rand.NewPCG(7, 1)))
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("shared %v: one seed, two instances", shared)
		}
		wantTerms := p.Terms
		if !shared {
			wantTerms = p.Terms * (1 + p.Constraints)
		}
		if len(a.Terms) != wantTerms || len(a.Constraints) != 3 || a.N != 20 {
			t.Fatalf("shared %v: %d terms, %d constraints, %d variables", shared, len(a.Terms), len(a.Constraints), a.N)
		}
		degrees := map[int]bool{}
		for _, vars := range a.Terms {
			if len(vars) < 1 || len(vars) > p.Degree {
				t.Fatalf("a term of %d variables", len(vars))
			}
			degrees[len(vars)] = true
		}
		if len(degrees) < 15 {
			t.Errorf("shared %v: only %d different term sizes among %d terms", shared, len(degrees), len(a.Terms))
		}
		for c, con := range a.Constraints {
			sum := 0.0
			for i, k := range con.Coefs {
				sum += k.Value
				if k.Value < 1 || k.Value > 100 {
					t.Errorf("coefficient %v", k.Value)
				}
				if shared != (k.Term == i) {
					t.Errorf("shared %v: constraint %d's coefficient %d is of term %d", shared, c, i, k.Term)
				}
			}
			if con.Bound != float64(int64(sum/2)) {
				t.Errorf("constraint %d: bound %v for a sum of %v", c, con.Bound, sum)
			}
		}
	}
	bad := Paper(10)
	bad.Degree = 30
	if _, err := Generate(bad, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("a degree above the number of variables was accepted")
	}
}
