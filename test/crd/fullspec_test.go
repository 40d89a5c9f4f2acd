package crd

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// fullySetSpec returns a spec in which every field of the API holds a value
// other than its default and its zero value, so that a field the CRD schema
// lacks would be pruned and noticed.
func fullySetSpec() slov1alpha1.NodeSLOSpec {
	return slov1alpha1.NodeSLOSpec{
		ResourceUsedThresholdWithBE: &slov1alpha1.ResourceThresholdStrategy{
			Enable:                                 new(true),
			CPUSuppressThresholdPercent:            new(int64(55)),
			CPUSuppressMinPercent:                  new(int64(12)),
			CPUSuppressPolicy:                      slov1alpha1.CPUCfsQuotaPolicy,
			MemoryEvictThresholdPercent:            new(int64(82)),
			MemoryEvictLowerPercent:                new(int64(78)),
			MemoryAllocatableEvictThresholdPercent: new(int64(120)),
			MemoryAllocatableEvictLowerPercent:     new(int64(110)),
			CPUEvictBESatisfactionUpperPercent:     new(int64(60)),
			CPUEvictBESatisfactionLowerPercent:     new(int64(40)),
			CPUEvictBEUsageThresholdPercent:        new(int64(90)),
			CPUEvictTimeWindowSeconds:              new(int64(300)),
			CPUEvictThresholdPercent:               new(int64(85)),
			CPUEvictLowerPercent:                   new(int64(75)),
			CPUAllocatableEvictThresholdPercent:    new(int64(130)),
			CPUAllocatableEvictLowerPercent:        new(int64(115)),
			CPUEvictPolicy:                         slov1alpha1.EvictByAllocatablePolicy,
			EvictEnabledPriorityThreshold:          new(int32(5000)),
			AllocatableEvictPriorityThreshold:      new(int32(7000)),
		},
		ResourceQOSStrategy: &slov1alpha1.ResourceQOSStrategy{
			Policies: &slov1alpha1.ResourceQOSPolicies{
				CPUPolicy:    new(slov1alpha1.CPUQOSPolicyCoreSched),
				NETQOSPolicy: new(slov1alpha1.NETQOSPolicyTerwayQos),
			},
			LSRClass:    fullySetResourceQOS(1),
			LSClass:     fullySetResourceQOS(2),
			BEClass:     fullySetResourceQOS(3),
			SystemClass: fullySetResourceQOS(4),
			CgroupRoot:  fullySetResourceQOS(5),
		},
		CPUBurstStrategy: &slov1alpha1.CPUBurstStrategy{
			CPUBurstConfig: slov1alpha1.CPUBurstConfig{
				Policy:                     slov1alpha1.CPUBurstAuto,
				CPUBurstPercent:            new(int64(1500)),
				CFSQuotaBurstPercent:       new(int64(250)),
				CFSQuotaBurstPeriodSeconds: new(int64(600)),
			},
			SharePoolThresholdPercent: new(int64(40)),
		},
		SystemStrategy: &slov1alpha1.SystemStrategy{
			MinFreeKbytesFactor:       new(int64(150)),
			WatermarkScaleFactor:      new(int64(200)),
			MemcgReapBackGround:       new(int64(1)),
			SchedGroupIdentityEnabled: new(int64(1)),
			SchedIdleSaverWmark:       new(int64(3)),
			SchedFeatures:             map[string]bool{"ID_ABSOLUTE_EXPEL": true, "ID_LOAD_BALANCE": false},
			PageCacheLimitEnabled:     new(int64(1)),
			TotalNetworkBandwidth:     resource.MustParse("10G"),
		},
		Extensions: &slov1alpha1.ExtensionsMap{Object: map[string]any{
			"example-plugin": map[string]any{"enable": true, "level": int64(3), "tags": []any{"a", "b"}},
		}},
		HostApplications: []slov1alpha1.HostApplicationSpec{{
			Name:     "nginx",
			Priority: slov1alpha1.PriorityClass("koord-prod"),
			QoS:      slov1alpha1.QoSClass("LS"),
			CgroupPath: &slov1alpha1.CgroupPath{
				Base:         slov1alpha1.CgroupBaseTypeKubeBurstable,
				ParentDir:    "host-latency-sensitive/",
				RelativePath: "nginx/",
			},
			Strategy: &slov1alpha1.HostApplicationStrategy{},
		}},
	}
}

