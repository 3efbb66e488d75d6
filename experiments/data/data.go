// Package data holds the small traces shipped with schedlab (SOURCES.md
// says where they come from), embedded so that the schedlab binary can give
// a new policy module a real trace to run on (`schedlab plugin init`).
package data

import "embed"

// KTH is the file name of the KTH-SP2 log, and KTHSHA256 the sha256 of its
// uncompressed content (what a manifest's sha256 pins).
const (
	KTH       = "KTH-SP2-1996-2.1-cln.swf.gz"
	KTHSHA256 = "fba36494c4e4257f72182e8b629ebb0bcb054b3b82851ef957445bd627adcc87"
)

// Files holds the KTH-SP2 trace and SOURCES.md, the attribution every copy
// of it must keep.
//
//go:embed KTH-SP2-1996-2.1-cln.swf.gz SOURCES.md
var Files embed.FS
