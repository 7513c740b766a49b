/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Prometheus metrics: /metrics over HTTP (libmicrohttpd) in Prometheus'
 * text exposition format 0.0.4, from the same per-task counters the live
 * line and the telemetry read (lr_task_report()), named by the roles'
 * counter tables (lr_counter.h).
 *
 * Threading: main lcore only. The server has no thread of its own: its
 * socket is polled without blocking by lr_metrics_poll(), which
 * lr_stats_tick() calls about every millisecond while the main lcore waits
 * or sleeps (lr_engine.h's tick), so a scrape is answered on the control
 * path and never on a worker lcore. Workers are not stopped, locked or
 * told: a scrape reads counters that may be one burst old, as the live
 * line does. While a script computes and does not wait, scrapes wait in
 * the listen queue.
 */
#ifndef LR_METRICS_H
#define LR_METRICS_H

#include <stdio.h>

#define LR_METRICS_LINGER_MAX_S 3600	/**< longest --metrics-linger */

/**
 * Check a listen address "[ADDR:]PORT" (ADDR a numeric IPv4 address, or
 * IPv6 in brackets: "[::1]:9100"; without ADDR 127.0.0.1, "0.0.0.0:9100"
 * every IPv4 address; PORT 0: a free port the kernel picks, which
 * lr_metrics_url() tells). Nothing is opened.
 * @return 0 or -EINVAL with lr_errmsg().
 */
int lr_metrics_check(const char *listen);

/**
 * Listen on @p listen and serve /metrics from now on. Once per process.
 * @param linger_s what lr_metrics_linger() waits at most at the end (0:
 *   nothing)
 * @return 0, -EINVAL (a bad address, already serving), or the -errno of
 *   socket(), bind() or listen() (-EADDRINUSE: the port is taken), with
 *   lr_errmsg() saying which.
 */
int lr_metrics_start(const char *listen, double linger_s);

/** "http://ADDR:PORT/metrics" with the port bound, or NULL when not
 *  serving. */
const char *lr_metrics_url(void);

/** Is the server up? */
int lr_metrics_running(void);

/** Answer what scrapes wait, without blocking. Nothing when not serving. */
void lr_metrics_poll(void);

/** Scrapes answered so far: GETs of /metrics whose answer went out
 *  whole (a HEAD reads no counts). */
unsigned long lr_metrics_scrapes(void);

/**
 * At the end of a run whose results are final: keep serving until a scrape
 * has read them (one answered after this call) or the linger_s given to
 * lr_metrics_start() have passed, so that a Prometheus that scrapes every
 * few seconds stores the run's last counts.
 * @return 1 a scrape read them, 0 none came in time (or not serving).
 */
int lr_metrics_linger(void);

/** Stop serving and close the socket. */
void lr_metrics_stop(void);

/** Write the exposition of now to @p f (the scrape's body). @return 0 or
 *  -errno. */
int lr_metrics_write(FILE *f);

/** Write doc/usage.md's table of metrics (linerate --metrics-md): every
 *  family the exposition has, its type and HELP, from the same walk of
 *  the roles' tables. Call after the roles are registered. @return 0 or
 *  -EIO. */
int lr_metrics_md(FILE *f);

#endif
