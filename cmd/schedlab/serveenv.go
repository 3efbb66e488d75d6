package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/runner/episodes"
	"github.com/schedlab/schedlab/sdk/host"
)

// newServeEnvCmd is the command the Gymnasium environment of the schedlab
// Python package starts: it serves episodes on the socket the environment
// hands it (package episodes). Hidden: nobody types it.
func newServeEnvCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "serve-env",
		Short:  "serve the episodes of the Python package's Gymnasium environment (started by it)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := os.Getenv(host.CallsFDEnv)
			fd, err := strconv.Atoi(v)
			if err != nil || fd < 3 {
				return &exitError{exitBadInput, errors.New("serve-env is started by the schedlab Python package's environment (schedlab.gym), which hands it a socket: run that instead")}
			}
			closeOnExec(fd)
			f := os.NewFile(uintptr(fd), "schedlab-episodes")
			if f == nil {
				return fmt.Errorf("serve-env: no file descriptor %d", fd)
			}
			defer f.Close()
			return episodes.Serve(cmd.Context(), f)
		},
	}
}
