/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPFIX File Format (RFC 5655): messages back to back in one file.
 *
 * Each message goes with write(2) until all of it is in the file, and only
 * then counts as delivered: stdio's fwrite() only fills a buffer, whose
 * write can fail later (a full disk), after the message was counted. A
 * message that went in only in part would misalign every later one for a
 * reader, so the part is cut off again (ftruncate); where that cannot be
 * done (a pipe, a terminal, stdout) nothing more is written and every
 * later message is lost.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "lr_common.h"
#include "lr_ipfix.h"

struct file_ctx {
	int fd;
	bool own;			/* opened here, closed at the end */
	bool append;			/* O_APPEND: writes go to its end */
	bool cut;			/* a message is in it in part, for
					 * good: nothing more is written */
	bool said;			/* a failed write has been said */
	char name[];			/* for messages: the path, "stdout" */
};

int
lr_ipfix_file_open(const char *path, void **ctx)
{
	bool out = strcmp(path, "-") == 0;
	const char *name = out ? "stdout" : path;
	struct file_ctx *f;
	int fl;

	f = calloc(1, sizeof(*f) + strlen(name) + 1);
	if (f == NULL)
		return lr_err(ENOMEM, "ipfix: no memory");
	strcpy(f->name, name);
	if (out) {
		/* What stdio holds goes first; from here stdout is ours. */
		fflush(stdout);
		f->fd = STDOUT_FILENO;
		lr_stdout_set_binary();
	} else {
		f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			     0666);
		if (f->fd < 0) {
			free(f);
			return lr_err(errno, "ipfix: cannot write %s", path);
		}
		f->own = true;
	}
	fl = fcntl(f->fd, F_GETFL);
	f->append = fl >= 0 && (fl & O_APPEND) != 0;
	*ctx = f;
	return 0;
}

/* All of @p len bytes, over short writes and signals. @return bytes
 * written, fewer with errno set on failure. */
static size_t
write_all(int fd, const uint8_t *p, size_t len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = write(fd, p + done, len - done);
		if (n > 0) {
			done += (size_t)n;
		} else if (n == 0) {
			errno = EIO;	/* a write of more than 0 B made none */
			break;
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			/* stdout left non-blocking by whoever holds the
			 * other end: wait, as a blocking write would. */
			if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
				break;
		} else if (errno != EINTR) {
			break;
		}
	}
	return done;
}

int
lr_ipfix_file_send(void *ctx, const void *msg, size_t len, uint32_t records)
{
	struct file_ctx *f = ctx;
	off_t start;
	size_t done;
	int err;

	RTE_SET_USED(records);
	if (f->cut)
		return -EPIPE;
	/* Where the message begins: an appending file's end; -1 where
	 * there is no offset (a pipe, a terminal). */
	start = lseek(f->fd, 0, f->append ? SEEK_END : SEEK_CUR);
	done = write_all(f->fd, msg, len);
	if (done == len)
		return 0;
	err = errno;
	if (done > 0 &&
	    (start < 0 || ftruncate(f->fd, start) != 0 ||
	     lseek(f->fd, start, SEEK_SET) != start)) {
		f->cut = true;
		fprintf(stderr, "linerate: ipfix: %s: %zu of a message's %zu B "
			"written (%s), and the part cannot be cut off again: "
			"nothing more is written to it, every later record is "
			"counted lost\n", f->name, done, len, strerror(err));
		return -err;
	}
	/* A message that is not in the file at all: the ones before and
	 * after it still read. Said once; the count of lost records says
	 * the rest. */
	if (!f->said)
		fprintf(stderr, "linerate: ipfix: %s: cannot write a message (%s): "
			"its records are counted lost\n", f->name, strerror(err));
	f->said = true;
	return -err;
}

int
lr_ipfix_file_close(void *ctx)
{
	struct file_ctx *f = ctx;
	int ret = 0;

	if (f == NULL)
		return 0;
	/* Nothing waits in a buffer: the messages are in the file. close()
	 * can still report an error the file system kept for later (NFS). */
	if (f->own && close(f->fd) != 0)
		ret = lr_err(errno, "ipfix: closing %s", f->name);
	free(f);
	return ret;
}

static int
file_open(const char *where, const struct lr_ipfix_tx_conf *c, void **ctx)
{
	RTE_SET_USED(c);
	return lr_ipfix_file_open(where, ctx);
}

/* A file is one stream that a reader takes from its start: templates once. */
const struct lr_ipfix_transport_ops lr_ipfix_tx_file = {
	.scheme = "file:",
	.templates = LR_IPFIX_TX_TMPL_ONCE,
	.open = file_open,
	.send = lr_ipfix_file_send,
	.close = lr_ipfix_file_close,
};
