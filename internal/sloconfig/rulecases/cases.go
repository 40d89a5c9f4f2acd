package rulecases

import (
	"math"
	"slices"
)

// Cases holds every bound, enum and cross-field rule of docs/nodeslo-api.md
// that the engine and the CRD share, each tested at its edges: the bound
// itself accepted and the value one past it rejected, every enum value
// accepted and one other rejected, a cross-field rule just kept and just
// broken. A test in this package fails when the CRD has a marker that no
// case tests.
//
// A strategy snippet is validated merged with the built-in default of its
// key (docs/behaviour.md, "Defaults"), by the engine and, in the agreement
// test, by the apiserver alike; the edges below take that into account.
var Cases = slices.Concat(thresholdCases(), qosCases(), burstCases(), systemCases(), hostApplicationCases())

// EngineStricter lists the rules where the engine is deliberately stricter
// than the CRD (docs/nodeslo-api.md). The agreement test asserts this
// direction only: the engine rejects Bad, the apiserver admits it.
var EngineStricter = slices.Concat(
	differ(CPUBurst, "cpuBurstPercent", "the ConfigMap allows 1..10000, the CRD 0..10000 (docs/nodeslo-api.md): "+
		"in a ConfigMap a zero burst is a typo for policy \"none\", while a NodeSLO written by other tools may hold 0",
		"1", "0"),
	networkQOSDifferences(),
)

// QOSClasses are the classes of resourceQOSStrategy. They share one Go type,
// but the engine validates each on its own, so each is tested.
var QOSClasses = []string{"lsrClass", "lsClass", "beClass", "systemClass", "cgroupRoot"}

func thresholdCases() []Case {
	rt := ResourceThreshold
	return slices.Concat(
		between(rt, "cpuSuppressThresholdPercent", 0, 100),
		between(rt, "cpuSuppressMinPercent", 0, 100),
		oneOf(rt, "cpuSuppressPolicy", "quota", "cpuset", "cfsQuota"),

		// The default memoryEvictThresholdPercent is 70, so the lower mark
		// alone is valid only below 70, and never at its own maximum of 100.
		between(rt, "memoryEvictThresholdPercent", 0, 100),
		atLeast(rt, "memoryEvictLowerPercent", 0),
		[]Case{{OK: "99", Bad: "101", Rule: Rule{rt,
			snippet("memoryEvictLowerPercent", `"memoryEvictThresholdPercent": 100`), "memoryEvictLowerPercent"}}},
		[]Case{lessThan(rt, "memoryEvictLowerPercent", "memoryEvictThresholdPercent", 80)},

		atLeast(rt, "memoryAllocatableEvictThresholdPercent", 0),
		atLeast(rt, "memoryAllocatableEvictLowerPercent", 0),
		[]Case{lessThan(rt, "memoryAllocatableEvictLowerPercent", "memoryAllocatableEvictThresholdPercent", 90)},

		between(rt, "cpuEvictBESatisfactionUpperPercent", 0, 100),
		between(rt, "cpuEvictBESatisfactionLowerPercent", 0, 100),
		[]Case{lessThan(rt, "cpuEvictBESatisfactionLowerPercent", "cpuEvictBESatisfactionUpperPercent", 60)},
		between(rt, "cpuEvictBEUsageThresholdPercent", 0, 100),
		above(rt, "cpuEvictTimeWindowSeconds", 0),

		between(rt, "cpuEvictThresholdPercent", 0, 100),
		between(rt, "cpuEvictLowerPercent", 0, 100),
		[]Case{lessThan(rt, "cpuEvictLowerPercent", "cpuEvictThresholdPercent", 50)},
		atLeast(rt, "cpuAllocatableEvictThresholdPercent", 0),
		atLeast(rt, "cpuAllocatableEvictLowerPercent", 0),
		[]Case{lessThan(rt, "cpuAllocatableEvictLowerPercent", "cpuAllocatableEvictThresholdPercent", 70)},
		oneOf(rt, "cpuEvictPolicy", "evictByLimit", "evictByRealLimit", "evictByAllocatable"),

		between(rt, "allocatableEvictPriorityThreshold", 0, 7999),
		// No marker, but the Go type is an int32, which both judges enforce.
		between(rt, "evictEnabledPriorityThreshold", math.MinInt32, math.MaxInt32),
	)
}

func qosCases() []Case {
	q := ResourceQOS
	cases := slices.Concat(
		oneOf(q, "policies.cpuPolicy", "bvt", "groupIdentity", "coreSched"),
		oneOf(q, "policies.netQOSPolicy", "cni", "tc", "terway-qos"),
	)
	for _, class := range QOSClasses {
		cases = append(cases, qosClassCases(class)...)
	}
	return cases
}

