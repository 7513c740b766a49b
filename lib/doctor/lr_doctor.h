/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * linerate doctor [EAL options] [-- options]: a pre-flight check of a
 * machine for a line-rate run on real NICs, as DPDK's dpdk-devbind.py and
 * dpdk-hugepages.py and TRex's dpdk_setup_ports.py check it: hugepages per
 * NUMA node, the IOMMU and vfio-pci, each NIC's driver and IOMMU group,
 * the worker lcores' NUMA node against the ports', isolated cores, the
 * frequency governor, link and MTU. One line per finding: ok, warn
 * (advice) or FAIL (blocks a line-rate run) with its fix.
 *
 * Every sysfs and procfs file is read below one root (--sysfs-root DIR or
 * LINERATE_SYSFS_ROOT; "/" by default), so that tests run the checks on
 * faked trees.
 *
 * Threading: the main thread only, before and instead of a run.
 */
#ifndef LR_DOCTOR_H
#define LR_DOCTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "lr_opt.h"

#define LR_DOCTOR_CPUS 1024	/**< CPUs (and lcores) the checks know of */

/** A set of CPU (or lcore) ids, one byte each: small, and printed often. */
struct lr_doctor_cpus {
	bool on[LR_DOCTOR_CPUS];
};

/**
 * Parse a CPU list as sysfs and EAL's -l write it: "0-3,8,10-11" (an empty
 * string or "\n" is the empty set). @p out is cleared first.
 * @return how many CPUs, or -EINVAL (a bad list or an id >= LR_DOCTOR_CPUS).
 */
int lr_doctor_cpulist(const char *s, struct lr_doctor_cpus *out);

/**
 * The CPUs that EAL's --lcores @p s puts worker lcores on, and the main
 * lcore's CPU: "0@0,(1-3)@1", "1,2@(4-5)", "(0-3)" (an lcore without @ runs
 * on the CPU of its own id). The main lcore is @p main_lcore, or the
 * lowest lcore when it is negative (EAL's default).
 * @return 0, or -EINVAL.
 */
int lr_doctor_lcores(const char *s, int main_lcore,
		     struct lr_doctor_cpus *workers, int *main_cpu);

/** Print @p set as a CPU list ("2-4,7") into @p buf. @return @p buf. */
char *lr_doctor_cpulist_str(const struct lr_doctor_cpus *set, char *buf,
			    size_t len);

/** linerate doctor's options (after "--"), for --help, the manual page and
 *  doc/usage.md's table. */
extern const struct lr_opt lr_doctor_opts[];

/**
 * linerate doctor: @p argv[0] is "doctor". Exit codes: 0 nothing blocks a
 * line-rate run (warnings are advice), 1 something does (each said with
 * its fix), 2 bad options.
 */
int lr_doctor_main(int argc, char **argv);

#endif
