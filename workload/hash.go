package workload

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// SHA256 returns the hex sha256 of the uncompressed bytes of the trace at
// path, gzip-compressed (recognised by its magic bytes, whatever its name,
// as swf.Open does) or plain: the digest a manifest's sha256 and a result's
// workload.sha256 hold, so that compressing a trace again changes neither.
// It reads the file as bytes and does not check that they are SWF.
func SHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var in io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return "", fmt.Errorf("%s: gzip: %w", path, err)
		}
		defer gz.Close()
		in = gz
	}
	h := sha256.New()
	if _, err := io.Copy(h, in); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
