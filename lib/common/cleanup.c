/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registry of what to remove at exit (lr_cleanup.h). A slot goes
 * FREE -> BUSY (its path being written) -> LIVE, and back to FREE when it
 * is forgotten or removed. A signal handler reads only LIVE slots, whose
 * path is complete: the store of LIVE releases it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lr_cleanup.h"

enum { SLOT_FREE, SLOT_BUSY, SLOT_LIVE };

/* States apart from the paths: a scan touches 4 KiB, not 4 MiB. */
static int slot_state[LR_CLEANUP_MAX];
static char slot_path[LR_CLEANUP_MAX][PATH_MAX];

#define TREE_DEPTH_MAX 8

/* getdents64's record (linux_dirent64), as glibc 2.36 has no wrapper. */
struct dent64 {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

static void remove_at(int dirfd, const char *name, int depth);

/* Remove what directory @p fd holds. Entries are read again from the
 * start after each batch, since removing them moves the rest; a batch
 * in which nothing could be removed ends it. */
static void
empty_dir(int fd, int depth)
{
	char buf[1024] __attribute__((aligned(8)));
	long n, i;
	int left, before;

	for (before = -1;;) {
		if (lseek(fd, 0, SEEK_SET) != 0)
			return;
		n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		if (n <= 0)
			return;
		left = 0;
		for (i = 0; i < n;) {
			struct dent64 *d = (struct dent64 *)(buf + i);

			i += d->reclen;
			if (strcmp(d->name, ".") == 0 || strcmp(d->name, "..") == 0)
				continue;
			left++;
			remove_at(fd, d->name, depth);
		}
		/* Nothing left, or as many as last time: all stuck. */
		if (left == 0 || left == before)
			return;
		before = left;
	}
}

static void
remove_at(int dirfd, const char *name, int depth)
{
	int fd;

	if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
		return;
	/* Linux says EISDIR for a directory. */
	if (errno != EISDIR || depth >= TREE_DEPTH_MAX)
		return;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd >= 0) {
		empty_dir(fd, depth + 1);
		close(fd);
	}
	unlinkat(dirfd, name, AT_REMOVEDIR);
}

static void
remove_path(const char *path)
{
	if (unlink(path) != 0 && errno == EBUSY) {
		/* A mount point: a network namespace's /run/netns/NAME. */
		umount2(path, MNT_DETACH);
	}
	remove_at(AT_FDCWD, path, 0);
}

/* @p path as the registry keeps it: absolute. */
static int
absolute(const char *path, char *out)
{
	size_t n;

	if (path == NULL || path[0] == '\0')
		return -EINVAL;
	if (path[0] == '/') {
		n = strlen(path);
		if (n >= PATH_MAX)
			return -ENAMETOOLONG;
		memcpy(out, path, n + 1);
	} else {
		if (getcwd(out, PATH_MAX) == NULL)
			return -errno;
		n = strlen(out);
		if (n + 1 + strlen(path) >= PATH_MAX)
			return -ENAMETOOLONG;
		out[n] = '/';
		strcpy(out + n + 1, path);
	}
	/* "/" and its like, or a way up: never a tree to remove. */
	if (strstr(out, "/../") != NULL ||
	    ((n = strlen(out)) >= 3 && strcmp(out + n - 3, "/..") == 0))
		return -EINVAL;
	for (n = 0; out[n] == '/' || (out[n] == '.' &&
				      (out[n + 1] == '/' || out[n + 1] == '\0'));)
		n++;
	return out[n] == '\0' ? -EINVAL : 0;
}

int
lr_cleanup_find(const char *path)
{
	char abs[PATH_MAX];
	int i;

	if (absolute(path, abs) != 0)
		return -ENOENT;
	for (i = 0; i < LR_CLEANUP_MAX; i++)
		if (__atomic_load_n(&slot_state[i], __ATOMIC_ACQUIRE) == SLOT_LIVE &&
		    strcmp(slot_path[i], abs) == 0)
			return i;
	return -ENOENT;
}

int
lr_cleanup_add(const char *path)
{
	char abs[PATH_MAX];
	int i, ret, free_state;

	ret = absolute(path, abs);
	if (ret != 0)
		return ret;
	ret = lr_cleanup_find(abs);
	if (ret >= 0)
		return ret;
	for (i = 0; i < LR_CLEANUP_MAX; i++) {
		free_state = SLOT_FREE;
		if (!__atomic_compare_exchange_n(&slot_state[i], &free_state,
						 SLOT_BUSY, false, __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED))
			continue;
		strcpy(slot_path[i], abs);
		__atomic_store_n(&slot_state[i], SLOT_LIVE, __ATOMIC_RELEASE);
		return i;
	}
	return -ENOSPC;
}

void
lr_cleanup_forget(int id)
{
	if (id >= 0 && id < LR_CLEANUP_MAX)
		__atomic_store_n(&slot_state[id], SLOT_FREE, __ATOMIC_RELEASE);
}

void
lr_cleanup_run(void)
{
	int i, live;

	for (i = 0; i < LR_CLEANUP_MAX; i++) {
		live = SLOT_LIVE;
		/* BUSY while removed: neither reused nor removed twice. */
		if (!__atomic_compare_exchange_n(&slot_state[i], &live, SLOT_BUSY,
						 false, __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED))
			continue;
		remove_path(slot_path[i]);
		__atomic_store_n(&slot_state[i], SLOT_FREE, __ATOMIC_RELEASE);
	}
}

void
lr_cleanup_on_signal(int sig)
{
	lr_cleanup_run();
	signal(sig, SIG_DFL);
	raise(sig);
}
