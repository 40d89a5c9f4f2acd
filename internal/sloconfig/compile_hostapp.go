package sloconfig

import (
	"reflect"

	"k8s.io/apimachinery/pkg/util/validation/field"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

type hostAppList = []slov1alpha1.HostApplicationSpec

var hostAppShape = documentShape{
	top: newFieldSet(map[string]reflect.Type{
		"applications":   reflect.TypeFor[hostAppList](),
		fieldNodeConfigs: reflect.TypeFor[[]any](),
	}),
	entriesKey: fieldNodeConfigs,
	entry:      withProfile(newFieldSet(map[string]reflect.Type{"applications": reflect.TypeFor[hostAppList]()})),
}

// compileHostApplications reads host-application-config. Nothing is
// merged: a matching node config's applications replace the top-level ones.
func compileHostApplications(raw string) compiled[hostAppList] {
	var out compiled[hostAppList]
	doc, found := parseAndCheck(raw, hostAppShape)
	out.found = found
	if found.failed() > 0 {
		return out.done()
	}
	apps, errs := decodeHostApplications(doc.top["applications"], field.NewPath("applications"))
	out.section.fallback = apps
	found.fail(errs...)
	for _, e := range doc.entries {
		apps, errs := decodeHostApplications(e.patch["applications"], e.path.Child("applications"))
		found.fail(errs...)
		out.addRule(e, apps)
	}
	return out.done()
}

func decodeHostApplications(tree any, path *field.Path) (hostAppList, field.ErrorList) {
	if tree == nil {
		return nil, nil
	}
	var apps hostAppList
	if err := fromTree(tree, &apps); err != nil {
		return nil, field.ErrorList{field.Invalid(path, field.OmitValueType{}, err.Error())}
	}
	if len(apps) == 0 {
		apps = nil
	}
	return apps, validateHostApplications(apps, path)
}
