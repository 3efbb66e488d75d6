// Command groupsel is the plugin binary of the group-selection policy; see
// package groupsel. schedlab also serves it as the reference policy
// "groupsel", so manifests need not build it.
package main

import (
	"github.com/schedlab/schedlab/plugins/groupsel"
	"github.com/schedlab/schedlab/sdk/serve"
)

func main() { serve.Main(groupsel.Plugin()) }
