// Package transcripts runs the command transcripts of the README and of
// docs/rollout-walkthrough.md against `make run-local`'s bin/run-local and
// compares their output with the pages, so that the pages cannot drift from
// what the project does (docs/testing.md#transcripts). Its tests carry the
// build tag transcripts; `make test-docs` builds what they run and runs them.
package transcripts

// pages are the pages whose transcripts are run, from the repository's top.
var pages = []string{"README.md", "docs/rollout-walkthrough.md"}
