package sim

import (
	"fmt"

	"github.com/schedlab/schedlab/sdk"
)

// CheckNotes reports policy notes (sdk.Noter) that do not fit a run's
// records, indexed alike, whose job of index i was submitted (in the run:
// with feedback, its simulated submission) at submit(i): notes of another
// number of jobs or badly formed (sdk.Notes.Check), or a job's wait
// reason from before its submission or from its start on (a job that
// runs no longer waits; with outages, its last start).
func CheckNotes(n *sdk.Notes, recs []Record, submit func(i int) int64) error {
	if err := n.Check(len(recs)); err != nil {
		return err
	}
	for i, ws := range n.Waits {
		if len(ws) == 0 {
			continue
		}
		first, last := ws[0].From, ws[len(ws)-1].From
		if first < submit(i) || last >= recs[i].Start {
			return fmt.Errorf("%w: job index %d: waits from %d to %d, outside its wait from %d to %d",
				sdk.ErrNotes, i, first, last, submit(i), recs[i].Start)
		}
	}
	return nil
}
