#!/usr/bin/env bash
# Copies a multi-document YAML stream (stdin to stdout) without its Namespace
# objects. `make undeploy` uses it: the controller lives in Koordinator's
# namespace, and deleting that namespace would delete Koordinator too.
set -euo pipefail

echo "[drop-namespaces] keeping Namespace objects out of the stream" >&2
awk '
  function flush() { if (doc != "" && !namespace) printf "%s---\n", doc; doc = ""; namespace = 0 }
  /^---$/ { flush(); next }
  /^kind: Namespace$/ { namespace = 1 }
  { doc = doc $0 "\n" }
  END { flush() }
'
