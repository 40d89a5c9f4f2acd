package sloconfig

import (
	"errors"

	"k8s.io/apimachinery/pkg/api/resource"
)

// parseQuantity parses a Kubernetes quantity, explaining a failure in
// words rather than with apimachinery's regular expression.
func parseQuantity(s string) (resource.Quantity, error) {
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
