/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Result files written whole or not at all. A file is written under a
 * temporary name in its own directory (".NAME.PID.N.tmp") and renamed over
 * NAME once all of it is in: a reader never finds half a document, and a
 * process stopped while writing (a second signal, lr_cleanup.h, which
 * removes the temporary file) leaves the file it had before, or none. An
 * existing file keeps its mode; a symbolic link is followed, and the file
 * it names replaced. Written in place, as they cannot be renamed over:
 * stdout ("-"), a device (/dev/null, /dev/full), a FIFO.
 *
 * Threading: control path.
 */
#ifndef LR_OUT_H
#define LR_OUT_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

struct lr_out {
	const char *what;	/**< for messages: "json", "csv", ... */
	FILE *f;		/**< lr_out_stream(), or NULL */
	int fd;			/**< -1: none */
	int slot;		/**< tmp in the cleanup registry, or -1 */
	bool in_place;		/**< stdout, a device, a FIFO */
	bool is_stdout;
	char path[PATH_MAX];	/**< where it goes (a link resolved) */
	char tmp[PATH_MAX];	/**< where it is written, "" in place */
};

/**
 * Could @p path be written as lr_out_open() would write it: the file
 * itself when it exists (writable, not a directory), and a new file in its
 * directory (which exists and is writable), made and removed again. Asked
 * before a run, so that a typo costs no measurement. "-" passes.
 *
 * @return 0 or -errno (ENOENT: no such directory; EISDIR; EACCES...).
 */
int lr_out_check(const char *path);

/**
 * Open @p path ("-": stdout) to write a result in @p o.
 *
 * @param what the result's name in messages ("json: cannot write ...")
 * @return 0, or -errno with lr_errmsg().
 */
int lr_out_open(struct lr_out *o, const char *what, const char *path);

/** A stdio stream on @p o (opened; "-": on stdout's descriptor) whose
 *  writes are taken up again after a signal cut them short (EINTR), so
 *  that the first SIGINT leaves the result whole. NULL with lr_errmsg()
 *  when there is no memory (then lr_out_discard()). */
FILE *lr_out_stream(struct lr_out *o);

/**
 * Finish @p o: flush, close, and rename the temporary file over the path.
 * On any error (a full disk found by the flush, the close or the rename)
 * the temporary file is removed and the path keeps what it had.
 *
 * @return 0, or -errno with lr_errmsg() ("json: cannot write PATH (No
 *   space left on device)").
 */
int lr_out_close(struct lr_out *o);

/** Drop what was written to @p o (opened), leaving the path as it was. */
void lr_out_discard(struct lr_out *o);

#endif
