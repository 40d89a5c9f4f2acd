package crd

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

var _ = Describe("The CRD schema", func() {
	// create stores a fully set NodeSLO after mutate has broken one field.
	create := func(mutate func(*slov1alpha1.NodeSLOSpec)) error {
		spec := fullySetSpec()
		mutate(&spec)
		return k8sClient.Create(ctx, &slov1alpha1.NodeSLO{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "bounds-"},
			Spec:       spec,
		})
	}

	It("accepts the fully set fixture, so each rejection below is caused by its one change", func() {
		Expect(create(func(*slov1alpha1.NodeSLOSpec) {})).To(Succeed())
	})

	DescribeTable("rejects an out-of-bound value, naming the field",
		func(mutate func(*slov1alpha1.NodeSLOSpec), field string) {
			err := create(mutate)
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "expected Invalid, got %v", err)
			Expect(err.Error()).To(ContainSubstring(field))
		},
		Entry("cpuSuppressThresholdPercent above 100",
			func(s *slov1alpha1.NodeSLOSpec) {
				s.ResourceUsedThresholdWithBE.CPUSuppressThresholdPercent = new(int64(101))
			},
			"spec.resourceUsedThresholdWithBE.cpuSuppressThresholdPercent"),
		Entry("cpuSuppressPolicy outside its enum",
			func(s *slov1alpha1.NodeSLOSpec) { s.ResourceUsedThresholdWithBE.CPUSuppressPolicy = "cpuShare" },
			"spec.resourceUsedThresholdWithBE.cpuSuppressPolicy"),
		Entry("memoryEvictLowerPercent not below memoryEvictThresholdPercent",
			func(s *slov1alpha1.NodeSLOSpec) {
				s.ResourceUsedThresholdWithBE.MemoryEvictLowerPercent = new(int64(90))
			},
			"memoryEvictThresholdPercent must be greater than memoryEvictLowerPercent"),
		Entry("cpuEvictTimeWindowSeconds of 0",
			func(s *slov1alpha1.NodeSLOSpec) {
				s.ResourceUsedThresholdWithBE.CPUEvictTimeWindowSeconds = new(int64(0))
			},
			"spec.resourceUsedThresholdWithBE.cpuEvictTimeWindowSeconds"),
		Entry("allocatableEvictPriorityThreshold above 7999",
			func(s *slov1alpha1.NodeSLOSpec) {
				s.ResourceUsedThresholdWithBE.AllocatableEvictPriorityThreshold = new(int32(8000))
			},
			"spec.resourceUsedThresholdWithBE.allocatableEvictPriorityThreshold"),
		Entry("groupIdentity above 2",
			func(s *slov1alpha1.NodeSLOSpec) {
				s.ResourceQOSStrategy.LSClass.CPUQOS.GroupIdentity = new(int64(3))
			},
			"spec.resourceQOSStrategy.lsClass.cpuQOS.groupIdentity"),
		Entry("wmarkScalePermill of 0",
			func(s *slov1alpha1.NodeSLOSpec) {
				s.ResourceQOSStrategy.BEClass.MemoryQOS.WmarkScalePermill = new(int64(0))
			},
			"spec.resourceQOSStrategy.beClass.memoryQOS.wmarkScalePermill"),
		Entry("wmarkMinAdj below -25",
			func(s *slov1alpha1.NodeSLOSpec) {
				s.ResourceQOSStrategy.LSRClass.MemoryQOS.WmarkMinAdj = new(int64(-26))
			},
			"spec.resourceQOSStrategy.lsrClass.memoryQOS.wmarkMinAdj"),
		Entry("ioWeightPercent of 0 in a block",
			func(s *slov1alpha1.NodeSLOSpec) {
				s.ResourceQOSStrategy.SystemClass.BlkIOQOS.Blocks[0].IOCfg.IOWeightPercent = new(int64(0))
			},
			"spec.resourceQOSStrategy.systemClass.blkioQOS.blocks[0].ioCfg.ioWeightPercent"),
		Entry("block type outside its enum",
			func(s *slov1alpha1.NodeSLOSpec) {
				s.ResourceQOSStrategy.CgroupRoot.BlkIOQOS.Blocks[0].BlockType = "disk"
			},
			"spec.resourceQOSStrategy.cgroupRoot.blkioQOS.blocks[0].type"),
		Entry("catRangeStartPercent not below catRangeEndPercent",
			func(s *slov1alpha1.NodeSLOSpec) {
				s.ResourceQOSStrategy.BEClass.ResctrlQOS.CATRangeStartPercent = new(int64(80))
			},
			"catRangeStartPercent must be less than catRangeEndPercent"),
		Entry("cpuPolicy outside its enum",
			func(s *slov1alpha1.NodeSLOSpec) {
				s.ResourceQOSStrategy.Policies.CPUPolicy = new(slov1alpha1.CPUQOSPolicy("bvt"))
			},
			"spec.resourceQOSStrategy.policies.cpuPolicy"),
		Entry("cpuBurstPercent above 10000",
			func(s *slov1alpha1.NodeSLOSpec) { s.CPUBurstStrategy.CPUBurstPercent = new(int64(10001)) },
			"spec.cpuBurstStrategy.cpuBurstPercent"),
		Entry("cfsQuotaBurstPercent below 100",
			func(s *slov1alpha1.NodeSLOSpec) { s.CPUBurstStrategy.CFSQuotaBurstPercent = new(int64(99)) },
			"spec.cpuBurstStrategy.cfsQuotaBurstPercent"),
		Entry("cfsQuotaBurstPeriodSeconds below -1",
			func(s *slov1alpha1.NodeSLOSpec) { s.CPUBurstStrategy.CFSQuotaBurstPeriodSeconds = new(int64(-2)) },
			"spec.cpuBurstStrategy.cfsQuotaBurstPeriodSeconds"),
		Entry("cpu burst policy outside its enum",
			func(s *slov1alpha1.NodeSLOSpec) { s.CPUBurstStrategy.Policy = "always" },
			"spec.cpuBurstStrategy.policy"),
		Entry("watermarkScaleFactor above 400",
			func(s *slov1alpha1.NodeSLOSpec) { s.SystemStrategy.WatermarkScaleFactor = new(int64(401)) },
			"spec.systemStrategy.watermarkScaleFactor"),
		Entry("minFreeKbytesFactor of 0",
			func(s *slov1alpha1.NodeSLOSpec) { s.SystemStrategy.MinFreeKbytesFactor = new(int64(0)) },
			"spec.systemStrategy.minFreeKbytesFactor"),
		Entry("host application qos outside its enum",
			func(s *slov1alpha1.NodeSLOSpec) { s.HostApplications[0].QoS = "GOLD" },
			"spec.hostApplications[0].qos"),
		Entry("cgroup base outside its enum",
			func(s *slov1alpha1.NodeSLOSpec) { s.HostApplications[0].CgroupPath.Base = "Kubelet" },
			"spec.hostApplications[0].cgroupPath.base"),
	)
})
