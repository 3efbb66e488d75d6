// Command noisy is a test plugin that wrongly prints to standard output
// before the plugin handshake.
package main

import (
	"fmt"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/sdk/serve"
)

func main() {
	fmt.Println("hello from a plugin that should not print here")
	serve.Main(backfill.FCFS())
}
