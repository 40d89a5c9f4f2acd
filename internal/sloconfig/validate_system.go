package sloconfig

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// validateSystem checks systemStrategy. totalNetworkBandwidth was already
// checked to be a quantity when the document was read; here its bounds.
func validateSystem(s *slov1alpha1.SystemStrategy, r *rules) field.ErrorList {
	r.bandwidthQuantity("totalNetworkBandwidth", s.TotalNetworkBandwidth)
	r.above("minFreeKbytesFactor", s.MinFreeKbytesFactor, 0)
	r.between("watermarkScaleFactor", s.WatermarkScaleFactor, 1, 400)
	r.between("memcgReapBackGround", s.MemcgReapBackGround, 0, 1)
	r.between("pageCacheLimitEnabled", s.PageCacheLimitEnabled, 0, 1)
	return r.errs
}
