package ecosystem

import (
	"testing"

	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

// TestKstatus: kstatus (Flux's health checks, kpt, cli-utils) reads each
// kind of status as docs/argocd-health.md#kstatus-flux-kpt-cli-utils says:
// done is Current, moving or paused InProgress, waiting for an operator
// Failed, a spec not observed yet InProgress.
func TestKstatus(t *testing.T) {
	for _, r := range recordings() {
		t.Run(r.name, func(t *testing.T) {
			u, o := r.object(t)
			res, err := status.Compute(u)
			if err != nil {
				t.Fatalf("status.Compute: %v", err)
			}
			if res.Status != r.kstatus {
				t.Errorf("kstatus %s (%q), want %s", res.Status, res.Message, r.kstatus)
			}
			// Failed says why in Stalled's words: the controller's message.
			if r.kstatus == status.FailedStatus && res.Message != r.wantMessage(t, o) {
				t.Errorf("kstatus message %q, want Stalled's %q", res.Message, r.wantMessage(t, o))
			}
		})
	}
}
