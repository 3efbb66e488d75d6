package results

// PowerRow is what a jobs file says of a job in a run with a power model
// of the nodes (docs/engine.md), in its last column:
//
//   - energy: the joules the job drew, its share of its nodes' idle
//     power by the cores it held plus what its cores in use added, over
//     its run (metrics.JobEnergy); 0 for a job rejected unstarted.
type PowerRow struct {
	Energy float64 `parquet:"energy"`
}

// powerFirstColumn is PowerRow's column, which comes last.
const powerFirstColumn = "energy"

// readPower reads PowerRow's column of a jobs file; nil for a file
// without it.
func readPower(path string, rows int) ([]PowerRow, error) {
	return readGroup[PowerRow](path, rows, powerFirstColumn, "power")
}
