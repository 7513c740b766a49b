/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The checks that read sysfs and procfs only: each says one line per
 * thing it looks at (a NUMA node, a NIC, a set of CPUs), with the fix of
 * what is wrong, as dpdk-devbind.py, dpdk-hugepages.py and TRex's
 * dpdk_setup_ports.py find it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"

#define CPUS_STR 256

/* Does the kernel command line have word @p key (key=... with its
 * value into @p val, if any)? */
static bool
cmdline(const struct dr *d, const char *key, char *val, size_t len)
{
	char line[4096], *tok, *save;
	size_t n = strlen(key);

	if (dr_read(d, "/proc/cmdline", line, sizeof(line)) != 0)
		return false;
	for (tok = strtok_r(line, " ", &save); tok != NULL;
	     tok = strtok_r(NULL, " ", &save)) {
		if (strncmp(tok, key, n) != 0 || (tok[n] != '=' && tok[n] != '\0'))
			continue;
		if (val != NULL)
			snprintf(val, len, "%s", tok[n] == '=' ? tok + n + 1 : "");
		return true;
	}
	return false;
}

/* Is a hugetlbfs mounted (/proc/mounts)? Its mount point into @p at. */
static bool
hugetlbfs(const struct dr *d, char *at, size_t len)
{
	char path[PATH_MAX], line[1024], dev[256], dir[512], type[64];
	FILE *f = fopen(dr_path(d, "/proc/mounts", path, sizeof(path)), "r");
	bool found = false;

	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%255s %511s %63s", dev, dir, type) == 3 &&
		    strcmp(type, "hugetlbfs") == 0) {
			snprintf(at, len, "%s", dir);
			found = true;
		}
	fclose(f);
	return found;
}

/* Is NUMA node @p node one the run uses (a port of it, a worker)? */
static bool
node_used(const struct dr *d, int node, char *why, size_t len)
{
	struct lr_doctor_cpus on;
	char cpus[CPUS_STR];
	unsigned int i;
	size_t n = 0;
	int c;

	why[0] = '\0';
	for (i = 0; i < d->nb_nics && n < len; i++)
		if (d->nics[i].asked && d->nics[i].node == node)
			n += (size_t)snprintf(why + n, len - n, "%s%s",
					      n ? ", " : "", d->nics[i].bdf);
	memset(&on, 0, sizeof(on));
	for (c = 0; c < LR_DOCTOR_CPUS; c++)
		on.on[c] = d->workers.on[c] && dr_cpu_node(d, c) == node;
	lr_doctor_cpulist_str(&on, cpus, sizeof(cpus));
	if (cpus[0] && n < len)
		n += (size_t)snprintf(why + n, len - n, "%sworkers on CPUs %s",
				      n ? ", " : "", cpus);
	return n > 0;
}

/* /proc/meminfo's free hugepages of the default size, in MiB, where
 * sysfs has no hugepages directory (dpdk-hugepages.py reads both). */
static long
meminfo_free_mib(const struct dr *d, char *sizes, size_t len)
{
	char path[PATH_MAX], line[256];
	long total = -1, fr = -1, kb = -1;
	FILE *f = fopen(dr_path(d, "/proc/meminfo", path, sizeof(path)), "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		sscanf(line, "HugePages_Total: %ld", &total);
		sscanf(line, "HugePages_Free: %ld", &fr);
		sscanf(line, "Hugepagesize: %ld kB", &kb);
	}
	fclose(f);
	if (total < 0 || fr < 0 || kb <= 0)
		return -1;
	if (total > 0)
		snprintf(sizes, len, "%ld of %ld %ldkB", fr, total, kb);
	return fr * kb / 1024;
}

/* Free hugepages of @p node (-1: /sys/kernel/mm, no NUMA), in MiB; the
 * page sizes found into @p sizes ("1 of 1024 2048kB"). */
