package plugin

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Write prints the explanation for a person: one line per ConfigMap key
// saying whether it is valid and which strategy applies to the node, then
// the errors and warnings, then whether the stored NodeSLO is up to date.
func (e Explanation) Write(w io.Writer) error {
	p := &errWriter{w: w}
	p.printf("Node:      %s\n", e.Node)
	if e.ConfigMapSet {
		p.printf("ConfigMap: %s\n\n", e.ConfigMapRef)
	} else {
		p.printf("ConfigMap: %s does not exist: every key has its built-in defaults\n\n", e.ConfigMapRef)
	}

	tw := tabwriter.NewWriter(p, 0, 4, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "KEY\tVALIDITY\tAPPLIES TO THIS NODE")
	for i, report := range e.Reports {
		fprintf(tw, "%s\t%s\t%s\n", report.Key, validity(report), applies(e.matchAt(i)))
	}
	_ = tw.Flush()

	for _, report := range e.Reports {
		if len(report.Errors) == 0 && len(report.Warnings) == 0 {
			continue
		}
		p.printf("\n%s:\n", report.Key)
		for _, err := range report.Errors {
			p.printf("  error:   %s\n", err.Error())
		}
		for _, warning := range report.Warnings {
			p.printf("  warning: %s\n", warning)
		}
	}
	if e.BandwidthAnnotation != "" {
		p.printf("\nBandwidth: %s (annotation %s=%s)\n",
			e.Bandwidth, sloconfig.NetworkBandwidthAnnotation, e.BandwidthAnnotation)
	}
	if len(e.NodeWarnings) > 0 {
		p.printf("\nNode warnings:\n")
		for _, warning := range e.NodeWarnings {
			p.printf("  %s: %s\n", warning.Reason, warning.Message)
		}
	}

	p.printf("\nNodeSLO:   %s\n", e.syncSummary())
	if line := e.revisionSummary(); line != "" {
		p.printf("Revision:  %s\n", line)
	}
	e.writeCRDCheck(p)
	return p.err
}

// revisionSummary names the revision the stored NodeSLO matches; empty
// when there is no NodeSLO or the history could not be read.
func (e Explanation) revisionSummary() string {
	if !e.NodeSLOFound || e.History == nil {
		return ""
	}
	inForce := e.History.InForce()
	switch {
	case inForce == nil:
		return "no revision history kept yet"
	case e.Revision == inForce.Number:
		return fmt.Sprintf("matches revision %d, the one in force", e.Revision)
	case e.Revision > 0:
		return fmt.Sprintf("matches revision %d; revision %d is in force and has not reached this node yet",
			e.Revision, inForce.Number)
	default:
		return fmt.Sprintf("matches none of the revisions kept (%s)", e.History.numbers())
	}
}

// writeCRDCheck lists the configured values the installed CRD drops.
func (e Explanation) writeCRDCheck(p *errWriter) {
	switch {
	case e.CRDCheckProblem != "":
		p.printf("CRD:       cannot check which values the installed NodeSLO CRD drops: %s\n", e.CRDCheckProblem)
	case !e.CRDChecked:
	case len(e.DroppedByCRD) == 0:
		p.printf("CRD:       the installed NodeSLO CRD stores every value configured for this node\n")
	default:
		p.printf("CRD:       the installed NodeSLO CRD (%s) drops these configured values: "+
			"this node's NodeSLO cannot carry them\n", sloconfig.NodeSLOCRDName)
		for _, d := range e.DroppedByCRD {
			key := string(d.Key)
			if key == "" {
				key = "-"
			}
			p.printf("  %s: spec.%s = %s\n", key, d.Path, strings.Join(d.Values, ", "))
		}
		p.printf("  fix: %s\n", sloconfig.CRDUpgradeAdvice)
	}
}

// InSync reports whether the stored NodeSLO is what the configuration gives.
func (e Explanation) InSync() bool { return e.NodeSLOFound && len(e.DifferingSections) == 0 }

func (e Explanation) syncSummary() string {
	switch {
	case !e.NodeSLOFound:
		return "absent: the controller has not written it (is it running?)"
	case e.InSync() && len(e.DroppedByCRD) > 0:
		return "matches the configuration, but for the values the installed CRD drops (below)"
	case e.InSync():
		return "matches the configuration"
	default:
		return "differs from the configuration in " + strings.Join(e.DifferingSections, ", ") +
			" (the controller rewrites it unless it is stopped or failing)"
	}
}

func (e Explanation) matchAt(i int) *sloconfig.SectionMatch {
	if i < len(e.Matches) {
		return &e.Matches[i]
	}
	return nil
}

func validity(r sloconfig.SectionReport) string {
	switch {
	case r.State == sloconfig.StateDefault:
		return "absent (defaults)"
	case !r.Valid():
		return "invalid"
	case len(r.Warnings) > 0:
		return "valid, with warnings"
	default:
		return "valid"
	}
}

func applies(m *sloconfig.SectionMatch) string {
	switch {
	case m == nil:
		return "unknown"
	case m.State == sloconfig.StateFrozen || m.State == sloconfig.StateLastGood:
		return "the value in force is kept (stored NodeSLO)"
	case m.State == sloconfig.StateDefault:
		return "built-in defaults"
	case m.Index < 0:
		return "cluster strategy"
	case m.Key == sloconfig.KeyHostApplication:
		return fmt.Sprintf("node config %q (index %d)", m.Strategy, m.Index)
	default:
		return fmt.Sprintf("node strategy %q (index %d)", m.Strategy, m.Index)
	}
}

// errWriter keeps the first write error so that Write checks it once.
type errWriter struct {
	w   io.Writer
	err error
}

func (p *errWriter) Write(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n, err := p.w.Write(b)
	p.err = err
	return n, err
}

// printf prints with the arguments made inert (fprintf).
func (p *errWriter) printf(format string, args ...any) {
	fprintf(p, format, args...)
}
