//go:build linux

package main

import (
	"syscall"
	"unsafe"
)

// clockName names what threadTime measures, for the output lines.
const clockName = "thread-cpu"

// clockThreadCPUTimeID is CLOCK_THREAD_CPUTIME_ID of <time.h> on Linux.
const clockThreadCPUTimeID = 3

// threadTime is the CPU time, in nanoseconds, consumed so far by the calling OS thread. The caller
// holds runtime.LockOSThread, so that thread runs only the merging goroutine: the time excludes
// the waits for a core and the garbage collector's background workers (which run on other
// threads), and includes the mark assists the merge itself pays, like the JVM's thread CPU time.
func threadTime() int64 {
	var ts syscall.Timespec
	_, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID,
		uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		panic("clock_gettime(CLOCK_THREAD_CPUTIME_ID): " + errno.Error())
	}
	return ts.Nano()
}
