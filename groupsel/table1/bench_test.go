package table1

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/sdk/groupsel"
)

// BenchmarkSolve solves instances of the paper's Table 1 points (the
// first, a middle and the last number of terms) with each method; one
// iteration solves 5 instances of the point.
//
//	go test -bench Solve -count 6 ./groupsel/table1 | benchstat -
func BenchmarkSolve(b *testing.B) {
	for _, terms := range []int{50, 150, 240} {
		var ins []*groupsel.Instance
		for i := range 5 {
			in, err := Generate(Paper(terms), rand.New(rand.NewPCG(2010, uint64(terms*1_000_000+i))))
			if err != nil {
				b.Fatal(err)
			}
			ins = append(ins, in)
		}
		for _, c := range []struct {
			name    string
			method  groupsel.Method
			workers int
		}{{"rank-1", groupsel.MethodRank, 1}, {"rank-2", groupsel.MethodRank, 2}, {"bnb", groupsel.MethodBnB, 1}} {
			b.Run(fmt.Sprintf("terms=%d/%s", terms, c.name), func(b *testing.B) {
				for b.Loop() {
					for _, in := range ins {
						if _, err := groupsel.Solve(in, c.method, groupsel.Options{Workers: c.workers}); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}
