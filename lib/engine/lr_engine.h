/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Tasks and worker lcores. A task is one role (gen, rx, ...) on one
 * (port, queue) pair, bound to one worker lcore. A worker lcore runs all its
 * tasks in one loop, a burst of each in turn, until every one of them is done:
 * with two cores a generator and a receiver can share the only worker.
 *
 * Threading: lr_task_create(), lr_engine_start(), lr_engine_stop() and the
 * wait functions are control path, main lcore only. A running task's counters
 * (struct lr_task_stats) are written by its lcore only and may be read by
 * anyone; the main lcore and the telemetry thread sum them. The task list is
 * append-only while the program runs, and guarded by a lock that the fast path
 * never takes.
 */
#ifndef LR_ENGINE_H
#define LR_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>
#include <rte_common.h>

#include "lr_capture.h"
#include "lr_counter.h"
#include "lr_opt.h"

#define LR_TASK_MAX 4096	/**< tasks over the life of the process */
#define LR_LCORE_TASK_MAX 64	/**< tasks one worker lcore runs at once */
/** The queue of a task that serves a port but owns none of its queues: it
 *  takes its packets from another task (a probe on a distributor channel). */
#define LR_QUEUE_NONE UINT16_MAX

enum lr_task_state {
	LR_TASK_CREATED,	/**< made, not started */
	LR_TASK_RUNNING,	/**< its lcore is polling it */
	LR_TASK_DONE,		/**< finished: limit reached or stopped */
};

/** Counters of one task, written only by its lcore. */
struct lr_task_stats {
	uint64_t rx_pkts;
	uint64_t rx_bytes;	/**< frame bytes without FCS (mbuf pkt_len) */
	uint64_t tx_pkts;
	uint64_t tx_bytes;	/**< frame bytes without FCS (mbuf pkt_len) */
	uint64_t tx_retry;	/**< tx bursts the queue did not take whole */
	uint64_t alloc_fail;	/**< bursts that found the mempool empty */
	uint64_t drops;		/**< packets the role dropped (role-specific) */
	uint64_t start_tsc;	/**< TSC when its lcore started it */
	uint64_t end_tsc;	/**< TSC when it finished, 0 while running */
} __rte_cache_aligned;

struct lr_task;

/** Control path: check the role's conf and build its state in t->priv. */
typedef int (*lr_role_init_t)(struct lr_task *t, const void *conf);
/** Fast path: one burst. Return 0 to go on, 1 when the task is done. */
typedef int (*lr_role_poll_t)(struct lr_task *t, uint64_t now_tsc);
/** On the task's lcore when it ends: free held mbufs, flush. */
typedef void (*lr_role_finish_t)(struct lr_task *t);
/** Control path: add the role's own results to @p obj. */
typedef void (*lr_role_report_t)(const struct lr_task *t, json_t *obj);
/** Control path: free t->priv. */
typedef void (*lr_role_free_t)(struct lr_task *t);

/** How a task's run went, better first: the worst over the tasks decides
 *  a run's exit code. */
enum lr_verdict {
	LR_VERDICT_OK,		/**< did what it was asked */
	LR_VERDICT_SHORT,	/**< ran, but below the rate it was asked */
	LR_VERDICT_LATE,	/**< ran, but more of its frames left later than
				 *   asked than the share it was given (delay) */
	LR_VERDICT_INVALID,	/**< ran, but what it measured is not what it
				 *   claims to measure (rtt: frames came back
				 *   that no reflector sent): no result */
	LR_VERDICT_FAILED,	/**< ended early: its port stopped taking frames */
};

/** Control path: the task's verdict; for anything but OK a sentence in
 *  @p why (@p len bytes) that names the task's port and says what fell
 *  short. */
typedef enum lr_verdict (*lr_role_verdict_t)(const struct lr_task *t,
					     char *why, size_t len);

