// Command multifactor is the plugin binary of the reference multifactor
// policy (Slurm's priority/multifactor over EASY backfilling); see package
// backfill for what it does. Build it with `go build ./plugins/multifactor`
// and name the binary in a manifest or in `schedlab sim --policy`.
package main

import (
	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/sdk/serve"
)

func main() { serve.Main(backfill.Multifactor()) }
