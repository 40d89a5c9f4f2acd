package sloconfig

import (
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// validateResourceQOS checks resourceQOSStrategy: policies and every class.
func validateResourceQOS(s *slov1alpha1.ResourceQOSStrategy, r *rules) field.ErrorList {
	path := r.path
	if s.Policies != nil {
		p := r.at(path.Child("policies"))
		oneOfPtr(p, "cpuPolicy", s.Policies.CPUPolicy,
			slov1alpha1.CPUQOSPolicyGroupIdentity, slov1alpha1.CPUQOSPolicyCoreSched)
		oneOfPtr(p, "netQOSPolicy", s.Policies.NETQOSPolicy, slov1alpha1.NETQOSPolicyTC, slov1alpha1.NETQOSPolicyTerwayQos)
		r.add(p)
	}
	classes := []struct {
		name string
		qos  *slov1alpha1.ResourceQOS
	}{
		{"lsrClass", s.LSRClass}, {"lsClass", s.LSClass}, {"beClass", s.BEClass},
		{"systemClass", s.SystemClass}, {"cgroupRoot", s.CgroupRoot},
	}
	for _, c := range classes {
		if c.qos != nil {
			r.errs = append(r.errs, validateResourceQOSClass(c.qos, r.at(path.Child(c.name)))...)
		}
	}
	return r.errs
}

func validateResourceQOSClass(q *slov1alpha1.ResourceQOS, r *rules) field.ErrorList {
	path := r.path
	if q.CPUQOS != nil {
		c := r.at(path.Child("cpuQOS"))
		c.between("groupIdentity", q.CPUQOS.GroupIdentity, -1, 2)
		c.between("schedIdle", q.CPUQOS.SchedIdle, 0, 1)
		r.add(c)
	}
	if q.MemoryQOS != nil {
		r.add(validateMemoryQOS(&q.MemoryQOS.MemoryQOS, r.at(path.Child("memoryQOS"))))
	}
	if q.BlkIOQOS != nil {
		for i, block := range q.BlkIOQOS.Blocks {
			blockPath := path.Child("blkioQOS", "blocks").Index(i)
			if block == nil {
				r.errs = append(r.errs, field.Required(blockPath, "a block cannot be null"))
				continue
			}
			r.add(validateBlock(block, r.at(blockPath)))
		}
	}
	if q.ResctrlQOS != nil {
		c := r.at(path.Child("resctrlQOS"))
		c.between("catRangeStartPercent", q.ResctrlQOS.CATRangeStartPercent, 0, 100)
		c.between("catRangeEndPercent", q.ResctrlQOS.CATRangeEndPercent, 0, 100)
		c.less("catRangeStartPercent", q.ResctrlQOS.CATRangeStartPercent,
			"catRangeEndPercent", q.ResctrlQOS.CATRangeEndPercent)
		c.between("mbaPercent", q.ResctrlQOS.MBAPercent, 0, 100)
		r.add(c)
	}
	if q.NetworkQOS != nil {
		c := r.at(path.Child("networkQOS"))
		n := &q.NetworkQOS.NetworkQOS
		c.bandwidth("ingressRequest", n.IngressRequest)
		c.bandwidth("ingressLimit", n.IngressLimit)
		c.bandwidth("egressRequest", n.EgressRequest)
		c.bandwidth("egressLimit", n.EgressLimit)
		r.add(c)
	}
	return r.errs
}

func validateMemoryQOS(m *slov1alpha1.MemoryQOS, r *rules) *rules {
	r.between("minLimitPercent", m.MinLimitPercent, 0, 100)
	r.between("lowLimitPercent", m.LowLimitPercent, 0, 100)
	r.between("throttlingPercent", m.ThrottlingPercent, 0, 100)
	r.between("wmarkRatio", m.WmarkRatio, 0, 100)
	r.between("wmarkScalePermill", m.WmarkScalePermill, 1, 1000)
	r.between("wmarkMinAdj", m.WmarkMinAdj, -25, 50)
	r.between("priorityEnable", m.PriorityEnable, 0, 1)
	r.between("priority", m.Priority, 0, 12)
	r.between("oomKillGroup", m.OomKillGroup, 0, 1)
	r.between("pageCacheLimitPercent", m.PageCacheLimitPercent, 0, 100)
	return r
}

// validateBlock checks one block. koordlet finds the disk by type and name,
// and one block it cannot find fails the blkio update of the whole class, so
// both are required although the CRD leaves them optional.
func validateBlock(b *slov1alpha1.BlockCfg, r *rules) *rules {
	r.required("type", string(b.BlockType), "koordlet needs it to find the disk (device, volumegroup or podvolume)")
	r.required("name", b.Name, "koordlet needs it to find the disk (a device path, volume group or pod volume name)")
	oneOf(r, "type", b.BlockType,
		slov1alpha1.BlockTypeDevice, slov1alpha1.BlockTypeVolumeGroup, slov1alpha1.BlockTypePodVolume)
	io := &b.IOCfg
	c := r.at(r.path.Child("ioCfg"))
	c.atLeast("readIOPS", io.ReadIOPS, 0)
	c.atLeast("writeIOPS", io.WriteIOPS, 0)
	c.atLeast("readBPS", io.ReadBPS, 0)
	c.atLeast("writeBPS", io.WriteBPS, 0)
	c.between("ioWeightPercent", io.IOWeightPercent, 1, 100)
	c.between("readLatencyPercent", io.ReadLatencyPercent, 0, 100)
	c.between("writeLatencyPercent", io.WriteLatencyPercent, 0, 100)
	c.atLeast("modelReadBPS", io.ModelReadBPS, 1)
	c.atLeast("modelWriteBPS", io.ModelWriteBPS, 1)
	c.atLeast("modelReadSeqIOPS", io.ModelReadSeqIOPS, 1)
	c.atLeast("modelWriteSeqIOPS", io.ModelWriteSeqIOPS, 1)
	c.atLeast("modelReadRandIOPS", io.ModelReadRandIOPS, 1)
	c.atLeast("modelWriteRandIOPS", io.ModelWriteRandIOPS, 1)
	r.add(c)
	return r
}

// bandwidth checks a network QoS value: an integer is a percentage of the
// node's bandwidth, a string a non-negative quantity.
func (r *rules) bandwidth(name string, v *intstr.IntOrString) {
	switch {
	case v == nil:
	case v.Type == intstr.Int:
		r.between(name, new(int64(v.IntVal)), 0, 100)
	default:
		q, err := parseQuantity(v.StrVal)
		switch {
		case err != nil:
			r.errs = append(r.errs, field.Invalid(r.path.Child(name), echo(v.StrVal),
				"must be a percentage (an integer 0..100) or a quantity such as \"50M\": "+err.Error()))
		default:
			r.bandwidthQuantity(name, q)
		}
	}
}
