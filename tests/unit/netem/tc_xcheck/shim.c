/* SPDX-License-Identifier: BSD-3-Clause */
/* LD_PRELOAD: append every sendmsg()'s bytes to the file $NLDUMP names. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
	static ssize_t (*real)(int, const struct msghdr *, int);
	const char *out = getenv("NLDUMP");
	if (!real) real = dlsym(RTLD_NEXT, "sendmsg");
	if (out) {
		FILE *f = fopen(out, "ab");
		for (size_t i = 0; i < m->msg_iovlen; i++)
			fwrite(m->msg_iov[i].iov_base, 1, m->msg_iov[i].iov_len, f);
		fclose(f);
	}
	return real(fd, m, flags);
}