/** Control path: set one option of a role's conf from its text form. */
typedef int (*lr_role_conf_set_t)(void *conf, const char *key, const char *val);

/**
 * A task kind: what one task of a role does on its (port, queue), from its
 * lcore: the per-task half of a role. lr_task_create() makes tasks of it.
 */
struct lr_task_kind {
	bool uses_rx;			/**< owns the rx side of its queue */
	bool uses_tx;			/**< owns the tx side of its queue */
	lr_role_init_t init;
	lr_role_poll_t poll;
	lr_role_finish_t finish;	/**< may be NULL */
	lr_role_report_t report;	/**< may be NULL */
	lr_role_free_t free;		/**< may be NULL */
	lr_role_verdict_t verdict;	/**< may be NULL: always OK */
	/** May be NULL: the kind runs its conf whole on every queue. Give
	 *  @p conf the share of queue @p q of @p nq (q < nq) that a task of
	 *  a role laid over a port's queues takes: gen's flows, count and
	 *  rate. */
	void (*slice)(void *conf, unsigned int q, unsigned int nq);
	/** May be NULL: does @p conf make a task that reads no queue of its
	 *  port (a probe on a distributor's channel: LR_QUEUE_NONE)? */
	bool (*queueless)(const void *conf);
	/** May be NULL: nothing of the kind changes live. Change @p key to
	 *  @p val in a created or running task (task:set{} in Lua): control
	 *  path, under the engine lock; the worker takes the change at a
	 *  burst boundary. @return 0 or < 0 with lr_errmsg() set. */
	int (*set)(struct lr_task *t, const char *key, const char *val);
	/** May be NULL: what report writes that the role counts, after the
	 *  counters every task has (lr_task_counters): its JSON keys, its
	 *  metrics, its units and help (lr_counter.h). */
	const struct lr_counters *counters;
};

/**
 * A role's half above its tasks is three structs, each of its own concern,
 * every member of which may be NULL (doc/architecture.md lists them all;
 * tests/system/test_docs.py fails on one it does not). Control path, main
 * lcore, but tick.
 *
 * The plan: how the role's tasks are laid over ports, queues and lcores.
 */
struct lr_plan {
	/** A role whose tasks this plan may make in front of the role's own
	 *  (the probe's: the distributor), or NULL. Its options are the
	 *  role's too where the CLI and linerate.plan{} lay the role over a
	 *  port: they fill a conf of the companion's own (lr_role_conf_set())
	 *  that place() gets as @p with_conf, and --help and --options-md
	 *  list them after the role's. */
	const struct lr_role *companion;
	/** The options of the companion the role takes, for help and
	 *  doc/usage.md; NULL: all of the companion's. */
	const struct lr_opt *companion_opts;
	/** Lay the role over a port's queues and @p n lcores
	 *  (lr_role_plan()); NULL: lr_role_plan_queues(). @return tasks
	 *  made or < 0. */
	int (*place)(uint16_t port, const void *conf, const void *with_conf,
		     const unsigned int *lcores, unsigned int n,
		     double duration_s);
	/** Why --role NAME alone is refused on the command line (the
	 *  distributor runs with its probes), or NULL. */
	const char *alone;
};

