// Package browsercheck opens HTML pages that schedlab writes in headless
// Chromium, through the script .ci/browser/report.mjs, so that tests check
// what a reader sees: that the page loads without console or page errors,
// fetches nothing, and that its plots rendered; Page adds the checks that
// every page schedlab writes must pass. Without node, the installed
// puppeteer-core package or a Chromium binary a test is skipped on a
// developer's machine but fails under CI, so CI never passes without the
// check (the pattern of package duckcheck).
package browsercheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/duckcheck"
)

// Result is what report.mjs prints about a page.
type Result struct {
	// ConsoleErrors are the console messages of type error and the failed
	// requests; PageErrors the uncaught exceptions.
	ConsoleErrors []string `json:"console_errors"`
	PageErrors    []string `json:"page_errors"`
	// Requests are the URLs the page asked for besides itself.
	Requests []string `json:"requests"`
	Title    string   `json:"title"`
	// SVGs counts the <svg> elements, NonEmptySVGs those with child
	// elements and a rendered box larger than 50x50 CSS pixels.
	SVGs         int      `json:"svgs"`
	NonEmptySVGs int      `json:"nonempty_svgs"`
	Figures      []Figure `json:"figures"`
	// Tables are the page's tables as laid out.
	Tables []Table `json:"tables"`
	// SmallTexts are SVG texts rendered smaller than 10 CSS pixels, and
	// CrossedLabels value labels that a baseline line runs through.
	SmallTexts    []Text `json:"small_texts"`
	CrossedLabels []Text `json:"crossed_labels"`
	// Viewport is the window's width in CSS pixels.
	Viewport   int `json:"viewport"`
	Screenshot struct {
		Path  string `json:"path"`
		Bytes int64  `json:"bytes"`
	} `json:"screenshot"`
}

// Figure is one <figure> of the page as rendered.
type Figure struct {
	ID string `json:"id"`
	// Title is the figure's SVG's accessible name (aria-label).
	Title   string `json:"title"`
	Caption string `json:"caption"`
	// SVGChildren counts the SVG's descendant elements, SVGTexts its
	// <text> elements; Width and Height are its rendered box in CSS pixels.
	SVGChildren int `json:"svg_children"`
	SVGTexts    int `json:"svg_texts"`
	Width       int `json:"width"`
	Height      int `json:"height"`
}

// Table is one table of a page: its caption, its whole width and the width
// its box shows without scrolling, in CSS pixels, its header and its colour
// swatches.
type Table struct {
	Caption string `json:"caption"`
	Width   int    `json:"width"`
	Visible int    `json:"visible"`
	// Head holds the header cells' texts.
	Head []string `json:"head"`
	// Swatches are the colour squares of the table's rows.
	Swatches []Swatch `json:"swatches"`
}

// Swatch is a colour square of a table row as drawn: the text of its cell,
// its computed colour (CSS rgb(r, g, b)), and whether it has a box.
type Swatch struct {
	Label string `json:"label"`
	Color string `json:"color"`
	Drawn bool   `json:"drawn"`
}

// Text is one SVG text of a figure, with its rendered font size when
// measured.
type Text struct {
	Figure string  `json:"figure"`
	Text   string  `json:"text"`
	Size   float64 `json:"size"`
}

