package results

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// PowerRow is what a jobs file says of a job in a run with a power model
// of the nodes (docs/engine.md), in its last column:
//
//   - energy: the joules the job drew, its share of its nodes' idle
//     power by the cores it held plus what its cores in use added, over
//     its run (metrics.JobEnergy, and metrics.TableEnergy on nodes with a
//     busy power table); 0 for a job rejected unstarted.
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

// PowerStepRow is one row of a run's power file (PowerSeriesPath): the
// platform's draw over [start, end), in the jobs file's seconds, which is
// constant there. Its watts by what draws them are the parts of the run's
// energy metrics (energy_static and so on): summed in row order, each
// part's watts times (end - start) is its energy exactly, and watts, their
// sum, integrates to the energy within rounding.
//
//   - cap_watts: the power cap in effect, NULL for none.
//   - nodes_on, nodes_off, nodes_switching_on, nodes_switching_off: the
//     nodes in each power mode; cores_in_use: the cores jobs' tasks use.
type PowerStepRow struct {
	Start             int64    `parquet:"start,delta"`
	End               int64    `parquet:"end,delta"`
	Watts             float64  `parquet:"watts"`
	StaticWatts       float64  `parquet:"static_watts"`
	DynamicWatts      float64  `parquet:"dynamic_watts"`
	OffWatts          float64  `parquet:"off_watts"`
	SwitchingWatts    float64  `parquet:"switching_watts"`
	CapWatts          *float64 `parquet:"cap_watts,optional"`
	NodesOn           int64    `parquet:"nodes_on,delta"`
	NodesOff          int64    `parquet:"nodes_off,delta"`
	NodesSwitchingOn  int64    `parquet:"nodes_switching_on,delta"`
	NodesSwitchingOff int64    `parquet:"nodes_switching_off,delta"`
	CoresInUse        int64    `parquet:"cores_in_use,delta"`
}

// PowerDir is the folder of a campaign that holds the power file of each
// completed run with a power model, named by run key.
const PowerDir = "power"

// CampaignPowerPath is the power file of the run with the given key in the
// campaign folder dir.
func CampaignPowerPath(dir, key string) string {
	return filepath.Join(dir, PowerDir, key+".parquet")
}

// PowerSeriesPath is the power file of the run whose jobs file is at
// jobs: power/KEY.parquet beside the jobs folder of a campaign's
// jobs/KEY.parquet, else NAME.power.parquet beside NAME.parquet (schedlab
// sim --out).
func PowerSeriesPath(jobs string) string {
	dir, base := filepath.Split(jobs)
	if d := filepath.Clean(dir); filepath.Base(d) == JobsDir {
		// A campaign folder has its lock file from its start.
		if _, err := os.Stat(filepath.Join(filepath.Dir(d), LockFile)); err == nil {
			return filepath.Join(filepath.Dir(d), PowerDir, base)
		}
	}
	return strings.TrimSuffix(jobs, ".parquet") + ".power.parquet"
}

// WritePowerSeries atomically writes a run's power file at path, replacing
// any file there.
func WritePowerSeries(path string, rows []PowerStepRow, meta Metadata) error {
	if err := meta.validate(); err != nil {
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	return WriteFileAtomic(path, func(w io.Writer) error {
		pw := parquet.NewGenericWriter[PowerStepRow](w, writerOptions(meta)...)
		for len(rows) > 0 {
			n := min(len(rows), MaxRowsPerRowGroup)
			if _, err := pw.Write(rows[:n]); err != nil {
				return fmt.Errorf("write rows: %w", err)
			}
			rows = rows[n:]
		}
		if err := pw.Close(); err != nil {
			return fmt.Errorf("finish file: %w", err)
		}
		return nil
	})
}

// ReadPowerSeries reads a power file written by WritePowerSeries: its
// rows, in order, and its footer.
func ReadPowerSeries(path string) ([]PowerStepRow, Metadata, error) {
	f, pf, err := openParquet(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if err := sameColumns(pf.Schema(), parquet.SchemaOf(PowerStepRow{})); err != nil {
		return nil, nil, fmt.Errorf("results: read %s: not a power file: %w", path, err)
	}
	rows, err := readRows[PowerStepRow](pf)
	if err != nil {
		return nil, nil, fmt.Errorf("results: read %s: %w", path, err)
	}
	return rows, metadataOf(pf), nil
}
