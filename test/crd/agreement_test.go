package crd

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig/rulecases"
)

// The bounds, enums and cross-field rules exist twice: as markers in
// api/slo/v1alpha1 (the CRD) and as Go in internal/sloconfig. If the engine
// accepted a value the apiserver rejects, every NodeSLO resolved from such
// a ConfigMap would fail to be written, again and again. So every value of
// the shared rule table goes to both judges, and they must agree field by
// field: both accept, or both reject at the same field. The rules where
// the engine is stricter on purpose (rulecases.EngineStricter) may differ
// in that direction only.
var _ = Describe("The engine and the CRD", func() {
	DescribeTable("judge every value of the rule table alike",
		func(c rulecases.Case, value string) {
			engine, apiserver := engineVerdict(c.Rule, value), apiserverVerdict(c.Rule, value)
			Expect(disagreement(engine, apiserver)).To(BeEmpty(), describe(c.Rule, value, engine, apiserver))
			if value == c.OK {
				Expect(engine.fields).To(BeEmpty(), "both reject the value the table calls valid\n"+
					describe(c.Rule, value, engine, apiserver))
			} else {
				Expect(engine.fields).To(ContainElement(c.SpecPath()),
					"the value the table calls invalid is not rejected at its own field\n"+
						describe(c.Rule, value, engine, apiserver))
			}
		},
		caseEntries(rulecases.Cases))

	DescribeTable("differ only where the engine is stricter on purpose, and only in that direction",
		func(d rulecases.Difference, value string) {
			engine, apiserver := engineVerdict(d.Rule, value), apiserverVerdict(d.Rule, value)
			if value == d.OK {
				Expect(disagreement(engine, apiserver)).To(BeEmpty(), describe(d.Rule, value, engine, apiserver))
				Expect(engine.fields).To(BeEmpty(), "both reject the value the table calls valid\n"+
					describe(d.Rule, value, engine, apiserver))
				return
			}
			if len(engine.fields) == 0 && len(apiserver.fields) > 0 {
				Fail(disagreement(engine, apiserver) + "\n" + describe(d.Rule, value, engine, apiserver))
			}
			Expect(engine.fields).To(ConsistOf(d.SpecPath()), "the engine must reject it at %s, as it means to (%s)\n%s",
				d.SpecPath(), d.Reason, describe(d.Rule, value, engine, apiserver))
			Expect(apiserver.fields).To(BeEmpty(), "the apiserver rejects it too, so it is no difference any more: "+
				"move it from rulecases.EngineStricter to rulecases.Cases\n"+describe(d.Rule, value, engine, apiserver))
		},
		differenceEntries(rulecases.EngineStricter))
})

func caseEntries(cases []rulecases.Case) []TableEntry {
	entries := make([]TableEntry, 0, 2*len(cases))
	for _, c := range cases {
		for _, value := range []string{c.OK, c.Bad} {
			entries = append(entries, Entry(c.SpecPath()+" = "+value, c, value))
		}
	}
	return entries
}

func differenceEntries(differences []rulecases.Difference) []TableEntry {
	entries := make([]TableEntry, 0, 2*len(differences))
	for _, d := range differences {
		for _, value := range []string{d.OK, d.Bad} {
			entries = append(entries, Entry(d.SpecPath()+" = "+value, d, value))
		}
	}
	return entries
}

// verdict is what one judge says of a value.
type verdict struct {
	// fields are the spec paths the judge rejects, e.g.
	// spec.resourceUsedThresholdWithBE.cpuSuppressThresholdPercent; none
	// when it accepts.
	fields []string
	// causes are the apiserver's causes, by which a CEL rule reported at
	// its object is matched to the field it names.
	causes []metav1.StatusCause
	// text is the judge's own words, for failure messages.
	text string
}

// engineVerdict loads a ConfigMap whose rule key holds the snippet with
// value, and maps the paths of its errors to spec paths.
func engineVerdict(r rulecases.Rule, value string) verdict {
	config := sloconfig.Load(map[string]string{r.Section.Key: r.Document(value)}, nil)
	var v verdict
	for _, report := range config.Reports() {
		if string(report.Key) != r.Section.Key {
			continue
		}
		for _, e := range report.Errors {
			path, ok := r.Section.SpecPathOf(e.Field)
			if !ok {
				path = r.Section.Key + ": " + e.Field // outside the snippet: no field of the spec agrees
			}
			if !slices.Contains(v.fields, path) {
				v.fields = append(v.fields, path)
			}
		}
		v.text = strings.Join(report.Messages(), "\n")
	}
	return v
}

