package main

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/schedlab/schedlab/experiments/data"
	"github.com/schedlab/schedlab/sdk"
)

// The files of a new policy module, as templates (scaffold/*.tmpl; those of
// a policy in Python in scaffold/python).
//
//go:embed scaffold/*.tmpl scaffold/python/*.tmpl
var scaffoldFS embed.FS

// sdkModule is the SDK's module path.
const sdkModule = "github.com/schedlab/schedlab/sdk"

// scaffoldOptions says what `schedlab plugin init` makes.
type scaffoldOptions struct {
	// Name is the policy's name, its package's and its binary's.
	Name string
	// Module is the new module's path.
	Module string
	// SDKPath is the absolute path of a local SDK checkout (its sdk folder),
	// or empty for the released SDK.
	SDKPath string
	// Lang is the policy's language: "go" (a Go module) or "python".
	Lang string
}

// scaffoldData is what the templates see.
type scaffoldData struct {
	scaffoldOptions
	Package     string
	SDKVersion  string
	Trace       string
	TraceSHA256 string
	// Replace is the SDK folder as go.mod's replace directive names it:
	// relative to the new module when the two are near, else absolute.
	Replace string
	// Requires are the SDK's own requirements, every one of them (direct
	// and indirect), which the new module lists as indirect ones.
	Requires []requirement
	// Checkout is the schedlab checkout holding the SDK, where `go install
	// ./cmd/schedlab` makes the schedlab command; empty for the released
	// SDK.
	Checkout string
	// Class is a Python policy's class name.
	Class string
}

// requirement is one module a go.mod requires.
type requirement struct{ Path, Version string }

// The SDK's go.mod and go.sum as of the SDK this binary was built with
// (sdk.Version): a module made against the released SDK requires what it
// requires and starts with its checksums. TestScaffoldFiles keeps them
// equal to sdk/go.mod and sdk/go.sum; `go generate` copies them again.
//
//go:generate cp ../../sdk/go.mod scaffold/sdk.mod
//go:generate cp ../../sdk/go.sum scaffold/sdk.sum
var (
	//go:embed scaffold/sdk.mod
	releasedSDKMod []byte
	//go:embed scaffold/sdk.sum
	releasedSDKSum []byte
)

// sdkRequires returns the requirements of the SDK's go.mod, in its order.
// It reads the two forms go.mod has, `require path version` and a
// parenthesised block of `path version` lines, each perhaps ending in a
// comment; the SDK's go.mod has nothing more elaborate.
func sdkRequires(gomod []byte) ([]requirement, error) {
	var out []requirement
	block := false
	for i, line := range strings.Split(string(gomod), "\n") {
		line, _, _ = strings.Cut(line, "//")
		f := strings.Fields(line)
		switch {
		case block && len(f) == 1 && f[0] == ")":
			block = false
		case block && len(f) == 2:
			out = append(out, requirement{f[0], f[1]})
		case block && len(f) > 0:
			return nil, fmt.Errorf("go.mod:%d: want a module path and a version in the require block", i+1)
		case len(f) == 2 && f[0] == "require" && f[1] == "(":
			block = true
		case len(f) == 3 && f[0] == "require":
			out = append(out, requirement{f[1], f[2]})
		}
	}
	if block {
		return nil, errors.New("go.mod: a require block is not closed")
	}
	return out, nil
}

// validName is a policy name that is also a Go package name and a file name.
var validName = regexp.MustCompile(`^[a-z][a-z0-9]*$`)

// checkScaffold checks the options and the target folder before anything is
// written: dir must not exist or be empty; the SDK path must hold the SDK.
func checkScaffold(dir string, o *scaffoldOptions) error {
	if !validName.MatchString(o.Name) {
		return fmt.Errorf("--name %q: a policy name here is lower-case letters and digits, starting with a letter (it names the Go package and the binary)", o.Name)
	}
	if o.Module == "" {
		o.Module = "example.com/" + o.Name
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s is not empty: plugin init writes a new module into a new or empty folder", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if o.SDKPath == "" {
		return nil
	}
	abs, err := filepath.Abs(o.SDKPath)
	if err != nil {
		return err
	}
	mod, err := os.ReadFile(filepath.Join(abs, "go.mod"))
	if err != nil || !strings.HasPrefix(strings.TrimSpace(string(mod)), "module "+sdkModule+"\n") {
		return fmt.Errorf("--sdk %s: not the schedlab SDK (want a folder whose go.mod declares module %s)", o.SDKPath, sdkModule)
	}
	o.SDKPath = abs
	return nil
}

