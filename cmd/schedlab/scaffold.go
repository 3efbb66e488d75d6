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
	"strings"
	"text/template"

	"github.com/schedlab/schedlab/experiments/data"
	"github.com/schedlab/schedlab/sdk"
)

// The files of a new policy module, as templates (scaffold/*.tmpl).
//
//go:embed scaffold/*.tmpl
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
}

// scaffoldData is what the templates see.
type scaffoldData struct {
	scaffoldOptions
	Package     string
	SDKVersion  string
	Trace       string
	TraceSHA256 string
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
		full := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
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
	if o.SDKPath != "" {
		// The SDK's own go.sum holds the checksums of everything the new
		// module needs, so that it builds without asking the checksum
		// database (offline, too, once the module cache has them).
		b, err := os.ReadFile(filepath.Join(o.SDKPath, "go.sum"))
		if err == nil {
			err = write("go.sum", b)
		}
		if err != nil {
			return wrote, err
		}
	}
	return wrote, nil
}
