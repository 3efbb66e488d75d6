package main

import (
	"encoding/json"
	"fmt"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/plugins/reference"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/serve"
)

func newPluginCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "plugin", Short: "list, describe and serve policy plugins"}
	cmd.AddCommand(
		&cobra.Command{
			Use:   "list",
			Short: "list the reference policies",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				for _, p := range reference.All() {
					fmt.Fprintf(cmd.OutOrStdout(), "%-14s %-7s %s\n", p.Info.Name, p.Info.Version, p.Info.Description)
				}
				return nil
			},
		},
		&cobra.Command{
			Use:   "describe POLICY",
			Short: "print a policy's name, version and parameters as JSON, asking the plugin itself",
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				r, err := resolver()
				if err != nil {
					return err
				}
				pol, err := r.Resolve(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				p, err := host.Start(cmd.Context(), exec.Command(pol.Command[0], pol.Command[1:]...))
				if err != nil {
					return err
				}
				defer p.Close()
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(p.Info())
			},
		},
		&cobra.Command{
			Use:    "serve NAME",
			Short:  "serve a reference policy over the plugin protocol (started by schedlab itself)",
			Hidden: true,
			Args:   cobra.ExactArgs(1),
			RunE: func(_ *cobra.Command, args []string) error {
				p, ok := reference.Lookup(args[0])
				if !ok {
					return fmt.Errorf("no reference policy %q", args[0])
				}
				serve.Serve(p)
				return nil
			},
		},
	)
	return cmd
}
