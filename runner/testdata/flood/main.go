// Command flood is a test plugin whose policy writes 100,000 lines of 100
// bytes to its standard error on its first call, then schedules as FCFS:
// the run succeeds, and its log must stay bounded.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/serve"
)

type flood struct {
	sdk.Policy
	done bool
}

func (f *flood) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	if !f.done {
		f.done = true
		w := bufio.NewWriter(os.Stderr)
		line := strings.Repeat("x", 90)
		for i := range 100_000 {
			fmt.Fprintf(w, "%08d %s\n", i, line)
		}
		w.Flush()
	}
	return f.Policy.Schedule(s)
}

func main() {
	p := backfill.FCFS()
	inner := p.New
	p.Info.Name = "flood"
	p.New = func() sdk.Policy { return &flood{Policy: inner()} }
	serve.Main(p)
}
