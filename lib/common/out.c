/* SPDX-License-Identifier: BSD-3-Clause */
/* Result files written whole or not at all: see lr_out.h. */
/* fopencookie() */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lr_cleanup.h"
#include "lr_common.h"
#include "lr_out.h"

/* Temporary names differ within a process by this count, across
 * processes by the pid; O_EXCL and a next try where one is taken (left
 * by an earlier process of the same pid that was killed). */
static unsigned int tmp_count;

/* Where @p path leads: the file a symbolic link names (so that the file
 * is replaced, not the link), else @p path. */
static const char *
resolve(const char *path, char *buf)
{
	struct stat sb;

	if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode) &&
	    realpath(path, buf) != NULL)
		return buf;
	return path;
}

/* A new file beside @p path, registered for removal before it exists, so
 * that no signal finds it made and unregistered. @return its fd, or
 * -errno. */
static int
make_tmp(const char *path, mode_t mode, char *tmp, int *slot)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) + 1 : 0;
	const char *base = slash ? slash + 1 : path;
	int fd, tries, n, err;

	for (tries = 0; tries < 100; tries++) {
		n = snprintf(tmp, PATH_MAX, "%.*s.%.200s.%d.%u.tmp", dirlen, path,
			     base, (int)getpid(), tmp_count++);
		if (n < 0 || n >= PATH_MAX)
			return -ENAMETOOLONG;
		*slot = lr_cleanup_add(tmp);
		if (*slot < 0)
			return *slot;
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
		if (fd >= 0)
			return fd;
		err = errno;
		/* Not ours: it stays where it is. */
		lr_cleanup_forget(*slot);
		*slot = -1;
		if (err != EEXIST)
			return -err;
	}
	return -EEXIST;
}

int
lr_out_check(const char *path)
{
	char real[PATH_MAX], tmp[PATH_MAX];
	struct stat sb;
	int fd, slot;

	if (strcmp(path, "-") == 0)
		return 0;
	path = resolve(path, real);
	if (stat(path, &sb) == 0) {
		/* access() passes a directory, and root, by the mode bits. */
		if (S_ISDIR(sb.st_mode))
			return -EISDIR;
		if (access(path, W_OK) != 0)
			return -errno;
		if (!S_ISREG(sb.st_mode))
			return 0;	/* written in place */
	}
	fd = make_tmp(path, 0600, tmp, &slot);
	if (fd < 0)
		return fd;
	close(fd);
	unlink(tmp);
	lr_cleanup_forget(slot);
	return 0;
}

int
lr_out_open(struct lr_out *o, const char *what, const char *path)
{
	char real[PATH_MAX];
	struct stat sb;
	int fd;

	memset(o, 0, sizeof(*o));
	o->what = what;
	o->fd = -1;
	o->slot = -1;
	if (strcmp(path, "-") == 0) {
		/* What stdio holds goes first, and only this result's
		 * errors count. */
		fflush(stdout);
		clearerr(stdout);
		o->fd = STDOUT_FILENO;
		o->in_place = o->is_stdout = true;
		snprintf(o->path, sizeof(o->path), "stdout");
		return 0;
	}
	path = resolve(path, real);
	if (strlen(path) >= sizeof(o->path))
		return lr_err(ENAMETOOLONG, "%s: cannot write %s", what, path);
	strcpy(o->path, path);
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		if (S_ISDIR(sb.st_mode))
			return lr_err(EISDIR, "%s: cannot write %s", what, path);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return lr_err(errno, "%s: cannot write %s", what, path);
		o->fd = fd;
		o->in_place = true;
		return 0;
	}
	if (stat(path, &sb) == 0 && access(path, W_OK) != 0)
		return lr_err(errno, "%s: cannot write %s", what, path);
	fd = make_tmp(path, 0666, o->tmp, &o->slot);
	if (fd < 0)
		return lr_err(-fd, "%s: cannot write %s", what, path);
	/* The file it replaces keeps its mode; a new one has 0666 less the
	 * umask, as open() gave it. */
	if (stat(path, &sb) == 0)
		fchmod(fd, sb.st_mode & 07777);
	o->fd = fd;
	return 0;
}

/*
 * The stream's writes: all of @p size, a write() cut short by a signal
 * (EINTR: the first SIGINT, whose handler stops the run in order, or a
 * partial count to a pipe) taken up where it stopped. stdio's own gives
 * up at EINTR, and `--json -` into a slow reader lost its end at the
 * first Ctrl-C (issue 35 M3). @return the bytes written, or 0 on error
 * (errno set), as fopencookie() wants.
 */
static ssize_t
out_write(void *cookie, const char *buf, size_t size)
{
	int fd = (int)(intptr_t)cookie;
	size_t done = 0;
	ssize_t n;

	while (done < size) {
		n = write(fd, buf + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return (ssize_t)done;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/* stdout stays open for what comes after the result. */
static int
out_close(void *cookie)
{
	int fd = (int)(intptr_t)cookie;

	return fd == STDOUT_FILENO ? 0 : close(fd);
}

FILE *
lr_out_stream(struct lr_out *o)
{
	static const cookie_io_functions_t io = {
		.write = out_write, .close = out_close,
	};

	if (o->f != NULL)
		return o->f;
	o->f = fopencookie((void *)(intptr_t)o->fd, "w", io);
	if (o->f == NULL)
		lr_err(ENOMEM, "%s: cannot write %s", o->what, o->path);
	return o->f;
}

void
lr_out_discard(struct lr_out *o)
{
	if (o->f != NULL)
		fclose(o->f);
	else if (o->f == NULL && o->fd >= 0 && !o->is_stdout)
		close(o->fd);
	o->f = NULL;
	o->fd = -1;
	if (o->tmp[0] != '\0') {
		unlink(o->tmp);
		lr_cleanup_forget(o->slot);
		o->tmp[0] = '\0';
		o->slot = -1;
	}
}

int
lr_out_close(struct lr_out *o)
{
	int err = 0;

	if (o->f != NULL) {
		/* fflush() finds what the buffer could not write (ENOSPC);
		 * ferror() what an earlier write found. */
		errno = 0;
		if (fflush(o->f) != 0)
			err = errno ? errno : EIO;
		else if (ferror(o->f))
			err = EIO;
		errno = 0;
		if (fclose(o->f) != 0 && err == 0)
			err = errno ? errno : EIO;
	} else if (o->fd >= 0 && !o->is_stdout && close(o->fd) != 0) {
		/* A file system may say only now (NFS). */
		err = errno;
	}
	o->f = NULL;
	o->fd = -1;
	if (err == 0 && o->tmp[0] != '\0' && rename(o->tmp, o->path) != 0)
		err = errno;
	if (o->tmp[0] != '\0') {
		if (err != 0)
			unlink(o->tmp);
		lr_cleanup_forget(o->slot);
		o->tmp[0] = '\0';
		o->slot = -1;
	}
	if (err != 0)
		return lr_err(err, "%s: cannot write %s", o->what, o->path);
	return 0;
}
