package main

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload/lublin"
	"github.com/schedlab/schedlab/workload/swf"
)

// lublinGenerator draws from the Lublin & Feitelson model, every parameter
// of each class a generator parameter CLASS_NAME (batch_serial_prob, ...).
func lublinGenerator() manifest.Generator {
	d := lublin.Published()
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	params := []sdk.Param{
		{Name: "jobs", Type: sdk.Int, Default: strconv.Itoa(d.Jobs), Doc: "number of jobs"},
		{Name: "mode", Type: sdk.String, Default: d.Mode, Choices: []string{lublin.ModeMixed, lublin.ModeBatch, lublin.ModeInteractive, lublin.ModeTypeless},
			Doc: "mixed: batch and interactive streams; batch or interactive: one of them; typeless: the parameters fitted on all jobs"},
		{Name: "scale_sizes", Type: sdk.Bool, Default: strconv.FormatBool(d.ScaleSizes),
			Doc: "shift umed and uhi of every class by log2(processors / 128), so that the largest batch job is the platform"},
		{Name: "start_hour", Type: sdk.Int, Default: strconv.Itoa(d.StartHour), Doc: "hour of the day (0-23) at which the log starts"},
		{Name: "max_log_runtime", Type: sdk.Float, Default: f(d.MaxLogRuntime), Doc: "larger draws of the natural log of a runtime are drawn again"},
		{Name: "max_log_interarrival", Type: sdk.Float, Default: f(d.MaxLogInterarrival), Doc: "larger draws of the natural log of an inter-arrival time are drawn again"},
		{Name: "truncate_clock", Type: sdk.Bool, Default: strconv.FormatBool(d.TruncateClock),
			Doc: "truncate each stream's clock to whole seconds at every arrival, as m_lublin99.c does (the daily cycle drifts)"},
	}
	ds := lublin.DefaultSessions()
	sessions := []sdk.Param{
		{Name: "session_users", Type: sdk.Int, Default: "0",
			Doc: "users of the session model (0: off); with users, the model's arrivals start sessions of jobs, each next job its think time after the previous one's end (SWF fields 17 and 18, which feedback = \"swf\" honours); " +
				"defaults fitted to KTH-SP2's inferred sessions, " + strconv.Itoa(ds.Users) + " users there"},
		{Name: "session_jobs_mean", Type: sdk.Float, Default: f(ds.JobsMean), Doc: "mean jobs of a session (geometric, at least 1)"},
		{Name: "think_median", Type: sdk.Float, Default: f(ds.ThinkMedian), Doc: "median think time in seconds (lognormal)"},
		{Name: "think_sigma", Type: sdk.Float, Default: f(ds.ThinkSigma), Doc: "standard deviation of the log of think times"},
		{Name: "think_max", Type: sdk.Float, Default: f(ds.ThinkMax), Doc: "session threshold in seconds: think times are drawn again until below it"},
		{Name: "session_stretch", Type: sdk.Bool, Default: strconv.FormatBool(ds.StretchArrivals),
			Doc: "multiply the gaps between session starts by session_jobs_mean, keeping about the job rate without sessions"},
	}
	params = append(params, sessions...)
	for _, c := range []struct {
		prefix string
		class  *lublin.Class
	}{{"batch_", &d.Batch}, {"interactive_", &d.Interactive}, {"typeless_", &d.Typeless}} {
		for _, fl := range c.class.Fields() {
			params = append(params, sdk.Param{Name: c.prefix + fl.Name, Type: sdk.Float, Default: f(*fl.Ptr), Doc: fl.Doc})
		}
	}
	return manifest.Generator{
		Name:     "lublin-feitelson",
		Doc:      "rigid parallel jobs of Lublin & Feitelson (JPDC 2003), as their m_lublin99.c draws them: sizes, runtimes by size, arrivals with the daily cycle, batch and interactive",
		Params:   params,
		Optional: []string{"session_users", "session_jobs_mean", "think_median", "think_sigma", "think_max", "session_stretch"},
		Generate: func(p sdk.Params, procs int64, rng *rand.Rand) ([]swf.Record, error) {
			m := lublin.Published()
			m.Jobs, m.Procs, m.Mode = int(p.Int("jobs")), procs, p.String("mode")
			m.ScaleSizes, m.StartHour, m.TruncateClock = p.Bool("scale_sizes"), int(p.Int("start_hour")), p.Bool("truncate_clock")
			m.MaxLogRuntime, m.MaxLogInterarrival = p.Float("max_log_runtime"), p.Float("max_log_interarrival")
			for prefix, class := range map[string]*lublin.Class{"batch_": &m.Batch, "interactive_": &m.Interactive, "typeless_": &m.Typeless} {
				for _, fl := range class.Fields() {
					*fl.Ptr = p.Float(prefix + fl.Name)
				}
			}
			m.Sessions = lublin.Sessions{Users: int(p.Int("session_users")), JobsMean: p.Float("session_jobs_mean"),
				ThinkMedian: p.Float("think_median"), ThinkSigma: p.Float("think_sigma"), ThinkMax: p.Float("think_max"),
				StretchArrivals: p.Bool("session_stretch")}
			if m.Sessions.Users == 0 {
				// A session setting without users would do nothing.
				for _, q := range sessions[1:] {
					if v := p.Values()[q.Name]; v != q.Default {
						return nil, fmt.Errorf("parameter %s = %s needs session_users above 0 (the session model is off)", q.Name, v)
					}
				}
			}
			return m.Generate(rng)
		},
	}
}
