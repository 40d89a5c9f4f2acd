// Package plugin is the kubectl-nodeslo plugin: cobra commands, one file
// per subcommand, over small functions that read manifests and run the
// sloconfig engine offline, so that every part can be tested without a
// cluster.
package plugin
