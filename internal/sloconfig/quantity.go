package sloconfig

import (
	"errors"
	"fmt"
	"math"

	"k8s.io/apimachinery/pkg/api/resource"
)

// parseQuantity parses a Kubernetes quantity, explaining a failure in
// words rather than with apimachinery's regular expression.
// A string longer than maxQuantityLength is refused unparsed: apimachinery
// parses a quantity with big numbers, in time that grows faster than its
// length, and no useful quantity needs more than a few dozen characters.
func parseQuantity(s string) (resource.Quantity, error) {
	if len(s) > maxQuantityLength {
		return resource.Quantity{}, fmt.Errorf("too long for a quantity (%d characters; at most %d)",
			len(s), maxQuantityLength)
	}
	q, err := resource.ParseQuantity(s)
	switch {
	case err == nil:
		return q, nil
	case errors.Is(err, resource.ErrSuffix):
		return q, errors.New("unknown unit suffix (use k, M, G, T, or Ki, Mi, Gi, Ti)")
	case errors.Is(err, resource.ErrNumeric):
		return q, errors.New("the number is out of range")
	default:
		return q, errors.New("not a quantity (write a number with an optional unit, such as 500M or 10G)")
	}
}

const maxQuantityLength = 64

// maxBandwidth is the largest bandwidth the node agent can use: koordlet
// reads it with Quantity.Value() into an int64 (then a uint64), so a larger
// value such as 1e400 would reach it clamped or wrapped.
var maxBandwidth = resource.NewQuantity(math.MaxInt64, resource.DecimalSI)

// checkBandwidth checks a bandwidth quantity (totalNetworkBandwidth, the
// node annotation, a network QoS request or limit): not negative, and no
// larger than maxBandwidth.
func checkBandwidth(q resource.Quantity) error {
	switch {
	case q.Sign() < 0:
		return errors.New("must not be negative")
	case q.Cmp(*maxBandwidth) > 0:
		return fmt.Errorf("must be at most %s, the largest bandwidth the node agent can use", maxBandwidth)
	default:
		return nil
	}
}
