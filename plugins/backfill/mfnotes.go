package backfill

import (
	"math"

	"github.com/schedlab/schedlab/sdk"
)

// notesParam declares JobNotes, which keeps multifactor's notes.
func notesParam() sdk.Param {
	return sdk.Param{Name: "JobNotes", Type: sdk.Bool, Default: "true",
		Doc: "keep in the jobs file each job's priority and weighted factors at its start (as sprio shows them) " +
			"and the reasons it waited (as squeue shows them)"}
}

// mfNotes are multifactor's notes (sdk.Noter), by job index: each job's
// priority and weighted factors at its last start, as sprio shows them,
// and the reasons it waited, as squeue shows them.
type mfNotes struct {
	// cols holds the priority, then the weighted factors of
	// multifactor.factors, then the user's normalized shares; NaN for a
	// job that never started.
	cols [8][]float64
	// waits lists each job's reasons, a spell from each change.
	waits [][]sdk.WaitSpell
	// started marks, by index, the jobs started in the call numbered
	// call, so that they are not said to wait.
	started []int64
	call    int64
	// ranFrom is, by index, the start of the job's last run while no
	// spell says so yet (noRun for none): if an outage ends the run, the
	// job waits again and its spells say it ran from then (reasonRunning).
	ranFrom []int64
}

// reasonRunning is the spell of a run an outage ended: the spells of a
// requeued job then cover its whole wait, from its submission to its last
// start, as the wait column does.
const reasonRunning = "Running"

// noRun marks a job without a run no spell tells of.
const noRun = math.MinInt64

// spell adds a spell to job i's waits unless its last has that reason
// already (it goes on).
func (n *mfNotes) spell(i int, from int64, reason string) {
	ws := n.waits[i]
	if len(ws) == 0 || ws[len(ws)-1].Reason != reason {
		n.waits[i] = append(ws, sdk.WaitSpell{From: from, Reason: reason})
	}
}

// noteColumns are the names of mfNotes.cols: sprio's headings, then
// sshare's NormShares.
func noteColumns() [8]string {
	return [8]string{"priority", "age", "fairshare", "jobsize", "partition", "qos", "tres", "normshares"}
}

// grow sizes the notes to job index top.
func (n *mfNotes) grow(top int) {
	for len(n.started) <= top {
		for k := range n.cols {
			n.cols[k] = append(n.cols[k], math.NaN())
		}
		n.waits = append(n.waits, nil)
		n.started = append(n.started, 0)
		n.ranFrom = append(n.ranFrom, noRun)
	}
}

// note keeps, after a call whose state (limited: without the jobs it
// rejected) is s and decisions out, the factors of the jobs it started
// and the reason each job of the queue still waits: the first limit that
// holds it (limiter.reason), else Resources when its request is more than
// what is free in total once the call's jobs started, else Priority, the
// rule of the counts of waits (limiter.tally). A job back in the queue
// after an outage ended its run has a spell Running from that run's
// start.
func (p *multifactor) note(s *sdk.State, out []sdk.Decision, top int) {
	n := p.notes
	n.grow(top)
	n.call++
	for _, d := range out {
		if d.Action != sdk.ActionStart {
			continue
		}
		j := d.Job
		f := p.factors(j, max(p.last, j.Submit))
		for k := range f {
			n.cols[k][j.Index] = f[k]
		}
		n.cols[len(f)][j.Index] = p.tree.normShares(p.tree.user(j.User))
		n.started[j.Index] = n.call
		if r := n.ranFrom[j.Index]; r != noRun {
			// Requeued and started again at once: it ran all along.
			n.spell(j.Index, r, reasonRunning)
		} else {
			n.ranFrom[j.Index] = s.Now
		}
	}
	free := p.easy.room.free
	for _, j := range s.Queue {
		if n.started[j.Index] == n.call {
			continue
		}
		r := ""
		if p.lim != nil {
			r = p.lim.reason(j)
		}
		if r == "" {
			r = reasonPriority
			if !j.Request.Fits(free) {
				r = reasonResources
			}
		}
		if ran := n.ranFrom[j.Index]; ran != noRun {
			// An outage ended its run: back in the queue.
			n.spell(j.Index, ran, reasonRunning)
			n.ranFrom[j.Index] = noRun
		}
		n.spell(j.Index, s.Now, r)
	}
}

// Notes returns the notes of the run, nil with JobNotes = false.
func (p *multifactor) Notes() *sdk.Notes {
	if p.notes == nil {
		return nil
	}
	out := &sdk.Notes{Waits: p.notes.waits}
	for k, name := range noteColumns() {
		out.Columns = append(out.Columns, sdk.NoteColumn{Name: name, Values: p.notes.cols[k]})
	}
	return out
}
