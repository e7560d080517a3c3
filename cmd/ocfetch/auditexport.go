package main

import (
	"context"
	"fmt"
	"time"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/auditexport"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/workspace"
)

// auditExport is the process's one exporter of audit lines to an
// OpenTelemetry collector (issue 24), started the first time a command
// opens an audit log, stopped when the command ends (execute).
type auditExport struct {
	started bool
	x       *auditexport.Exporter
}

// auditLog is the workspace's audit log, whose lines are also exported
// when a collector is configured: the managed policy's audit_export, else
// the user's audit_export.json. A configuration that cannot be read is
// said on stderr and nothing is exported: the export is a copy, the file
// the record of truth, so it never refuses a call.
func (a *app) auditLog(ws workspace.Workspace) *audit.Log {
	log := audit.Open(ws)
	if x := a.auditExporter(); x != nil {
		return log.WithSink(x)
	}
	return log
}

func (a *app) auditExporter() *auditexport.Exporter {
	if a.export.started {
		return a.export.x
	}
	a.export.started = true
	endpoint, from := "", ""
	if p, err := a.managedPolicy(); err == nil && p.AuditExport != "" {
		endpoint, from = p.AuditExport, p.File
	} else {
		ep, err := auditexport.LoadConfig(a.layers.configDir)
		if err != nil {
			fmt.Fprintf(a.stderr, "ocfetch: warning: audit export off: %s\n", safetext.Line(err.Error()))
			return nil
		}
		endpoint, from = ep, auditexport.ConfigName
	}
	if endpoint == "" {
		return nil
	}
	x, err := auditexport.New(&auditexport.Options{Endpoint: endpoint, Logger: a.log(),
		Resource: map[string]string{"service.version": plainVersion()}})
	if err != nil {
		fmt.Fprintf(a.stderr, "ocfetch: warning: audit export off: %s (%s)\n", safetext.Line(err.Error()), from)
		return nil
	}
	a.export.x = x
	return x
}

// stopAuditExport sends what is queued (at most 3 s) and says on stderr
// how many records did not reach the collector.
func (a *app) stopAuditExport() {
	x := a.export.x
	if x == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	x.Shutdown(ctx)
	if st := x.Stats(); st.Dropped+st.Failed > 0 {
		fmt.Fprintf(a.stderr, "ocfetch: warning: audit export: %d of %d records did not reach the collector (%d dropped, %d failed); .oc_chat/audit.jsonl has every line\n",
			st.Dropped+st.Failed, st.Dropped+st.Failed+st.Exported, st.Dropped, st.Failed)
	}
}

// sinkOf is x as an audit.Sink, nil when x is nil.
func sinkOf(x *auditexport.Exporter) audit.Sink {
	if x == nil {
		return nil
	}
	return x
}
