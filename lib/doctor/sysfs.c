/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading /sys and /proc below the root (a faked tree in tests), and the
 * scan of what the checks look at: the PCI bus's network devices (class
 * 0x02xxxx, as dpdk-devbind.py's network_class) and the NUMA nodes' CPUs.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor.h"

const char *
dr_path(const struct dr *d, const char *rel, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", d->root, rel);
	return buf;
}

int
dr_read(const struct dr *d, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f = fopen(dr_path(d, rel, path, sizeof(path)), "r");

	buf[0] = '\0';
	if (f == NULL)
		return -errno;
	if (fgets(buf, (int)len, f) == NULL)
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int
dr_readlink_base(const struct dr *d, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n = readlink(dr_path(d, rel, path, sizeof(path)), target,
			     sizeof(target) - 1);
	const char *slash;

	buf[0] = '\0';
	if (n < 0)
		return -errno;
	target[n] = '\0';
	slash = strrchr(target, '/');
	snprintf(buf, len, "%s", slash ? slash + 1 : target);
	return 0;
}

bool
dr_exists(const struct dr *d, const char *rel)
{
	char path[PATH_MAX];

	return access(dr_path(d, rel, path, sizeof(path)), F_OK) == 0;
}

int
dr_cpu_node(const struct dr *d, int cpu)
{
	int n;

	for (n = 0; n < d->nb_nodes; n++)
		if (d->node_cpus[n].on[cpu])
			return n;
	return -1;
}

static enum dr_bind
bind_of(const char *driver)
{
	static const char *const dpdk[] = {
		"vfio-pci", "igb_uio", "uio_pci_generic",
	};
	/* Mellanox's PMDs drive the NIC through its kernel driver. */
	static const char *const shared[] = { "mlx5_core", "mlx4_core" };
	unsigned int i;

	if (driver[0] == '\0')
		return DR_BIND_NONE;
	for (i = 0; i < RTE_DIM(dpdk); i++)
		if (strcmp(driver, dpdk[i]) == 0)
			return DR_BIND_DPDK;
	for (i = 0; i < RTE_DIM(shared); i++)
		if (strcmp(driver, shared[i]) == 0)
			return DR_BIND_SHARED;
	return DR_BIND_KERNEL;
}

/* The first entry of directory @p rel below the root, not "." or "..". */
static int
first_entry(const struct dr *d, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];
	DIR *dir = opendir(dr_path(d, rel, path, sizeof(path)));
	struct dirent *e;

	buf[0] = '\0';
	if (dir == NULL)
		return -ENOENT;
	while ((e = readdir(dir)) != NULL)
		if (e->d_name[0] != '.') {
			size_t n = strnlen(e->d_name, len - 1);

			memcpy(buf, e->d_name, n);
			buf[n] = '\0';
			break;
		}
	closedir(dir);
	return buf[0] ? 0 : -ENOENT;
}

/* Has /proc/net/route a route through @p iface (dpdk-devbind.py's
 * "*Active*": binding it cuts the host's traffic)? */
static bool
routed(const struct dr *d, const char *iface)
{
	char path[PATH_MAX], line[512];
	size_t n = strlen(iface);
	bool found = false;
	FILE *f = fopen(dr_path(d, "/proc/net/route", path, sizeof(path)), "r");

	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = strncmp(line, iface, n) == 0 &&
			(line[n] == '\t' || line[n] == ' ');
	fclose(f);
	return found;
}

/* The kernel interface of @p n: net/IFACE, or one level down (a virtio
 * NIC's virtio0/net/eth0); its state read where it was found. */
static void
scan_iface(const struct dr *d, struct dr_nic *n)
{
	char rel[PATH_MAX], dev[256], val[64];
	char path[PATH_MAX];
	struct dirent *e;
	DIR *dir;

	snprintf(dev, sizeof(dev), "/sys/bus/pci/devices/%s/net", n->bdf);
	if (first_entry(d, dev, n->iface, sizeof(n->iface)) != 0) {
		snprintf(rel, sizeof(rel), "/sys/bus/pci/devices/%s", n->bdf);
		dir = opendir(dr_path(d, rel, path, sizeof(path)));
		while (dir != NULL && (e = readdir(dir)) != NULL) {
			if (e->d_name[0] == '.' || strlen(e->d_name) > 40)
				continue;
			snprintf(dev, sizeof(dev), "/sys/bus/pci/devices/%s/%s/net",
				 n->bdf, e->d_name);
			if (first_entry(d, dev, n->iface, sizeof(n->iface)) == 0)
				break;
		}
		if (dir != NULL)
			closedir(dir);
	}
	if (n->iface[0] == '\0')
		return;
	snprintf(rel, sizeof(rel), "%s/%s/operstate", dev, n->iface);
	dr_read(d, rel, n->oper, sizeof(n->oper));
	snprintf(rel, sizeof(rel), "%s/%s/speed", dev, n->iface);
	n->speed_mbps = dr_read(d, rel, val, sizeof(val)) == 0 && val[0] ?
			atol(val) : -1;
	snprintf(rel, sizeof(rel), "%s/%s/mtu", dev, n->iface);
	n->mtu = dr_read(d, rel, val, sizeof(val)) == 0 && val[0] ? atol(val) : -1;
	n->routed = routed(d, n->iface);
}

