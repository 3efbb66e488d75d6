"""Reference values for the results/fit tests, computed with SciPy/NumPy.

Reads {"kind": KIND, "cases": [...]} as JSON on standard input and writes
{"versions": {...}, "results": [...]} with one result per case. NaN results
are written as null, since JSON has no NaN. Exits with status 3 when NumPy or
SciPy cannot be imported, so that the Go test can tell "no oracle here" from
a failing script.
"""
import json
import math
import sys
import warnings

try:
    import numpy as np
    import scipy
    import scipy.optimize as optimize
    import scipy.special as sc
    import scipy.stats as st
except ImportError as e:  # pragma: no cover - reported by the Go test
    print(f"oracle: {e}", file=sys.stderr)
    sys.exit(3)

# SciPy's generic fit (weibull_min) warns when its optimizer stops on its
# iteration limit; the Go test compares the outcome, so keep stderr for real
# errors.
warnings.simplefilter("ignore")


def num(x):
    x = float(x)
    return None if math.isnan(x) else x


def nums(xs):
    return [num(x) for x in xs]


# Each family: the SciPy distribution, how to turn fit(x, floc=0)'s output
# into our parameters, and how to freeze it from our parameters.
FAMILIES = {
    "exponential": (
        st.expon,
        lambda r: {"rate": 1 / r[1]},
        lambda p: st.expon(scale=1 / p["rate"]),
    ),
    "lognormal": (
        st.lognorm,
        lambda r: {"mu": math.log(r[2]), "sigma": r[0]},
        lambda p: st.lognorm(p["sigma"], scale=math.exp(p["mu"])),
    ),
    "weibull": (
        st.weibull_min,
        lambda r: {"k": r[0], "lambda": r[2]},
        lambda p: st.weibull_min(p["k"], scale=p["lambda"]),
    ),
    "gamma": (
        st.gamma,
        lambda r: {"k": r[0], "theta": r[2]},
        lambda p: st.gamma(p["k"], scale=p["theta"]),
    ),
}


def weibull_profile(x):
    """The Weibull MLE from its profile equation, solved by brentq.

    weibull_min.fit has only SciPy's generic Nelder-Mead fit, good to
    about 1e-6; this solves the textbook equation for the shape,
    sum(x^k ln x)/sum(x^k) - 1/k - mean(ln x) = 0 (with x^k scaled by
    max(x)^k against overflow), to rounding, for a tighter check.
    """
    y = np.log(x)
    ymax, ybar = y.max(), y.mean()

    def g(k):
        w = np.exp(k * (y - ymax))
        return np.sum(w * y) / np.sum(w) - 1 / k - ybar

    lo, hi = 1.0, 1.0
    while g(lo) > 0:
        lo /= 2
    while g(hi) < 0:
        hi *= 2
    k = optimize.brentq(g, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps,
                        maxiter=1000)
    lam = np.exp(ymax + np.log(np.mean(np.exp(k * (y - ymax)))) / k)
    return {"k": num(k), "lambda": num(lam)}


def fit(c):
    """Fits every family with SciPy, and evaluates ours with SciPy."""
    x = np.asarray(c["xs"], dtype=float)
    at = np.asarray(c["at"], dtype=float)
    ps = np.asarray(c["ps"], dtype=float)
    out = {}
    for fam, ours in c["fits"].items():
        dist, params, freeze = FAMILIES[fam]
        r = dist.fit(x, floc=0)
        if r[-2] != 0:
            raise SystemExit(f"{fam}: fit returned loc {r[-2]}")
        theirs = params(r)
        mine = freeze(ours)
        out[fam] = {
            "params": {k: num(v) for k, v in theirs.items()},
            "loglik_scipy": num(np.sum(freeze(theirs).logpdf(x))),
            "loglik_ours": num(np.sum(mine.logpdf(x))),
            "ks": num(st.kstest(x, mine.cdf).statistic),
            "cvm": num(st.cramervonmises(x, mine.cdf).statistic),
            "cdf": nums(mine.cdf(at)),
            "ppf": nums(mine.ppf(ps)),
        }
        if fam == "weibull":
            out[fam]["profile"] = weibull_profile(x)
    return out


def special(c):
    """ln k − ψ(k) and 1/k − ψ'(k) as SciPy computes them."""
    k = float(c["k"])
    return {"lmd": num(math.log(k) - sc.digamma(k)),
            "dlmd": num(1 / k - sc.polygamma(1, k)),
            "digamma": num(sc.digamma(k)),
            "trigamma": num(sc.polygamma(1, k))}


KINDS = {"fit": fit, "special": special}

req = json.load(sys.stdin)
json.dump({"versions": {"scipy": scipy.__version__, "numpy": np.__version__,
                        "python": sys.version.split()[0]},
           "results": [KINDS[req["kind"]](c) for c in req["cases"]]},
          sys.stdout)
