// Package trust is the user's trust store, os.UserConfigDir()/ocfetch/
// trust.json: the workspaces whose own files may grant something.
//
// A workspace's .oc_chat/ can come from anyone — `git clone` brings it
// along — so what its files grant (a profile above the default in
// settings.json, the ports of local_fetch.json, the allow rules of
// rules.json) counts only in a workspace this user trusts; what they
// restrict (deny rules, profile strict) counts everywhere. This package
// keeps the list and says what a workspace's files would grant
// ([ReadGrants]); the decision step asks [Store.Trusted] on every call.
//
//	store, err := trust.Open(nil) // os.UserConfigDir()/ocfetch/trust.json
//	ok, err := store.Trusted(ws.Root)
//	if err != nil { … } // a malformed store trusts nothing: fail closed
//	g, err := trust.ReadGrants(ws)
//	err = store.Trust(ctx, ws.Root, trust.Details{How: "ocfetch trust"})
//	created, err := store.EnsureWorkspace(ctx, ws, "ocfetch rules allow")
//
// # Keys: the real path, and the directory itself
//
// An entry is keyed by the workspace's real path (filepath.Abs, then
// filepath.EvalSymlinks), so a workspace reached through a symlink is the
// same workspace, and records the directory's identity (device and inode
// on Unix, volume serial and file index on Windows). A workspace is
// trusted when both match. So:
//
//   - a directory moved or renamed is untrusted at its new path (its old
//     entry stays in `ocfetch trust --list`, marked missing, until
//     revoked);
//   - a directory deleted and re-created, or another one cloned to the
//     same path, is untrusted even though the path matches (marked
//     replaced); trusting it again replaces the entry;
//   - a copy (cp -r, a second clone) is a new, untrusted workspace.
//
// The store is read on every call, nothing cached: a revocation or a
// deletion of the file takes effect on the next call. It is written
// atomically under a lock through an os.Root opened at its directory
// (internal/rootfile): a trust.json or lock file that is a symlink is
// refused, never followed. Its location is os.UserConfigDir()'s; no ocfetch
// environment variable moves it (tests pass [Options.Dir]).
package trust
