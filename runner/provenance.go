package runner

import (
	"os"
	"runtime"
	"runtime/debug"

	"github.com/schedlab/schedlab/sdk"
)

// Version is schedlab's version, recorded in every result.
const Version = "0.1.0"

// BuildProvenance returns what identifies the running schedlab binary and
// the machine: version, VCS commit and dirty flag (when the binary was built
// with VCS stamping), Go version, OS/arch and host name.
func BuildProvenance() map[string]string {
	m := map[string]string{
		"schedlab.version": Version,
		"sdk.version":      sdk.Version,
		"go.version":       runtime.Version(),
		"os_arch":          runtime.GOOS + "/" + runtime.GOARCH,
		"vcs.revision":     "unknown",
		"vcs.modified":     "unknown",
	}
	if h, err := os.Hostname(); err == nil {
		m["host"] = h
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision", "vcs.modified", "vcs.time":
				m[s.Key] = s.Value
			}
		}
	}
	return m
}
