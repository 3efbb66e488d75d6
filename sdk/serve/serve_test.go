package serve

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/sdk"
)

func testPlugin() sdk.Plugin {
	return sdk.Plugin{Info: sdk.Info{Name: "t", Version: "2.0", Params: []sdk.Param{{Name: "k", Type: sdk.Int, Default: "3"}}}}
}

func TestDescribe(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(testPlugin(), []string{"describe"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var info sdk.Info
	if err := json.Unmarshal(out.Bytes(), &info); err != nil {
		t.Fatalf("describe printed %q: %v", out.String(), err)
	}
	if info.Name != "t" || info.Version != "2.0" || info.SDKVersion != sdk.Version ||
		info.ProtocolVersion != sdk.ProtocolVersion || len(info.Params) != 1 || info.Params[0].Default != "3" {
		t.Fatalf("describe: %+v", info)
	}
}

// TestNotStartedByHost checks that a plugin run by hand says what it is and
// writes nothing to standard output, which go-plugin reserves.
func TestNotStartedByHost(t *testing.T) {
	for _, args := range [][]string{nil, {"serve"}, {"describe", "extra"}} {
		var out, errOut bytes.Buffer
		if code := run(testPlugin(), args, &out, &errOut); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if out.Len() != 0 || !strings.Contains(errOut.String(), "is a schedlab policy plugin (t 2.0)") {
			t.Errorf("%v: stdout %q, stderr %q", args, out.String(), errOut.String())
		}
	}
}

// TestPluginGC checks the collector settings of a plugin process: off with
// a memory limit of firstGCHeap, then, after the first collection, gcPercent
// and no limit. It restores the test process's settings.
func TestPluginGC(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: pluginGC leaves the collector to them")
	}
	percent := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(-1)
	defer func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}()
	pluginGC()
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Errorf("GC percent %d before the first collection, want -1 (off)", p)
	}
	if l := debug.SetMemoryLimit(-1); l != firstGCHeap {
		t.Errorf("memory limit %d before the first collection, want %d", l, firstGCHeap)
	}
	runtime.GC()
	deadline := time.Now().Add(5 * time.Second)
	for debug.SetMemoryLimit(-1) != math.MaxInt64 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Fatalf("memory limit %d after a collection, want none", l)
	}
	if p := debug.SetGCPercent(gcPercent); p != gcPercent {
		t.Errorf("GC percent %d after a collection, want %d", p, gcPercent)
	}
}
