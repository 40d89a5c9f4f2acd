package envtestharness

import (
	"net"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// FreeAddress is an address of host ("127.0.0.1", or a node's IP) with a
// port nothing listens on once it returns: for a server a spec starts.
func FreeAddress(host string) string {
	ginkgo.GinkgoHelper()
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	addr := l.Addr().String()
	gomega.Expect(l.Close()).To(gomega.Succeed())
	return addr
}
