package storedslo

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The annotation vouches for the spec only at the generation it names.
func TestVouchedDigest(t *testing.T) {
	at := func(generation int64, value string) *metav1.ObjectMeta {
		m := &metav1.ObjectMeta{Generation: generation}
		if value != "" {
			m.Annotations = map[string]string{SpecDigestAnnotation: value}
		}
		return m
	}
	for name, tt := range map[string]struct {
		meta *metav1.ObjectMeta
		want string
	}{
		"the generation written":          {at(3, FormatSpecDigest(3, "d1")), "d1"},
		"a spec change since (hand edit)": {at(4, FormatSpecDigest(3, "d1")), ""},
		"no annotation":                   {at(3, ""), ""},
		"malformed":                       {at(3, "d1"), ""},
		"no digest":                       {at(3, "3/"), ""},
	} {
		t.Run(name, func(t *testing.T) {
			if got := VouchedDigest(tt.meta); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// The written-at annotation has nanoseconds, and reads back; a value in
// milliseconds or seconds, as earlier versions wrote it, reads too.
func TestWrittenAtHasNanoseconds(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 123456789, time.FixedZone("x", 3600))
	value := FormatWrittenAt(at)
	if value != "2026-12-01T11:00:00.123456789Z" {
		t.Fatalf("FormatWrittenAt: %s", value)
	}
	if got := ParseWrittenAt(map[string]string{SpecWrittenAnnotation: value}); !got.Equal(at) {
		t.Errorf("read back %s", got)
	}
	millis := map[string]string{SpecWrittenAnnotation: "2026-12-01T11:00:00.123Z"}
	if got := ParseWrittenAt(millis); !got.Equal(at.Truncate(time.Millisecond)) {
		t.Errorf("milliseconds read as %s", got)
	}
	seconds := map[string]string{SpecWrittenAnnotation: "2026-12-01T11:00:00Z"}
	if got := ParseWrittenAt(seconds); !got.Equal(at.Truncate(time.Second)) {
		t.Errorf("seconds read as %s", got)
	}
}

// The configuration annotation reads back as written; a revision not
// known is left out and read as 0, a number that is not one as not known.
func TestConfigurationAnnotationReadsBackAsWritten(t *testing.T) {
	const short = "9682846ff985"
	cases := []struct {
		from  string
		under int64
		value string
	}{{short, 7, short + "/7"}, {short, 0, short}}
	for _, c := range cases {
		if got := FormatConfiguration(c.from, c.under); got != c.value {
			t.Errorf("FormatConfiguration(%q, %d) = %q, want %q", c.from, c.under, got, c.value)
		}
		if from, under := ParseConfiguration(c.value); from != c.from || under != c.under {
			t.Errorf("ParseConfiguration(%q) = %q, %d", c.value, from, under)
		}
	}
	if from, under := ParseConfiguration(short + "/x"); from != short || under != 0 {
		t.Errorf("a revision that is not a number: %q, %d", from, under)
	}
}
