package peakmem

import (
	"runtime"
	"testing"
)

// TestHighWater: after a reset, touching 64 MiB more raises the mark by
// about that much, so that the benchmarks' figure measures their work.
func TestHighWater(t *testing.T) {
	if !reset() {
		t.Skip("no resettable high-water mark here (/proc/self/clear_refs): the benchmarks report allocations only")
	}
	before, ok := highWater()
	if !ok {
		t.Fatal("no VmHWM in /proc/self/status after a reset")
	}
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	after, _ := highWater()
	runtime.KeepAlive(buf)
	if grew := after - before; grew < 60<<20 || grew > 80<<20 {
		t.Errorf("the mark grew by %d bytes for 64 MiB touched", grew)
	}
}
