package transcripts

import (
	"path/filepath"
	"testing"
)

func TestMatchMasksWhatChangesAndLetsEllipsisStandForLines(t *testing.T) {
	for _, tc := range []struct {
		name      string
		want, got []string
		ok        bool
	}{
		{"equal", []string{"a b"}, []string{"a b"}, true},
		{"widths", []string{"NAME   AGE", "x      1s"}, []string{"NAME AGE", "x    2m3s"}, true},
		{"times and fingerprints", []string{"configuration 5089928f322f: started 2026-12-02T18:30:49Z"},
			[]string{"configuration 47c96f69d490: started 2026-12-03T01:02:03Z"}, true},
		{"ports", []string{"http://127.0.0.1:33959/metrics"}, []string{"http://127.0.0.1:1234/metrics"}, true},
		{"a different word", []string{"paused: no"}, []string{"paused: yes"}, false},
		{"a different count", []string{"reached: 3 of 40 nodes"}, []string{"reached: 4 of 40 nodes"}, false},
		{"ellipsis", []string{"a", "...", "z"}, []string{"a", "b", "c", "z"}, true},
		{"ellipsis of nothing", []string{"a", "...", "z"}, []string{"a", "z"}, true},
		{"a missing line", []string{"a", "b"}, []string{"a"}, false},
		{"an extra line", []string{"a"}, []string{"a", "b"}, false},
		{"trailing blank lines", []string{"a", ""}, []string{"a"}, true},
	} {
		if got := matches(tc.want, tc.got); got != tc.ok {
			t.Errorf("%s: matches(%q, %q) = %v, want %v", tc.name, tc.want, tc.got, got, tc.ok)
		}
	}
}

// The pages make test-docs runs carry a run-local block first and commands
// after it; checked here too, in make test, without a control plane.
func TestThePagesCarryTranscripts(t *testing.T) {
	for _, page := range pages {
		blocks, err := readBlocks(filepath.Join("..", "..", page))
		if err != nil {
			t.Fatal(err)
		}
		if len(blocks) < 2 || blocks[0].kind != runLocalKind || len(blocks[1].commands) == 0 {
			t.Errorf("%s: want a run-local transcript block, then command blocks; got %d blocks", page, len(blocks))
		}
	}
}
