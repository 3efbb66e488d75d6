// Package plugins identifies the reference policies' code by content; the
// policies themselves are in its subpackages (reference lists them).
package plugins

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/sdk"
)

// modules are the modules, other than this one and the SDK, that the
// reference policies are compiled from (TestSourcesCoverReference checks
// the list): their versions and go.sum hashes pin their code.
const modules = "gonum.org/v1/gonum"

// Identity returns what stands for the reference policies' code in run
// keys: the sha256 of this module's sources they are compiled from
// (SourceSHA256), the SDK's (sdk.SourceSHA256), the versions of the other
// modules they use, and the Go toolchain and platform. Every way of building
// one source tree (go run, go build, go install, with or without debug
// information or VCS stamp) gives the same identity; a change to the code of
// a policy, the engine or a dependency, or another Go release, gives another.
func Identity() string {
	h := sha256.New()
	fmt.Fprintf(h, "schedlab.reference-identity/1\nplugins %s\nsdk %s\ngo %s %s/%s\n",
		SourceSHA256(), sdk.SourceSHA256(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	bi, ok := debug.ReadBuildInfo()
	for _, mod := range strings.Fields(modules) {
		version := "unknown"
		if ok {
			for _, d := range bi.Deps {
				if d.Path == mod {
					if d.Replace != nil {
						d = d.Replace
					}
					version = d.Version + " " + d.Sum
				}
			}
		}
		fmt.Fprintf(h, "module %s %s\n", mod, version)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sources are the Go files of every package of this module that the
// reference policies are compiled from (TestSourcesCoverReference checks
// the list against `go list -deps`). Test files match too and are left out
// of the digest.
//
//go:embed backfill/*.go broker/*.go burstbuffer/*.go groupsel/*.go probfill/*.go reference/*.go
var sources embed.FS

// SourceSHA256 returns the sha256 of the reference policies' Go sources in
// this module (test files excepted) that this binary was compiled from. With
// sdk.SourceSHA256 it identifies the reference policies' code by content,
// the same for every way of building one source tree.
func SourceSHA256() string {
	h := sha256.New()
	// WalkDir visits files in lexical order, so the digest is canonical.
	err := fs.WalkDir(sources, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := sources.ReadFile(path)
		if err != nil {
			return err
		}
		// Name and length before content: no two file sets hash alike.
		h.Write([]byte(path + "\x00" + strconv.Itoa(len(b)) + "\x00"))
		h.Write(b)
		return nil
	})
	if err != nil {
		panic("plugins: reading the embedded sources: " + err.Error()) // embedded files always read
	}
	return hex.EncodeToString(h.Sum(nil))
}