/** The role's report: what is said once over all its tasks. */
struct lr_report {
	/** Once per run: add a section that merges every task of the role
	 *  to the result document. */
	void (*results)(json_t *doc);
	/** May be NULL: what results writes in the role's section that is
	 *  exported as a metric of the role over all its tasks (label role
	 *  alone): the probe's exporter, rtt's round trips (lr_counter.h). */
	const struct lr_counters *results_counters;
	/** Once a second: a few words for the live line over every task of
	 *  the role, "" for none. */
	void (*live)(char *buf, size_t len);
	/** Once a period of the time series (lr_stats.h): add the role's
	 *  values over the interval since the last call to the sample
	 *  @p o; NULL: take a baseline only. */
	void (*sample)(json_t *o);
	/** Write the role's own table as CSV to @p path ("-": stdout) over
	 *  all its tasks (rx: the merged per-flow table), for --csv and
	 *  linerate.write_csv(). 0 or -errno with lr_errmsg(). */
	int (*write_csv)(const char *path);
	/** After the run, 0 when the role's results are whole, or < 0 with
	 *  lr_errmsg() saying what is missing (the probe: IPFIX records that
	 *  did not reach the collector). Such a run fails. */
	int (*check)(void);
	/** How the role's answer over all its tasks went, for a plan over
	 *  tasks judged together (rtt: its gen and rx), with a sentence in
	 *  @p why as a task's verdict. lr_engine_verdict() and the CLI's
	 *  exit code take it with the tasks'. NULL: OK. */
	enum lr_verdict (*verdict)(char *why, size_t len);
};

/** The role's lifecycle: what the engine calls it for as the run goes. */
struct lr_lifecycle {
	/** About every millisecond while the main lcore waits or sleeps
	 *  (the probe's exporter drains its rings). */
	void (*tick)(void);
	/** After lr_engine_stop() has joined the lcores: hand on what the
	 *  role's tasks still hold (the probe's flows). */
	void (*stopped)(void);
};


/**
 * A role: what the user names with --role and linerate.task{role=} and
 * configures with its options, the kind of task it makes, and its plan.
 * The CLI ("--size 64") and Lua ({size = 64}) both fill its conf through
 * lr_role_set(), so that they parse and check alike.
 */
struct lr_role {
	const char *name;
	/** The role's option table (lr_opt.h): lr_role_set() parses with
	 *  it, and --help and doc/usage.md's option table are printed from
	 *  it. */
	const struct lr_opt *opts;
	size_t conf_bytes;		/**< size of the role's conf struct */
	void (*conf_init)(void *conf);	/**< fill the defaults */
	/** May be NULL: the option table's parser (lr_opt_set()). A role
	 *  whose options go beyond its table (the distributor's) sets one:
	 *  -EINVAL, -ENOENT for unknown keys. Call lr_role_set(). */
	lr_role_conf_set_t conf_set;
	/** May be NULL: the checks of a whole conf that need no port or
	 *  EAL (option against option), so that the command line rejects
	 *  bad options before it starts anything. 0 or -EINVAL. */
	int (*conf_check)(const void *conf);
	/** The tasks it makes, or NULL for a role that is a plan over other
	 *  roles' tasks (rtt: gen's and rx's): lr_task_create() refuses it,
	 *  saying so. */
	const struct lr_task_kind *task;
	/** Its plan, or NULL: one task per queue (lr_role_plan_queues()). */
	const struct lr_plan *plan;
	/** Its report over all its tasks, or NULL: nothing said over them. */
	const struct lr_report *report;
	/** Its lifecycle hooks, or NULL: none. */
	const struct lr_lifecycle *life;
};

/**
 * Lay @p role over set-up port @p port as the CLI's --role does and Lua's
 * linerate.plan{} does: its plan's place(), or lr_role_plan_queues(). Tasks
 * made here are started by lr_engine_start() as any other.
 *
 * @param with_conf the conf of the plan's companion (lr_role_conf_set()
 *   fills both),
 *   or NULL: the companion's defaults are not asked for (a role's plan
 *   then makes none of its tasks)
 * @return tasks made, or < 0 with lr_errmsg().
 */
int lr_role_plan(const struct lr_role *role, uint16_t port, const void *conf,
		 const void *with_conf, const unsigned int *lcores,
		 unsigned int n, double duration_s);

/**
 * The placement of a role whose plan has none: one task per queue of the
 * side its task kind uses, each with its slice q/nq of @p conf
 * (lr_role_slice()), on @p lcores in turn.
 *
 * @return tasks made, or < 0 with lr_errmsg().
 */
