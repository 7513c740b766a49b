/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a port's rx stamps mean (lr_clock_rx_init(), declared in lr_port.h):
 * here in lib/port, which knows its ports and what net_pcap writes, so that
 * lib/common's clock (TSC to Unix ns) needs no port.
 */
#include <errno.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf_dyn.h>

#include "lr_clock.h"
#include "lr_port.h"

int
lr_clock_rx_init(struct lr_clock_rx *rx, uint16_t port, bool capture,
		 const struct lr_clock *c)
{
	const struct lr_port_info *pi = lr_port_info(port);
	uint64_t clk;

	memset(rx, 0, sizeof(*rx));
	rx->mult = 1;
	if (capture) {
		/* net_pcap stamps every frame with its capture time, in us,
		 * whatever the offloads (lr_port.h). */
		if (rte_mbuf_dyn_rx_timestamp_register(&rx->offset, &rx->flag) != 0)
			return -ENOMEM;
		rx->mult = LR_PORT_CAPTURE_TS_NS;
		rx->trace = true;
		return 0;
	}
	if (pi == NULL || !(pi->rx_offloads & RTE_ETH_RX_OFFLOAD_TIMESTAMP))
		return 0;
	/* The NIC stamps packets: its clock, taken as ns, against Unix time
	 * at @p c's reading. No dynfield or no clock: the TSC, as without
	 * the offload. */
	if (rte_mbuf_dyn_rx_timestamp_register(&rx->offset, &rx->flag) == 0 &&
	    rte_eth_read_clock(port, &clk) == 0)
		rx->add = (int64_t)(c->ns0 - clk);
	else
		rx->flag = 0;
	return 0;
}