static long
node_free_mib(const struct dr *d, int node, char *sizes, size_t len)
{
	char rel[PATH_MAX + 300], dir[128], val[32];
	char path[PATH_MAX];
	struct dirent *e;
	long mib = 0;
	size_t n = 0;
	DIR *dp;

	if (node >= 0)
		snprintf(dir, sizeof(dir), "/sys/devices/system/node/node%d/hugepages",
			 node);
	else
		snprintf(dir, sizeof(dir), "/sys/kernel/mm/hugepages");
	sizes[0] = '\0';
	dp = opendir(dr_path(d, dir, path, sizeof(path)));
	while (dp != NULL && (e = readdir(dp)) != NULL) {
		long kb, nr, fr;

		if (sscanf(e->d_name, "hugepages-%ldkB", &kb) != 1)
			continue;
		snprintf(rel, sizeof(rel), "%s/%s/nr_hugepages", dir, e->d_name);
		nr = dr_read(d, rel, val, sizeof(val)) == 0 ? atol(val) : 0;
		snprintf(rel, sizeof(rel), "%s/%s/free_hugepages", dir, e->d_name);
		fr = dr_read(d, rel, val, sizeof(val)) == 0 ? atol(val) : 0;
		mib += fr * kb / 1024;
		if (nr > 0 && n < len)
			n += (size_t)snprintf(sizes + n, len - n, "%s%ld of %ld %ldkB",
					      n ? ", " : "", fr, nr, kb);
	}
	if (dp != NULL)
		closedir(dp);
	if (dp == NULL && node < 0)
		return meminfo_free_mib(d, sizes, len);
	return dp == NULL ? -1 : mib;
}

/* A node's fix: 1024 pages of 2 MiB on it, as dpdk-hugepages.py sets. */
static void
huge_fix(int node, char *fix, size_t len)
{
	if (node >= 0)
		snprintf(fix, len, "echo 1024 > /sys/devices/system/node/node%d/"
			 "hugepages/hugepages-2048kB/nr_hugepages (or "
			 "dpdk-hugepages.py -n %d -p 2M -r 2G)", node, node);
	else
		snprintf(fix, len, "echo 1024 > /sys/kernel/mm/hugepages/"
			 "hugepages-2048kB/nr_hugepages (or dpdk-hugepages.py "
			 "-p 2M -r 2G)");
}

static void
huge_node(struct dr *d, int node, bool numa_known)
{
	char subject[16], sizes[256], why[256], fix[256];
	long mib = node_free_mib(d, node, sizes, sizeof(sizes));
	bool used = node_used(d, node, why, sizeof(why));

	snprintf(subject, sizeof(subject), node >= 0 ? "node%d" : "memory", node);
	huge_fix(node, fix, sizeof(fix));
	if (mib > 0)
		dr_say(d, DR_OK, subject, NULL, "%ld MiB free (%s)", mib, sizes);
	else if (used)
		dr_say(d, DR_FAIL, subject, fix, "no free hugepage, and the run "
		       "is here (%s): its mempools need them", why);
	else if (!numa_known)
		dr_say(d, DR_FAIL, subject, fix, "no free hugepage");
	else
		dr_say(d, DR_OK, subject, NULL, "no free hugepage; nothing of "
		       "the run on it");
}

void
dr_check_hugepages(struct dr *d)
{
	char at[512], sizes[256], fix[256];
	long total = 0;
	int node, nodes = 0;

	if (d->no_huge) {
		if (dr_any_asked(d))
			dr_say(d, DR_FAIL, "--no-huge", "drop --no-huge and reserve "
			       "hugepages", "a NIC's DMA needs hugepage memory");
		else
			dr_say(d, DR_WARN, "--no-huge", "reserve hugepages for a "
			       "line-rate run", "virtual ports only: slower "
			       "without hugepages (about half on net_null)");
		return;
	}
	if (!hugetlbfs(d, at, sizeof(at))) {
		dr_say(d, DR_FAIL, "hugetlbfs", "mkdir -p /dev/hugepages; mount -t "
		       "hugetlbfs nodev /dev/hugepages", "no hugetlbfs mounted");
		return;
	}
	dr_say(d, DR_OK, "hugetlbfs", NULL, "mounted at %s", at);
	for (node = 0; node < d->nb_nodes; node++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d/hugepages",
			 node);
		if (!dr_exists(d, rel))
			continue;
		nodes++;
		total += RTE_MAX(node_free_mib(d, node, sizes, sizeof(sizes)), 0L);
	}
	if (nodes == 0) {
		huge_node(d, -1, false);
		return;
	}
	for (node = 0; node < d->nb_nodes; node++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d/hugepages",
			 node);
		if (dr_exists(d, rel))
			huge_node(d, node, total > 0);
	}
	if (total == 0) {
		huge_fix(0, fix, sizeof(fix));
		dr_say(d, DR_FAIL, "memory", fix, "no free hugepage on any node");
	}
}