int lr_role_plan_queues(const struct lr_role *role, uint16_t port,
			const void *conf, const unsigned int *lcores,
			unsigned int n, double duration_s);

/**
 * Set the role's own option @p key of @p conf (not its companion's: see
 * lr_role_conf_set()): role->conf_set, or the role's option table.
 * @return 0, -EINVAL with lr_errmsg(), -ENOENT for a key it does not know.
 */
int lr_role_set(const struct lr_role *role, void *conf, const char *key,
		const char *val);

/**
 * Give @p conf the share of queue @p q of @p nq that a task of @p role laid
 * over a port's queues takes, by its task kind's slice(). Nothing for
 * @p nq <= 1 or a kind without slices (it runs its conf whole).
 */
void lr_role_slice(const struct lr_role *role, void *conf, unsigned int q,
		   unsigned int nq);

/** The companion whose tasks @p role's plan may make (the probe's
 *  distributor), or NULL. */
static inline const struct lr_role *
lr_role_companion(const struct lr_role *role)
{
	return role->plan != NULL ? role->plan->companion : NULL;
}

/**
 * Set option @p key of a role from its text @p val, as the CLI and Lua's
 * task{} and plan{} do: in @p conf by lr_role_set() and, for a role with a
 * companion (lr_role_companion()), in @p with_conf by the companion's. A key
 * both know goes to both (the probe's count, trim and ingress are its
 * distributor's as well).
 *
 * @param with_conf the companion's conf, or NULL (one task of the role,
 *   Lua's task{}): a key only the companion knows is then refused
 * @return 0, -ENOENT (neither knows @p key) or -EINVAL with lr_errmsg().
 */
int lr_role_conf_set(const struct lr_role *role, void *conf, void *with_conf,
		     const char *key, const char *val);

/** A task. Roles read port, queue and priv and write st. */
struct lr_task {
	struct lr_task_stats st;	/**< own cache lines, lcore-written */
	const struct lr_task_kind *kind;	/**< role->task */
	const struct lr_role *role;
	void *priv;			/**< the role's state */
	uint32_t id;			/**< index in creation order */
	unsigned int lcore;
	uint16_t port;
	uint16_t queue;
	int socket;			/**< NUMA socket of the port */
	uint64_t duration_tsc;		/**< stop after this long, 0: no limit */
	uint32_t stop;			/**< set by the main lcore (atomic) */
	uint32_t state;			/**< enum lr_task_state (atomic) */
	/** The capture file its rx queue replays (lr_capture.h), NULL:
	 *  none. The task ends at the file's end, whatever its count or
	 *  duration: its poll asks lr_task_capture_end(). */
	struct lr_capture *capture;
};

/**
 * Make a task of @p role on @p lcore for (@p port, @p queue).
 * The port must be set up (lr_port_setup). @p conf is the role's own struct.
 * @p queue may be LR_QUEUE_NONE: the task then holds no queue of the port.
 *
 * @return the task, or NULL with rte_errno and lr_errmsg() set: EINVAL (not a
 *   worker lcore, no such queue, bad conf), EBUSY (the lcore is running, or
 *   another task holds that queue), ENOSPC (too many tasks), ENOMEM.
 */
struct lr_task *lr_task_create(const struct lr_role *role, unsigned int lcore,
			       uint16_t port, uint16_t queue, double duration_s,
			       const void *conf);

/** Make a role known by name. @return 0, -ENOSPC, or -EINVAL: no option
 *  table, neither a task kind nor a plan that places tasks, or a kind
 *  without init or poll. */
int lr_role_register(const struct lr_role *role);

/** A registered role, or NULL. */
const struct lr_role *lr_role_find(const char *name);

/** The i-th registered role, or NULL past the last. */
const struct lr_role *lr_role_at(unsigned int i);

/**
 * The tasks of @p role, in the order they were made, whose init succeeded
 * (priv set): *it starts at 0. Control path.
 *
 *	unsigned int it = 0;
 *	struct lr_task *t;
 *
 *	while ((t = lr_role_next(&lr_rx_role, &it)) != NULL)
 *		...
 */
