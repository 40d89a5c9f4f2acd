package sloconfig

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// hostileSize is the size of each hostile document: the apiserver's limit
// on a ConfigMap.
const hostileSize = 1 << 20

// hostileDocuments are ConfigMap values built to make loading slow or big.
func hostileDocuments() map[string]string {
	fill := func(prefix, item, suffix string) string {
		var b strings.Builder
		b.WriteString(prefix)
		for i := 0; b.Len() < hostileSize-len(suffix)-len(item)-16; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(strings.ReplaceAll(item, "%d", fmt.Sprint(i)))
		}
		b.WriteString(suffix)
		return b.String()
	}
	deep := strings.Repeat(`{"a":`, 60) + "1" + strings.Repeat("}", 60)
	return map[string]string{
		"deep nesting, repeated": fill(`{"clusterStrategy": {"x": [`, deep, `]}}`),
		"too deep": `{"clusterStrategy": ` +
			strings.Repeat("[", hostileSize/2) + strings.Repeat("]", hostileSize/2-25) + "}",
		"a huge array of nulls": fill(`{"clusterStrategy": {"beClass": {"blkioQOS": {"blocks": [`, `null`, `]}}}}`),
		"a huge array of blocks": fill(`{"clusterStrategy": {"beClass": {"blkioQOS": {"blocks": [`,
			`{"name": "d%d", "type": "device", "ioCfg": {"readIOPS": -1}}`, `]}}}}`),
		"a huge key":           `{"clusterStrategy": {"` + strings.Repeat("k", hostileSize-40) + `": 1}}`,
		"many unknown fields":  fill(`{"clusterStrategy": {`, `"unknownField%d": 0`, `}}`),
		"many misspelt fields": fill(`{"clusterStrategy": {`, `"cpuSupressThresholdPercnt": %d`, `}}`),
		"many node strategies": fill(`{"nodeStrategies": [`,
			`{"name": "s%d", "nodeSelector": {"matchLabels": {"pool": "p%d"}}, "cpuBurstPercent": 0}`, `]}`),
		"many duplicate fields": fill(`{"clusterStrategy": {`, `"lsClass": {"cpuQOS": {"groupIdentity": 1}}`, `}}`),
		"many map keys":         fill(`{"clusterStrategy": {"schedFeatures": {`, `"f%d": true`, `}}}`),
	}
}

// TestHostileDocumentsLoadInBoundedTimeAndMemory loads each hostile
// document into every key and prints what it cost, so that a change that
// makes one of them quadratic shows. It asserts only that the report stays
// small (no timing assertions: the machine is shared).
func TestHostileDocumentsLoadInBoundedTimeAndMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 10 MiB of hostile input")
	}
	for name, doc := range hostileDocuments() {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			c := Load(map[string]string{string(KeySystem): doc, string(KeyResourceQOS): doc, string(KeyCPUBurst): doc}, nil)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			size := 0
			lines := 0
			for _, r := range c.Reports() {
				for _, l := range append(r.Messages(), r.WarningMessages()...) {
					size += len(l)
					lines++
				}
			}
			t.Logf("%-24s 3 keys x %d KiB: %8s, %6.1f MiB allocated, report %d lines, %d KiB",
				name, len(doc)>>10, elapsed.Round(time.Millisecond),
				float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), lines, size>>10)
			if size > 64<<10 {
				t.Errorf("the report of a %d KiB document is %d KiB", len(doc)>>10, size>>10)
			}
		})
	}
}

// A 20 MiB field name once took 30 s in the did-you-mean search and came
// back as a 20 MiB warning; so did a huge value in an error.
func TestHugeNamesAndValuesAreEchoedShort(t *testing.T) {
	huge := strings.Repeat("x", 2<<20) // twice the largest ConfigMap
	c := Load(map[string]string{
		string(KeySystem):   `{"clusterStrategy": {"` + huge + `": 1}}`,
		string(KeyCPUBurst): `{"clusterStrategy": {"policy": "` + huge + `"}}`,
		string(KeyResourceQOS): `{"nodeStrategies": [{"name": "` + huge + `", ` +
			`"nodeSelector": {"matchLabels": {"` + huge + `": "a"}}}],` +
			`"clusterStrategy": {"lsClass": {"networkQOS": {"ingressLimit": "1` + strings.Repeat("0", 2<<20) + `"}}}}`,
	}, nil)
	var lines []string
	for _, r := range c.Reports() {
		lines = append(append(lines, r.Messages()...), r.WarningMessages()...)
	}
	if len(lines) < 4 {
		t.Fatalf("expected a warning and three errors, got %q", lines)
	}
	for _, l := range lines {
		if len(l) > 600 || (!strings.Contains(l, " bytes)") && !strings.Contains(l, "\"1000")) {
			t.Errorf("%d-byte line without the size marker: %.300s", len(l), l)
		}
	}
}

func TestEcho(t *testing.T) {
	if got := echo("short"); got != "short" {
		t.Errorf("echo(short) = %q", got)
	}
	long := strings.Repeat("é", 100) // 200 bytes: the cut must fall between characters
	got := echo(long)
	if want := strings.Repeat("é", 50) + "…(200 bytes)"; got != want {
		t.Errorf("echo = %q, want %q", got, want)
	}
}

// Positions are counted on from the previous one; asked in any order they
// must still be right.
func TestPositionsInAnyOrder(t *testing.T) {
	d := &document{data: []byte("{\n  \"é\": 1,\n\n  \"b\": [1, 2]\n}")}
	naive := func(offset int) string {
		before := string(d.data[:offset])
		line := strings.Count(before, "\n") + 1
		column := len([]rune(before[strings.LastIndexByte(before, '\n')+1:])) + 1
		return fmt.Sprintf("line %d, column %d", line, column)
	}
	for _, offset := range []int{20, 3, 3, 0, 27, 9, 14, 6, len(d.data)} {
		if got, want := d.position(int64(offset)), naive(offset); got != want {
			t.Errorf("position(%d) = %s, want %s", offset, got, want)
		}
	}
}
