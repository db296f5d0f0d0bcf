//go:build !linux

package main

import "time"

// clockName names what threadTime measures: off Linux there is no cheap per-thread CPU clock in
// the standard library, so the anchor falls back on wall-clock time (run it with GOMAXPROCS=1).
const clockName = "wall"

var origin = time.Now()

func threadTime() int64 {
	return int64(time.Since(origin))
}
