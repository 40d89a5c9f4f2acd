package envtestharness

import (
	"github.com/onsi/ginkgo/v2"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// LogToGinkgo sends controller-runtime's log (the manager's) to the
// GinkgoWriter: shown for a failed spec, or always with -v.
func LogToGinkgo() {
	logf.SetLogger(zap.New(zap.WriteTo(ginkgo.GinkgoWriter), zap.UseDevMode(true)))
}