// apiserverVerdict creates, with dry-run, a NodeSLO whose section holds the
// snippet with value, laid over the engine's built-in default of the key,
// since that merged value is what the engine judges and would write
// (docs/behaviour.md, "Defaults").
func apiserverVerdict(r rulecases.Rule, value string) verdict {
	err := dryRunAnswer(r.Section, r.Strategy(value))
	if err == nil {
		return verdict{}
	}
	var status apierrors.APIStatus
	ExpectWithOffset(1, errors.As(err, &status) && apierrors.IsInvalid(err)).To(BeTrue(),
		"the dry-run create failed for another reason than validation: %v", err)
	v := verdict{text: err.Error()}
	if details := status.Status().Details; details != nil {
		for _, c := range details.Causes {
			c.Field = causeField(c)
			v.causes = append(v.causes, c)
		}
	}
	// A cause without a field beside others is a note about the whole
	// object: when an enum or a type is wrong, the apiserver skips the CEL
	// rules and says so ("some validation rules were not checked").
	if slices.ContainsFunc(v.causes, func(c metav1.StatusCause) bool { return c.Field != "" }) {
		v.causes = slices.DeleteFunc(v.causes, func(c metav1.StatusCause) bool { return c.Field == "" })
	}
	for _, c := range v.causes {
		if !slices.Contains(v.fields, c.Field) {
			v.fields = append(v.fields, c.Field)
		}
	}
	ExpectWithOffset(1, v.fields).NotTo(BeEmpty(), "the apiserver rejects without naming a field: %v", err)
	return v
}

// dryRunAnswers holds the apiserver's answer to the dry-run create of each
// value of both tables, by section key and strategy (answerKey). Asked one
// after another, the 700-odd requests kept the apiserver waiting on the
// client between them; they are asked all at once, a few at a time, when
// the first entry needs an answer, and each entry then judges its own
// answer exactly as it did when it sent the request itself.
var dryRunAnswers map[string]error

// dryRunConcurrency bounds the dry runs in flight, as the acceptance test does.
const dryRunConcurrency = 8

func answerKey(s rulecases.Section, strategy string) string { return s.Key + "\n" + strategy }

// dryRunAnswer is the apiserver's answer to the dry-run create of a NodeSLO
// whose section s holds strategy (dryRunObject).
func dryRunAnswer(s rulecases.Section, strategy string) error {
	if dryRunAnswers == nil {
		dryRunAnswers = askEveryValue()
	}
	err, ok := dryRunAnswers[answerKey(s, strategy)]
	if !ok {
		// Not a value of the tables: ask for it alone.
		return k8sClient.Create(ctx, dryRunObject(s, strategy), client.DryRunAll)
	}
	return err
}

// askEveryValue sends the dry-run create of every value of rulecases.Cases
// and rulecases.EngineStricter, dryRunConcurrency at a time, and returns
// each answer by answerKey. The objects are built here, where a failed
// expectation fails the spec; the workers only send them.
func askEveryValue() map[string]error {
	type request struct {
		key    string
		object client.Object
	}
	var requests []request
	seen := map[string]bool{}
	add := func(r rulecases.Rule, values ...string) {
		for _, value := range values {
			key := answerKey(r.Section, r.Strategy(value))
			if !seen[key] {
				seen[key] = true
				requests = append(requests, request{key, dryRunObject(r.Section, r.Strategy(value))})
			}
		}
	}
	for _, c := range rulecases.Cases {
		add(c.Rule, c.OK, c.Bad)
	}
	for _, d := range rulecases.EngineStricter {
		add(d.Rule, d.OK, d.Bad)
	}

	answers := make(map[string]error, len(requests))
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	next := make(chan request)
	for range dryRunConcurrency {
		wg.Go(func() {
			for r := range next {
				err := k8sClient.Create(ctx, r.object, client.DryRunAll)
				mu.Lock()
				answers[r.key] = err
				mu.Unlock()
			}
		})
	}
	for _, r := range requests {
		next <- r
	}
	close(next)
	wg.Wait()
	return answers
}

// dryRunObject is the NodeSLO sent for a strategy, as the controller would
// send it, typed; a value the Go type cannot hold (e.g. the quantity "10 G")
// is sent as it is, untyped, so that the apiserver still judges it.
func dryRunObject(s rulecases.Section, strategy string) client.Object {
	section, defaults := sectionWithDefault(s)
	nodeSLO := &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: "agreement"}}
	if err := json.Unmarshal([]byte(strategy), section); err == nil {
		setSection(&nodeSLO.Spec, s, section)
		return nodeSLO
	}
	base, err := json.Marshal(defaults)
	Expect(err).NotTo(HaveOccurred())
	merged, err := strategicpatch.StrategicMergePatch(base, []byte(strategy), defaults)
	Expect(err).NotTo(HaveOccurred(), "laying %s over the default", strategy)
	var value any
	Expect(json.Unmarshal(merged, &value)).To(Succeed())
	if s.IsList() {
		value = []any{value}
	}
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{s.SpecField: value}}}
	u.SetGroupVersionKind(slov1alpha1.GroupVersion.WithKind("NodeSLO"))
	u.SetName("agreement")
	return u
}

