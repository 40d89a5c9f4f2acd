package rollout

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
)

// fullStatus is a Status with every field, and every field of its parts,
// set to a value other than its zero; times are in seconds, UTC, as the API
// keeps them.
func fullStatus() Status {
	at := func(minutes int) time.Time { return condStart.Add(time.Duration(minutes) * time.Minute) }
	return Status{
		Fingerprint: condTarget, RolloutKey: "k1-fingerprint", Phase: PhaseHalted,
		Started: at(0), Completed: at(30),
		Step: 3, Steps: 5, StepSize: 10, Reached: 23, PendingAtStart: 40, Pending: 17, CanariesPending: 1,
		Paused: true, StrategyInvalid: true, NextStep: at(31), AwaitingWrites: true,
		Health: &StatusHealth{
			Gate: "maxUnhealthyNodes 25%; nodeConditions Ready", MaxUnhealthyNodes: "25%",
			Allowed: -1, AllowedOf: 23, Unhealthy: 52, Tolerated: 2,
			Nodes:   []UnhealthyNode{{Name: "canary-5", Signal: "Ready=Unknown since 18:41:02"}, {Name: "node-7"}},
			Omitted: 50, HaltedAt: at(12), HaltedKey: "k0-fingerprint", Revert: true,
			Metrics: []StatusMetric{
				{Name: "p99", Failures: 3, NoData: 1, Seen: "0.8 > 0.5", At: at(11), Failed: true, Errors: 2,
					Inconclusive: true, DryRun: true},
				{Name: "errors", Seen: "no data"},
			},
			Before: 4, BeforeNodes: []UnhealthyNode{{Name: "node-3", Signal: "DiskPressure=True"}},
		},
		Withheld: &Withheld{Fingerprint: condWithheld, Revision: 7, HaltedAt: at(-60),
			Summary: condSummary, Reverted: true},
		Updated: at(32),
	}
}

// TestStatusAPIRoundTrip: what the plugin reads back from a NodeSLORollout
// is the Status the controller wrote, directly and through the JSON the
// apiserver stores.
func TestStatusAPIRoundTrip(t *testing.T) {
	s := fullStatus()
	assertEveryFieldSet(t, reflect.ValueOf(s), "Status")
	a := s.ToAPI()
	if got := StatusFromAPI(&a); !reflect.DeepEqual(got, s) {
		t.Errorf("StatusFromAPI(ToAPI(s)):\n%s\nwant\n%s", got.Encode(), s.Encode())
	}
	stored, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var read nodeslov1alpha1.NodeSLORolloutStatus
	if err := json.Unmarshal(stored, &read); err != nil {
		t.Fatal(err)
	}
	if got := StatusFromAPI(&read); !reflect.DeepEqual(got, s) {
		t.Errorf("StatusFromAPI of the stored JSON %s:\n%s\nwant\n%s", stored, got.Encode(), s.Encode())
	}

	// The zero parts stay absent: no health, nothing withheld, no times.
	bare := Status{Fingerprint: condTarget, Phase: PhaseAllAtOnce}
	a = bare.ToAPI()
	if a.Health != nil || a.Withheld != nil || a.Started != nil || a.Updated != nil {
		t.Errorf("ToAPI of %+v sets parts that are zero: %+v", bare, a)
	}
	if got := StatusFromAPI(&a); !reflect.DeepEqual(got, bare) {
		t.Errorf("StatusFromAPI(ToAPI(%+v)) = %+v", bare, got)
	}
}

// TestStatusAPITimes: the API keeps seconds, in UTC.
func TestStatusAPITimes(t *testing.T) {
	s := fullStatus()
	east := time.FixedZone("UTC+8", 8*3600)
	s.Updated = s.Updated.Add(999 * time.Millisecond).In(east)
	a := s.ToAPI()
	if want := fullStatus().Updated; !a.Updated.Time.Equal(want) || a.Updated.Location() != time.UTC {
		t.Errorf("updated %v, want %v", a.Updated, want)
	}
}

// assertEveryFieldSet fails for each field of v, at any depth, that holds
// its zero value (of a slice, its first element is looked into), so that a
// field added to Status later is added to fullStatus too, and its round
// trip tested.
func assertEveryFieldSet(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	if v.IsZero() {
		t.Errorf("%s is zero in fullStatus: set it, so that its round trip is tested", path)
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		assertEveryFieldSet(t, v.Elem(), path)
	case reflect.Slice:
		assertEveryFieldSet(t, v.Index(0), path+"[0]")
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			return
		}
		for i := range v.NumField() {
			assertEveryFieldSet(t, v.Field(i), path+"."+v.Type().Field(i).Name)
		}
	default:
	}
}