struct lr_task *lr_role_next(const struct lr_role *role, unsigned int *it);

/** --csv: the first registered role with a write_csv hook writes @p path.
 *  @return 0, -ENOTSUP (no role writes CSV) or the role's error. */
int lr_roles_write_csv(const char *path);

/** Every role's check hook after the run. @return 0 or the first error. */
int lr_roles_check(void);

/**
 * Fast path, on a burst that brought nothing: has the task's rx queue been
 * read to the end of the capture file it replays (lr_capture_end())? False
 * at once for a queue that replays none. A role's poll returns 1 (done)
 * on true: the file has nothing more for it.
 */
static inline bool
lr_task_capture_end(struct lr_task *t)
{
	return lr_capture_end(t->capture, t->st.rx_pkts);
}

/** Ask a task to stop; its lcore finishes it after the current burst. */
void lr_task_stop(struct lr_task *t);

/**
 * Change @p key to @p val in a created or running task (struct
 * lr_task_kind's set). Control path; takes the engine lock.
 * @return 0, or < 0 with lr_errmsg() set: -ENOTSUP (the role changes
 *   nothing live), -EINVAL (the task ended, or the kind refused the value).
 */
int lr_task_set(struct lr_task *t, const char *key, const char *val);

/** The state of a task (enum lr_task_state). */
enum lr_task_state lr_task_state(const struct lr_task *t);

/**
 * Wait until @p t is done, @p timeout_s has passed (0: no limit), or its
 * packet counters have not moved for @p idle_s (0: not used).
 * Calls the tick hook every millisecond or so.
 *
 * @return 0 (done), 1 (idle), -ETIMEDOUT, -EINTR (interrupted), or -EINVAL
 *   (a time that is NaN, infinite or negative).
 */
int lr_task_wait(struct lr_task *t, double timeout_s, double idle_s);

/** Launch every worker lcore that has created tasks. @return tasks started. */
int lr_engine_start(void);

/** Stop every task and wait for every worker lcore. */
void lr_engine_stop(void);

/** Wait until every started task is done, like lr_task_wait(). A wait
 *  returns -EINTR once lr_interrupt() (lr_common.h) has been called. */
int lr_engine_wait(double timeout_s);

/** Sleep @p s seconds, calling the tick hook. @return 0, -EINTR, or -EINVAL
 *  (@p s NaN, infinite or negative). */
int lr_engine_sleep(double s);

/** Number of tasks made so far, and the i-th of them. */
unsigned int lr_engine_task_count(void);
struct lr_task *lr_engine_task(unsigned int i);

/** Worker lcores that can run tasks, in order; returns how many. */
unsigned int lr_engine_workers(unsigned int *lcores, unsigned int max);

/** Set a function called about every millisecond while waiting. */
void lr_engine_set_tick(void (*tick)(void));

/**
 * How @p t's run went so far, by its role's verdict hook.
 * @param why if not NULL, gets the role's sentence ("" for OK)
 */
enum lr_verdict lr_task_verdict(const struct lr_task *t, char *why, size_t len);

/** The worst verdict over every task made so far and every role's plan
 *  verdict (LR_VERDICT_OK: none). */
enum lr_verdict lr_engine_verdict(void);

/** "ok", "short", "late", "invalid", "failed". */
const char *lr_verdict_name(enum lr_verdict v);

/** Results of one task: id, role, lcore, port, queue, counters, rates,
 *  verdict (and verdict_why when it is not ok). */
json_t *lr_task_report(const struct lr_task *t);

/** Hold the task list still (telemetry reads it from another thread). */
void lr_engine_lock(void);
void lr_engine_unlock(void);

/** Free every task (after lr_engine_stop), at exit. */
void lr_engine_cleanup(void);

#endif
