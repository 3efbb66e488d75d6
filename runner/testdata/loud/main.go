// Command loud is a test plugin: FCFS that, at its first decision, writes
// noise_bytes of numbered lines to its standard output, then, with fail
// set, says so on its standard error and fails as fail says: "error" (the
// policy returns an error), "panic" or "exit" (the process ends with
// status 3). Every line names the process, so that a test can tell a
// reused process's runs apart.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/serve"
)

type loud struct {
	sdk.Policy
	noise int64
	fail  string
	done  bool
}

func (l *loud) Init(env sdk.Env) error {
	l.noise, l.fail = env.Params.Int("noise_bytes"), env.Params.String("fail")
	return l.Policy.Init(env)
}

func (l *loud) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	if !l.done {
		l.done = true
		w := bufio.NewWriter(os.Stdout)
		for i, n := 0, int64(0); n < l.noise; i++ {
			k, _ := fmt.Fprintf(w, "noise of process %d, line %d\n", os.Getpid(), i)
			n += int64(k)
		}
		if l.noise > 0 {
			fmt.Fprintf(w, "noise of process %d: end\n", os.Getpid())
		}
		w.Flush()
		if l.fail != "" {
			fmt.Fprintf(os.Stderr, "the failing run of process %d says goodbye\n", os.Getpid())
			switch l.fail {
			case "panic":
				panic("loud: deliberate panic")
			case "exit":
				os.Exit(3)
			}
			return nil, errors.New("loud: deliberate failure")
		}
	}
	return l.Policy.Schedule(s)
}

func main() {
	p := backfill.FCFS()
	inner := p.New
	p.Info.Name = "loud"
	p.Info.Params = append(p.Info.Params,
		sdk.Param{Name: "noise_bytes", Type: sdk.Int, Default: "0", Doc: "bytes of lines written to standard output at the first decision"},
		sdk.Param{Name: "fail", Type: sdk.String, Default: "", Doc: "fail after the noise: error, panic or exit"})
	p.New = func() sdk.Policy { return &loud{Policy: inner()} }
	serve.Main(p)
}
