package plugin

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/klog/v2"
)

// captureKlog sends klog's lines, which go to the process's stderr, to a
// buffer until the spec ends, and sets the verbosity back to 0 then. The
// buffer is locked: client-go's watchers log from their own goroutines,
// also after the command returned.
func captureKlog() *lockedBuffer {
	logged := &lockedBuffer{}
	klog.LogToStderr(false)
	klog.SetOutput(logged)
	DeferCleanup(func() {
		var quiet klog.Level
		Expect(quiet.Set("0")).To(Succeed())
		klog.LogToStderr(true)
	})
	return logged
}

var _ = Describe("-v", func() {
	// The request rollout history sends: its revisions, listed.
	const revisionsPath = "/apis/apps/v1/namespaces/koordinator-system/controllerrevisions"

	It("logs each request at -v=6, before the command as after it, as kubectl does", func() {
		logged := captureKlog()
		for _, args := range [][]string{
			{"-v=6", rolloutCmd, historyCmd},
			{rolloutCmd, historyCmd, "--v", "6"},
		} {
			logged.Reset()
			code, _, stderr := runAgainst(args...)
			Expect(code).To(Equal(ExitOK), stderr)
			Expect(logged.String()).To(MatchRegexp(`(?m)^I\d{4} .*"GET".*`+revisionsPath+`.*200 OK`), "%v", args)
		}
	})

	It("logs nothing by default", func() {
		logged := captureKlog()
		code, _, stderr := runAgainst(rolloutCmd, historyCmd)
		Expect(code).To(Equal(ExitOK), stderr)
		Expect(logged.String()).To(BeEmpty())
	})
})