func qosClassCases(class string) []Case {
	q := ResourceQOS
	cpu, mem, block := class+".cpuQOS.", class+".memoryQOS.", class+".blkioQOS.blocks[0]."
	io, resctrl := block+"ioCfg.", class+".resctrlQOS."
	return slices.Concat(
		between(q, cpu+"groupIdentity", -1, 2),
		between(q, cpu+"schedIdle", 0, 1),

		between(q, mem+"minLimitPercent", 0, 100),
		between(q, mem+"lowLimitPercent", 0, 100),
		between(q, mem+"throttlingPercent", 0, 100),
		between(q, mem+"wmarkRatio", 0, 100),
		between(q, mem+"wmarkScalePermill", 1, 1000),
		between(q, mem+"wmarkMinAdj", -25, 50),
		between(q, mem+"priorityEnable", 0, 1),
		between(q, mem+"priority", 0, 12),
		between(q, mem+"oomKillGroup", 0, 1),
		between(q, mem+"pageCacheLimitPercent", 0, 100),

		oneOf(q, block+"type", "disk", "device", "volumegroup", "podvolume"),
		atLeast(q, io+"readIOPS", 0),
		atLeast(q, io+"writeIOPS", 0),
		atLeast(q, io+"readBPS", 0),
		atLeast(q, io+"writeBPS", 0),
		between(q, io+"ioWeightPercent", 1, 100),
		between(q, io+"readLatencyPercent", 0, 100),
		between(q, io+"writeLatencyPercent", 0, 100),
		atLeast(q, io+"modelReadBPS", 1),
		atLeast(q, io+"modelWriteBPS", 1),
		atLeast(q, io+"modelReadSeqIOPS", 1),
		atLeast(q, io+"modelWriteSeqIOPS", 1),
		atLeast(q, io+"modelReadRandIOPS", 1),
		atLeast(q, io+"modelWriteRandIOPS", 1),

		between(q, resctrl+"catRangeStartPercent", 0, 100),
		between(q, resctrl+"catRangeEndPercent", 0, 100),
		[]Case{lessThan(q, resctrl+"catRangeStartPercent", "catRangeEndPercent", 30)},
		between(q, resctrl+"mbaPercent", 0, 100),
	)
}

// networkQOSDifferences: the CRD types the network QoS fields as
// int-or-string without bounds; the engine holds them to what an agent can use.
func networkQOSDifferences() []Difference {
	const reason = "an integer is a percentage of the node's bandwidth, 0..100, and a string a non-negative " +
		"quantity (docs/nodeslo-api.md); the CRD only says int-or-string"
	fields := []string{"ingressRequest", "ingressLimit", "egressRequest", "egressLimit"}
	out := make([]Difference, 0, 4*len(fields)*len(QOSClasses))
	for _, class := range QOSClasses {
		for _, name := range fields {
			path := class + ".networkQOS." + name
			out = append(out, differ(ResourceQOS, path, reason, "100", "101", "-1")...)
			out = append(out, differ(ResourceQOS, path, reason, `"50M"`, `"fast"`, `"-1G"`)...)
		}
	}
	return out
}

func burstCases() []Case {
	cb := CPUBurst
	return slices.Concat(
		oneOf(cb, "policy", "always", "none", "cpuBurstOnly", "cfsQuotaBurstOnly", "auto"),
		// The lower bound differs on purpose: see EngineStricter.
		[]Case{edge(cb, "cpuBurstPercent", 1, -1), edge(cb, "cpuBurstPercent", 10000, 10001)},
		atLeast(cb, "cfsQuotaBurstPercent", 100),
		atLeast(cb, "cfsQuotaBurstPeriodSeconds", -1),
		between(cb, "sharePoolThresholdPercent", 0, 100),
	)
}

func systemCases() []Case {
	sys := System
	return slices.Concat(
		above(sys, "minFreeKbytesFactor", 0),
		between(sys, "watermarkScaleFactor", 1, 400),
		between(sys, "memcgReapBackGround", 0, 1),
		between(sys, "pageCacheLimitEnabled", 0, 1),
		[]Case{
			{Rule: Rule{sys, snippet("totalNetworkBandwidth", ""), "totalNetworkBandwidth"}, OK: `"10G"`, Bad: `"10 G"`},
			{Rule: Rule{sys, snippet("totalNetworkBandwidth", ""), "totalNetworkBandwidth"}, OK: `"1.5Gi"`, Bad: `"10GB"`},
		},
	)
}

func hostApplicationCases() []Case {
	ha := HostApplication
	return named(slices.Concat(
		oneOf(ha, "priority", "koord-high", "koord-prod", "koord-mid", "koord-batch", "koord-free"),
		oneOf(ha, "qos", "GOLD", "LSE", "LSR", "LS", "BE", "SYSTEM"),
		oneOf(ha, "cgroupPath.base", "Root", "CgroupRoot", "Kubepods", "KubepodsBurstable", "KubepodsBesteffort"),
	))
}
