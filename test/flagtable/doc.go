// Package flagtable reads the manager's flag table from docs/deploy.md, the one
// place that documents every flag, so that tests can hold the table to the
// binary (cmd/flags_test.go) and to the Helm chart (test/chart).
package flagtable
