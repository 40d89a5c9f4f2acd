package crd

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
)

// fullySetSpec returns a spec in which every field of the API holds a value
// other than its default and its zero value, so that a field the CRD schema
// lacks would be pruned and noticed.
func fullySetSpec() slov1alpha1.NodeSLOSpec {
	return slov1alpha1.NodeSLOSpec{
		ResourceUsedThresholdWithBE: &slov1alpha1.ResourceThresholdStrategy{
			Enable:                                 ptr.To(true),
			CPUSuppressThresholdPercent:            ptr.To[int64](55),
			CPUSuppressMinPercent:                  ptr.To[int64](12),
			CPUSuppressPolicy:                      slov1alpha1.CPUCfsQuotaPolicy,
			MemoryEvictThresholdPercent:            ptr.To[int64](82),
			MemoryEvictLowerPercent:                ptr.To[int64](78),
			MemoryAllocatableEvictThresholdPercent: ptr.To[int64](120),
			MemoryAllocatableEvictLowerPercent:     ptr.To[int64](110),
			CPUEvictBESatisfactionUpperPercent:     ptr.To[int64](60),
			CPUEvictBESatisfactionLowerPercent:     ptr.To[int64](40),
			CPUEvictBEUsageThresholdPercent:        ptr.To[int64](90),
			CPUEvictTimeWindowSeconds:              ptr.To[int64](300),
			CPUEvictThresholdPercent:               ptr.To[int64](85),
			CPUEvictLowerPercent:                   ptr.To[int64](75),
			CPUAllocatableEvictThresholdPercent:    ptr.To[int64](130),
			CPUAllocatableEvictLowerPercent:        ptr.To[int64](115),
			CPUEvictPolicy:                         slov1alpha1.EvictByAllocatablePolicy,
			EvictEnabledPriorityThreshold:          ptr.To[int32](5000),
			AllocatableEvictPriorityThreshold:      ptr.To[int32](7000),
		},
		ResourceQOSStrategy: &slov1alpha1.ResourceQOSStrategy{
			Policies: &slov1alpha1.ResourceQOSPolicies{
				CPUPolicy:    ptr.To(slov1alpha1.CPUQOSPolicyCoreSched),
				NETQOSPolicy: ptr.To(slov1alpha1.NETQOSPolicyTerwayQos),
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
				CPUBurstPercent:            ptr.To[int64](1500),
				CFSQuotaBurstPercent:       ptr.To[int64](250),
				CFSQuotaBurstPeriodSeconds: ptr.To[int64](600),
			},
			SharePoolThresholdPercent: ptr.To[int64](40),
		},
		SystemStrategy: &slov1alpha1.SystemStrategy{
			MinFreeKbytesFactor:       ptr.To[int64](150),
			WatermarkScaleFactor:      ptr.To[int64](200),
			MemcgReapBackGround:       ptr.To[int64](1),
			SchedGroupIdentityEnabled: ptr.To[int64](1),
			SchedIdleSaverWmark:       ptr.To[int64](3),
			SchedFeatures:             map[string]bool{"ID_ABSOLUTE_EXPEL": true, "ID_LOAD_BALANCE": false},
			PageCacheLimitEnabled:     ptr.To[int64](1),
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
			Enable: ptr.To(true),
			CPUQOS: slov1alpha1.CPUQOS{
				GroupIdentity: ptr.To(seed%2*3 - 1), SchedIdle: ptr.To[int64](1), CoreExpeller: ptr.To(true),
			},
		},
		MemoryQOS: &slov1alpha1.MemoryQOSCfg{
			Enable: ptr.To(true),
			MemoryQOS: slov1alpha1.MemoryQOS{
				MinLimitPercent:       ptr.To(10 + seed),
				LowLimitPercent:       ptr.To(20 + seed),
				ThrottlingPercent:     ptr.To(80 + seed),
				WmarkRatio:            ptr.To(90 + seed),
				WmarkScalePermill:     ptr.To(30 + seed),
				WmarkMinAdj:           ptr.To(-20 + seed),
				PriorityEnable:        ptr.To[int64](1),
				Priority:              ptr.To(6 + seed),
				OomKillGroup:          ptr.To[int64](1),
				PageCacheEnable:       ptr.To(true),
				PageCacheLimitPercent: ptr.To(50 + seed),
				PageCacheLimitSize:    ptr.To(1 << 30 * seed),
				PageCacheReclaimSync:  ptr.To(true),
			},
		},
		BlkIOQOS: &slov1alpha1.BlkIOQOSCfg{
			Enable: ptr.To(true),
			BlkIOQOS: slov1alpha1.BlkIOQOS{Blocks: []*slov1alpha1.BlockCfg{{
				Name:      fmt.Sprintf("/dev/vd%c", 'a'+seed),
				BlockType: slov1alpha1.BlockTypeDevice,
				IOCfg: slov1alpha1.IOCfg{
					ReadIOPS: ptr.To(1000 * seed), WriteIOPS: ptr.To(900 * seed),
					ReadBPS: ptr.To(1 << 20 * seed), WriteBPS: ptr.To(1 << 19 * seed),
					IOWeightPercent: ptr.To(10 * seed),
					ReadLatency:     ptr.To(3000 + seed), WriteLatency: ptr.To(4000 + seed),
					ReadLatencyPercent: ptr.To(90 + seed), WriteLatencyPercent: ptr.To(80 + seed),
					EnableUserModel: ptr.To(true),
					ModelReadBPS:    ptr.To(3 << 20 * seed), ModelWriteBPS: ptr.To(2 << 20 * seed),
					ModelReadSeqIOPS: ptr.To(5000 * seed), ModelWriteSeqIOPS: ptr.To(4000 * seed),
					ModelReadRandIOPS: ptr.To(300 * seed), ModelWriteRandIOPS: ptr.To(200 * seed),
				},
			}}},
		},
		ResctrlQOS: &slov1alpha1.ResctrlQOSCfg{
			Enable: ptr.To(true),
			ResctrlQOS: slov1alpha1.ResctrlQOS{
				CATRangeStartPercent: ptr.To(seed), CATRangeEndPercent: ptr.To(50 + seed), MBAPercent: ptr.To(60 + seed),
			},
		},
		NetworkQOS: &slov1alpha1.NetworkQOSCfg{
			Enable: ptr.To(true),
			NetworkQOS: slov1alpha1.NetworkQOS{
				IngressRequest: ptr.To(intstr.FromInt32(int32(10 + seed))),
				IngressLimit:   ptr.To(intstr.FromString(fmt.Sprintf("%dM", 100*seed))),
				EgressRequest:  ptr.To(intstr.FromString("20M")),
				EgressLimit:    ptr.To(intstr.FromInt32(int32(90 + seed))),
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