// findSDK returns the sdk folder of the schedlab checkout that holds the
// working directory, or "" outside one.
func findSDK() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		mod, err := os.ReadFile(filepath.Join(dir, "sdk", "go.mod"))
		if err == nil && strings.HasPrefix(strings.TrimSpace(string(mod)), "module "+sdkModule+"\n") {
			return filepath.Join(dir, "sdk")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// writeScaffold writes the new module into dir and returns the files it
// wrote, relative to dir. checkScaffold must have passed.
func writeScaffold(dir string, o scaffoldOptions) ([]string, error) {
	d := scaffoldData{scaffoldOptions: o, Package: o.Name, SDKVersion: sdk.Version,
		Trace: data.KTH, TraceSHA256: data.KTHSHA256}
	if o.Lang == "python" {
		return writePythonScaffold(dir, d)
	}
	// The SDK's go.mod and go.sum: the checkout's, or those of the SDK
	// this binary was built with for the released one. The new module
	// requires what the SDK requires and starts with its checksums, so that
	// `go test` builds it as written, without `go mod tidy`, offline once
	// the module cache holds those versions.
	gomod, gosum := releasedSDKMod, releasedSDKSum
	if o.SDKPath != "" {
		var err error
		if gomod, err = os.ReadFile(filepath.Join(o.SDKPath, "go.mod")); err != nil {
			return nil, err
		}
		if gosum, err = os.ReadFile(filepath.Join(o.SDKPath, "go.sum")); err != nil {
			return nil, err
		}
		d.Replace = replacePath(dir, o.SDKPath)
		d.Checkout = filepath.Dir(o.SDKPath)
	}
	reqs, err := sdkRequires(gomod)
	if err != nil {
		return nil, fmt.Errorf("the SDK's %w", err)
	}
	slices.SortFunc(reqs, func(a, b requirement) int { return strings.Compare(a.Path, b.Path) })
	d.Requires = reqs
	files := []struct{ tmpl, path string }{
		{"go.mod", "go.mod"},
		{"policy.go", o.Name + ".go"},
		{"policy_test.go", o.Name + "_test.go"},
		{"main.go", filepath.Join("cmd", o.Name, "main.go")},
		{"manifest.toml", o.Name + ".toml"},
		{"Justfile", "Justfile"},
		{"README.md", "README.md"},
		{"gitignore", ".gitignore"},
	}
	var wrote []string
	write := func(path string, b []byte) error {
		if err := writeFile(dir, path, b); err != nil {
			return err
		}
		wrote = append(wrote, path)
		return nil
	}
	for _, f := range files {
		t, err := template.ParseFS(scaffoldFS, "scaffold/"+f.tmpl+".tmpl")
		if err != nil {
			return wrote, err
		}
		var b bytes.Buffer
		if err := t.Execute(&b, d); err != nil {
			return wrote, fmt.Errorf("%s: %w", f.path, err)
		}
		if err := write(f.path, b.Bytes()); err != nil {
			return wrote, err
		}
	}
	for _, name := range []string{data.KTH, "SOURCES.md"} {
		b, err := data.Files.ReadFile(name)
		if err == nil {
			err = write(filepath.Join("data", name), b)
		}
		if err != nil {
			return wrote, err
		}
	}
	// The SDK's own go.sum holds the checksums of everything the new
	// module needs but the SDK itself, so that it builds without asking the
	// checksum database. The released SDK's own lines come with `go get`.
	if err := write("go.sum", gosum); err != nil {
		return wrote, err
	}
	return wrote, nil
}

// replacePath is how go.mod's replace directive names the SDK folder
// sdkDir (absolute) from the module folder dir: a relative path when the
// two are near (a checkout beside the module: ../schedlab/sdk), which stays
// right when both move together, else the absolute path.
func replacePath(dir, sdkDir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return sdkDir
	}
	rel, err := filepath.Rel(abs, sdkDir)
	rel = filepath.ToSlash(rel)
	if err != nil || !strings.HasPrefix(rel, "../") || strings.Count(rel, "../") > 2 {
		return sdkDir
	}
	return rel
}

// writePythonScaffold writes a policy in Python into dir: the policy, its
// pytest tests through policytest, a campaign beside EASY, the trace.
func writePythonScaffold(dir string, d scaffoldData) ([]string, error) {
	d.Class = strings.ToUpper(d.Name[:1]) + d.Name[1:]
	if d.SDKPath != "" {
		d.Checkout = filepath.Dir(d.SDKPath)
	}
	var wrote []string
	for _, f := range []struct{ tmpl, path string }{
		{"python/policy.py", d.Name + ".py"},
		{"python/test_policy.py", d.Name + "_test.py"},
		{"python/manifest.toml", d.Name + ".toml"},
		{"python/README.md", "README.md"},
		{"python/gitignore", ".gitignore"},
	} {
		t, err := template.ParseFS(scaffoldFS, "scaffold/"+f.tmpl+".tmpl")
		if err != nil {
			return wrote, err
		}
		var b bytes.Buffer
		if err := t.Execute(&b, d); err != nil {
			return wrote, fmt.Errorf("%s: %w", f.path, err)
		}
		if err := writeFile(dir, f.path, b.Bytes()); err != nil {
			return wrote, err
		}
		wrote = append(wrote, f.path)
	}
	for _, name := range []string{data.KTH, "SOURCES.md"} {
		b, err := data.Files.ReadFile(name)
		if err == nil {
			err = writeFile(dir, filepath.Join("data", name), b)
		}
		if err != nil {
			return wrote, err
		}
		wrote = append(wrote, filepath.Join("data", name))
	}
	return wrote, nil
}

// writeFile writes b to path under dir, making its folder.
func writeFile(dir, path string, b []byte) error {
	full := filepath.Join(dir, path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	return os.WriteFile(full, b, 0o644)
}