// Chromium returns the browser report.mjs will use: $CHROMIUM, else the
// first of the usual install paths that exists.
func Chromium() (string, error) {
	paths := []string{"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable"}
	if p := os.Getenv("CHROMIUM"); p != "" {
		paths = []string{p}
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium at %v", paths)
}

// Report returns a function that opens the HTML file page in headless
// Chromium, saves a full-page screenshot to png and returns what the page
// showed. A failing script fails the test with its standard error.
func Report(t testing.TB) func(page, png string) Result {
	t.Helper()
	node, dir := setup(t)
	return func(page, png string) Result {
		t.Helper()
		return open(t, node, dir, page, png)
	}
}

// Page returns a function that opens the HTML file page as Report's does,
// saving its screenshot as name.png in a temporary directory or in
// $SCHEDLAB_SCREENSHOTS (for a person to look at), and checks what every
// page schedlab writes must show a reader: no console or page error, no
// request (the pages are self-contained), laid out 1280 pixels wide with no
// table wider than its box (hiding columns behind a scrollbar), no SVG text
// under 10 pixels and no value label crossed by a baseline, every SVG
// rendered with content and in a figure, every figure's plot not empty (at least 30 SVG
// elements, 6 texts and 300x200 CSS pixels) with a caption that leads with
// its title, and a full-page screenshot: a PNG of at least 50 kB, 1000
// pixels wide and minHeight high. It returns the Result for the test's own
// checks, and reports failures on the t it is given.
func Page(t testing.TB, minHeight int) func(t testing.TB, name, page string) Result {
	t.Helper()
	node, dir := setup(t)
	shots := t.TempDir()
	if d := os.Getenv("SCHEDLAB_SCREENSHOTS"); d != "" {
		shots = d
	}
	return func(t testing.TB, name, page string) Result {
		t.Helper()
		shot := filepath.Join(shots, name+".png")
		r := open(t, node, dir, page, shot)
		if len(r.ConsoleErrors) > 0 || len(r.PageErrors) > 0 {
			t.Errorf("%s: console errors %q, page errors %q", name, r.ConsoleErrors, r.PageErrors)
		}
		if len(r.Requests) > 0 {
			t.Errorf("%s: a self-contained page requested %q", name, r.Requests)
		}
		if r.NonEmptySVGs != r.SVGs || len(r.Figures) != r.SVGs {
			t.Errorf("%s: %d SVGs, %d of them rendered with content, %d figures", name, r.SVGs, r.NonEmptySVGs, len(r.Figures))
		}
		for _, fig := range r.Figures {
			// A plot has at least its title, axis labels, ticks and data.
			if fig.SVGChildren < 30 || fig.SVGTexts < 6 || fig.Width < 300 || fig.Height < 200 {
				t.Errorf("%s: figure %q looks empty: %d elements, %d texts, %dx%d px", name, fig.Title, fig.SVGChildren, fig.SVGTexts, fig.Width, fig.Height)
			}
			if !strings.Contains(fig.Caption, ". "+fig.Title+". ") {
				t.Errorf("%s: figure %q: caption %q does not lead with the title", name, fig.Title, fig.Caption)
			}
		}
		// Laid out at 1280 CSS pixels, nothing hides behind a scrollbar and
		// every plot's text can be read.
		if r.Viewport != 1280 {
			t.Errorf("%s: laid out %d pixels wide, want 1280", name, r.Viewport)
		}
		for _, tb := range r.Tables {
			if tb.Width > tb.Visible+1 {
				t.Errorf("%s: table %q is %d px wide in a box of %d: its last columns hide behind a scrollbar", name, tb.Caption, tb.Width, tb.Visible)
			}
		}
		for _, x := range r.SmallTexts {
			t.Errorf("%s: figure %s: text %q rendered at %.1f px, under 10", name, x.Figure, x.Text, x.Size)
		}
		for _, x := range r.CrossedLabels {
			t.Errorf("%s: figure %s: the baseline runs through the value label %q", name, x.Figure, x.Text)
		}
		pf, err := os.Open(shot)
		if err != nil {
			t.Fatal(err)
		}
		defer pf.Close()
		cfg, err := png.DecodeConfig(pf)
		if err != nil || r.Screenshot.Bytes < 50_000 || cfg.Width < 1000 || cfg.Height < minHeight {
			t.Errorf("screenshot %s: %d bytes, %dx%d, %v; want a full page at least 1000x%d", shot, r.Screenshot.Bytes, cfg.Width, cfg.Height, err, minHeight)
		}
		return r
	}
}

// setup finds node and the directory of report.mjs, or skips the test
// (fails it when CI is set) when the browser check cannot run here.
func setup(t testing.TB) (node, dir string) {
	t.Helper()
	unavailable := func(why string) {
		t.Helper()
		msg := why + "; install Chromium (apt-get install chromium) and run `npm ci --prefix .ci/browser` from the module root to enable the browser check"
		if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
			t.Fatal(msg + " (CI is set, so this check may not be skipped)")
		}
		t.Skip(msg)
	}
	root, err := duckcheck.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(root, ".ci", "browser")
	node, err = exec.LookPath("node")
	if err != nil {
		unavailable("node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "puppeteer-core")); err != nil {
		unavailable(filepath.Join(".ci", "browser", "node_modules", "puppeteer-core") + " is missing")
	}
	if _, err := Chromium(); err != nil {
		unavailable(err.Error())
	}
	return node, dir
}

// open runs report.mjs on page, saving the screenshot to shot.
func open(t testing.TB, node, dir, page, shot string) Result {
	t.Helper()
	page, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	shot, err = filepath.Abs(shot)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "report.mjs"), page, shot)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node report.mjs %s: %v\n%s", page, err, stderr.Bytes())
	}
	var r Result
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("report.mjs %s printed no JSON: %v\n%s", page, err, stdout.Bytes())
	}
	return r
}

// Script runs the node script name of .ci/browser with args and returns
// what it printed on its standard output; it skips the test (fails it
// under CI) as Page does when the browser check cannot run here.
func Script(t testing.TB, name string, args ...string) []byte {
	t.Helper()
	node, dir := setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join(dir, name)}, args...)...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.Bytes())
	}
	return stdout.Bytes()
}
