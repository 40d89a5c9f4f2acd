package sloconfig

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// validateHostApplications checks the enums of a list of host applications.
func validateHostApplications(apps []slov1alpha1.HostApplicationSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range apps {
		app := &apps[i]
		r := &rules{path: path.Index(i)}
		// koordlet keys an application's statistics by name and, without a
		// cgroupPath, finds its cgroup by name.
		r.required("name", app.Name, "koordlet identifies the application by its name")
		oneOf(r, "priority", app.Priority, "koord-prod", "koord-mid", "koord-batch", "koord-free")
		oneOf(r, "qos", app.QoS, "LSE", "LSR", "LS", "BE", "SYSTEM")
		if app.CgroupPath != nil {
			cg := r.at(r.path.Child("cgroupPath"))
			oneOf(cg, "base", app.CgroupPath.Base, slov1alpha1.CgroupBaseTypeRoot,
				slov1alpha1.CgroupBaseTypeKubepods, slov1alpha1.CgroupBaseTypeKubeBurstable,
				slov1alpha1.CgroupBaseTypeKubeBesteffort)
			r.add(cg)
		}
		errs = append(errs, r.errs...)
	}
	return errs
}
