# Recipes for schedlab; `just --list` shows them. Install just with `npm install -g rust-just`.

# The README's main job: the quickstart campaign on the shipped traces.
run:
    go run ./cmd/schedlab run experiments/quickstart.toml

# One simulation: EASY on the shipped KTH-SP2 trace.
sim:
    go run ./cmd/schedlab sim --trace experiments/data/KTH-SP2-1996-2.1-cln.swf.gz --policy easy --out out/kth-easy.parquet

# Paper 000 (Mazalov & Nikitina 2012): eleven campaigns, then the tables and
# figures of docs/reproductions/mazalov2012.md.
mazalov2012:
    go build -o out/schedlab ./cmd/schedlab
    for m in table table-request tau p te readings fig3 lambda streams headline load; do out/schedlab run --overwrite experiments/mazalov2012/$m.toml; done
    go run ./experiments/mazalov2012/summarize -campaigns out/mazalov2012 -figures docs/reproductions/mazalov2012

# Every test (the real-trace tests need ../shared/data or $SCHEDLAB_DATA).
test:
    go run gotest.tools/gotestsum@v1.13.0 --format pkgname -- -timeout 30m ./... ./sdk/...

# Quick tests: skips the runs of every policy on every real trace.
test-short:
    go test -short ./... ./sdk/...

# What CI checks besides the tests.
lint:
    test -z "$(gofmt -l $(git ls-files '*.go'))"
    go vet ./... ./sdk/...
    go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./... ./sdk/...

# Benchmarks, six runs each, summarised by benchstat.
bench:
    go test -run '^$' -bench . -benchmem -count 6 ./runner ./plugins/... ./sdk/... ./workload/... ./results/... | tee out/bench.txt
    go run golang.org/x/perf/cmd/benchstat@latest out/bench.txt

# Plugin binaries of the reference policies, into bin/.
plugins:
    go build -o bin/ ./plugins/fcfs ./plugins/easy ./plugins/conservative ./plugins/probfill/cmd/probfill

# What the tests use beyond Go: DuckDB (an independent Parquet reader) and
# puppeteer-core from npm, SciPy (a test oracle), Chromium and the MILP solvers
# GLPK and CBC (oracles of sdk/groupsel) from apt.
deps:
    npm ci --prefix .ci/duckdb --no-audit --no-fund
    npm ci --prefix .ci/browser --no-audit --no-fund
    apt-get install -y --no-install-recommends python3-scipy python3-venv chromium glpk-utils coinor-cbc slurmd slurmctld slurm-client munge
    python3 -m venv .venv && .venv/bin/pip install './python[test,gym]'

# EASY and conservative on Lublin-Feitelson workloads with exact, f-model and
# Tsafrir estimates: the tables and figures of docs/workloads.md.
lublin-estimates:
    go build -o out/schedlab ./cmd/schedlab
    out/schedlab run --overwrite experiments/lublin-estimates/campaign.toml
    out/schedlab compare out/lublin-estimates --baseline workload=exact
    out/schedlab compare out/lublin-estimates --baseline policy=easy
    out/schedlab report out/lublin-estimates --baseline workload=exact --figures docs/workloads

# Paper 002: fit a workload model on KTH-SP2, then run EASY and FCFS on the log
# and on traces drawn from the model (docs/reproductions/petunin-models.md).
petunin-models:
    go run ./cmd/schedlab workload analyze experiments/data/KTH-SP2-1996-2.1-cln.swf.gz --by user --out out/petunin-models/analysis
    go run ./cmd/schedlab workload fit experiments/data/KTH-SP2-1996-2.1-cln.swf.gz -o experiments/petunin-models/kth-model.toml
    go run ./cmd/schedlab workload fit experiments/data/KTH-SP2-1996-2.1-cln.swf.gz -o experiments/petunin-models/kth-mean-model.toml --arrivals mean
    go run ./cmd/schedlab workload fit experiments/data/KTH-SP2-1996-2.1-cln.swf.gz -o experiments/petunin-models/kth-work-model.toml --activity work
    go run ./cmd/schedlab workload fit experiments/data/KTH-SP2-1996-2.1-cln.swf.gz -o experiments/petunin-models/kth-limit-model.toml --arrivals mean --k-wall by-limit
    go run ./cmd/schedlab run --overwrite experiments/petunin-models/kth.toml
    go run ./cmd/schedlab compare out/petunin-models/kth --baseline workload=real --metric mean_wait --by policy --no-jobs
    go run ./cmd/schedlab compare out/petunin-models/kth --baseline workload=real --metric utilisation --by policy --no-jobs
    go run ./experiments/petunin-models/load -seeds 100
    go run ./experiments/petunin-models/endings experiments/data/KTH-SP2-1996-2.1-cln.swf.gz ../shared/data/workloads/CEA-Curie-2011-2.1-cln.swf.gz ../shared/data/workloads/HPC2N-2002-2.2-cln.swf.gz ../shared/data/workloads/SDSC-BLUE-2000-4.2-cln.swf.gz

# Paper 003: the grid brokers, C and the idle price, the ship rule, stale forecasts
# (docs/reproductions/kovalenko2006.md).
kovalenko2006:
    go build -o out/schedlab ./cmd/schedlab
    out/schedlab run --overwrite experiments/kovalenko2006/grid.toml
    out/schedlab run --overwrite experiments/kovalenko2006/price.toml
    out/schedlab run --overwrite experiments/kovalenko2006/ship.toml
    out/schedlab run --overwrite experiments/kovalenko2006/stale.toml
    out/schedlab run --overwrite experiments/kovalenko2006/budget.toml
    out/schedlab run --overwrite experiments/kovalenko2006/contention.toml
    out/schedlab run --overwrite experiments/kovalenko2006/pooled.toml
    out/schedlab run --overwrite experiments/kovalenko2006/cycle.toml
    out/schedlab run --overwrite experiments/kovalenko2006/computers.toml
    go run ./experiments/kovalenko2006/summarize -dir out
