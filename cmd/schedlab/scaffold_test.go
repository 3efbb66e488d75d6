package main

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/pyenv"
	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner/campaign"
	"github.com/schedlab/schedlab/sdk"
)

// plainEnv is the environment of a user's shell on this machine, offline:
// the test's own, without what a user would not have set (GOFLAGS, which
// this machine may set and which would hide a go.mod that needs `go mod
// tidy` behind -mod=mod; GOWORK; GOBIN), with GOPROXY=off so that any
// download fails, and the given variables added.
func plainEnv(add ...string) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		for _, k := range []string{"GOFLAGS=", "GOWORK=", "GOBIN=", "GOPROXY="} {
			if strings.HasPrefix(kv, k) {
				return true
			}
		}
		return false
	})
	return append(append(env, "GOPROXY=off"), add...)
}

// warmSDKModules fills the Go module cache with the SDK's dependencies at
// the versions its go.mod requires, as a user's first `go test` would
// (the laboratory's own build selects newer ones). This step may use the
// network; the steps of a test after it must not.
func warmSDKModules(t *testing.T) {
	t.Helper()
	download := exec.Command("go", "mod", "download")
	download.Dir, download.Env = filepath.Join("..", "..", "sdk"), append(os.Environ(), "GOWORK=off")
	if out, err := download.CombinedOutput(); err != nil {
		t.Fatalf("go mod download in the SDK: %v\n%s", err, out)
	}
}

// docCommands returns the command lines of the first code block, indented
// by four spaces more than the line, after the first line of a Markdown
// file that contains marker: a block under a heading, or in a list item.
func docCommands(t *testing.T, file, marker string) []string {
	t.Helper()
	doc, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	base := -1
	var lines []string
	for _, l := range strings.Split(string(doc), "\n") {
		switch {
		case base < 0:
			if strings.Contains(l, marker) {
				base = indent(l)
			}
		case strings.TrimSpace(l) != "" && indent(l) >= base+4:
			lines = append(lines, strings.TrimSpace(l))
		case len(lines) > 0 || strings.HasPrefix(l, "#"):
			return lines
		}
	}
	if base < 0 {
		t.Fatalf("%s has no line with %q", file, marker)
	}
	return lines
}

