package gantt

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/layout"
)

type svgPath struct {
	Class string `xml:"class,attr"`
	D     string `xml:"d,attr"`
}

// powerRun is handRun with a power file: 300 W over [0, 5) and 200 W over
// [5, 10) under a cap of 400 W, then 100 W with no cap to 15.
func powerRun() *layout.Run {
	r := handRun()
	cp := 400.0
	r.Power = []results.PowerStepRow{
		{Start: 0, End: 5, Watts: 300, CapWatts: &cp},
		{Start: 5, End: 10, Watts: 200, CapWatts: &cp},
		{Start: 10, End: 15, Watts: 100},
	}
	return r
}

func svgPaths(t *testing.T, c *Chart) (map[string]string, string) {
	t.Helper()
	var b bytes.Buffer
	if err := c.SVG(&b); err != nil {
		t.Fatal(err)
	}
	var d struct {
		Paths []svgPath `xml:"path"`
	}
	if err := xml.Unmarshal(b.Bytes(), &d); err != nil {
		t.Fatalf("the SVG does not parse: %v", err)
	}
	out := map[string]string{}
	for _, p := range d.Paths {
		out[p.Class] = p.D
	}
	return out, b.String()
}

// TestSVGPower checks the power panel under the chart by hand: the draw's
// and the cap's step lines, whole and in a window; none for a run without
// a power file, whose SVG is what it was; and a spike narrower than a
// pixel among many steps still drawn at its height.
func TestSVGPower(t *testing.T) {
	w := float64(svgWidth - plotLeft - plotRight)
	// The panel's top, and the watts at its top: 5 % over the highest
	// level (the cap, 400 W), then the last tick (0, 200, 400) is below.
	y0 := float64(plotTop + plotHeight + powerGap)
	y := func(watts, hi float64) string { return num(y0 + powerHeight - watts/hi*powerHeight) }
	x := func(t, from, to float64) string { return num(plotLeft + (t-from)/(to-from)*w) }
	from, to := int64(5), int64(12)
	for _, tc := range []struct {
		name       string
		opts       Options
		power, cap string
	}{
		{"whole run", Options{},
			fmt.Sprintf("M%s %sH%sV%sH%sV%sH%s", x(0, 0, 15), y(300, 420), x(5, 0, 15), y(200, 420), x(10, 0, 15), y(100, 420), x(15, 0, 15)),
			fmt.Sprintf("M%s %sH%sV%sH%s", x(0, 0, 15), y(400, 420), x(5, 0, 15), y(400, 420), x(10, 0, 15))},
		{"a window", Options{From: &from, To: &to},
			fmt.Sprintf("M%s %sH%sV%sH%s", x(5, 5, 12), y(200, 420), x(10, 5, 12), y(100, 420), x(12, 5, 12)),
			fmt.Sprintf("M%s %sH%s", x(5, 5, 12), y(400, 420), x(10, 5, 12))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(powerRun(), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			paths, svg := svgPaths(t, c)
			if paths["power"] != tc.power {
				t.Errorf("power path %q, want %q", paths["power"], tc.power)
			}
			if paths["cap"] != tc.cap {
				t.Errorf("cap path %q, want %q", paths["cap"], tc.cap)
			}
			if _, ok := paths["power-range"]; ok {
				t.Error("a range drawn with fewer steps than pixels")
			}
			if !strings.Contains(svg, "power (W)") || !strings.Contains(svg, "the power cap (dashed red)") {
				t.Error("no power axis or note")
			}
		})
	}
	t.Run("no power file", func(t *testing.T) {
		c, err := New(handRun(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		paths, svg := svgPaths(t, c)
		if len(paths) != 0 || strings.Contains(svg, "power") {
			t.Errorf("a run without power has a power panel: %v", paths)
		}
		if want := fmt.Sprintf(`height="%d"`, plotTop+plotHeight+axisHeight+legendRow*3); !strings.Contains(svg, want) {
			t.Errorf("the SVG's height changed: want %s", want)
		}
	})
	t.Run("a spike among many steps", func(t *testing.T) {
		r := handRun()
		// The run stretched to 6,000 s, in steps of 1 s (more than the
		// plot's pixels), one of them at 10 kW among 100 W ones.
		for i := range r.Jobs {
			r.Jobs[i].Submit *= 400
			r.Jobs[i].Start *= 400
			r.Jobs[i].End *= 400
		}
		for s := int64(0); s < 6000; s++ {
			watts := 100.0
			if s == 3001 {
				watts = 10000
			}
			r.Power = append(r.Power, results.PowerStepRow{Start: s, End: s + 1, Watts: watts})
		}
		c, err := New(r, Options{})
		if err != nil {
			t.Fatal(err)
		}
		paths, svg := svgPaths(t, c)
		d := paths["power"]
		if n := strings.Count(d, "H"); n > int(w) {
			t.Errorf("%d levels drawn for %v pixels", n, w)
		}
		// 5 % over 10 kW is 10.5, and the last tick, 10, is below.
		if !strings.Contains(d, "V"+y(10000, 10500)) || !strings.Contains(svg, "power (kW)") {
			t.Errorf("the spike is not drawn at its height (%s): %.200s", y(10000, 10500), d)
		}
		if _, ok := paths["cap"]; ok {
			t.Error("a cap drawn for a run without one")
		}
		// The spike's column has its range, from 100 W to 10 kW.
		if !strings.Contains(paths["power-range"], "V"+y(100, 10500)+"H") {
			t.Errorf("no range down to 100 W drawn: %.200s", paths["power-range"])
		}
	})
}

// TestHTMLPower checks the power steps the page's script gets.
func TestHTMLPower(t *testing.T) {
	c, err := New(powerRun(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := c.HTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	tag := `<script id="gantt-data" type="application/json">`
	start := strings.Index(page, tag)
	end := strings.Index(page[start:], "</script>")
	var d data
	if err := json.Unmarshal([]byte(page[start+len(tag):start+end]), &d); err != nil {
		t.Fatal(err)
	}
	want := [][4]float64{{0, 5, 300, 400}, {5, 10, 200, 400}, {10, 15, 100, -1}}
	if fmt.Sprint(d.Power) != fmt.Sprint(want) {
		t.Errorf("power %v, want %v", d.Power, want)
	}
	c, err = New(handRun(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := c.HTML(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `"power"`) {
		t.Error("a run without a power file has power data")
	}
}
