# Recipes for schedlab; `just --list` shows them. Install just with `npm install -g rust-just`.

# The README's main job: EASY on the shipped KTH-SP2 trace.
run:
    go run ./cmd/schedlab sim --trace experiments/data/KTH-SP2-1996-2.1-cln.swf.gz --policy easy --out out/kth-easy.parquet

# Every test (the real-trace tests need ../shared/data or $SCHEDLAB_DATA).
test:
    go test -timeout 30m ./...

# Quick tests: skips the runs of every policy on every real trace.
test-short:
    go test -short ./...

# What CI checks besides the tests.
lint:
    test -z "$(gofmt -l $(git ls-files '*.go'))"
    go vet ./...
    go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

# Benchmarks, six runs each, summarised by benchstat.
bench:
    go test -run '^$' -bench . -benchmem -count 6 ./runner ./sdk/... ./workload/... ./results/... | tee out/bench.txt
    go run golang.org/x/perf/cmd/benchstat@latest out/bench.txt

# Plugin binaries of the reference policies, into bin/.
plugins:
    go build -o bin/ ./plugins/fcfs ./plugins/easy ./plugins/conservative

# The npm packages the tests use (DuckDB as an independent Parquet reader).
deps:
    npm ci --prefix .ci/duckdb --no-audit --no-fund