// TestAuthorPath runs the lines of "From nothing to a campaign" in
// docs/policies.md as they are written, the way a new policy author types
// them: in the checkout, `go install ./cmd/schedlab` and `schedlab plugin
// init ../fairshare`, then, in the new module, `go test ./...`, the
// campaign, and the comparison table against EASY. Every command runs in
// the plain environment, offline, with no flag added: the module must
// build as written (no go mod tidy). The only changes are where things go:
// the module is made in a temporary folder instead of beside the checkout,
// and GOBIN sends the installed command to a temporary folder on PATH
// instead of the user's $(go env GOPATH)/bin.
func TestAuthorPath(t *testing.T) {
	if testing.Short() {
		t.Skip("installs schedlab, builds and tests a policy module and runs its campaign; skipped with -short")
	}
	warmSDKModules(t)
	checkout, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	module, bin := filepath.Join(tmp, "fairshare"), filepath.Join(tmp, "bin")
	env := plainEnv("GOBIN="+bin, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	lines := docCommands(t, filepath.Join(checkout, "docs", "policies.md"), "## From nothing to a campaign")
	if len(lines) < 5 {
		t.Fatalf("the doc's block has %d lines: %q", len(lines), lines)
	}
	dir := checkout
	outputs := map[string]string{}
	for _, line := range lines {
		line = strings.ReplaceAll(line, "../fairshare", module)
		args := strings.Fields(line)
		switch args[0] {
		case "cd":
			if len(args) != 2 || !filepath.IsAbs(args[1]) {
				t.Fatalf("the doc's %q: the test knows only cd ../fairshare", line)
			}
			dir = args[1]
			continue
		case "go", "schedlab":
		default:
			t.Fatalf("the doc's %q: the test runs go and schedlab commands only", line)
		}
		name := args[0]
		if name == "schedlab" {
			// What PATH finds in env: the command `go install` put there
			// (exec.Command would look it up in the test's own PATH).
			name = filepath.Join(bin, "schedlab")
		}
		cmd := exec.Command(name, args[1:]...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s (in %s): %v\n%s", line, dir, err, out)
		}
		outputs[strings.Join(args[:2], " ")] = string(out)
	}

	for cmd, want := range map[string][]string{
		"go test":          {"ok  \texample.com/fairshare"},
		"schedlab run":     {"building policy", "built policy", "3 of 3 runs completed, 0 failed"},
		"schedlab compare": {"compared along policy against policy=easy", "fairshare-smallest", "(baseline)"},
	} {
		out, ran := outputs[cmd]
		if !ran {
			t.Errorf("the doc's block runs no %s", cmd)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s does not say %q:\n%s", cmd, w, out)
			}
		}
	}
	// "still building policy" lines say a long build goes on; a second
	// build would print "building policy" at a line's start again.
	if n := len(regexp.MustCompile(`(?m)^building policy`).FindAllString(outputs["schedlab run"], -1)); n != 1 {
		t.Errorf("the package was built %d times for two policies of one package", n)
	}

	sum, err := os.ReadFile(filepath.Join(module, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if bad := regexp.MustCompile(`(?m)^\S*(gonum|parquet-go|cobra|BurntSushi|plot)\S* `).FindAll(sum, -1); len(bad) > 0 {
		t.Errorf("the new module's go.sum lists the laboratory's dependencies: %q", bad)
	}
	mod, err := os.ReadFile(filepath.Join(module, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^go 1\.24$`).Match(mod) {
		t.Errorf("the new module's go directive was raised:\n%s", mod)
	}
}

// TestPluginInitReleased follows the released-SDK instructions of
// docs/policies.md as a user outside the repository would: plugin init
// --released, go get github.com/schedlab/schedlab/sdk@vX.Y.Z, go test. A
// module proxy in a temporary folder stands in for proxy.golang.org: it
// serves this checkout's SDK (the files git tracks in sdk/) as the version
// sdk.Version, as the proxy would serve the tag sdk/vX.Y.Z, and the SDK's
// dependencies from the module cache's own download folder. GONOSUMDB
// stands in for the checksum database, which cannot know an unpublished
// version; a module cache of the test's own keeps the stand-in release out
// of the user's.
func TestPluginInitReleased(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a policy module against a released SDK served by a local module proxy; skipped with -short")
	}
	warmSDKModules(t)
	gomodcache := strings.TrimSpace(must(goEnv("GOMODCACHE")))
	tmp := t.TempDir()
	proxy := filepath.Join(tmp, "proxy")
	writeSDKRelease(t, proxy)
	cache := filepath.Join(tmp, "modcache")
	t.Cleanup(func() { makeWritable(cache) }) // the module cache is read-only
	env := append(plainEnv(),
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(gomodcache, "cache", "download")),
		"GONOSUMDB=github.com/schedlab/schedlab", "GOMODCACHE="+cache)

	module := filepath.Join(tmp, "fairshare")
	out, err := run(t, "plugin", "init", "--released", module)
	if err != nil || !strings.Contains(out, "go get "+sdkModule+"@v"+sdk.Version) {
		t.Fatalf("plugin init --released: %v\n%s", err, out)
	}
	mod, err := os.ReadFile(filepath.Join(module, "go.mod"))
	if err != nil || bytes.Contains(mod, []byte("\nreplace")) {
		t.Fatalf("go.mod of the released SDK: %v\n%s", err, mod)
	}
	// The lines docs/policies.md gives for the released SDK.
	lines := docCommands(t, filepath.Join("..", "..", "docs", "policies.md"), "`schedlab plugin init --released DIR`")
	want := []string{"go get " + sdkModule + "@v" + sdk.Version, "go test ./..."}
	if !slices.Equal(lines, want) {
		t.Fatalf("docs/policies.md gives %q for the released SDK; the test runs %q", lines, want)
	}
	for _, line := range lines {
		args := strings.Fields(line)
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir, cmd.Env = module, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
	}
	sum, err := os.ReadFile(filepath.Join(module, "go.sum"))
	if err != nil || !bytes.Contains(sum, []byte(sdkModule+" v"+sdk.Version+" h1:")) {
		t.Errorf("go get added no checksum of the SDK to go.sum (%v)", err)
	}
}

// writeSDKRelease writes a module proxy (the GOPROXY file layout) into dir
// that serves this checkout's SDK as version sdk.Version: its go.mod, and a
// module zip of the files git tracks in sdk/, under module@version/.
func writeSDKRelease(t *testing.T, dir string) {
	t.Helper()
	root := filepath.Join("..", "..")
	files, err := exec.Command("git", "-C", root, "ls-files", "-z", "--", "sdk").Output()
	if err != nil {
		t.Fatalf("git ls-files sdk: %v", err)
	}
	v := "v" + sdk.Version
	at := filepath.Join(dir, filepath.FromSlash(sdkModule), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	tracked := strings.Split(strings.TrimRight(string(files), "\x00"), "\x00")
	// A folder with a go.mod of its own is another module (the SDK's
	// testdata has old plugin modules), which a module zip leaves out.
	var nested []string
	for _, f := range tracked {
		if path.Base(f) == "go.mod" && f != "sdk/go.mod" {
			nested = append(nested, path.Dir(f)+"/")
		}
	}
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	n := 0
	for _, f := range tracked {
		if slices.ContainsFunc(nested, func(d string) bool { return strings.HasPrefix(f, d) }) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(sdkModule + "@" + v + "/" + strings.TrimPrefix(f, "sdk/"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("git tracks %d files in sdk/", n)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "sdk", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"list": []byte(v + "\n"), v + ".info": fmt.Appendf(nil, `{"Version":%q,"Time":"2026-01-01T00:00:00Z"}`, v),
		v + ".mod": gomod, v + ".zip": zb.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(at, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// makeWritable makes a module cache's folders writable again, so that the
// test's temporary folder can be removed.
func makeWritable(dir string) {
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(path, 0o755)
		}
		return nil
	})
}

func goEnv(key string) (string, error) {
	out, err := exec.Command("go", "env", key).Output()
	return string(out), err
}

// TestScaffoldFiles checks what plugin init writes, without building it:
// go.mod requires every requirement of the SDK's go.mod, go.sum is the
// SDK's, the copies of the SDK's go.mod and go.sum that a binary embeds for
// the released SDK are the checkout's, and every command of the Justfile's
// recipes is in the README for those without just.
func TestScaffoldFiles(t *testing.T) {
	sdkDir, err := filepath.Abs(filepath.Join("..", "..", "sdk"))
	if err != nil {
		t.Fatal(err)
	}
	sdkMod, err := os.ReadFile(filepath.Join(sdkDir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	sdkSum, err := os.ReadFile(filepath.Join(sdkDir, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(releasedSDKMod, sdkMod) || !bytes.Equal(releasedSDKSum, sdkSum) {
		t.Errorf("scaffold/sdk.mod and scaffold/sdk.sum are not sdk/go.mod and sdk/go.sum: run go generate ./cmd/schedlab")
	}
	reqs := regexp.MustCompile(`(?m)^\s*(?:require\s+)?([a-z0-9.\-/]+\.[a-z]+/\S+) (v\S+)`).FindAllStringSubmatch(string(sdkMod), -1)
	if len(reqs) < 4 {
		t.Fatalf("found %d requirements in sdk/go.mod", len(reqs))
	}

	for _, tc := range []struct {
		name     string
		args     []string
		checkout bool
	}{
		{"checkout", []string{"--sdk", sdkDir}, true},
		{"released", []string{"--released"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "fair")
			if out, err := run(t, append([]string{"plugin", "init", dir}, tc.args...)...); err != nil {
				t.Fatalf("plugin init: %v\n%s", err, out)
			}
			read := func(name string) string {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			mod, readme, just := read("go.mod"), read("README.md"), read("Justfile")
			for _, r := range reqs {
				if !strings.Contains(mod, "\t"+r[1]+" "+r[2]+" // indirect\n") {
					t.Errorf("go.mod does not require %s %s:\n%s", r[1], r[2], mod)
				}
			}
			if !strings.Contains(mod, "require "+sdkModule+" v"+sdk.Version+"\n") {
				t.Errorf("go.mod does not require the SDK v%s:\n%s", sdk.Version, mod)
			}
			if has := strings.Contains(mod, "\nreplace "+sdkModule+" => "); has != tc.checkout {
				t.Errorf("go.mod has a replace line: %v, want %v:\n%s", has, tc.checkout, mod)
			}
			if read("go.sum") != string(sdkSum) {
				t.Errorf("go.sum is not the SDK's")
			}
			recipes := regexp.MustCompile(`(?m)^    (\S.*)$`).FindAllStringSubmatch(just, -1)
			if len(recipes) < 5 {
				t.Fatalf("%d recipe lines in the Justfile:\n%s", len(recipes), just)
			}
			for _, r := range recipes {
				if !strings.Contains(readme, "\n    "+r[1]+"\n") {
					t.Errorf("the README does not give the Justfile's command %q", r[1])
				}
			}
			if !strings.Contains(readme, "go install ./cmd/schedlab") || !strings.Contains(just, "go install ./cmd/schedlab") {
				t.Errorf("the README or the Justfile does not say how to get the schedlab command")
			}
		})
	}
}

// TestPluginInitBadInput: a bad name, a folder that is not empty, a
// folder that is not the SDK and contradicting flags exit 2 and write
// nothing.
func TestPluginInitBadInput(t *testing.T) {
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{filepath.Join(t.TempDir(), "a"), "--name", "Fair-Share"}, `--name "Fair-Share"`},
		{[]string{full, "--name", "ok"}, "is not empty"},
		{[]string{filepath.Join(t.TempDir(), "b"), "--sdk", t.TempDir()}, "not the schedlab SDK"},
		{[]string{filepath.Join(t.TempDir(), "c"), "--sdk", "../../sdk", "--released"}, "--released and --sdk contradict"},
		{[]string{filepath.Join(t.TempDir(), "d"), "--lang", "rust"}, `--lang "rust": go or python`},
	} {
		out, err := run(t, append([]string{"plugin", "init"}, tc.args...)...)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: %v, want exit 2 saying %q:\n%s", tc.args, err, tc.want, out)
		}
		if _, err := os.Stat(tc.args[0]); tc.args[0] != full && err == nil {
			t.Errorf("%v: the folder was created", tc.args)
		}
	}
	if entries, _ := os.ReadDir(full); len(entries) != 1 {
		t.Errorf("the non-empty folder was written into: %v", entries)
	}
}

// TestPluginInitPython makes a policy in Python as a new author does, runs
// its pytest tests as written (through this schedlab, the package's
// policytest and the real host), lints and type-checks it, and runs its
// campaign: three runs, the Python policy's beside EASY.
func TestPluginInitPython(t *testing.T) {
	py := pyenv.ForTest(t, "grpc", "pytest", "ruff", "mypy")
	dir := filepath.Join(t.TempDir(), "fairpy")
	if out, err := run(t, "plugin", "init", "--lang", "python", dir); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	env := append(os.Environ(), "SCHEDLAB="+schedlab, "SCHEDLAB_PYTHON="+py)
	for _, args := range [][]string{
		{"-m", "pytest", "-q", "-p", "no:cacheprovider"},
		{"-m", "ruff", "check", "--no-cache", "."},
		{"-m", "mypy", "--strict", "--cache-dir=/dev/null", "fairpy.py", "fairpy_test.py"},
	} {
		cmd := exec.Command(py, args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	cmd := exec.Command(schedlab, "run", "-q", "fairpy.toml")
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("schedlab run fairpy.toml: %v\n%s", err, out)
	}
	_, rows, _, err := results.ReadTable(filepath.Join(dir, "out", "fairpy", campaign.RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d runs, want 3", len(rows))
	}
}
