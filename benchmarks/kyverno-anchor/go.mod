module tally.dev/benchmarks/kyverno-anchor

go 1.21
