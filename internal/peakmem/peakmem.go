// Package peakmem measures the peak memory of a piece of work, for the
// benchmarks that report it: the high-water mark of this process's resident
// set, which the kernel keeps and lets a process reset (Linux 4.0 and
// later), and the bytes the Go heap allocated meanwhile.
package peakmem

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
)

// Report runs work b.N times and reports, besides the usual allocations,
// "peak-RSS-MB": the highest resident set the process reached meanwhile,
// starting from the memory the collector left after a full collection
// returned what it could to the system (the test binary's own, some 10
// MB). Where the kernel keeps no resettable high-water mark, only the
// allocations are reported.
func Report(b *testing.B, work func()) {
	b.Helper()
	b.ReportAllocs()
	runtime.GC()
	debug.FreeOSMemory()
	ok := reset()
	b.ResetTimer()
	for range b.N {
		work()
	}
	b.StopTimer()
	if peak, found := highWater(); ok && found {
		b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MB")
	}
}

// reset sets the high-water mark to the resident set of now.
func reset() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// highWater returns VmHWM, in bytes.
func highWater() (int64, bool) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:")); ok {
			kb, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte("kB")))), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}
