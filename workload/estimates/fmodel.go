package estimates

import (
	"math"
	"math/rand/v2"
)

// FModel returns an estimate of the f-model common in backfilling studies
// (e.g. Mu'alem & Feitelson, 2001): the runtime times a factor drawn
// uniformly in [1, f], rounded up to whole seconds, so never below the
// runtime. f = 1 gives exact estimates.
func FModel(runtime int64, f float64, rng *rand.Rand) int64 {
	return max(runtime, int64(math.Ceil(float64(runtime)*(1+rng.Float64()*(f-1)))))
}
