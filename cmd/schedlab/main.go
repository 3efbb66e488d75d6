// Command schedlab is the single command of the schedlab laboratory: it runs
// simulations and campaigns, and serves the reference policies as plugins.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/plugins"
	"github.com/schedlab/schedlab/runner"
	"github.com/schedlab/schedlab/sdk"
)

func main() {
	// The host verifies and writes many runs at once: the same trade of
	// memory for collector time as the plugins make, unless GOGC says
	// otherwise.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := newRoot().ExecuteContext(ctx)
	if err == nil {
		return
	}
	interrupted := ctx.Err() != nil
	var ee *exitError
	if interrupted && !(errors.As(err, &ee) && ee.code == exitInterrupted) {
		// Whatever stopped at the signal (a build, a plugin's start, a
		// download) failed for that reason: say so first.
		err = fmt.Errorf("interrupted: %w", err)
	}
	fmt.Fprintln(os.Stderr, "schedlab:", err)
	stop()
	os.Exit(exitStatus(err, interrupted))
}

// exitStatus is the exit status for err: 3 when the command was
// interrupted (SIGINT or SIGTERM), whatever it was doing then and whatever
// error that gave (a build killed, a plugin start given up), so that
// scripts and job schedulers can tell an interrupt from a failure; else the
// one an exitError carries, 2 for a command line cobra refused (arguments,
// a required flag, an unknown command), which cobra reports as plain
// errors, and 1 otherwise.
func exitStatus(err error, interrupted bool) int {
	if interrupted {
		return exitInterrupted
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	for _, usage := range []string{"required flag(s) ", "unknown command ", "accepts ", "requires at least ", "requires at most ", "unknown flag", "unknown shorthand flag"} {
		if strings.HasPrefix(err.Error(), usage) {
			return exitBadInput
		}
	}
	return exitRunsFailed
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "schedlab",
		Short: "a laboratory for batch-scheduling research",
		Long: `schedlab runs simulations and campaigns of batch-scheduling policies, and
analyses their results (README.md and docs/ of the repository).

Exit status, the same for every command:
  0  done
  1  the command ran and something failed: runs of a campaign or sim's run,
     rerun's comparison (runs differ), or the machine (a disk full)
  2  bad input, so nothing ran and nothing was created: arguments and flags,
     a missing or malformed file (manifest, trace, model, campaign folder),
     a policy that cannot be built or started, a parameter it does not take
  3  interrupted (SIGINT or SIGTERM), at any stage`,
		Version:       runner.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// The identity of the reference policies is what their run keys use:
	// two binaries that print the same one give the same keys.
	root.SetVersionTemplate(fmt.Sprintf("schedlab %s (SDK %s, protocol %d, %s %s/%s)\nreference policies: identity %s\n",
		runner.Version, sdk.Version, sdk.ProtocolVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH, plugins.Identity()))
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &exitError{exitBadInput, err} })
	root.AddCommand(newSimCmd(), newRunCmd(), newExpandCmd(), newRerunCmd(), newCompareCmd(), newWorkloadCmd(), newReportCmd(), newPluginCmd(), newGroupselCmd(), newSlurmCmd(), newServeEnvCmd(), newGanttCmd(), newExportCmd(), newSeriesCmd())
	return root
}

// resolver serves reference policies from this very binary, so that they run
// as real plugin processes without a build step.
func resolver() (runner.Resolver, error) {
	self, err := os.Executable()
	if err != nil {
		return runner.Resolver{}, fmt.Errorf("locate the schedlab binary: %w", err)
	}
	return runner.Resolver{SelfCommand: []string{self, "plugin", "serve"}, Supervisor: []string{self, "plugin", "supervise"}, Log: os.Stderr}, nil
}
