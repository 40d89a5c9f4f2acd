package testkit

import "runtime"

// HeapAfterGC is the heap allocated once garbage is collected: what a
// memory test compares before and after building what it measures.
func HeapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
