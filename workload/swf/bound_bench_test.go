package swf_test

import (
	"errors"
	"io"
	"testing"

	"github.com/schedlab/schedlab/internal/peakmem"
	"github.com/schedlab/schedlab/workload/swf"
)

// endless yields n bytes of one line: digits and blanks, no newline.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), e.n)]
	for i := range p {
		p[i] = "1 "[i%2]
	}
	e.n -= int64(len(p))
	return len(p), nil
}

// BenchmarkLongLine reads a trace that is a single line of 1 GiB: the
// reader stops at MaxLineBytes with an error naming the line, so its peak
// is that bound and its buffers, whatever the line's length. Before the
// bound the line was held whole: 3,307 MB at the peak and 11.7 s for this
// one, against 9.7 MB (the test binary's own included) and 5 ms.
func BenchmarkLongLine(b *testing.B) {
	peakmem.Report(b, func() {
		r := swf.NewReader(&endless{n: 1 << 30}, "line.swf")
		if _, err := r.Next(); !errors.Is(err, swf.ErrLineTooLong) {
			b.Fatalf("a line of 1 GiB: %v", err)
		}
	})
}
