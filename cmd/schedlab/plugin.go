package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/build"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/plugins/reference"
	"github.com/schedlab/schedlab/runner"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/serve"
)

func newPluginCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "plugin", Short: "list, describe and serve policy plugins"}
	cmd.AddCommand(
		newPluginInitCmd(),
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
					return &exitError{exitBadInput, err}
				}
				info, err := runner.Describe(cmd.Context(), pol, false, nil)
				if err != nil {
					return &exitError{exitBadInput, err}
				}
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(info)
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
		&cobra.Command{
			Use:   "supervise COMMAND [ARG...]",
			Short: "run a command as a process group that ends with schedlab (started by schedlab itself for the builds of package policies)",
			Long: `supervise runs COMMAND as a process group of its own and kills the whole
group when it receives SIGINT or SIGTERM, which the kernel sends it when the
schedlab process that started it dies, however it dies: a build of a package
policy then leaves no compiler running behind a killed campaign. It exits
with COMMAND's status.`,
			Hidden:             true,
			DisableFlagParsing: true,
			Args:               cobra.MinimumNArgs(1),
			Run: func(cmd *cobra.Command, args []string) {
				os.Exit(runner.Supervise(cmd.Context(), args, cmd.ErrOrStderr()))
			},
		},
	)
	return cmd
}

func newPluginInitCmd() *cobra.Command {
	var o scaffoldOptions
	var released bool
	cmd := &cobra.Command{
		Use:   "init DIR",
		Short: "make a new policy module in DIR: policy, tests, plugin binary, a campaign on KTH-SP2",
		Long: `init writes a Go module for a new scheduling policy into DIR (new or empty):
the policy (NAME.go), its tests with sdk/policytest (NAME_test.go), the plugin
binary (cmd/NAME), a campaign that runs it beside EASY on the KTH-SP2 log
(NAME.toml, with the trace in data/), a Justfile and a README. With --lang
python: the policy in Python (NAME.py), its pytest tests through the Python
package's policytest (NAME_test.py), the campaign and the trace.

The module depends on the SDK of a local checkout (--sdk, by default the one
of the schedlab checkout holding the working directory, if any) or, with
--released or outside a checkout, on the released SDK. Its go.mod requires
what the SDK requires and its go.sum holds their checksums, so that go test
builds it as written, offline once the Go module cache holds those modules.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if o.Name == "" {
				o.Name = strings.ToLower(filepath.Base(filepath.Clean(dir)))
			}
			switch {
			case released && cmd.Flags().Changed("sdk"):
				return &exitError{exitBadInput, errors.New("--released and --sdk contradict each other: the released SDK, or the one of a checkout")}
			case released:
				o.SDKPath = ""
			case !cmd.Flags().Changed("sdk"):
				o.SDKPath = findSDK()
			}
			if o.Lang != "go" && o.Lang != "python" {
				return &exitError{exitBadInput, fmt.Errorf("--lang %q: go or python", o.Lang)}
			}
			if err := checkScaffold(dir, &o); err != nil {
				return &exitError{exitBadInput, err}
			}
			wrote, err := writeScaffold(dir, o)
			if err != nil {
				return fmt.Errorf("plugin init %s: %w (written so far: %s)", dir, err, strings.Join(wrote, ", "))
			}
			if o.Lang == "python" {
				printPythonScaffold(cmd.OutOrStdout(), dir, o, wrote)
				return nil
			}
			printScaffold(cmd.OutOrStdout(), dir, o, wrote)
			return nil
		},
	}
	cmd.Flags().StringVar(&o.Name, "name", "", "the policy's name: its package, binary and manifest (default: DIR's base name)")
	cmd.Flags().StringVar(&o.Module, "module", "", "the module path (default example.com/NAME)")
	cmd.Flags().StringVar(&o.SDKPath, "sdk", "", "the sdk folder of a schedlab checkout to build against (default: the checkout holding the working directory)")
	cmd.Flags().StringVar(&o.Lang, "lang", "go", "the policy's language: go (a Go module) or python (a policy file for the schedlab Python package)")
	cmd.Flags().BoolVar(&released, "released", false, "build against the released SDK (go get adds its checksums, online), not a checkout's")
	return cmd
}

// printScaffold says what plugin init wrote and what to do next, with the
// commands to type: a new author's next steps, where the schedlab command
// comes from, and how long the first build takes (it prints nothing
// meanwhile).
func printScaffold(w io.Writer, dir string, o scaffoldOptions, wrote []string) {
	fmt.Fprintf(w, "policy module %s in %s:\n", o.Module, dir)
	for _, f := range wrote {
		fmt.Fprintf(w, "  %s\n", f)
	}
	if o.SDKPath != "" {
		fmt.Fprintf(w, "SDK: the checkout's, %s (the replace line of go.mod)\n", o.SDKPath)
	} else {
		fmt.Fprintf(w, "SDK: the released v%s; add its checksums to go.sum once, online, in %s:\n  go get %s@v%s\n",
			sdk.Version, dir, sdkModule, sdk.Version)
	}
	fmt.Fprintf(w, "next, in %s:\n", dir)
	fmt.Fprintf(w, "  go test ./...                     # the first build compiles gRPC and go-plugin: about 45 s on 2 cores, silently\n")
	fmt.Fprintf(w, "  schedlab run %s.toml\n", o.Name)
	fmt.Fprintf(w, "  schedlab compare out/%s --baseline policy=easy\n", o.Name)
	sayWhereSchedlab(w, o)
}

// sayWhereSchedlab says which schedlab the PATH holds, or how to put one
// there: a new author's next command calls it.
func sayWhereSchedlab(w io.Writer, o scaffoldOptions) {
	if path, err := exec.LookPath("schedlab"); err == nil {
		fmt.Fprintf(w, "schedlab is %s\n", path)
		return
	}
	where := "$(go env GOPATH)/bin"
	if gobin := os.Getenv("GOBIN"); gobin != "" {
		where = gobin
	} else if gopath := filepath.SplitList(build.Default.GOPATH); len(gopath) > 0 && gopath[0] != "" {
		where = filepath.Join(gopath[0], "bin")
	}
	checkout := "a clone of the schedlab repository"
	if o.SDKPath != "" {
		checkout = filepath.Dir(o.SDKPath)
	}
	fmt.Fprintf(w, "no schedlab on your PATH: `go install ./cmd/schedlab`, run in %s, puts it in %s; add that folder to PATH\n", checkout, where)
}

// printPythonScaffold says what plugin init --lang python wrote and what to
// do next.
func printPythonScaffold(w io.Writer, dir string, o scaffoldOptions, wrote []string) {
	fmt.Fprintf(w, "policy %s in Python in %s:\n", o.Name, dir)
	for _, f := range wrote {
		fmt.Fprintf(w, "  %s\n", f)
	}
	fmt.Fprintf(w, "next, in %s, with the schedlab Python package installed (pip install './python[test]' in a schedlab checkout):\n", dir)
	fmt.Fprintf(w, "  python -m pytest\n")
	fmt.Fprintf(w, "  schedlab run %s.toml\n", o.Name)
	fmt.Fprintf(w, "  schedlab compare out/%s --baseline policy=easy\n", o.Name)
	sayWhereSchedlab(w, o)
}
