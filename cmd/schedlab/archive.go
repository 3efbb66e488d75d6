package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/schedlab/schedlab/workload/pwa"
)

// archive is the cache of the Parallel Workloads Archive's logs, with a
// progress bar on w (a terminal) or a line per download otherwise.
func archive(w io.Writer) pwa.Cache {
	bars := map[string]*progressbar.ProgressBar{}
	tty := false
	if f, ok := w.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	return pwa.Cache{Progress: func(name string, done, total int64) {
		bar, ok := bars[name]
		if !ok {
			if !tty {
				fmt.Fprintf(w, "downloading pwa:%s (%d bytes) from the Parallel Workloads Archive...\n", name, total)
			} else {
				bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(w), progressbar.OptionShowBytes(true),
					progressbar.OptionSetDescription("pwa:"+name), progressbar.OptionClearOnFinish())
			}
			bars[name] = bar
		}
		if bar != nil {
			_ = bar.Set64(done)
		}
	}}
}

// resolveTrace returns the file of a trace given as a path or as pwa:NAME,
// and the sha256 the archive's table gives the latter.
func resolveTrace(ctx context.Context, w io.Writer, trace string) (path, sha string, err error) {
	if !strings.HasPrefix(trace, pwa.Scheme) {
		return trace, "", nil
	}
	path, l, err := archive(w).Path(ctx, trace)
	return path, l.SHA256, err
}

func newWorkloadListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "list the Parallel Workloads Archive's logs that manifests may name as pwa:NAME, and which are cached",
		Long: `List the logs of the Parallel Workloads Archive that a manifest may name as
trace = "pwa:NAME" and sim as --trace pwa:NAME, with the sha256 of their
uncompressed content, and where they are cached. A log missing from the cache
is downloaded when a run first needs it, and checked against its sha256
(docs/workloads.md). The cache is $SCHEDLAB_PWA_CACHE, else schedlab/pwa in
the user cache directory.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := pwa.DefaultDir()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "cache: %s\n\n", dir)
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "name\tjobs\tprocessors\tcached\tsha256 (uncompressed)\t")
			c := pwa.Cache{Dir: dir}
			for _, l := range pwa.Known() {
				cached := "no"
				if _, ok := c.Cached(l); ok {
					cached = "yes"
				}
				fmt.Fprintf(tw, "pwa:%s\t%d\t%d\t%s\t%.16s...\t\n", l.Name, l.Jobs, l.Procs, cached, l.SHA256)
			}
			return tw.Flush()
		},
	}
}
