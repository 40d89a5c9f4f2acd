#!/usr/bin/env bash
# Writes the chart's CRD templates (dist/chart/templates/crd) from the CRDs
# `make manifests` generates into config/crd/bases, so that neither is
# edited by hand: each template is its base behind the value that renders
# it (crd.enabled, rolloutCRD.enabled), with helm.sh/resource-policy: keep
# under crd.keep, and each Go template action a description quotes
# ({{.NodesRegex}}) escaped so that Helm leaves it as it is. test/chart
# checks that the chart renders what config/ does.
set -euo pipefail
cd "$(dirname "$0")/.."

# write_template BASE VALUE writes the template of config/crd/bases/BASE,
# rendered when .Values.VALUE is true, named after the CRD.
write_template() {
  local base=config/crd/bases/$1 value=$2 name
  name=$(awk '/^  name: / { print $2; exit }' "$base")
  local out=dist/chart/templates/crd/$name.yaml
  {
    printf '{{- /* Written by hack/chart-crds.sh (make manifests) from %s: edit the API types, not this file. */ -}}\n' "$base"
    printf '{{- if .Values.%s }}\n' "$value"
    awk '
      NR == 1 && $0 == "---" { next }
      { gsub(/\{\{\.[A-Za-z]+\}\}/, "{{ \"&\" }}") }
      { print }
      $0 == "  annotations:" && !kept {
        print "    {{- if .Values.crd.keep }}"
        print "    helm.sh/resource-policy: keep"
        print "    {{- end }}"
        kept = 1
      }
    ' "$base"
    printf '{{- end }}\n'
  } >"$out"
}

write_template slo.koordinator.sh_nodeslos.yaml crd.enabled
write_template nodeslo.koordinator.sh_nodeslorollouts.yaml rolloutCRD.enabled
