"""Reference values for the results/stats tests, computed with SciPy/NumPy.

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
    import scipy.stats as st
except ImportError as e:  # pragma: no cover - reported by the Go test
    print(f"oracle: {e}", file=sys.stderr)
    sys.exit(3)

# SciPy warns about small samples for the normal approximation and about
# switching methods; the Go test states what it compares, so keep stderr for
# real errors.
warnings.simplefilter("ignore")


def num(x):
    x = float(x)
    return None if math.isnan(x) else x


def describe(c):
    xs = np.asarray(c["xs"], dtype=float)
    level = c["level"]
    n = len(xs)
    mean = np.mean(xs)
    sd = np.std(xs, ddof=1)
    se = st.sem(xs)
    lo, hi = st.t.interval(level, n - 1, loc=mean, scale=se)
    # SciPy 1.10's t.ppf comes from cdflib's iterative search and is only
    # good to about 1e-9 relative (2.3e-9 at 4 degrees of freedom), while
    # its t.cdf (Cephes) is good to rounding: polish the quantile with
    # Newton steps on t.cdf for a reference good to ~1e-14.
    p = (1 + level) / 2
    q = st.t.ppf(p, n - 1)
    for _ in range(3):
        q -= (st.t.cdf(q, n - 1) - p) / st.t.pdf(q, n - 1)
    return {"mean": num(mean), "sd": num(sd), "se": num(se),
            "min": num(np.min(xs)), "median": num(np.median(xs)),
            "max": num(np.max(xs)), "lo": num(lo), "hi": num(hi),
            "lo_polished": num(mean - q * se), "hi_polished": num(mean + q * se)}


def wilcoxon(c):
    d = np.asarray(c["d"], dtype=float)
    out = {}
    auto = st.wilcoxon(d)  # method="auto", zero_method="wilcox", no correction
    out["auto"] = {"statistic": num(auto.statistic), "pvalue": num(auto.pvalue)}
    # zstatistic is only reported when method="approx" is asked for.
    approx = st.wilcoxon(d, method="approx")
    out["approx"] = {"statistic": num(approx.statistic),
                     "pvalue": num(approx.pvalue), "z": num(approx.zstatistic)}
    if not np.any(d == 0):
        ex = st.wilcoxon(d, method="exact")
        out["exact"] = {"statistic": num(ex.statistic), "pvalue": num(ex.pvalue)}
    # Rank-biserial and Cohen's dz from SciPy's ranks and NumPy's moments.
    nz = d[d != 0]
    r = st.rankdata(np.abs(nz))
    wplus, wminus = r[nz > 0].sum(), r[nz < 0].sum()
    out["wplus"] = num(wplus)
    out["rank_biserial"] = num((wplus - wminus) / (wplus + wminus))
    out["dz"] = num(np.mean(d) / np.std(d, ddof=1))
    return out


def ecdf(c):
    xs = np.asarray(c["xs"], dtype=float)
    at = np.asarray(c["at"], dtype=float)
    if hasattr(st, "ecdf"):  # SciPy >= 1.11
        cdf = st.ecdf(xs).cdf
        return {"source": "scipy.stats.ecdf", "x": cdf.quantiles.tolist(),
                "p": cdf.probabilities.tolist(), "at": cdf.evaluate(at).tolist()}
    s = np.sort(xs)
    x = np.unique(s)
    p = np.searchsorted(s, x, side="right") / len(s)
    a = np.searchsorted(s, at, side="right") / len(s)
    return {"source": "numpy.searchsorted", "x": x.tolist(), "p": p.tolist(),
            "at": a.tolist()}


def quantile(c):
    q = np.quantile(np.asarray(c["xs"], dtype=float), c["ps"], method="linear")
    return [num(v) for v in q]


STATS = {
    "mean": lambda x, axis: np.mean(x, axis=axis),
    "median": lambda x, axis: np.median(x, axis=axis),
    "sd": lambda x, axis: np.std(x, ddof=1, axis=axis),
}


def bootstrap(c):
    res = st.bootstrap((np.asarray(c["xs"], dtype=float),), STATS[c["stat"]],
                       confidence_level=c["level"], n_resamples=c["resamples"],
                       method=c["method"], random_state=c["seed"])
    ci = res.confidence_interval
    out = {"lo": num(ci.low), "hi": num(ci.high)}
    if c.get("distribution"):
        out["distribution"] = res.bootstrap_distribution.tolist()
    return out


KINDS = {"describe": describe, "wilcoxon": wilcoxon, "ecdf": ecdf,
         "quantile": quantile, "bootstrap": bootstrap}

req = json.load(sys.stdin)
json.dump({"versions": {"scipy": scipy.__version__, "numpy": np.__version__,
                        "python": sys.version.split()[0]},
           "results": [KINDS[req["kind"]](c) for c in req["cases"]]},
          sys.stdout)
