/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_thash.h>

#include "lr_common.h"
#include "lr_port.h"
#include "../lr_test.h"

static void
rss_fields(void **state)
{
	uint64_t hf;

	(void)state;
	assert_int_equal(lr_rss_fields_parse("ip,udp", &hf), 0);
	assert_true(hf == (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP));
	assert_int_equal(lr_rss_fields_parse("none", &hf), 0);
	assert_true(hf == 0);
	assert_int_equal(lr_rss_fields_parse("ip,bogus", &hf), -EINVAL);
	assert_non_null(strstr(lr_errmsg(), "'bogus'"));
}

static void
rss_keys(void **state)
{
	uint8_t key[LR_RSS_KEY_MAX], len = 99;
	unsigned int i;

	(void)state;
	assert_int_equal(lr_rss_key_parse("symmetric", key, &len), 0);
	assert_int_equal(len, 40);
	for (i = 0; i < len; i += 2) {
		assert_int_equal(key[i], 0x6d);
		assert_int_equal(key[i + 1], 0x5a);
	}
	assert_int_equal(lr_rss_key_parse("default", key, &len), 0);
	assert_int_equal(len, 0);
	assert_int_equal(lr_rss_key_parse("0x01aB", key, &len), 0);
	assert_int_equal(len, 2);
	assert_int_equal(key[0], 0x01);
	assert_int_equal(key[1], 0xab);
	assert_int_equal(lr_rss_key_parse("0g", key, &len), -EINVAL);
	assert_int_equal(lr_rss_key_parse("abc", key, &len), -EINVAL);
}

/* The point of the symmetric key: both directions of a flow hash alike,
 * so that a probe sees the whole flow on one lcore. A default key does not. */
static void
symmetric_key_is_symmetric(void **state)
{
	uint8_t key[LR_RSS_KEY_MAX], len;
	uint32_t fwd[3], rev[3], i;

	(void)state;
	assert_int_equal(lr_rss_key_parse("symmetric", key, &len), 0);
	for (i = 0; i < 1000; i++) {
		uint32_t a = 0x0a000000 + i * 7919, b = 0xc0a80000 + i * 104729;
		uint16_t pa = (uint16_t)(1024 + i), pb = (uint16_t)(80 + i * 3);

		fwd[0] = a; fwd[1] = b; fwd[2] = (uint32_t)pa << 16 | pb;
		rev[0] = b; rev[1] = a; rev[2] = (uint32_t)pb << 16 | pa;
		assert_int_equal(rte_softrss(fwd, 3, key), rte_softrss(rev, 3, key));
	}
	assert_int_equal(lr_rss_key_parse(
		"6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c"
		"6a42b73bbeac01fa", key, &len), 0);
	fwd[0] = 0x0a000001; fwd[1] = 0x0a000002; fwd[2] = 1024u << 16 | 80;
	rev[0] = 0x0a000002; rev[1] = 0x0a000001; rev[2] = 80u << 16 | 1024;
	assert_int_not_equal(rte_softrss(fwd, 3, key), rte_softrss(rev, 3, key));
}

static void
conf_set(void **state)
{
	struct lr_port_conf c;

	(void)state;
	lr_port_conf_init(&c);
	assert_int_equal(c.nb_rxq, 1);
	assert_int_equal(lr_port_conf_set(&c, "queues", "4"), 0);
	assert_int_equal(c.nb_rxq, 4);
	assert_int_equal(c.nb_txq, 4);
	assert_int_equal(lr_port_conf_set(&c, "mtu", "9000"), 0);
	assert_int_equal(c.mtu, 9000);
	assert_int_equal(lr_port_conf_set(&c, "mtu", "20"), -EINVAL);
	assert_int_equal(lr_port_conf_set(&c, "link-timeout", "0.5"), 0);
	assert_int_equal(c.link_timeout_ms, 500);
	assert_int_equal(lr_port_conf_set(&c, "rss-key", "symmetric"), 0);
	assert_int_equal(c.rss_key_len, 40);
	assert_int_equal(lr_port_conf_set(&c, "colour", "red"), -ENOENT);
}

static void
find_ports(void **state)
{
	uint16_t id, id2;

	(void)state;
	assert_int_equal(lr_port_find("net_null7", &id), 0);
	assert_int_equal(lr_port_find("net_null7", &id2), 0);	/* found, not made again */
	assert_int_equal(id, id2);
	assert_int_equal(lr_port_find("net_null8,size=128", &id2), 0);
	assert_int_not_equal(id, id2);
	assert_int_equal(lr_port_find("nosuch", &id), -ENODEV);
	assert_non_null(strstr(lr_errmsg(), "nosuch"));
	assert_true(lr_port_find("net_nosuchpmd0", &id) < 0);
	assert_non_null(strstr(lr_errmsg(), "net_nosuchpmd0"));
	assert_int_equal(lr_port_find("99", &id), -ENODEV);
}