static bool
allowed(const struct dr *d, const char *bdf)
{
	unsigned int i;

	for (i = 0; i < d->nb_allow; i++)
		if (strcmp(d->allow[i], bdf) == 0)
			return true;
	return false;
}

static void
scan_nic(struct dr *d, const char *bdf, const char *cls)
{
	struct dr_nic *n = &d->nics[d->nb_nics++];
	char rel[PATH_MAX], val[64];

	memset(n, 0, sizeof(*n));
	snprintf(n->bdf, sizeof(n->bdf), "%s", bdf);
	snprintf(n->cls, sizeof(n->cls), "%s", cls);
	snprintf(rel, sizeof(rel), "/sys/bus/pci/devices/%s/driver", bdf);
	dr_readlink_base(d, rel, n->driver, sizeof(n->driver));
	n->bind = bind_of(n->driver);
	snprintf(rel, sizeof(rel), "/sys/bus/pci/devices/%s/iommu_group", bdf);
	n->group = dr_readlink_base(d, rel, val, sizeof(val)) == 0 ? atoi(val) : -1;
	snprintf(rel, sizeof(rel), "/sys/bus/pci/devices/%s/numa_node", bdf);
	n->node = dr_read(d, rel, val, sizeof(val)) == 0 && val[0] ? atoi(val) : -1;
	scan_iface(d, n);
	/* Without -a, EAL probes every NIC a DPDK driver can take. */
	n->asked = !d->no_pci && (d->nb_allow ? allowed(d, bdf) :
				  n->bind == DR_BIND_DPDK ||
				  n->bind == DR_BIND_SHARED);
}

static void
scan_pci(struct dr *d)
{
	char path[PATH_MAX], rel[PATH_MAX], cls[16];
	struct dr_nic *n;
	struct dirent *e;
	unsigned int i, j;
	DIR *dir = opendir(dr_path(d, "/sys/bus/pci/devices", path, sizeof(path)));

	while (dir != NULL && (e = readdir(dir)) != NULL && d->nb_nics < DR_NICS) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= 16)
			continue;
		snprintf(rel, sizeof(rel), "/sys/bus/pci/devices/%s/class",
			 e->d_name);
		if (dr_read(d, rel, cls, sizeof(cls)) == 0 &&
		    strncmp(cls, "0x02", 4) == 0)
			scan_nic(d, e->d_name, cls);
		else if (allowed(d, e->d_name) && d->nb_nics < DR_NICS)
			scan_nic(d, e->d_name, cls);
	}
	if (dir != NULL)
		closedir(dir);
	/* -a devices the bus does not have. */
	for (i = 0; i < d->nb_allow && !d->no_pci && d->nb_nics < DR_NICS; i++) {
		for (j = 0; j < d->nb_nics; j++)
			if (strcmp(d->nics[j].bdf, d->allow[i]) == 0)
				break;
		if (j < d->nb_nics)
			continue;
		n = &d->nics[d->nb_nics++];
		memset(n, 0, sizeof(*n));
		memcpy(n->bdf, d->allow[i], sizeof(n->bdf) - 1);
		n->missing = true;
		n->asked = true;
		n->group = -1;
		n->node = -1;
	}
}

/* Sorted by address, as lspci and dpdk-devbind.py list them. */
static int
by_bdf(const void *a, const void *b)
{
	return strcmp(((const struct dr_nic *)a)->bdf,
		      ((const struct dr_nic *)b)->bdf);
}

static void
scan_nodes(struct dr *d)
{
	char rel[PATH_MAX], list[4096];
	int n;

	for (n = 0; n < DR_NODES; n++) {
		snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d/cpulist",
			 n);
		if (dr_read(d, rel, list, sizeof(list)) != 0)
			continue;
		lr_doctor_cpulist(list, &d->node_cpus[n]);
		d->nb_nodes = n + 1;
	}
}

void
dr_scan(struct dr *d)
{
	scan_pci(d);
	qsort(d->nics, d->nb_nics, sizeof(d->nics[0]), by_bdf);
	scan_nodes(d);
}

bool
dr_any_asked(const struct dr *d)
{
	unsigned int i;

	for (i = 0; i < d->nb_nics; i++)
		if (d->nics[i].asked)
			return true;
	return false;
}

bool
dr_needs_vfio(const struct dr *d)
{
	unsigned int i;

	if (d->no_pci)
		return false;
	for (i = 0; i < d->nb_nics; i++) {
		const struct dr_nic *n = &d->nics[i];

		if (n->asked && !n->missing && n->bind != DR_BIND_SHARED &&
		    strcmp(n->driver, "igb_uio") != 0 &&
		    strcmp(n->driver, "uio_pci_generic") != 0)
			return true;
	}
	/* Nothing for DPDK yet, nor a virtual port: a NIC is to be bound. */
	return !dr_any_asked(d) && d->nb_vdev == 0;
}
