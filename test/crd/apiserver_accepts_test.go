package crd

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig/sloconfigtest"
)

// A valid verdict from the engine must mean that the apiserver stores the
// NodeSLO it renders: otherwise one bad ConfigMap value stops every NodeSLO
// create and update (docs/behaviour.md, "Bad input"). It must also mean
// that koordlet can use it, where the CRD is laxer than koordlet
// (unusableByKoordlet). This renders NodeSLOs
// from hundreds of ConfigMaps the engine calls valid and has the apiserver
// check each one (dry run). The generated documents also hold values just
// outside the CRD's bounds and null list elements; the engine rejects those
// documents, so they are dropped here, but an engine rule loosened on its
// own lets them through to the apiserver, which refuses them, and this
// test fails.
var _ = Describe("NodeSLOs rendered from ConfigMaps the engine calls valid", func() {
	It("are all accepted by the apiserver, and usable by koordlet", func() {
		configMaps := validConfigMaps()
		Expect(len(configMaps)).To(BeNumerically(">=", 200), "too few valid ConfigMaps to say much")

		type job struct {
			cm   namedConfigMap
			node corev1.Node
			spec *slov1alpha1.NodeSLOSpec
		}
		var jobs []job
		seen := map[string]bool{}
		for _, cm := range configMaps {
			c := sloconfig.Load(cm.data, nil)
			for _, node := range acceptanceNodes(len(jobs)) {
				res := c.Resolve(sloconfig.Node{Name: node.Name, Labels: node.Labels, Annotations: node.Annotations}, nil)
				spec := res.Spec.DeepCopy()
				key, err := json.Marshal(spec)
				Expect(err).NotTo(HaveOccurred())
				if !seen[string(key)] {
					seen[string(key)] = true
					jobs = append(jobs, job{cm, node, spec})
				}
			}
		}

		var (
			mu       sync.Mutex
			failures []string
			wg       sync.WaitGroup
		)
		next := make(chan job)
		for range 8 {
			wg.Go(func() {
				for j := range next {
					err := k8sClient.Create(ctx, &slov1alpha1.NodeSLO{
						ObjectMeta: metav1.ObjectMeta{GenerateName: "accepts-"},
						Spec:       *j.spec,
					}, client.DryRunAll)
					if err == nil {
						err = unusableByKoordlet(j.spec)
					}
					if err != nil {
						var doc strings.Builder
						for _, key := range sloconfig.Keys {
							if v, ok := j.cm.data[string(key)]; ok {
								fmt.Fprintf(&doc, "  %s: %s\n", key, v)
							}
						}
						mu.Lock()
						failures = append(failures, fmt.Sprintf("ConfigMap (%s), node %s %v %v:\n%srefused: %v",
							j.cm.source, j.node.Name, j.node.Labels, j.node.Annotations, doc.String(), err))
						mu.Unlock()
					}
				}
			})
		}
		for _, j := range jobs {
			next <- j
		}
		close(next)
		wg.Wait()

		GinkgoWriter.Printf("%d valid ConfigMaps, %d distinct NodeSLOs, %d refused\n", len(configMaps), len(jobs), len(failures))
		if len(failures) > 0 {
			slices.Sort(failures)
			Fail(fmt.Sprintf("the engine called these ConfigMaps valid, but the apiserver or koordlet cannot take the NodeSLO (first 5 of %d):\n\n%s",
				len(failures), strings.Join(failures[:min(5, len(failures))], "\n\n")))
		}
	})
})