// fullySetResourceQOS varies its values by seed so that a class swapped for
// another on the way through the apiserver would be noticed.
func fullySetResourceQOS(seed int64) *slov1alpha1.ResourceQOS {
	return &slov1alpha1.ResourceQOS{
		CPUQOS: &slov1alpha1.CPUQOSCfg{
			Enable: new(true),
			CPUQOS: slov1alpha1.CPUQOS{
				GroupIdentity: new(seed%2*3 - 1), SchedIdle: new(int64(1)), CoreExpeller: new(true),
			},
		},
		MemoryQOS: &slov1alpha1.MemoryQOSCfg{
			Enable: new(true),
			MemoryQOS: slov1alpha1.MemoryQOS{
				MinLimitPercent:       new(10 + seed),
				LowLimitPercent:       new(20 + seed),
				ThrottlingPercent:     new(80 + seed),
				WmarkRatio:            new(90 + seed),
				WmarkScalePermill:     new(30 + seed),
				WmarkMinAdj:           new(-20 + seed),
				PriorityEnable:        new(int64(1)),
				Priority:              new(6 + seed),
				OomKillGroup:          new(int64(1)),
				PageCacheEnable:       new(true),
				PageCacheLimitPercent: new(50 + seed),
				PageCacheLimitSize:    new(1 << 30 * seed),
				PageCacheReclaimSync:  new(true),
			},
		},
		BlkIOQOS: &slov1alpha1.BlkIOQOSCfg{
			Enable: new(true),
			BlkIOQOS: slov1alpha1.BlkIOQOS{Blocks: []*slov1alpha1.BlockCfg{{
				Name:      fmt.Sprintf("/dev/vd%c", 'a'+seed),
				BlockType: slov1alpha1.BlockTypeDevice,
				IOCfg: slov1alpha1.IOCfg{
					ReadIOPS: new(1000 * seed), WriteIOPS: new(900 * seed),
					ReadBPS: new(1 << 20 * seed), WriteBPS: new(1 << 19 * seed),
					IOWeightPercent: new(10 * seed),
					ReadLatency:     new(3000 + seed), WriteLatency: new(4000 + seed),
					ReadLatencyPercent: new(90 + seed), WriteLatencyPercent: new(80 + seed),
					EnableUserModel: new(true),
					ModelReadBPS:    new(3 << 20 * seed), ModelWriteBPS: new(2 << 20 * seed),
					ModelReadSeqIOPS: new(5000 * seed), ModelWriteSeqIOPS: new(4000 * seed),
					ModelReadRandIOPS: new(300 * seed), ModelWriteRandIOPS: new(200 * seed),
				},
			}}},
		},
		ResctrlQOS: &slov1alpha1.ResctrlQOSCfg{
			Enable: new(true),
			ResctrlQOS: slov1alpha1.ResctrlQOS{
				CATRangeStartPercent: new(seed), CATRangeEndPercent: new(50 + seed), MBAPercent: new(60 + seed),
			},
		},
		NetworkQOS: &slov1alpha1.NetworkQOSCfg{
			Enable: new(true),
			NetworkQOS: slov1alpha1.NetworkQOS{
				IngressRequest: new(intstr.FromInt32(int32(10 + seed))),
				IngressLimit:   new(intstr.FromString(fmt.Sprintf("%dM", 100*seed))),
				EgressRequest:  new(intstr.FromString("20M")),
				EgressLimit:    new(intstr.FromInt32(int32(90 + seed))),
			},
		},
	}
}

// unsetFields lists the paths of fields that hold their zero value, walking
// into structs, pointers, slices and maps. It keeps fullySetSpec honest when
// a field is added to the API.
func unsetFields(v reflect.Value, path string) []string {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return []string{path}
		}
		return unsetFields(v.Elem(), path)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[resource.Quantity]() || v.Type() == reflect.TypeFor[intstr.IntOrString]() {
			if v.IsZero() {
				return []string{path}
			}
			return nil
		}
		var unset []string
		for i := range v.NumField() {
			unset = append(unset, unsetFields(v.Field(i), path+"."+v.Type().Field(i).Name)...)
		}
		return unset
	case reflect.Slice, reflect.Map:
		if v.Len() == 0 {
			return []string{path}
		}
		if v.Kind() == reflect.Slice {
			var unset []string
			for i := range v.Len() {
				unset = append(unset, unsetFields(v.Index(i), fmt.Sprintf("%s[%d]", path, i))...)
			}
			return unset
		}
		return nil
	default:
		if v.IsZero() {
			return []string{path}
		}
		return nil
	}
}
