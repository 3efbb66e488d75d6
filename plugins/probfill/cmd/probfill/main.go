// Command probfill is the plugin binary of probabilistic backfilling; see
// package probfill. schedlab also serves it as the reference policy
// "probfill", so manifests need not build it.
package main

import (
	"github.com/schedlab/schedlab/plugins/probfill"
	"github.com/schedlab/schedlab/sdk/serve"
)

func main() { serve.Main(probfill.Plugin()) }
