{{/*
The chart's name, and the prefix of every object's name. It is fixed, not
derived from the release name: the objects are named as config/default names
them (namePrefix nodeslo-controller-), whatever the release is called (see
values.yaml for why).
*/}}
{{- define "nodeslo-controller.name" -}}
nodeslo-controller
{{- end }}

{{- define "nodeslo-controller.fullname" -}}
{{ include "nodeslo-controller.name" . }}
{{- end }}

{{/*
The name of one object: the prefix and a suffix, e.g. controller-manager.
Takes a dict with "suffix" and "context" (the root context), as Kubebuilder's
charts do.
*/}}
{{- define "nodeslo-controller.resourceName" -}}
{{- printf "%s-%s" (include "nodeslo-controller.name" .context) .suffix | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The labels of the manager's pods that the Deployment, the Services, the
NetworkPolicies and the ServiceMonitor select on: those of config/, so that
the selectors (immutable in a Deployment) are the same either way.
*/}}
{{- define "nodeslo-controller.selectorLabels" -}}
control-plane: controller-manager
app.kubernetes.io/name: {{ include "nodeslo-controller.name" . }}
{{- end }}

{{/*
The labels of every object.
*/}}
{{- define "nodeslo-controller.labels" -}}
app.kubernetes.io/name: {{ include "nodeslo-controller.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end }}

{{/*
The manager's ServiceAccount, the subject of every binding:
serviceAccount.name, or the name config/ gives it.
*/}}
{{- define "nodeslo-controller.serviceAccountName" -}}
{{- $default := include "nodeslo-controller.resourceName" (dict "suffix" "controller-manager" "context" .) }}
{{- .Values.serviceAccount.name | default $default }}
{{- end }}

{{/*
The subjects list of the bindings: the manager's ServiceAccount.
*/}}
{{- define "nodeslo-controller.subjects" -}}
subjects:
- kind: ServiceAccount
  name: {{ include "nodeslo-controller.serviceAccountName" . }}
  namespace: {{ .Release.Namespace }}
{{- end }}

{{/*
The Secret holding the addresses file of the metric gate credential .name
(metricGate.credentials): where that credential may be sent. A Secret, not
a ConfigMap: whoever may edit ConfigMaps in the namespace must not be able
to send the credential elsewhere.
*/}}
{{- define "nodeslo-controller.metricGateAddresses" -}}
{{- printf "%s-metric-gate-%s-addresses" (include "nodeslo-controller.name" .context) .name }}
{{- end }}

{{/*
The labels an operator adds to an object (a dict), after the chart's own:
for the Prometheus that selects ServiceMonitors and rules by label. A key
of the chart's own labels is refused rather than written twice.
*/}}
{{- define "nodeslo-controller.extraLabels" -}}
{{- $own := merge (include "nodeslo-controller.labels" .context | fromYaml) (dict "control-plane" "") }}
{{- range $key, $_ := .labels }}
{{- if hasKey $own $key }}
{{- fail (printf "%s sets %s, a label the chart sets itself" $.value $key) }}
{{- end }}
{{- end }}
{{- toYaml .labels }}
{{- end }}
