package sdk

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"strconv"
	"strings"
)

// sources are the SDK's Go files, compiled into every binary built with the
// SDK so that the binary can name the code it runs by content. Test files
// match the patterns too; SourceSHA256 leaves them out.
//
//go:embed *.go grid/*.go groupsel/*.go host/*.go internal/calls/*.go internal/runmark/*.go internal/stream/*.go internal/wire/*.go plan/*.go policytest/*.go serve/*.go sim/*.go verify/*.go
var sources embed.FS

// SourceSHA256 returns the sha256 of the Go sources of the SDK's packages
// (test files excepted) this binary was compiled from. Unlike the sha256 of
// a binary, it is the same however the binary was built (go run, go build,
// go install, with or without debug information or a VCS stamp), and it
// changes with any change to the SDK's code, whether or not Version did.
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
		panic("sdk: reading the embedded sources: " + err.Error()) // embedded files always read
	}
	return hex.EncodeToString(h.Sum(nil))
}
