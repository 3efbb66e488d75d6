// Package browsercheck opens HTML pages that schedlab writes in headless
// Chromium, through the script .ci/browser/report.mjs, so that tests check
// what a reader sees: that the page loads without console or page errors,
// fetches nothing, and that its plots rendered. Without node, the installed
// puppeteer-core package or a Chromium binary a test is skipped on a
// developer's machine but fails under CI, so CI never passes without the
// check (the pattern of package duckcheck).
package browsercheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	Screenshot   struct {
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
	dir := filepath.Join(root, ".ci", "browser")
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable("node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "puppeteer-core")); err != nil {
		unavailable(filepath.Join(".ci", "browser", "node_modules", "puppeteer-core") + " is missing")
	}
	if _, err := Chromium(); err != nil {
		unavailable(err.Error())
	}
	return func(page, png string) Result {
		t.Helper()
		page, err := filepath.Abs(page)
		if err != nil {
			t.Fatal(err)
		}
		png, err = filepath.Abs(png)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "report.mjs"), page, png)
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
}