// unusableByKoordlet reports what in spec the node agent cannot use,
// although the CRD lets it through: a block koordlet cannot find a disk for
// (which fails the blkio update of its whole class), a host application
// without a name, a bandwidth koordlet's int64 cannot hold.
func unusableByKoordlet(spec *slov1alpha1.NodeSLOSpec) error {
	var problems []string
	if q := spec.ResourceQOSStrategy; q != nil {
		for name, class := range map[string]*slov1alpha1.ResourceQOS{
			"lsrClass": q.LSRClass, "lsClass": q.LSClass, "beClass": q.BEClass, "systemClass": q.SystemClass, "cgroupRoot": q.CgroupRoot,
		} {
			if class == nil {
				continue
			}
			if class.BlkIOQOS != nil {
				for i, b := range class.BlkIOQOS.Blocks {
					if b == nil || b.Name == "" || b.BlockType == "" {
						problems = append(problems, fmt.Sprintf("%s.blkioQOS.blocks[%d] lacks a name or type", name, i))
					}
				}
			}
			if n := class.NetworkQOS; n != nil {
				for _, v := range []*intstr.IntOrString{n.IngressRequest, n.IngressLimit, n.EgressRequest, n.EgressLimit} {
					if v != nil && v.Type == intstr.String && !fitsKoordlet(resource.MustParse(v.StrVal)) {
						problems = append(problems, fmt.Sprintf("%s.networkQOS: bandwidth %s", name, v.StrVal))
					}
				}
			}
		}
	}
	for i, app := range spec.HostApplications {
		if app.Name == "" {
			problems = append(problems, fmt.Sprintf("hostApplications[%d] has no name", i))
		}
	}
	if s := spec.SystemStrategy; s != nil && !fitsKoordlet(s.TotalNetworkBandwidth) {
		problems = append(problems, "totalNetworkBandwidth "+s.TotalNetworkBandwidth.String())
	}
	if len(problems) > 0 {
		return fmt.Errorf("accepted, but koordlet cannot use: %s", strings.Join(problems, "; "))
	}
	return nil
}

// fitsKoordlet reports whether koordlet, which reads a bandwidth with
// Quantity.Value() into an int64, gets the value written.
func fitsKoordlet(q resource.Quantity) bool {
	return q.Sign() >= 0 && q.Cmp(*resource.NewQuantity(math.MaxInt64, resource.DecimalSI)) <= 0
}

// poolLabel is the label the generated node strategies select nodes by.
const poolLabel = "pool"

// namedConfigMap is a ConfigMap's data and where it came from, for messages.
type namedConfigMap struct {
	source string
	data   map[string]string
}

// strategyKeys maps each ConfigMap key holding a strategy to the NodeSLO
// spec field its strategies become.
var strategyKeys = map[sloconfig.Key]string{
	sloconfig.KeyResourceThreshold: "resourceUsedThresholdWithBE",
	sloconfig.KeyResourceQOS:       "resourceQOSStrategy",
	sloconfig.KeyCPUBurst:          "cpuBurstStrategy",
	sloconfig.KeySystem:            "systemStrategy",
}

// validConfigMaps gathers the sample ConfigMap, the fuzz seeds and corpus,
// and generated documents, keeping for each key only the documents the
// engine accepts, and combines them into ConfigMaps.
func validConfigMaps() []namedConfigMap {
	out := make([]namedConfigMap, 0, 500)

	raw, err := os.ReadFile(filepath.Join("..", "..", "config", "samples", "slo-controller-config.yaml"))
	Expect(err).NotTo(HaveOccurred())
	var sample corev1.ConfigMap
	Expect(yaml.Unmarshal(raw, &sample)).To(Succeed())
	Expect(sloconfig.Load(sample.Data, nil).Valid()).To(BeTrue(), "the sample ConfigMap is invalid")
	out = append(out, namedConfigMap{"config/samples/slo-controller-config.yaml", sample.Data})

	perKey := map[sloconfig.Key][]string{}
	keep := func(key sloconfig.Key, doc string) {
		c := sloconfig.Load(map[string]string{string(key): doc}, nil)
		if c.Valid() {
			perKey[key] = append(perKey[key], doc)
		}
	}
	for _, doc := range append(slices.Clone(sloconfigtest.FuzzSeeds), fuzzCorpus()...) {
		for _, key := range sloconfig.Keys {
			keep(key, doc)
		}
	}
	seeded := map[sloconfig.Key]int{}
	for _, key := range sloconfig.Keys {
		seeded[key] = len(perKey[key])
	}
	schema := nodeSLOSpecSchema()
	g := &docGenerator{rnd: rand.New(rand.NewPCG(9, 1))}
	for range 500 {
		for key, section := range strategyKeys {
			keep(key, g.strategyDocument(schema[section].(map[string]any)))
		}
		keep(sloconfig.KeyHostApplication, g.hostApplicationDocument(schema["hostApplications"].(map[string]any)))
	}

	n := 0
	for _, key := range sloconfig.Keys {
		n = max(n, len(perKey[key]))
		GinkgoWriter.Printf("%s: %d documents the engine accepts (%d from fuzz seeds and corpus)\n", key, len(perKey[key]), seeded[key])
	}
	for i := range n {
		data := map[string]string{}
		var source []string
		for _, key := range sloconfig.Keys {
			if docs := perKey[key]; len(docs) > 0 {
				j := i % len(docs)
				data[string(key)] = docs[j]
				origin := "generated"
				if j < seeded[key] {
					origin = "fuzz seed"
				}
				source = append(source, fmt.Sprintf("%s %s #%d", key, origin, j))
			}
		}
		out = append(out, namedConfigMap{strings.Join(source, ", "), data})
	}
	return out
}

