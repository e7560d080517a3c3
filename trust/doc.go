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
//	st, err := store.Status(ws.Root) // why not: replaced, outdated, no entry
//	refused := st.Refusal(ws.Root, ws.LocalFetchPath(), "port 6379")
//	g, err := trust.ReadGrants(ws)
//	err = store.Trust(ctx, ws.Root, trust.Details{How: "ocfetch trust"})
//	created, err := store.EnsureWorkspace(ctx, ws, "ocfetch rules allow")
//
// # Keys: the real path, and the directory itself
//
// An entry is keyed by the workspace's real path (filepath.Abs, then
// filepath.EvalSymlinks), so a workspace reached through a symlink is the
// same workspace — compared as the platform's file systems compare names:
// byte for byte on Linux and the BSDs, ignoring case and Unicode
// normalisation on macOS, ignoring case and a \\?\ prefix on Windows, so
// that one directory has one entry whichever spelling trusted it, and a
// revocation in any spelling removes it (another directory a spelling
// names on a case-sensitive volume keeps its own) — and records the directory's
// identity (device and inode on Unix, volume serial and file index on
// Windows) and its incarnation, which tells it from a directory made
// later at the same path that the file system hands the same inode
// (`rm -rf proj && git clone evil proj` does, on ext4, in most tries):
//
//   - the birth time, read in the same statx(2) as the identity on Linux
//     (when statx's returned mask has STATX_BTIME), st_birthtime on macOS,
//     FreeBSD and NetBSD, and on Windows the 128-bit file ID with the
//     creation time (on a volume with stable file IDs: NTFS, ReFS);
//   - where the file system records none (tmpfs on older kernels, some
//     network file systems, FAT, other systems), a marker: 32 random bytes
//     that [Store.Trust] writes into the workspace's .oc_chat/[MarkerFile]
//     (through an os.Root, never a symlink) and whose SHA-256 the entry
//     keeps. The entry, in the user's configuration directory, is what
//     counts: a clone can ship any .oc_chat/ file, but not one matching a
//     value it has never seen. The marker is this machine's secret: do not
//     commit it.
//
// Which of the two an entry recorded decides how it is checked, whatever
// the store's options. A workspace is trusted when its entry's identity
// and incarnation both match. So:
//
//   - a directory moved or renamed is untrusted at its new path (its old
//     entry stays in `ocfetch trust --list`, marked missing, until
//     revoked);
//   - a directory deleted and re-created, or another one cloned to the
//     same path, is untrusted even though the path (and perhaps the inode)
//     matches (marked replaced); trusting it again replaces the entry;
//   - a copy (cp -r, a second clone) is a new, untrusted workspace;
//   - an entry an older ocfetch wrote, without an incarnation, trusts
//     nothing ([Entry.Outdated]): its directory cannot be told from one
//     that reuses its inode. Trusting the workspace again upgrades it.
//
// [Store.Status] says which of these holds, and [Status.Refusal] words
// the workspace_untrusted refusal to match. With a birth time, the check
// is one statx (stat) of the directory per call, no file read; with the
// marker, one small read more.
//
// [Store.Pin] returns a copy of the store that also trusts one root for
// as long as the copy is used, without writing anything: the operator's
// `--trust-root DIR` for a workspace mounted into a container, where the
// path and the directory differ from the ones trusted on the host. It is
// bound to the directory pinned as an entry is, and trusts that exact
// path only ([Status.Pinned]).
//
// The store is read on every call, nothing cached: a revocation or a
// deletion of the file takes effect on the next call. It is written
// atomically under a lock through an os.Root opened at its directory
// (internal/rootfile): a trust.json or lock file that is a symlink is
// refused, never followed. Its location is os.UserConfigDir()'s; no ocfetch
// environment variable moves it (tests pass [Options.Dir]).
package trust
