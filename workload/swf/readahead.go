package swf

import "io"

// readAhead reads its source on a goroutine of its own into a few large
// buffers, so that decompressing and hashing a trace (in the source) run
// beside parsing it (the reader's caller) on another core.
type readAhead struct {
	chunks chan []byte   // filled buffers, in order
	free   chan []byte   // buffers the reader is done with
	done   chan struct{} // closed by stop: the goroutine returns
	exited chan struct{} // closed when the goroutine has returned
	err    error         // the source's error (io.EOF at its end); set before chunks is closed
	cur    []byte        // unread part of the current buffer
	last   []byte        // the current buffer, whole
}

const (
	aheadBuffers = 4
	aheadSize    = 256 << 10
)

func newReadAhead(src io.Reader) *readAhead {
	ra := &readAhead{chunks: make(chan []byte, aheadBuffers), free: make(chan []byte, aheadBuffers),
		done: make(chan struct{}), exited: make(chan struct{})}
	for range aheadBuffers {
		ra.free <- make([]byte, aheadSize)
	}
	go ra.fill(src)
	return ra
}

func (ra *readAhead) fill(src io.Reader) {
	defer close(ra.exited)
	defer close(ra.chunks)
	for {
		var buf []byte
		select {
		case buf = <-ra.free:
		case <-ra.done:
			return
		}
		// Not io.ReadFull: it reports a short read at the end of the source
		// as io.ErrUnexpectedEOF, the very error a truncated gzip stream
		// gives, which must reach the reader as such.
		buf = buf[:cap(buf)]
		n := 0
		var err error
		for n < len(buf) && err == nil {
			var k int
			k, err = src.Read(buf[n:])
			n += k
		}
		if n > 0 {
			select {
			case ra.chunks <- buf[:n]:
			case <-ra.done:
				return
			}
		}
		if err != nil {
			ra.err = err
			return
		}
	}
}

func (ra *readAhead) Read(p []byte) (int, error) {
	for len(ra.cur) == 0 {
		if ra.last != nil {
			ra.free <- ra.last[:cap(ra.last)] // never blocks: it has room for every buffer
			ra.last = nil
		}
		c, ok := <-ra.chunks
		if !ok {
			return 0, ra.err
		}
		ra.cur, ra.last = c, c
	}
	n := copy(p, ra.cur)
	ra.cur = ra.cur[n:]
	return n, nil
}

// stop ends the goroutine and waits for it, so that the source may be
// closed.
func (ra *readAhead) stop() {
	close(ra.done)
	<-ra.exited
}