// fuzzCorpus returns the string inputs of FuzzLoadResolve's corpus, if any
// was saved (a failing input is saved there).
func fuzzCorpus() []string {
	files, _ := filepath.Glob(filepath.Join("..", "..", "internal", "sloconfig", "testdata", "fuzz", "FuzzLoadResolve", "*"))
	var docs []string
	for _, f := range files {
		raw, err := os.ReadFile(f)
		Expect(err).NotTo(HaveOccurred())
		for line := range strings.SplitSeq(string(raw), "\n") {
			if quoted, ok := strings.CutPrefix(line, "string("); ok {
				if doc, err := strconv.Unquote(strings.TrimSuffix(quoted, ")")); err == nil {
					docs = append(docs, doc)
				}
				break // the first string is the document
			}
		}
	}
	return docs
}

// acceptanceNodes are the nodes each ConfigMap is rendered for: one no
// node strategy selects, and one per generated node strategy; one carries
// a bandwidth annotation, valid or not (the engine ignores a bad one).
func acceptanceNodes(i int) []corev1.Node {
	bandwidths := []string{"25G", "1e400", "-1", "9223372036854775807", "9223372036854775808", "fast", "0"}
	nodes := make([]corev1.Node, 0, 4)
	nodes = append(nodes, corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "plain"}})
	for p := range 3 {
		nodes = append(nodes, corev1.Node{ObjectMeta: metav1.ObjectMeta{
			Name:   fmt.Sprintf("pool-%d", p),
			Labels: map[string]string{poolLabel: fmt.Sprintf("p%d", p), "node-pool": []string{"colocation", "online", "general"}[p]},
		}})
	}
	nodes[1].Annotations = map[string]string{sloconfig.NetworkBandwidthAnnotation: bandwidths[i%len(bandwidths)]}
	return nodes
}

// nodeSLOSpecSchema is the OpenAPI schema of the NodeSLO spec's fields, as
// the CRD in config/crd/bases declares it.
func nodeSLOSpecSchema() map[string]any {
	raw, err := os.ReadFile(filepath.Join("..", "..", "config", "crd", "bases", "slo.koordinator.sh_nodeslos.yaml"))
	Expect(err).NotTo(HaveOccurred())
	var crd struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	Expect(yaml.Unmarshal(raw, &crd)).To(Succeed())
	root := crd.Spec.Versions[0].Schema.OpenAPIV3Schema
	return root["properties"].(map[string]any)["spec"].(map[string]any)["properties"].(map[string]any)
}

// docGenerator writes random ConfigMap documents from the CRD's schema:
// random subsets of fields, with values at and inside the schema's bounds,
// and now and then just outside them, or null in a list.
type docGenerator struct {
	rnd *rand.Rand
}

// outside is how often a value is chosen just outside its bounds: rare
// enough that many documents stay valid, frequent enough that a loosened
// engine rule lets some through.
const outside = 0.04

func (g *docGenerator) chance(p float64) bool { return g.rnd.Float64() < p }

func (g *docGenerator) pick(values ...string) string { return values[g.rnd.IntN(len(values))] }

