package sloconfig

import (
	"fmt"
	"strings"
)

// The words of CRD version skew (docs/behaviour.md#crd-version-skew), shared
// by the Event on the ConfigMap, the admission warning, `kubectl nodeslo
// validate --check-crd` and `explain`, so that each says the same.

// NodeSLOCRDName is the name of the NodeSLO CustomResourceDefinition.
const NodeSLOCRDName = "nodeslos.slo.koordinator.sh"

// CRDInstallCommands are the commands that install or upgrade this
// project's NodeSLO CRD, with kustomize and with Helm.
const CRDInstallCommands = "kustomize: kubectl apply --server-side --force-conflicts -k config/crd " +
	"(or make install); Helm: helm upgrade --install nodeslo dist/chart -n koordinator-system " +
	"--reuse-values --set crd.enabled=true (a CRD another Helm release owns: apply it with kubectl as above)"

// DroppedFieldLines renders dropped field paths as one line each, prefixed
// with the ConfigMap key that sets the field.
func DroppedFieldLines(paths []string) []string {
	var out []string
	for _, kp := range DroppedByKey(paths) {
		for _, p := range kp.Paths {
			line := fmt.Sprintf("spec.%s: the installed NodeSLO CRD (%s) has no such field: the apiserver drops it "+
				"from every NodeSLO, so no node gets it", p, NodeSLOCRDName)
			if kp.Key != "" {
				line = string(kp.Key) + ": " + line
			}
			out = append(out, line)
		}
	}
	return out
}

// CRDUpgradeAdvice is what to do about dropped fields.
const CRDUpgradeAdvice = "upgrade the NodeSLO CRD to this controller's (" + CRDInstallCommands + ")"

// DroppedFieldsNote is the Event note about dropped fields: the lines and
// the fix, within the API's length limit.
func DroppedFieldsNote(paths []string) string {
	return EventNote(DroppedFieldLines(paths), CRDUpgradeAdvice)
}

// NodeSLORolloutCRDName is the name of this project's NodeSLORollout CRD.
const NodeSLORolloutCRDName = "nodeslorollouts.nodeslo.koordinator.sh"

// RolloutCRDMissingMessage says that the NodeSLORollout CRD is not
// installed and how to install it.
func RolloutCRDMissingMessage() string {
	return strings.Join([]string{
		"the NodeSLORollout CRD " + NodeSLORolloutCRDName + " is not installed: the controllers need it " +
			"for a rollout's record and status (docs/rollout.md#the-nodeslorollout)",
		"install it (" + CRDInstallCommands + "; beside Koordinator's chart, rolloutCRD.enabled=true)",
		"the manager checks again every few seconds and starts its controllers once the CRD is there",
	}, "; ")
}

// CRDMissingMessage says that the NodeSLO CRD is not installed and how to
// install it.
func CRDMissingMessage() string {
	return strings.Join([]string{
		"the NodeSLO CRD " + NodeSLOCRDName + " is not installed: no NodeSLO can be written until it is",
		"install it (" + CRDInstallCommands + ")",
		"the manager checks again every few seconds and starts its controllers once the CRD is there",
	}, "; ")
}

// DroppedFieldWarnings renders dropped field paths as self-contained
// warnings, each with the fix: the admission webhook's and `kubectl nodeslo
// validate --check-crd`'s lines.
func DroppedFieldWarnings(paths []string) []string {
	lines := DroppedFieldLines(paths)
	for i := range lines {
		lines[i] += "; " + CRDUpgradeAdvice
	}
	return lines
}
