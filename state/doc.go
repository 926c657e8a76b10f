// Package state keeps extension scripts' state between calls: per session or per runtime (manifest digest), on disk under an exclusive cross-process lock, committed only together with a valid result.
//
// A [Store] is the state folder of one repository, which its caller keeps
// outside the repository (see policy.StateDir). Its layout:
//
//	sessions/<session>/scripts/<script id>.json   session state
//	runtime/<manifest sha256>/<script id>.json     runtime state
//
// Each snapshot has a lock file beside it (<script id>.lock), which stays
// in place while the snapshot is replaced by rename, and a temporary file
// (<script id>.json.tmp) exists only while a commit is being written.
//
// [Store.Transact] is the one way state changes: it locks the snapshot,
// decodes it, hands a fresh copy to the caller's function and, only when
// that function asks to commit, writes the result as a whole new file
// (temporary file, fsync, rename, fsync of the folder) before the lock is
// released. Processes that run at the same time therefore serialize and
// never lose an update, and a crash leaves either the old or the new
// snapshot, never a mix.
//
// A snapshot carries the identity of the script that wrote it (script id,
// kind, source digest, manifest digest); a script whose identity differs
// starts from empty state. A snapshot that cannot be decoded is an error,
// never silently reset.
package state
