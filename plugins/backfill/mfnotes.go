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
	}
}

// note keeps, after a call whose state (limited: without the jobs it
// rejected) is s and decisions out, the factors of the jobs it started
// and the reason each job of the queue still waits: the first limit that
// holds it (limiter.reason), else Resources when its request is more than
// what is free in total once the call's jobs started, else Priority, the
// rule of the counts of waits (limiter.tally).
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
		ws := n.waits[j.Index]
		if len(ws) == 0 || ws[len(ws)-1].Reason != r {
			n.waits[j.Index] = append(ws, sdk.WaitSpell{From: s.Now, Reason: r})
		}
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