func (g *docGenerator) document(v any) string {
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

// strategyDocument is a strategy key's document: a clusterStrategy and up
// to three node strategies, each selecting nodes labelled pool=p<i>.
func (g *docGenerator) strategyDocument(schema map[string]any) string {
	doc := map[string]any{}
	if g.chance(0.8) {
		doc["clusterStrategy"] = g.object(schema, 0)
	}
	entries := make([]any, 0, 3)
	for i := range g.rnd.IntN(4) {
		entry, _ := g.object(schema, 0).(map[string]any)
		if entry == nil {
			entry = map[string]any{}
		}
		entry["name"] = fmt.Sprintf("s%d", i)
		entry["nodeSelector"] = map[string]any{"matchLabels": map[string]any{poolLabel: fmt.Sprintf("p%d", i)}}
		entries = append(entries, entry)
	}
	if len(entries) > 0 {
		doc["nodeStrategies"] = entries
	}
	return g.document(doc)
}

// hostApplicationDocument is a host-application-config document.
func (g *docGenerator) hostApplicationDocument(list map[string]any) string {
	doc := map[string]any{"applications": g.value(list, 1)}
	entries := make([]any, 0, 2)
	for i := range g.rnd.IntN(3) {
		entries = append(entries, map[string]any{
			"name":         fmt.Sprintf("c%d", i),
			"nodeSelector": map[string]any{"matchLabels": map[string]any{poolLabel: fmt.Sprintf("p%d", i)}},
			"applications": g.value(list, 1),
		})
	}
	if len(entries) > 0 {
		doc["nodeConfigs"] = entries
	}
	return g.document(doc)
}

// object generates an object of schema with a random subset of its properties.
func (g *docGenerator) object(schema map[string]any, depth int) any {
	props, _ := schema["properties"].(map[string]any)
	out := map[string]any{}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names) // map order is random; the generator must not be
	for _, name := range names {
		if g.chance(0.45) {
			out[name] = g.value(props[name].(map[string]any), depth+1)
		}
	}
	if extra, ok := schema["additionalProperties"].(map[string]any); ok {
		for i := range g.rnd.IntN(3) {
			out[fmt.Sprintf("feature%d", i)] = g.value(extra, depth+1)
		}
	}
	return out
}

func (g *docGenerator) value(schema map[string]any, depth int) any {
	if schema["x-kubernetes-int-or-string"] == true {
		return g.intOrString()
	}
	switch schema["type"] {
	case "object":
		return g.object(schema, depth)
	case "array":
		items := schema["items"].(map[string]any)
		list := []any{}
		for range g.rnd.IntN(4) {
			if g.chance(outside) {
				list = append(list, nil)
			} else {
				list = append(list, g.value(items, depth+1))
			}
		}
		return list
	case "boolean":
		return g.chance(0.5)
	case "integer":
		return g.integer(schema)
	case "string":
		if enum, ok := schema["enum"].([]any); ok {
			if g.chance(outside) {
				return "notInTheEnum"
			}
			return enum[g.rnd.IntN(len(enum))]
		}
		if g.chance(outside) {
			return ""
		}
		return g.pick("sda", "/dev/nvme0n1", "vg0", "nginx", "kubelet", "host-latency-sensitive/")
	default:
		return nil
	}
}

// integer picks a bound, a value between the bounds, or (rarely) a value
// just outside them.
func (g *docGenerator) integer(schema map[string]any) any {
	minimum, hasMin := schema["minimum"].(float64)
	maximum, hasMax := schema["maximum"].(float64)
	lo, hi := int64(minimum), int64(maximum)
	if hasMin && schema["exclusiveMinimum"] == true {
		lo++
	}
	if g.chance(outside) {
		switch {
		case hasMin && (!hasMax || g.chance(0.5)):
			return lo - 1
		case hasMax:
			return hi + 1
		}
	}
	switch {
	case !hasMin && !hasMax:
		return []int64{-1, 0, 1, 300, 5000}[g.rnd.IntN(5)]
	case !hasMax:
		hi = lo + 1000
	case !hasMin:
		lo = hi - 1000
	}
	switch g.rnd.IntN(4) {
	case 0:
		return lo
	case 1:
		return hi
	default:
		return lo + g.rnd.Int64N(hi-lo+1)
	}
}

// intOrString is a network QoS value or a bandwidth: a percentage, or a
// quantity, some of them beyond what the agent can use.
func (g *docGenerator) intOrString() any {
	if g.chance(outside) {
		return []any{int64(-1), int64(101), "1e400", "9223372036854775808", "-1G", "fast"}[g.rnd.IntN(6)]
	}
	if g.chance(0.4) {
		return []int64{0, 1, 50, 100}[g.rnd.IntN(4)]
	}
	return g.pick("0", "50M", "10G", "1.5G", "100Mi", "9223372036854775807")
}
