/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What lib/doctor's files share: the findings so far (struct dr), the
 * reading of files below the root, and one line per finding.
 */
#ifndef LR_DOCTOR_INT_H
#define LR_DOCTOR_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>

#include "lr_doctor.h"

#define DR_NICS 64		/* network devices looked at */
#define DR_ALLOW 32		/* -a devices */
#define DR_NODES 64		/* NUMA nodes */
#define DR_JUMBO_MTU 9000	/* --jumbo: 9018 B frames (14 B header, 4 B FCS) */

enum dr_level { DR_OK, DR_WARN, DR_FAIL };

/* Who drives a NIC, as dpdk-devbind.py sorts them. */
enum dr_bind {
	DR_BIND_NONE,		/* no driver */
	DR_BIND_DPDK,		/* vfio-pci, igb_uio, uio_pci_generic */
	DR_BIND_SHARED,		/* mlx5_core, mlx4_core: DPDK beside the kernel */
	DR_BIND_KERNEL,		/* a kernel network driver */
};

struct dr_nic {
	char bdf[16];		/* 0000:03:00.0 */
	char cls[12];		/* PCI class, 0x020000 */
	char driver[32];	/* "" none */
	enum dr_bind bind;
	int group;		/* IOMMU group, -1 none */
	int node;		/* NUMA node, -1 unknown */
	char iface[32];		/* kernel interface, "" none */
	char oper[16];		/* its operstate */
	long speed_mbps;	/* -1 unknown */
	long mtu;		/* -1 unknown */
	bool routed;		/* /proc/net/route has a route through it */
	bool asked;		/* one of the run's ports */
	bool missing;		/* -a names it, sysfs does not have it */
};

struct dr_check;

struct dr_line {
	enum dr_level level;
	const struct dr_check *check;
	char subject[48];
	char what[320];
	char fix[320];
};

struct dr {
	char root[PATH_MAX];	/* "" for "/" */
	/* EAL's options, as the checks need them */
	struct lr_doctor_cpus workers;	/* CPUs of the worker lcores */
	int main_cpu;
	bool lcores_given;
	bool no_pci, no_huge;
	char allow[DR_ALLOW][32];
	unsigned int nb_allow;
	unsigned int nb_vdev;
	int eal_argc;
	char **eal_argv;	/* argv[0] and EAL's, for rte_eal_init() */
	/* linerate doctor's own options */
	uint32_t mtu;		/* 0: none asked */
	bool jumbo;
	double link_wait_s;
	bool no_eal;
	bool help;
	char json[PATH_MAX];
	char sysfs_root[PATH_MAX];
	/* what the machine has */
	struct dr_nic nics[DR_NICS];
	unsigned int nb_nics;
	struct lr_doctor_cpus node_cpus[DR_NODES];
	int nb_nodes;		/* highest node + 1; 0: no NUMA in sysfs */
	/* what was found */
	struct dr_line *lines;
	unsigned int nb_lines, cap;
	const struct dr_check *cur;
};

typedef void (*dr_check_t)(struct dr *d);

/* A row of the table of checks (doctor.c). */
struct dr_check {
	const char *name;
	dr_check_t run;
	const char *blocks;	/* what a FAIL of it stops; NULL: advice only */
};

/* One finding of the current check; @p fix NULL or "": none. */
void dr_say(struct dr *d, enum dr_level level, const char *subject,
	    const char *fix, const char *fmt, ...) __rte_format_printf(5, 6);

/* Any FAIL so far of the check named @p name (NULL: of any)? */
bool dr_failed(const struct dr *d, const char *name);

/* @p rel ("/sys/...") below the root, into @p buf. */
const char *dr_path(const struct dr *d, const char *rel, char *buf,
		    size_t len);
/* The first line of file @p rel below the root, without its newline.
 * @return 0 or -errno. */
int dr_read(const struct dr *d, const char *rel, char *buf, size_t len);
/* The last part of what link @p rel below the root points at. */
int dr_readlink_base(const struct dr *d, const char *rel, char *buf,
		     size_t len);
bool dr_exists(const struct dr *d, const char *rel);

/* The NUMA node of CPU @p cpu, -1 unknown. */
int dr_cpu_node(const struct dr *d, int cpu);
/* Does a NIC of the run need vfio-pci (or is none there yet)? */
bool dr_needs_vfio(const struct dr *d);
/* Is there a NIC of the run on the PCI bus? */
bool dr_any_asked(const struct dr *d);

/* The scan of the PCI bus's network devices and of the NUMA nodes. */
void dr_scan(struct dr *d);

/* The checks (checks.c, ports.c). */
void dr_check_hugepages(struct dr *d);
void dr_check_iommu(struct dr *d);
void dr_check_vfio(struct dr *d);
void dr_check_nics(struct dr *d);
void dr_check_lcores(struct dr *d);
void dr_check_numa(struct dr *d);
void dr_check_isolation(struct dr *d);
void dr_check_governor(struct dr *d);
void dr_check_link(struct dr *d);
void dr_check_mtu(struct dr *d);
void dr_check_ports(struct dr *d);

#endif
