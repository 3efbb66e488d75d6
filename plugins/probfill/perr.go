package probfill

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// PErr is the probability of the analytic model of Mazalov & Nikitina
// (2012) that backfilling a job delays the head of the queue. Jobs
// complete as a Poisson process of rate lambda (per second); each
// completion frees an exponential number of processors with rate mu. The
// head is short of cq processors now; the candidate needs ci of the free
// ones and runs te seconds. The head is delayed when some completion
// within te frees at least cq processors in all but fewer than cq+ci, the
// paper's
//
//	sum_{n>=1} (mu cq)^(n-1)/(n-1)! (e^(-mu cq) - e^(-mu (cq+ci))) P(N >= n),  N ~ Poisson(lambda te).
//
// Since (mu cq)^(n-1)/(n-1)! e^(-mu cq) is the Poisson(mu cq) probability
// of n-1, the sum is (1 - e^(-mu ci)) P(N > M) with M ~ Poisson(mu cq)
// independent of N: the freed processors form a Poisson process of rate
// mu on the processor axis, the head's shortfall is covered at the
// (M+1)-th completion, and by memorylessness the next point falls short of
// cq+ci with probability 1 - e^(-mu ci). P(N > M) is summed over m with
// Poisson probabilities computed in log space by gonum, and stopped when
// P(M > m), a bound on the rest of the sum, is below 1e-16.
func PErr(lambda, te, mu, cq, ci float64) float64 {
	switch {
	case lambda <= 0 || te <= 0 || mu <= 0 || ci <= 0:
		return 0 // no completion, or nothing to take: no delay
	case cq <= 0:
		// The head fits already; starting the candidate first cannot be
		// weighed with this model. It is not the policy's case.
		return 0
	}
	n := distuv.Poisson{Lambda: lambda * te}
	take := -math.Expm1(-mu * ci) // 1 - e^(-mu ci), exact for small mu ci
	if mu*cq == 0 {
		return take * n.Survival(0)
	}
	m := distuv.Poisson{Lambda: mu * cq}
	var sum, mass float64
	for k := 0.0; ; k++ {
		pk := m.Prob(k)
		// P(N > k) is the survival function at k.
		sum += pk * n.Survival(k)
		mass += pk
		if 1-mass < 1e-16 || k > 1e7 {
			break
		}
		// Past the mode, stop when the remaining M-mass is negligible;
		// 1-mass loses precision, so bound the tail directly as well.
		if k > mu*cq && m.Survival(k) < 1e-16 {
			break
		}
	}
	return take * sum
}
