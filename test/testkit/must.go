package testkit

import (
	. "github.com/onsi/ginkgo/v2" //nolint:staticcheck // the kit is Ginkgo's, like the suites that use it
	. "github.com/onsi/gomega"    //nolint:staticcheck // the kit is Gomega's, like the suites that use it
)

// Must returns v, failing the spec on err: for a value read inside an
// expression.
func Must[T any](v T, err error) T {
	GinkgoHelper()
	Expect(err).NotTo(HaveOccurred())
	return v
}