/* The IOMMUs the kernel has (/sys/class/iommu), as "dmar0, dmar1". */
static int
iommus(const struct dr *d, char *names, size_t len)
{
	char path[PATH_MAX];
	DIR *dir = opendir(dr_path(d, "/sys/class/iommu", path, sizeof(path)));
	struct dirent *e;
	size_t n = 0;
	int count = 0;

	names[0] = '\0';
	while (dir != NULL && (e = readdir(dir)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		count++;
		if (n < len)
			n += (size_t)snprintf(names + n, len - n, "%s%s",
					      n ? ", " : "", e->d_name);
	}
	if (dir != NULL)
		closedir(dir);
	return count;
}

#define IOMMU_FIX "intel_iommu=on iommu=pt (AMD: amd_iommu=on iommu=pt) " \
	"on the kernel command line and VT-d/AMD-Vi on in the firmware; " \
	"or, unsafe: echo 1 > /sys/module/vfio/parameters/" \
	"enable_unsafe_noiommu_mode"

void
dr_check_iommu(struct dr *d)
{
	char names[256], noiommu[8], val[32];
	bool asked_on = (cmdline(d, "intel_iommu", val, sizeof(val)) &&
			 strcmp(val, "on") == 0) ||
			(cmdline(d, "amd_iommu", val, sizeof(val)) &&
			 strcmp(val, "on") == 0);
	bool need = dr_needs_vfio(d);

	if (iommus(d, names, sizeof(names)) > 0) {
		if (cmdline(d, "iommu", val, sizeof(val)) && strcmp(val, "pt") == 0)
			dr_say(d, DR_OK, "iommu", NULL, "on (%s), iommu=pt", names);
		else
			dr_say(d, DR_WARN, "iommu", "add iommu=pt to the kernel "
			       "command line", "on (%s), without iommu=pt: the "
			       "kernel's own DMA is translated too", names);
		return;
	}
	dr_read(d, "/sys/module/vfio/parameters/enable_unsafe_noiommu_mode",
		noiommu, sizeof(noiommu));
	if (noiommu[0] == 'Y' || noiommu[0] == '1')
		dr_say(d, DR_WARN, "iommu", "an IOMMU (" IOMMU_FIX ")",
		       "none; vfio's no-IOMMU mode is on: works, DMA unchecked");
	else if (!need)
		dr_say(d, DR_OK, "iommu", NULL, "none; no NIC of the run needs "
		       "vfio-pci%s", d->no_pci ? " (--no-pci)" : "");
	else if (asked_on)
		dr_say(d, DR_FAIL, "iommu", "turn VT-d (AMD-Vi) on in the "
		       "firmware", "asked on the kernel command line, but none "
		       "came up: vfio-pci cannot bind");
	else
		dr_say(d, DR_FAIL, "iommu", IOMMU_FIX,
		       "none: vfio-pci cannot bind a NIC");
}

void
dr_check_vfio(struct dr *d)
{
	if (dr_exists(d, "/sys/module/vfio_pci"))
		dr_say(d, DR_OK, "vfio-pci", NULL, "loaded");
	else if (!dr_needs_vfio(d))
		dr_say(d, DR_OK, "vfio-pci", NULL, "not loaded; no NIC of the "
		       "run needs it");
	else
		dr_say(d, DR_FAIL, "vfio-pci", "modprobe vfio-pci", "not loaded");
}

/* Devices of @p n's IOMMU group bound to a kernel driver: vfio opens a
 * group whole, or not at all. */
static void
check_group(struct dr *d, const struct dr_nic *n)
{
	char rel[PATH_MAX], path[PATH_MAX], drv[64], fix[128];
	struct dirent *e;
	DIR *dir;

	if (n->group < 0 || strcmp(n->driver, "vfio-pci") != 0)
		return;
	snprintf(rel, sizeof(rel), "/sys/kernel/iommu_groups/%d/devices", n->group);
	dir = opendir(dr_path(d, rel, path, sizeof(path)));
	while (dir != NULL && (e = readdir(dir)) != NULL) {
		if (e->d_name[0] == '.' || strcmp(e->d_name, n->bdf) == 0 ||
		    strlen(e->d_name) > 32)
			continue;
		snprintf(rel, sizeof(rel), "/sys/bus/pci/devices/%s/driver",
			 e->d_name);
		dr_readlink_base(d, rel, drv, sizeof(drv));
		/* A bridge (pcieport) in the group does not stop vfio. */
		if (drv[0] == '\0' || strcmp(drv, "vfio-pci") == 0 ||
		    strcmp(drv, "pcieport") == 0)
			continue;
		snprintf(fix, sizeof(fix), "dpdk-devbind.py --bind=vfio-pci %s",
			 e->d_name);
		dr_say(d, DR_FAIL, n->bdf, fix, "IOMMU group %d also holds %s, "
		       "bound to %s: vfio cannot open the group", n->group,
		       e->d_name, drv);
	}
	if (dir != NULL)
		closedir(dir);
}

static void
say_kernel_nic(struct dr *d, const struct dr_nic *n)
{
	char fix[256];
	bool up = strcmp(n->oper, "up") == 0;

	if (!n->asked) {
		dr_say(d, DR_OK, n->bdf, NULL, "%s%s%s%s: the kernel's, not the "
		       "run's%s", n->driver, n->iface[0] ? ", " : "", n->iface,
		       up ? " up" : "", n->routed && up ? " (it carries the "
		       "host's routes: binding it would cut the host off)" : "");
		return;
	}
	if (n->routed && up) {
		dr_say(d, DR_FAIL, n->bdf, "pick another port: move the host's "
		       "traffic off it first, then dpdk-devbind.py "
		       "--bind=vfio-pci", "%s, %s up with the host's routes: "
		       "binding it to vfio-pci cuts the host off", n->driver,
		       n->iface);
		return;
	}
	snprintf(fix, sizeof(fix), "%s%s%sdpdk-devbind.py --bind=vfio-pci %s",
		 up ? "ip link set dev " : "", up ? n->iface : "",
		 up ? " down; " : "", n->bdf);
	dr_say(d, DR_FAIL, n->bdf, fix, "bound to %s%s%s%s: DPDK cannot open "
	       "it", n->driver, n->iface[0] ? " (" : "", n->iface,
	       n->iface[0] ? ")" : "");
}

static void
say_nic(struct dr *d, const struct dr_nic *n)
{
	char fix[128], where[64];

	snprintf(where, sizeof(where), "node %d, IOMMU group %d", n->node,
		 n->group);
	if (n->missing) {
		dr_say(d, DR_FAIL, n->bdf, "lspci -D -d ::0200 for the NICs' "
		       "addresses", "-a names it; no such PCI device");
	} else if (strncmp(n->cls, "0x02", 4) != 0) {
		dr_say(d, DR_FAIL, n->bdf, "-a with a NIC's address",
		       "not a network device (class %s)", n->cls);
	} else if (n->bind == DR_BIND_DPDK) {
		dr_say(d, DR_OK, n->bdf, NULL, "%s, %s%s",
		       n->driver, where, n->asked ? "" : "; not the run's (-a)");
		if (n->asked)
			check_group(d, n);
	} else if (n->bind == DR_BIND_SHARED) {
		dr_say(d, DR_OK, n->bdf, NULL, "%s, %s: DPDK's PMD drives it "
		       "beside the kernel", n->driver, where);
	} else if (n->bind == DR_BIND_NONE) {
		snprintf(fix, sizeof(fix), "dpdk-devbind.py --bind=vfio-pci %s",
			 n->bdf);
		dr_say(d, n->asked ? DR_FAIL : DR_OK, n->bdf, fix, "no driver");
	} else {
		say_kernel_nic(d, n);
	}
}

void
dr_check_nics(struct dr *d)
{
	unsigned int i;

	if (d->no_pci) {
		dr_say(d, DR_OK, "pci", NULL, "--no-pci: the run's ports are "
		       "--vdev's (%u)", d->nb_vdev);
		return;
	}
	if (d->nb_nics == 0 && d->nb_vdev == 0) {
		dr_say(d, DR_FAIL, "pci", "a NIC DPDK can drive, or --no-pci "
		       "--vdev for virtual ports", "no network device on the "
		       "PCI bus");
		return;
	}
	for (i = 0; i < d->nb_nics; i++)
		say_nic(d, &d->nics[i]);
	if (!dr_any_asked(d) && d->nb_vdev == 0)
		dr_say(d, DR_FAIL, "pci", "modprobe vfio-pci; dpdk-devbind.py "
		       "--bind=vfio-pci ADDRESS (a NIC not the host's own)",
		       "no NIC bound to a DPDK driver (vfio-pci): nothing for "
		       "the run");
}

void
dr_check_lcores(struct dr *d)
{
	struct lr_doctor_cpus online, off;
	char list[512], cpus[CPUS_STR], fix[sizeof(list) + 64];
	int c, n = 0, bad = 0;

	if (!d->lcores_given) {
		dr_say(d, DR_WARN, "-l", "give -l MAIN,WORKERS with CPUs of the "
		       "ports' NUMA node (-l 2-5)", "none given: EAL takes every "
		       "CPU, the kernel's CPU 0 too");
		return;
	}
	memset(&off, 0, sizeof(off));
	if (dr_read(d, "/sys/devices/system/cpu/online", list, sizeof(list)) != 0 ||
	    lr_doctor_cpulist(list, &online) <= 0)
		memset(&online, 1, sizeof(online));
	for (c = 0; c < LR_DOCTOR_CPUS; c++) {
		n += d->workers.on[c];
		if ((d->workers.on[c] || c == d->main_cpu) && !online.on[c]) {
			off.on[c] = true;
			bad++;
		}
	}
	if (bad) {
		snprintf(fix, sizeof(fix), "-l with CPUs of %s", list);
		dr_say(d, DR_FAIL, "-l", fix, "CPU %s not online (online: %s)",
		       lr_doctor_cpulist_str(&off, cpus, sizeof(cpus)), list);
	} else if (n == 0) {
		dr_say(d, DR_FAIL, "-l", "-l with two CPUs or more", "the main "
		       "lcore only: no worker");
	} else {
		dr_say(d, DR_OK, "-l", NULL, "main on CPU %d, workers on CPUs %s",
		       d->main_cpu,
		       lr_doctor_cpulist_str(&d->workers, cpus, sizeof(cpus)));
	}
}

void
dr_check_numa(struct dr *d)
{
	char cpus[CPUS_STR], node_list[CPUS_STR], fix[CPUS_STR + 64];
	unsigned int i, said = 0;
	int c, here, away;

	for (i = 0; i < d->nb_nics; i++) {
		const struct dr_nic *n = &d->nics[i];

		if (!n->asked || n->missing || n->node < 0 || !d->lcores_given)
			continue;
		here = away = 0;
		for (c = 0; c < LR_DOCTOR_CPUS; c++)
			if (d->workers.on[c])
				dr_cpu_node(d, c) == n->node ? here++ : away++;
		lr_doctor_cpulist_str(&d->workers, cpus, sizeof(cpus));
		lr_doctor_cpulist_str(n->node < DR_NODES ? &d->node_cpus[n->node] :
				      &d->workers, node_list, sizeof(node_list));
		snprintf(fix, sizeof(fix), "-l with CPUs of node %d (%s)",
			 n->node, node_list);
		said++;
		if (away == 0)
			dr_say(d, DR_OK, n->bdf, NULL, "node %d, as the workers "
			       "(CPUs %s)", n->node, cpus);
		else if (here == 0)
			dr_say(d, DR_FAIL, n->bdf, fix, "node %d, the workers "
			       "(CPUs %s) on another: every frame crosses the "
			       "sockets' link", n->node, cpus);
		else
			dr_say(d, DR_WARN, n->bdf, fix, "node %d; %d of the "
			       "workers (CPUs %s) on another", n->node, away, cpus);
	}
	if (said == 0)
		dr_say(d, DR_OK, "-", NULL, "nothing to compare: %s",
		       !d->lcores_given ? "no -l" : d->no_pci ? "--no-pci" :
		       "no NIC of the run with a NUMA node");
}

/* CPUs of the run: the workers, or every online CPU without -l. */
static void
run_cpus(const struct dr *d, struct lr_doctor_cpus *set)
{
	char list[512];

	if (d->lcores_given) {
		*set = d->workers;
		return;
	}
	if (dr_read(d, "/sys/devices/system/cpu/online", list, sizeof(list)) != 0 ||
	    lr_doctor_cpulist(list, set) <= 0)
		memset(set, 0, sizeof(*set));
}

/* The CPUs of @p set that @p have lacks, as a list; "" when none. */
static char *
missing(const struct lr_doctor_cpus *set, const struct lr_doctor_cpus *have,
	char *buf, size_t len)
{
	struct lr_doctor_cpus out;
	int c;

	for (c = 0; c < LR_DOCTOR_CPUS; c++)
		out.on[c] = set->on[c] && !have->on[c];
	return lr_doctor_cpulist_str(&out, buf, len);
}

void
dr_check_isolation(struct dr *d)
{
	struct lr_doctor_cpus set, iso, nohz;
	char list[1024], *p, cpus[CPUS_STR], miss[CPUS_STR], fix[3 * CPUS_STR + 64];

	if (!d->lcores_given) {
		dr_say(d, DR_OK, "-", NULL, "not checked: no -l");
		return;
	}
	run_cpus(d, &set);
	lr_doctor_cpulist_str(&set, cpus, sizeof(cpus));
	memset(&iso, 0, sizeof(iso));
	memset(&nohz, 0, sizeof(nohz));
	if (dr_read(d, "/sys/devices/system/cpu/isolated", list, sizeof(list)) == 0)
		lr_doctor_cpulist(list, &iso);
	else if (cmdline(d, "isolcpus", list, sizeof(list))) {
		/* isolcpus=[flags,]LIST: flags are words, the list digits. */
		for (p = list; *p && (*p < '0' || *p > '9'); p++)
			;
		lr_doctor_cpulist(p, &iso);
	}
	/* A kernel without nohz_full says "(null)". */
	if (dr_read(d, "/sys/devices/system/cpu/nohz_full", list, sizeof(list)) == 0)
		lr_doctor_cpulist(list, &nohz);
	missing(&set, &iso, miss, sizeof(miss));
	snprintf(fix, sizeof(fix), "isolcpus=%s nohz_full=%s rcu_nocbs=%s on the "
		 "kernel command line", cpus, cpus, cpus);
	if (miss[0]) {
		dr_say(d, DR_WARN, cpus, fix, "CPUs %s not isolated: the kernel "
		       "runs other tasks on them", miss);
		return;
	}
	missing(&set, &nohz, miss, sizeof(miss));
	if (miss[0])
		dr_say(d, DR_WARN, cpus, fix, "isolated, but CPUs %s not "
		       "nohz_full: the timer tick interrupts the loop", miss);
	else
		dr_say(d, DR_OK, cpus, NULL, "isolated, nohz_full");
}

void
dr_check_governor(struct dr *d)
{
	struct lr_doctor_cpus set, seen;
	char rel[128], gov[64], other[64], cpus[CPUS_STR], fix[CPUS_STR + 128];
	int c, c2, found = 0;

	run_cpus(d, &set);
	memset(&seen, 0, sizeof(seen));
	for (c = 0; c < LR_DOCTOR_CPUS; c++) {
		struct lr_doctor_cpus same;

		if (!set.on[c] || seen.on[c])
			continue;
		snprintf(rel, sizeof(rel),
			 "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", c);
		if (dr_read(d, rel, gov, sizeof(gov)) != 0)
			continue;
		found++;
		/* The CPUs with the same governor, in one line. */
		memset(&same, 0, sizeof(same));
		for (c2 = c; c2 < LR_DOCTOR_CPUS; c2++) {
			if (!set.on[c2] || seen.on[c2])
				continue;
			snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu%d/"
				 "cpufreq/scaling_governor", c2);
			if (dr_read(d, rel, other, sizeof(other)) == 0 &&
			    strcmp(other, gov) == 0)
				same.on[c2] = seen.on[c2] = true;
		}
		lr_doctor_cpulist_str(&same, cpus, sizeof(cpus));
		snprintf(fix, sizeof(fix), "cpupower -c %s frequency-set -g "
			 "performance", cpus);
		if (strcmp(gov, "performance") == 0)
			dr_say(d, DR_OK, cpus, NULL, "performance");
		else
			dr_say(d, DR_WARN, cpus, fix, "%s: the clock drops between "
			       "bursts; performance keeps it up", gov);
	}
	if (found == 0)
		dr_say(d, DR_OK, "-", NULL, "no cpufreq: the platform (or the "
		       "hypervisor) sets the clock");
}

