// Command smallfirst is the plugin binary of docs/policies.md.
package main

import (
	"github.com/schedlab/schedlab/sdk/policytest/testdata/smallfirst"
	"github.com/schedlab/schedlab/sdk/serve"
)

func main() { serve.Main(smallfirst.Plugin()) }
