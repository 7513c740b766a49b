/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ports DPDK opens with the run's EAL options: each set up with one
 * queue and its link waited for (--link-wait), its MTU against --mtu. EAL
 * starts only where the checks before it found nothing that stops it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include "lr_cleanup.h"
#include "lr_common.h"
#include "lr_port.h"

#include "doctor.h"

/* Why EAL is not started, or NULL. */
static const char *
why_not(const struct dr *d)
{
	static const char *const before[] = {
		"hugepages", "iommu", "vfio", "nic", "lcores",
	};
	unsigned int i;

	if (d->no_eal)
		return "not opened (--no-eal)";
	if (d->root[0] != '\0')
		return "not opened: --sysfs-root is not this machine's";
	if (d->nb_vdev == 0 && !dr_any_asked(d))
		return "none for DPDK to open";
	for (i = 0; i < RTE_DIM(before); i++)
		if (dr_failed(d, before[i]))
			return NULL;
	return "";
}

/* EAL with the run's options; --huge-unlink as linerate itself adds it,
 * so that no hugepage file stays behind. */
static int
start_eal(struct dr *d)
{
	static char unlink_opt[] = "--huge-unlink";
	bool unlink = !d->no_huge;
	int i;

	for (i = 1; i < d->eal_argc; i++)
		if (strcmp(d->eal_argv[i], "--in-memory") == 0 ||
		    strncmp(d->eal_argv[i], "--huge-unlink", 13) == 0 ||
		    strcmp(d->eal_argv[i], "--single-file-segments") == 0 ||
		    strncmp(d->eal_argv[i], "--proc-type", 11) == 0)
			unlink = false;
	if (unlink)
		d->eal_argv[d->eal_argc++] = unlink_opt;
	if (rte_eal_init(d->eal_argc, d->eal_argv) < 0)
		return -rte_errno;
	if (rte_eal_process_type() == RTE_PROC_PRIMARY)
		lr_cleanup_add(rte_eal_get_runtime_dir());
	return 0;
}

static void
check_mtu(struct dr *d, const char *name, const struct rte_eth_dev_info *info)
{
	char fix[96];

	if (d->mtu == 0)
		return;
	snprintf(fix, sizeof(fix), "a NIC that takes %u, or --mtu %u at most",
		 d->mtu, info->max_mtu);
	if (info->max_mtu < d->mtu)
		dr_say(d, DR_FAIL, name, fix, "max MTU %u < %u asked (%s)",
		       info->max_mtu, d->mtu, info->driver_name);
	else
		dr_say(d, DR_OK, name, NULL, "max MTU %u >= %u asked",
		       info->max_mtu, d->mtu);
}

static void
check_port(struct dr *d, uint16_t port)
{
	char name[RTE_ETH_NAME_MAX_LEN], fix[128];
	struct rte_eth_dev_info info;
	struct lr_port_conf pc;
	struct rte_eth_link link;
	uint32_t wait_ms = (uint32_t)(d->link_wait_s * 1000);

	if (rte_eth_dev_get_name_by_port(port, name) != 0)
		snprintf(name, sizeof(name), "port %u", port);
	if (rte_eth_dev_info_get(port, &info) != 0) {
		dr_say(d, DR_FAIL, name, "the EAL messages on stderr", "no device "
		       "information");
		return;
	}
	check_mtu(d, name, &info);
	lr_port_conf_init(&pc);
	pc.link_timeout_ms = 0;
	if (d->mtu != 0 && d->mtu <= info.max_mtu)
		pc.mtu = (uint16_t)d->mtu;
	if (lr_port_setup(port, &pc) != 0 && pc.mtu != 0) {
		/* The MTU refused: said, and the link checked without it. */
		snprintf(fix, sizeof(fix), "--mtu below %u, or a port that "
			 "takes it", d->mtu);
		dr_say(d, DR_FAIL, name, fix, "MTU %u refused: %s", d->mtu,
		       lr_errmsg());
		pc.mtu = 0;
	} else if (lr_port_info(port) != NULL) {
		pc.mtu = 0;
		goto link;
	}
	if (lr_port_setup(port, &pc) != 0) {
		dr_say(d, DR_FAIL, name, "the EAL messages on stderr", "cannot be "
		       "set up: %s", lr_errmsg());
		return;
	}
link:
	snprintf(fix, sizeof(fix), "check the cable, the peer's port and its "
		 "speed (--link-wait S waits longer than %.1f s)", d->link_wait_s);
	if (lr_port_link_wait(port, wait_ms) != 0) {
		dr_say(d, DR_FAIL, name, fix, "%s, socket %d: link down after "
		       "%.1f s", info.driver_name, rte_eth_dev_socket_id(port),
		       d->link_wait_s);
		return;
	}
	memset(&link, 0, sizeof(link));
	rte_eth_link_get_nowait(port, &link);
	dr_say(d, DR_OK, name, NULL, "%s, socket %d: up, %s %s duplex",
	       info.driver_name, rte_eth_dev_socket_id(port),
	       rte_eth_link_speed_to_str(link.link_speed),
	       link.link_duplex == RTE_ETH_LINK_FULL_DUPLEX ? "full" : "half");
}

void
dr_check_ports(struct dr *d)
{
	const char *why = why_not(d);
	uint16_t port;
	int ret, n = 0;

	if (why == NULL) {
		dr_say(d, DR_WARN, "-", "the FAIL lines above", "not opened: EAL "
		       "cannot start before they are fixed");
		return;
	}
	if (why[0] != '\0') {
		dr_say(d, DR_OK, "-", NULL, "%s", why);
		return;
	}
	ret = start_eal(d);
	if (ret < 0) {
		dr_say(d, DR_FAIL, "EAL", "the EAL messages on stderr", "did not "
		       "start: %s", rte_strerror(-ret));
		return;
	}
	RTE_ETH_FOREACH_DEV(port) {
		check_port(d, port);
		n++;
	}
	if (n == 0)
		dr_say(d, DR_FAIL, "-", "dpdk-devbind.py --status; the EAL "
		       "messages on stderr", "EAL found no port");
	lr_port_close_all();
	/* Ports that were never set up (a memif's socket file goes with its
	 * close). */
	RTE_ETH_FOREACH_DEV(port)
		rte_eth_dev_close(port);
}