static void
setup_null_port(void **state)
{
	struct lr_port_conf c;
	const struct lr_port_info *pi;
	uint16_t id;

	(void)state;
	assert_int_equal(lr_port_find("net_null9", &id), 0);
	assert_null(lr_port_info(id));
	lr_port_conf_init(&c);
	c.mtu = 9000;
	assert_int_equal(lr_port_setup(id, &c), 0);
	pi = lr_port_info(id);
	assert_non_null(pi);
	assert_int_equal(pi->mtu, 9000);
	assert_true(pi->link_up);
	/* A pool mbuf holds a whole 9018 B frame. */
	assert_true(pi->mbuf_data_bytes >= 9018);
	assert_string_equal(pi->driver, "net_null");
	/* Set up again with other queues. */
	c.nb_rxq = c.nb_txq = 2;
	assert_int_equal(lr_port_setup(id, &c), 0);
	assert_int_equal(lr_port_info(id)->nb_rxq, 2);
	lr_port_close(id);
	assert_null(lr_port_info(id));
}

/* A forwarding role's peer: found set up, refused when it is not and no
 * port to copy is given, or set up as the given port was. */
static void
peer_port(void **state)
{
	struct lr_port_conf c;
	uint16_t a, b, found;

	(void)state;
	assert_int_equal(lr_port_find("net_null10", &a), 0);
	lr_port_conf_init(&c);
	c.mtu = 4000;
	c.nb_rxq = c.nb_txq = 2;
	assert_int_equal(lr_port_setup(a, &c), 0);
	assert_int_equal(lr_port_peer("delay", "net_null11", LR_PORT_NONE, &b), -EINVAL);
	assert_non_null(strstr(lr_errmsg(), "delay: peer 'net_null11' is not a set-up port"));
	assert_int_equal(lr_port_peer("delay", "net_null11", a, &b), 0);
	assert_int_equal(lr_port_info(b)->mtu, 4000);
	assert_int_equal(lr_port_info(b)->nb_rxq, 2);
	assert_int_equal(lr_port_peer("reflect", "net_null11", LR_PORT_NONE, &found), 0);
	assert_int_equal(found, b);
	lr_port_close(b);
	lr_port_close(a);
}

/* The wire: what port a sends on queue q, port b receives on queue q. */
static void
wire_crosses(void **state)
{
	struct lr_port_conf c;
	struct rte_mbuf *m[4], *got[8];
	uint16_t p[2];

	(void)state;
	assert_int_equal(lr_port_wire("utw", 2, SOCKET_ID_ANY, p), 0);
	assert_int_equal(lr_port_wire("utw", 2, SOCKET_ID_ANY, p), -EEXIST);
	lr_port_conf_init(&c);
	c.nb_rxq = c.nb_txq = 3;
	assert_int_equal(lr_port_setup(p[0], &c), -EINVAL);
	assert_non_null(strstr(lr_errmsg(), "3 rx queues > max 2"));
	c.nb_rxq = c.nb_txq = 2;
	assert_int_equal(lr_port_setup(p[0], &c), 0);
	assert_int_equal(lr_port_setup(p[1], &c), 0);
	assert_int_equal(lr_port_info(p[0])->rss_hf, 0);	/* rings: no RSS */
	/* Asked for explicitly, RSS the PMD cannot do is an error. */
	assert_int_equal(lr_port_conf_set(&c, "rss", "ip,udp"), 0);
	assert_int_equal(lr_port_setup(p[0], &c), -EINVAL);
	assert_non_null(strstr(lr_errmsg(), "cannot hash RSS"));
	c.rss_required = false;
	assert_int_equal(lr_port_setup(p[0], &c), 0);
	assert_int_equal(rte_pktmbuf_alloc_bulk(lr_port_info(p[0])->pool, m, 4), 0);
	assert_int_equal(rte_eth_tx_burst(p[0], 1, m, 3), 3);
	assert_int_equal(rte_eth_tx_burst(p[1], 0, m + 3, 1), 1);
	assert_int_equal(rte_eth_rx_burst(p[1], 0, got, 8), 0);
	assert_int_equal(rte_eth_rx_burst(p[1], 1, got, 8), 3);
	assert_ptr_equal(got[0], m[0]);
	rte_pktmbuf_free_bulk(got, 3);
	assert_int_equal(rte_eth_rx_burst(p[0], 0, got, 8), 1);
	rte_pktmbuf_free(got[0]);
}

static int
setup(void **state)
{
	(void)state;
	return lr_test_eal_init("port");
}


int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rss_fields),
		cmocka_unit_test(rss_keys),
		cmocka_unit_test(symmetric_key_is_symmetric),
		cmocka_unit_test(conf_set),
		cmocka_unit_test(find_ports),
		cmocka_unit_test(setup_null_port),
		cmocka_unit_test(peer_port),
		cmocka_unit_test(wire_crosses),
	};

	return cmocka_run_group_tests(tests, setup, lr_test_teardown);
}
