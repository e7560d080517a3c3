// Package securefile reads and writes the small files ocfetch keeps in a
// directory it owns — a workspace's <root>/.oc_chat/ and the user's
// os.UserConfigDir()/ocfetch/ — through an [os.Root], so that no name can
// lead a read or a write out of that directory and no symlink is followed.
//
// Every function takes a path DIR/NAME. DIR's parent is opened with
// [os.OpenRoot] (symlinks above DIR are the user's own choice and are
// followed, as for any path); DIR itself must be a real directory and NAME
// a regular file, checked with Lstat and then re-checked on what was
// opened ([os.SameFile]), so a symlink at either place, dangling or not, is
// refused by name with [ErrSymlink] and never followed, and nothing is ever
// created through one.
//
//	data, err := securefile.ReadFile(filepath.Join(root, ".oc_chat", "rules.json"), 2<<20)
//	err = securefile.WriteFile(path, data, 0o644) // temp, fsync, rename, dir fsync
//	unlock, err := securefile.Lock(ctx, path)     // path+".lock": flock / LockFileEx
//	f, err := securefile.OpenAppend(auditPath, 0o600)
//
// The promises, per function:
//   - [ReadFile]: regular file only, at most limit bytes, never blocks on a
//     FIFO; a missing file (or directory) wraps fs.ErrNotExist.
//   - [WriteFile]: readers and a crash see the old file or the new one,
//     never a torn one; DIR is created (0755) if missing.
//   - [Lock]: an exclusive lock on DIR/NAME.lock, safe across goroutines and
//     processes, waiting until ctx is done.
//   - [OpenAppend]: an O_APPEND descriptor of a regular file, created with
//     perm if missing, for writers of one line per write.
//
// A [Cache] keeps the decoded value of each policy file with the identity
// it was read under and checks it with one fstatat(2) under the
// directory's kept descriptor — or, on Linux where inotify covers the
// file's whole path (notify.go, [Stamp]), with no system call but one
// epoll_wait(2) per call while nothing on the path was reported changed;
// a [Call] (carried by a context, [WithCall]) makes the files of one
// directory share one check of the directory per call, and a file checked
// once per call:
//
//	ctx, _ = securefile.EnsureCall(ctx) // once per tool call or request
//	set, err := rules.LoadContext(ctx, ws)
//
// Every error names the file it is about.
package securefile