void
dr_check_link(struct dr *d)
{
	unsigned int i, said = 0;

	for (i = 0; i < d->nb_nics; i++) {
		const struct dr_nic *n = &d->nics[i];
		char subject[64];

		if (n->iface[0] == '\0' || d->no_pci)
			continue;
		said++;
		snprintf(subject, sizeof(subject), "%s", n->iface);
		if (strcmp(n->oper, "up") == 0 && n->speed_mbps > 0)
			dr_say(d, DR_OK, subject, NULL, "%s up, %ld Mb/s",
			       n->bdf, n->speed_mbps);
		else if (strcmp(n->oper, "up") == 0)
			dr_say(d, DR_OK, subject, NULL, "%s up, speed unknown "
			       "(a virtual NIC's)", n->bdf);
		else
			dr_say(d, n->asked ? DR_FAIL : DR_WARN, subject, "check the "
			       "cable, the peer's port and its speed", "%s link %s",
			       n->bdf, n->oper[0] ? n->oper : "state unknown");
	}
	if (said == 0)
		dr_say(d, DR_OK, "-", NULL, "no NIC the kernel drives (ports "
		       "DPDK opens: port lines)");
}

void
dr_check_mtu(struct dr *d)
{
	unsigned int i, said = 0;
	char fix[96];

	if (d->mtu == 0) {
		dr_say(d, DR_OK, "-", NULL, "none asked (--mtu, --jumbo)");
		return;
	}
	for (i = 0; i < d->nb_nics; i++) {
		const struct dr_nic *n = &d->nics[i];

		if (n->iface[0] == '\0' || n->mtu < 0 || !n->asked)
			continue;
		said++;
		snprintf(fix, sizeof(fix), "ip link set dev %s mtu %u", n->iface,
			 d->mtu);
		if (n->mtu >= (long)d->mtu)
			dr_say(d, DR_OK, n->iface, NULL, "mtu %ld", n->mtu);
		else
			dr_say(d, DR_FAIL, n->iface, fix, "mtu %ld < %u asked",
			       n->mtu, d->mtu);
	}
	if (said == 0)
		dr_say(d, DR_OK, "-", NULL, "%u asked: checked on the ports DPDK "
		       "opens (port lines)", d->mtu);
}
