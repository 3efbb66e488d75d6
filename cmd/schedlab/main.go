// Command schedlab is the single command of the schedlab laboratory: it runs
// simulations and campaigns, and serves the reference policies as plugins.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/runner"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newRoot().ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "schedlab:", err)
		os.Exit(1)
	}
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "schedlab",
		Short:         "a laboratory for batch-scheduling research",
		Version:       runner.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newSimCmd(), newPluginCmd())
	return root
}

// resolver serves reference policies from this very binary, so that they run
// as real plugin processes without a build step.
func resolver() (runner.Resolver, error) {
	self, err := os.Executable()
	if err != nil {
		return runner.Resolver{}, fmt.Errorf("locate the schedlab binary: %w", err)
	}
	return runner.Resolver{SelfCommand: []string{self, "plugin", "serve"}}, nil
}
