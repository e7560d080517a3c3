package main

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/spf13/cobra"

	"github.com/ocfetch/ocfetch/egress"
	"github.com/ocfetch/ocfetch/mcpserver"
	"github.com/ocfetch/ocfetch/workspace"
)

func newMCPCmd(a *app) *cobra.Command {
	var (
		httpAddr string
		ef       egressFlags
	)
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the fetch tool over MCP (stdio, or streamable HTTP on loopback)",
		Long: `mcp serves one tool, fetch, to an MCP client, over stdio by default or over
streamable HTTP on a loopback address with --http. Calls go through the same
rules, local mode, egress guard and audit log as ocfetch get; a target no rule
covers is put to the user by elicitation where the client supports it.

The workspace root is --root, else the client's first file:// root, else the
current directory.`,
		Example: `  ocfetch mcp
  ocfetch mcp --root ~/src/project
  ocfetch mcp --http 127.0.0.1:8931`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCP(cmd.Context(), a, httpAddr, ef)
		},
	}
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve streamable HTTP on the loopback `ADDR` (127.0.0.1:PORT) instead of stdio")
	addEgressFlags(cmd, &ef)
	return cmd
}

func runMCP(ctx context.Context, a *app, httpAddr string, ef egressFlags) error {
	// Only an explicit --root is resolved here (a bad one is a usage
	// error); without it, the server takes the client's first root, else
	// the current directory.
	root := ""
	var rootWS *workspace.Workspace // settings.json's upstream_proxy is read from --root only
	if a.rootDir != "" {
		ws, err := a.workspace()
		if err != nil {
			return err
		}
		root, rootWS = ws.Root, &ws
	}
	eopts := &egress.Options{}
	wsUpstream, err := applyEgress(rootWS, ef, eopts)
	if err != nil {
		return err
	}
	layers, err := a.policyLayers()
	if err != nil {
		return err
	}
	if a.egressOptions != nil {
		a.egressOptions(eopts)
	}
	opts := &mcpserver.Options{
		Root:     root,
		Profile:  a.profileFlag,
		HTTPAddr: httpAddr,
		Stdin:    a.stdin,
		Stdout:   a.stdout,
		Logger:   a.log(),
		Version:  versionString(),
		Egress:   eopts,
		Layers:   layers,
		// settings.json's upstream_proxy, read from --root only.
		WorkspaceUpstream: wsUpstream,
	}
	if httpAddr != "" {
		opts.Ready = func(addr net.Addr) {
			fmt.Fprintf(a.stderr, "ocfetch mcp: serving streamable HTTP on http://%s/\n", addr)
		}
	}
	err = mcpserver.Serve(ctx, opts)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, mcpserver.ErrNotLoopback):
		return usageErrorf("use --http 127.0.0.1:PORT", "%v", err)
	}
	if le := listenError("--http", httpAddr, err); le != nil && httpAddr != "" {
		return le
	}
	e := classify(err)
	if e.reason == "" && a.profileFlag != "" {
		e.code = exitUsage
	}
	return e
}
