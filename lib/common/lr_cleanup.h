/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * What the process made and must not leave behind when it ends: the EAL
 * runtime directory, a result file being written (lr_out.h), a Lua
 * script's temporary files (os.tmpname) and what a scenario made for a
 * device under test. Each is removed when the process ends, in order or
 * forced by a second signal: a file is unlinked, a directory emptied
 * (8 levels deep at most) and removed, a mount point (a network
 * namespace's file in /run/netns) detached first.
 *
 * Threading: lr_cleanup_add() and lr_cleanup_forget() belong to the
 * control path. lr_cleanup_run() is async-signal-safe (open, getdents64,
 * unlinkat, umount2 and close only, no memory allocated): a signal handler
 * may call it on any thread while the control path adds and forgets.
 */
#ifndef LR_CLEANUP_H
#define LR_CLEANUP_H

#define LR_CLEANUP_MAX 1024	/**< paths registered at once */

/**
 * Remove @p path (its tree, for a directory) when the process ends. A
 * relative path is made absolute now. Adding a path that is registered
 * already returns its id again.
 *
 * @return an id >= 0 for lr_cleanup_forget(), -ENOSPC (LR_CLEANUP_MAX
 *   paths registered), -ENAMETOOLONG or -EINVAL (empty, or "/").
 */
int lr_cleanup_add(const char *path);

/** Leave the path of @p id (< 0: none) where it is: it was renamed,
 *  removed or handed on. */
void lr_cleanup_forget(int id);

/** The id of a registered @p path (as lr_cleanup_add() made it absolute),
 *  or -ENOENT. */
int lr_cleanup_find(const char *path);

/** Remove every registered path and forget it. Async-signal-safe. */
void lr_cleanup_run(void);

/** A handler for a command with no orderly stop to ask for (solve,
 *  doctor): lr_cleanup_run(), then @p sig as it would end the process
 *  without a handler. Async-signal-safe. */
void lr_cleanup_on_signal(int sig);

#endif