// sectionWithDefault returns the section's Go value holding the engine's
// built-in default, to decode a snippet into, and a second copy of it.
func sectionWithDefault(s rulecases.Section) (section, defaults any) {
	switch s {
	case rulecases.ResourceThreshold:
		return sloconfig.DefaultResourceThresholdStrategy(), sloconfig.DefaultResourceThresholdStrategy()
	case rulecases.ResourceQOS:
		return sloconfig.DefaultResourceQOSStrategy(), sloconfig.DefaultResourceQOSStrategy()
	case rulecases.CPUBurst:
		return sloconfig.DefaultCPUBurstStrategy(), sloconfig.DefaultCPUBurstStrategy()
	case rulecases.System:
		return sloconfig.DefaultSystemStrategy(), sloconfig.DefaultSystemStrategy()
	case rulecases.HostApplication:
		return &slov1alpha1.HostApplicationSpec{}, &slov1alpha1.HostApplicationSpec{}
	}
	Fail("no section " + s.SpecField)
	return nil, nil
}

func setSection(spec *slov1alpha1.NodeSLOSpec, s rulecases.Section, section any) {
	switch v := section.(type) {
	case *slov1alpha1.ResourceThresholdStrategy:
		spec.ResourceUsedThresholdWithBE = v
	case *slov1alpha1.ResourceQOSStrategy:
		spec.ResourceQOSStrategy = v
	case *slov1alpha1.CPUBurstStrategy:
		spec.CPUBurstStrategy = v
	case *slov1alpha1.SystemStrategy:
		spec.SystemStrategy = v
	case *slov1alpha1.HostApplicationSpec:
		spec.HostApplications = []slov1alpha1.HostApplicationSpec{*v}
	default:
		Fail(fmt.Sprintf("section %s has no setter for %T", s.SpecField, section))
	}
}

// disagreement says how the verdicts differ, or "" when they agree: both
// accept, or every field one rejects is one the other rejects too.
func disagreement(engine, apiserver verdict) string {
	var engineOnly, apiserverOnly []string
	for _, f := range engine.fields {
		if !slices.ContainsFunc(apiserver.causes, func(c metav1.StatusCause) bool { return sameField(c, f) }) {
			engineOnly = append(engineOnly, f)
		}
	}
	for _, c := range apiserver.causes {
		if !slices.ContainsFunc(engine.fields, func(f string) bool { return sameField(c, f) }) {
			apiserverOnly = append(apiserverOnly, c.Field)
		}
	}
	switch {
	case len(engineOnly) == 0 && len(apiserverOnly) == 0:
		return ""
	case len(engine.fields) == 0:
		return fmt.Sprintf("THE ENGINE ACCEPTS IT BUT THE APISERVER REJECTS IT at %v: every write of a NodeSLO "+
			"resolved from such a ConfigMap would fail; tighten the engine's rule or loosen the marker", apiserverOnly)
	case len(apiserver.fields) == 0:
		return fmt.Sprintf("the engine rejects it at %v but the apiserver accepts it: the marker in api/slo/v1alpha1 is "+
			"looser than the engine; tighten it, or, if deliberate, list the value in rulecases.EngineStricter", engineOnly)
	default:
		return fmt.Sprintf("both reject it, but at different fields: only the engine at %v, only the apiserver at %v",
			engineOnly, apiserverOnly)
	}
}

// specPathInMessage finds a spec path in a message, such as "must be of
// type integer with format int32 in spec.resourceUsedThresholdWithBE.evictEnabledPriorityThreshold".
var specPathInMessage = regexp.MustCompile(`\bspec(\.\w+|\[\d+\])+`)

// causeField is the field a cause is about. Some causes have none (the
// apiserver renders the nil path "<nil>") and name the field in their
// message instead, e.g. the int32 range check; others are about the
// object as a whole, and causeField returns "".
func causeField(c metav1.StatusCause) string {
	if c.Field != "" && c.Field != "<nil>" {
		return c.Field
	}
	return specPathInMessage.FindString(c.Message)
}

// sameField reports whether an apiserver cause is about the field at
// path: at it, or, for a CEL rule reported at the object that declares it
// (a rule without fieldPath), at its parent, naming the field.
func sameField(c metav1.StatusCause, path string) bool {
	if c.Field == path {
		return true
	}
	i := strings.LastIndex(path, ".")
	if i < 0 || c.Field != path[:i] {
		return false
	}
	return regexp.MustCompile(`\b` + regexp.QuoteMeta(path[i+1:]) + `\b`).MatchString(c.Message)
}

// describe is the failure message of one value: the field, the ConfigMap
// key and document, and each judge's own words.
func describe(r rulecases.Rule, value string, engine, apiserver verdict) string {
	say := func(v verdict) string {
		if len(v.fields) == 0 {
			return "accepts"
		}
		return "rejects:\n    " + strings.ReplaceAll(v.text, "\n", "\n    ")
	}
	return fmt.Sprintf("%s = %s\n  %s: %s\n  engine %s\n  apiserver %s",
		r.SpecPath(), value, r.Section.Key, r.Document(value), say(engine), say(apiserver))
}
