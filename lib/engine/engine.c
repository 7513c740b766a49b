/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_spinlock.h>

#include "lr_common.h"
#include "lr_engine.h"
#include "lr_pool.h"
#include "lr_port.h"
#include "lr_quiesce.h"

RTE_LOG_REGISTER(lr_engine_logtype, user.lr.engine, INFO);
#define ELOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, lr_engine_logtype, "engine: " fmt "\n", ##__VA_ARGS__)

struct lcore_ctx {
	struct lr_task *tasks[LR_LCORE_TASK_MAX];
	unsigned int nb;
	bool launched;		/**< launched and not yet joined */
};

static struct lcore_ctx lcores[RTE_MAX_LCORE];
static struct lr_task *tasks[LR_TASK_MAX];
static unsigned int nb_tasks;
static rte_spinlock_t tasks_lock = RTE_SPINLOCK_INITIALIZER;
static const struct lr_role *roles[16];
static unsigned int nb_roles;
static void (*tick_fn)(void);

/*
 * Seconds to TSC cycles. The callers have refused NaN and negative times;
 * a time too long for 64 bits of cycles (centuries) is no limit, where the
 * plain cast would be undefined.
 */
static uint64_t
secs_to_tsc(double s)
{
	double c = s * rte_get_tsc_hz();

	return c >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)c;
}

/* A time in seconds a caller may give: finite and not negative. */
static bool
good_secs(double s)
{
	return isfinite(s) && s >= 0;
}

static int
lcore_loop(void *arg)
{
	struct lcore_ctx *lc = arg;
	uint64_t deadline[LR_LCORE_TASK_MAX];
	bool done[LR_LCORE_TASK_MAX];
	unsigned int i, active = lc->nb;
	uint64_t now = rte_rdtsc();
	unsigned int self = rte_lcore_id();

	/* Between two rounds no burst is under way: a port's memory may go
	 * then (lr_quiesce.h), and must not before. */
	lr_quiesce_online(self);
	for (i = 0; i < lc->nb; i++) {
		struct lr_task *t = lc->tasks[i];

		t->st.start_tsc = now;
		deadline[i] = t->duration_tsc ? now + t->duration_tsc : UINT64_MAX;
		done[i] = false;
	}
	while (active > 0) {
		lr_quiesce_point(self);
		now = rte_rdtsc();
		for (i = 0; i < lc->nb; i++) {
			struct lr_task *t = lc->tasks[i];

			if (done[i])
				continue;
			if (__atomic_load_n(&t->stop, __ATOMIC_RELAXED) == 0 &&
			    now < deadline[i] && t->kind->poll(t, now) == 0)
				continue;
			if (t->kind->finish != NULL)
				t->kind->finish(t);
			t->st.end_tsc = rte_rdtsc();
			__atomic_store_n(&t->state, LR_TASK_DONE, __ATOMIC_RELEASE);
			done[i] = true;
			active--;
		}
	}
	lr_quiesce_offline(self);
	return 0;
}

/* Every plan's tick hook, then the one set by lr_engine_set_tick(). */
static void
ticks(void)
{
	unsigned int i;

	for (i = 0; i < nb_roles; i++)
		if (roles[i]->life != NULL && roles[i]->life->tick != NULL)
			roles[i]->life->tick();
	if (tick_fn != NULL)
		tick_fn();
}

/* Join an lcore whose loop has returned, so that it can take new tasks. */
static void
reap(unsigned int l)
{
	struct lcore_ctx *lc = &lcores[l];

	if (!lc->launched || rte_eal_get_lcore_state(l) == RUNNING)
		return;
	rte_eal_wait_lcore(l);
	lc->launched = false;
	lc->nb = 0;
}

int
lr_role_register(const struct lr_role *role)
{
	if (lr_role_find(role->name) != NULL)
		return 0;
	/* Its options are its table: --help, doc/usage.md and lr_role_set()
	 * read it. A role without tasks of its own is a plan that places
	 * other roles' tasks. */
	if (role->opts == NULL ||
	    (role->task == NULL &&
	     (role->plan == NULL || role->plan->place == NULL)) ||
	    (role->task != NULL &&
	     (role->task->init == NULL || role->task->poll == NULL)))
		return -EINVAL;
	if (nb_roles == RTE_DIM(roles))
		return -ENOSPC;
	roles[nb_roles++] = role;
	return 0;
}

const struct lr_role *
lr_role_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < nb_roles; i++)
		if (strcmp(roles[i]->name, name) == 0)
			return roles[i];
	return NULL;
}

const struct lr_role *
lr_role_at(unsigned int i)
{
	return i < nb_roles ? roles[i] : NULL;
}

static bool
is_worker(unsigned int l)
{
	return l < RTE_MAX_LCORE && rte_lcore_is_enabled(l) &&
	       l != rte_get_main_lcore();
}

unsigned int
lr_engine_workers(unsigned int *out, unsigned int max)
{
	unsigned int l, n = 0;

	RTE_LCORE_FOREACH_WORKER(l) {
		if (n < max)
			out[n] = l;
		n++;
	}
	return n;
}

static bool
holds(const struct lr_task *t, const struct lr_task_kind *kind, uint16_t port,
      uint16_t queue)
{
	if (lr_task_state(t) == LR_TASK_DONE || t->port != port ||
	    t->queue != queue || queue == LR_QUEUE_NONE)
		return false;
	return (kind->uses_rx && t->kind->uses_rx) ||
	       (kind->uses_tx && t->kind->uses_tx);
}

struct lr_task *
lr_role_next(const struct lr_role *role, unsigned int *it)
{
	struct lr_task *t;

	while ((t = lr_engine_task(*it)) != NULL) {
		(*it)++;
		if (t->role == role && t->priv != NULL)
			return t;
	}
	return NULL;
}

int
lr_roles_write_csv(const char *path)
{
	const struct lr_role *r;
	unsigned int i;

	for (i = 0; (r = lr_role_at(i)) != NULL; i++)
		if (r->report != NULL && r->report->write_csv != NULL)
			return r->report->write_csv(path);
	return lr_err(ENOTSUP, "csv: no role writes a CSV table");
}

int
lr_roles_check(void)
{
	const struct lr_role *r;
	unsigned int i;
	int ret;

	for (i = 0; (r = lr_role_at(i)) != NULL; i++)
		if (r->report != NULL && r->report->check != NULL &&
		    (ret = r->report->check()) != 0)
			return ret;
	return 0;
}

int
lr_role_plan_queues(const struct lr_role *role, uint16_t port,
		    const void *conf, const unsigned int *lcores,
		    unsigned int n, double duration_s)
{
	const struct lr_port_info *pi = lr_port_info(port);
	unsigned int q, nq;
	void *qc;

	if (pi == NULL || n == 0)
		return lr_err(EINVAL, "%s: port %u not set up, or no lcore",
			      role->name, port);
	if (role->task == NULL)
		return lr_err(EINVAL, "%s: its plan lays no tasks of its own",
			      role->name);
	nq = role->task->uses_tx ? pi->nb_txq : pi->nb_rxq;
	qc = malloc(role->conf_bytes);
	if (qc == NULL)
		return lr_err(ENOMEM, "%s: no memory", role->name);
	for (q = 0; q < nq; q++) {
		/* Each queue takes its share of the flows, count and rate. */
		memcpy(qc, conf, role->conf_bytes);
		lr_role_slice(role, qc, q, nq);
		if (lr_task_create(role, lcores[q % n], port, (uint16_t)q,
				   duration_s, qc) == NULL)
			break;
	}
	free(qc);
	return q == nq ? (int)nq : -EINVAL;
}

int
lr_role_plan(const struct lr_role *role, uint16_t port, const void *conf,
	     const void *with_conf, const unsigned int *lcores, unsigned int n,
	     double duration_s)
{
	unsigned int first = lr_engine_task_count(), i;
	int ret;

	if (lr_port_info(port) == NULL || n == 0)
		return lr_err(EINVAL, "%s: port %u not set up, or no lcore",
			      role->name, port);
	if (role->plan != NULL && role->plan->place != NULL)
		ret = role->plan->place(port, conf, with_conf, lcores, n,
					duration_s);
	else
		ret = lr_role_plan_queues(role, port, conf, lcores, n, duration_s);
	/* A plan made in part is none: the tasks it made never run (they
	 * are done, at 0, in the results). */
	if (ret < 0)
		for (i = first; i < lr_engine_task_count(); i++)
			lr_task_stop(lr_engine_task(i));
	return ret;
}

int
lr_role_set(const struct lr_role *role, void *conf, const char *key,
	    const char *val)
{
	if (role->conf_set != NULL)
		return role->conf_set(conf, key, val);
	return lr_opt_set(role->opts, conf, role->name, key, val);
}

void
lr_role_slice(const struct lr_role *role, void *conf, unsigned int q,
	      unsigned int nq)
{
	if (nq > 1 && q < nq && role->task != NULL && role->task->slice != NULL)
		role->task->slice(conf, q, nq);
}

/* Does @p role know option @p key? Asked of a fresh conf (no memory: no). */
static bool
knows(const struct lr_role *role, const char *key, const char *val)
{
	void *c = malloc(role->conf_bytes);
	int ret;

	if (c == NULL)
		return false;
	role->conf_init(c);
	ret = lr_role_set(role, c, key, val);
	free(c);
	return ret != -ENOENT;
}

/* role->conf_set, all or nothing: an option refused part way through its
 * value (a list, a range, a SPEC) leaves the conf as it was. */
static int
conf_set_whole(const struct lr_role *role, void *conf, const char *key,
	       const char *val)
{
	void *save = malloc(role->conf_bytes);
	int ret;

	if (save == NULL)
		return lr_err(ENOMEM, "%s: no memory for its conf", role->name);
	memcpy(save, conf, role->conf_bytes);
	ret = lr_role_set(role, conf, key, val);
	if (ret != 0)
		memcpy(conf, save, role->conf_bytes);
	free(save);
	return ret;
}

int
lr_role_conf_set(const struct lr_role *role, void *conf, void *with_conf,
		 const char *key, const char *val)
{
	const struct lr_role *w = lr_role_companion(role);
	int ret = conf_set_whole(role, conf, key, val), wret;

	if (w == NULL || (ret != 0 && ret != -ENOENT))
		return ret;
	if (with_conf == NULL) {
		if (ret == -ENOENT && knows(w, key, val))
			return lr_err(EINVAL, "%s: %s is an option of the %s task "
				      "that the %s's plan makes (linerate.plan{}, "
				      "--role %s), not of a %s task", role->name,
				      key, w->name, role->name, role->name,
				      role->name);
		return ret;
	}
	wret = conf_set_whole(w, with_conf, key, val);
	return wret == -ENOENT ? ret : wret;
}

struct lr_task *
lr_task_create(const struct lr_role *role, unsigned int lcore, uint16_t port,
	       uint16_t queue, double duration_s, const void *conf)
{
	const struct lr_port_info *pi = lr_port_info(port);
	const struct lr_task_kind *kind = role->task;
	struct lcore_ctx *lc;
	struct lr_task *t;
	unsigned int i, n;
	int ret;

	if (kind == NULL)
		return lr_err_null(EINVAL, "%s: a plan, not a task: linerate.plan{"
				   "role = \"%s\", ...} or --role %s make its tasks",
				   role->name, role->name, role->name);
	if (!is_worker(lcore))
		return lr_err_null(EINVAL, "%s: lcore %u is not a worker lcore "
				   "(give EAL -l with more lcores)", role->name, lcore);
	if (pi == NULL)
		return lr_err_null(EINVAL, "%s: port %u is not set up", role->name, port);
	if (queue != LR_QUEUE_NONE &&
	    ((kind->uses_rx && queue >= pi->nb_rxq) ||
	     (kind->uses_tx && queue >= pi->nb_txq)))
		return lr_err_null(EINVAL, "%s: port %s has no %s queue %u",
				   role->name, pi->name, kind->uses_rx ? "rx" : "tx",
				   queue);
	if (!good_secs(duration_s))
		return lr_err_null(EINVAL, "%s: duration %f: want seconds >= 0",
				   role->name, duration_s);
	reap(lcore);
	lc = &lcores[lcore];
	if (lc->launched)
		return lr_err_null(EBUSY, "%s: lcore %u is running; stop its tasks "
				   "first", role->name, lcore);
	n = __atomic_load_n(&nb_tasks, __ATOMIC_ACQUIRE);
	for (i = 0; i < n; i++)
		if (holds(tasks[i], kind, port, queue))
			return lr_err_null(EBUSY, "%s: port %s queue %u is held by "
					   "task %u (%s)", role->name, pi->name,
					   queue, i, tasks[i]->role->name);
	if (n >= LR_TASK_MAX)
		return lr_err_null(ENOSPC, "%s: more than %u tasks", role->name,
				   LR_TASK_MAX);
	if (lc->nb >= LR_LCORE_TASK_MAX)
		return lr_err_null(ENOSPC, "%s: lcore %u has %u tasks already",
				   role->name, lcore, lc->nb);
	if ((int)rte_lcore_to_socket_id(lcore) != pi->socket)
		ELOG(WARNING, "%s on lcore %u (socket %u) serves port %s on "
		     "socket %d: every packet crosses the interconnect",
		     role->name, lcore, rte_lcore_to_socket_id(lcore), pi->name,
		     pi->socket);

	t = rte_zmalloc_socket("lr_task", sizeof(*t), RTE_CACHE_LINE_SIZE,
			       pi->socket);
	if (t == NULL)
		return lr_err_null(ENOMEM, "%s: no memory for a task", role->name);
	t->kind = kind;
	t->role = role;
	t->lcore = lcore;
	t->port = port;
	t->queue = queue;
	t->socket = pi->socket;
	t->duration_tsc = secs_to_tsc(duration_s);
	if (t->duration_tsc == UINT64_MAX)
		t->duration_tsc = 0;	/* beyond any run: no limit */
	t->state = LR_TASK_CREATED;
	if (kind->uses_rx && queue != LR_QUEUE_NONE) {
		t->capture = lr_capture_open(port, queue, pi->socket);
		if (t->capture == NULL && rte_errno != ENOENT) {
			ret = rte_errno;
			rte_free(t);
			rte_errno = ret;
			return NULL;
		}
	}
	ret = kind->init(t, conf);
	if (ret != 0) {
		lr_capture_free(t->capture);
		rte_free(t);
		rte_errno = -ret;
		return NULL;
	}
	rte_spinlock_lock(&tasks_lock);
	t->id = nb_tasks;
	tasks[nb_tasks] = t;
	__atomic_store_n(&nb_tasks, nb_tasks + 1, __ATOMIC_RELEASE);
	rte_spinlock_unlock(&tasks_lock);
	lc->tasks[lc->nb++] = t;
	return t;
}

/* Control path: say once that a task read its capture to the end, so
 * that a run that ended by itself says why. */
static void
tell_capture_end(struct lr_task *t)
{
	char who[64];

	if (t->capture == NULL)
		return;
	snprintf(who, sizeof(who), "%s task %u", t->role->name, t->id);
	lr_capture_tell(t->capture, who, t->st.rx_pkts);
}

int
lr_task_set(struct lr_task *t, const char *key, const char *val)
{
	int ret;

	if (t->kind->set == NULL)
		return lr_err(ENOTSUP, "task %u (%s): set: the role changes "
			      "nothing live", t->id, t->role->name);
	if (lr_task_state(t) == LR_TASK_DONE)
		return lr_err(EINVAL, "task %u (%s): set: the task has ended",
			      t->id, t->role->name);
	lr_engine_lock();
	ret = t->kind->set(t, key, val);
	lr_engine_unlock();
	return ret;
}

void
lr_task_stop(struct lr_task *t)
{
	__atomic_store_n(&t->stop, 1, __ATOMIC_RELAXED);
	/* A task that never ran is done at once. */
	if (lr_task_state(t) == LR_TASK_CREATED) {
		struct lcore_ctx *lc = &lcores[t->lcore];
		unsigned int i;

		for (i = 0; i < lc->nb; i++)
			if (lc->tasks[i] == t) {
				lc->tasks[i] = lc->tasks[--lc->nb];
				break;
			}
		__atomic_store_n(&t->state, LR_TASK_DONE, __ATOMIC_RELEASE);
	}
}

enum lr_task_state
lr_task_state(const struct lr_task *t)
{
	return (enum lr_task_state)__atomic_load_n(&t->state, __ATOMIC_ACQUIRE);
}

int
lr_engine_start(void)
{
	unsigned int l, i, started = 0;
	int ret;

	ret = lr_quiesce_init();
	if (ret < 0)
		return lr_err(-ret, "engine: no memory for the lcores' quiescent state");
	RTE_LCORE_FOREACH_WORKER(l) {
		struct lcore_ctx *lc = &lcores[l];

		reap(l);
		if (lc->launched || lc->nb == 0)
			continue;
		for (i = 0; i < lc->nb; i++)
			__atomic_store_n(&lc->tasks[i]->state, LR_TASK_RUNNING,
					 __ATOMIC_RELEASE);
		ret = rte_eal_remote_launch(lcore_loop, lc, l);
		if (ret != 0) {
			for (i = 0; i < lc->nb; i++)
				__atomic_store_n(&lc->tasks[i]->state,
						 LR_TASK_CREATED, __ATOMIC_RELEASE);
			return lr_err(-ret, "engine: cannot launch lcore %u", l);
		}
		lc->launched = true;
		started += lc->nb;
	}
	return (int)started;
}

void
lr_engine_stop(void)
{
	unsigned int i, l, n = __atomic_load_n(&nb_tasks, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++)
		if (lr_task_state(tasks[i]) != LR_TASK_DONE)
			lr_task_stop(tasks[i]);
	RTE_LCORE_FOREACH_WORKER(l) {
		if (lcores[l].launched) {
			/* Drain what the lcores hand on while they finish. */
			while (rte_eal_get_lcore_state(l) == RUNNING) {
				ticks();
				rte_delay_us_sleep(100);
			}
			rte_eal_wait_lcore(l);
			lcores[l].launched = false;
			lcores[l].nb = 0;
		}
	}
	for (i = 0; i < n; i++)
		tell_capture_end(tasks[i]);
	for (i = 0; i < nb_roles; i++)
		if (roles[i]->life != NULL && roles[i]->life->stopped != NULL)
			roles[i]->life->stopped();
}

static uint64_t
packets(const struct lr_task *t)
{
	return t->st.rx_pkts + t->st.tx_pkts;
}

/* Wait for @p t (NULL: all tasks) as lr_task_wait() documents. */
static int
wait_for(struct lr_task *t, double timeout_s, double idle_s)
{
	uint64_t start = rte_rdtsc(), now, last_change;
	uint64_t last_pk = UINT64_MAX, timeout_tsc, idle_tsc;

	if (!good_secs(timeout_s) || !good_secs(idle_s))
		return lr_err(EINVAL, "wait: want times in seconds >= 0");
	timeout_tsc = secs_to_tsc(timeout_s);
	idle_tsc = secs_to_tsc(idle_s);
	last_change = start;
	for (;;) {
		uint64_t pk = 0;
		bool all_done = true;
		unsigned int i, n;

		if (t != NULL) {
			if (lr_task_state(t) == LR_TASK_CREATED)
				return lr_err(EINVAL, "task %u (%s) was never started",
					      t->id, t->role->name);
			all_done = lr_task_state(t) == LR_TASK_DONE;
			pk = packets(t);
		} else {
			n = __atomic_load_n(&nb_tasks, __ATOMIC_ACQUIRE);
			for (i = 0; i < n; i++) {
				/* Done is not what a task never started is: a
				 * script that forgot start() is told. */
				if (lr_task_state(tasks[i]) == LR_TASK_CREATED)
					return lr_err(EINVAL, "task %u (%s) was never "
						      "started (linerate.start())",
						      tasks[i]->id,
						      tasks[i]->role->name);
				if (lr_task_state(tasks[i]) == LR_TASK_RUNNING)
					all_done = false;
				pk += packets(tasks[i]);
			}
		}
		if (all_done)
			return 0;
		if (lr_interrupted())
			return lr_err(EINTR, "interrupted");
		now = rte_rdtsc();
		if (timeout_s > 0 && now - start > timeout_tsc)
			return lr_err(ETIMEDOUT, "wait: still running after %.3f s",
				      timeout_s);
		if (pk != last_pk) {
			last_pk = pk;
			last_change = now;
		} else if (idle_s > 0 && now - last_change > idle_tsc) {
			return 1;
		}
		ticks();
		rte_delay_us_sleep(1000);
	}
}

int
lr_task_wait(struct lr_task *t, double timeout_s, double idle_s)
{
	return wait_for(t, timeout_s, idle_s);
}

int
lr_engine_wait(double timeout_s)
{
	return wait_for(NULL, timeout_s, 0);
}

int
lr_engine_sleep(double s)
{
	uint64_t start = rte_rdtsc(), len;

	if (!good_secs(s))
		return lr_err(EINVAL, "sleep: want seconds >= 0");
	len = secs_to_tsc(s);
	/* Elapsed against length: start + len may wrap for long sleeps. */
	while (rte_rdtsc() - start < len) {
		if (lr_interrupted())
			return lr_err(EINTR, "interrupted");
		ticks();
		rte_delay_us_sleep(1000);
	}
	return 0;
}

unsigned int
lr_engine_task_count(void)
{
	return __atomic_load_n(&nb_tasks, __ATOMIC_ACQUIRE);
}

struct lr_task *
lr_engine_task(unsigned int i)
{
	return i < lr_engine_task_count() ? tasks[i] : NULL;
}

void
lr_engine_set_tick(void (*tick)(void))
{
	tick_fn = tick;
}

static const char *
state_name(enum lr_task_state s)
{
	switch (s) {
	case LR_TASK_CREATED: return "created";
	case LR_TASK_RUNNING: return "running";
	default: return "done";
	}
}

/* What every task counts, a snapshot of its struct lr_task_stats and how
 * long it ran: the first rows of every task's report. */
struct task_counts {
	double duration_s;
	uint64_t rx_pkts, rx_bytes, tx_pkts, tx_bytes, tx_retry, alloc_fail, drops;
};

#define TASK_ROW(f, k, m, u, h) \
	LR_COUNTER_U64(struct task_counts, f, k, m, COUNTER, u, h)
static const struct lr_counter task_rows[] = {
	LR_COUNTER_REAL(struct task_counts, duration_s, "duration_s", "task_seconds",
			GAUGE, "s", "How long the task has run (until it ended)."),
	TASK_ROW(rx_pkts, "rx_packets", "rx_packets_total", "frames",
		 "Frames the task received."),
	TASK_ROW(rx_bytes, "rx_bytes", "rx_bytes_total", "bytes",
		 "Frame bytes the task received, without FCS."),
	TASK_ROW(tx_pkts, "tx_packets", "tx_packets_total", "frames",
		 "Frames the task sent."),
	TASK_ROW(tx_bytes, "tx_bytes", "tx_bytes_total", "bytes",
		 "Frame bytes the task sent, without FCS."),
	TASK_ROW(tx_retry, "tx_retry", "tx_retries_total", "bursts",
		 "Tx bursts the queue did not take whole."),
	TASK_ROW(alloc_fail, "alloc_fail", "alloc_failures_total", "bursts",
		 "Bursts that found the mempool empty."),
	TASK_ROW(drops, "local_drops", "drops_total", "frames",
		 "Frames the task dropped itself (its role says which)."),
};
#undef TASK_ROW

const struct lr_counters lr_task_counters = LR_COUNTERS(task_rows);

static void
add_rates(json_t *o, const char *dir, uint64_t pkts, uint64_t bytes, double secs)
{
	char k[32];
	double pps = secs > 0 ? pkts / secs : 0;
	double l2 = secs > 0 ? (bytes + (double)LR_FCS_BYTES * pkts) * 8 / secs : 0;
	double l1 = secs > 0 ? (bytes + (double)(LR_FCS_BYTES + LR_L1_EXTRA_BYTES)
				* pkts) * 8 / secs : 0;

	snprintf(k, sizeof(k), "%s_mpps", dir);
	json_object_set_new(o, k, json_real(pps / 1e6));
	snprintf(k, sizeof(k), "%s_gbps_l2", dir);
	json_object_set_new(o, k, json_real(l2 / 1e9));
	snprintf(k, sizeof(k), "%s_gbps_l1", dir);
	json_object_set_new(o, k, json_real(l1 / 1e9));
}

enum lr_verdict
lr_task_verdict(const struct lr_task *t, char *why, size_t len)
{
	char buf[256];

	if (why == NULL || len == 0) {
		why = buf;
		len = sizeof(buf);
	}
	why[0] = '\0';
	if (t->kind->verdict == NULL)
		return LR_VERDICT_OK;
	return t->kind->verdict(t, why, len);
}

enum lr_verdict
lr_engine_verdict(void)
{
	enum lr_verdict v, worst = LR_VERDICT_OK;
	unsigned int i, n = lr_engine_task_count();

	char why[256];

	for (i = 0; i < n; i++) {
		v = lr_task_verdict(tasks[i], NULL, 0);
		if (v > worst)
			worst = v;
	}
	for (i = 0; i < nb_roles; i++) {
		if (roles[i]->report == NULL || roles[i]->report->verdict == NULL)
			continue;
		v = roles[i]->report->verdict(why, sizeof(why));
		if (v > worst)
			worst = v;
	}
	return worst;
}

const char *
lr_verdict_name(enum lr_verdict v)
{
	switch (v) {
	case LR_VERDICT_OK: return "ok";
	case LR_VERDICT_SHORT: return "short";
	case LR_VERDICT_LATE: return "late";
	case LR_VERDICT_INVALID: return "invalid";
	default: return "failed";
	}
}

json_t *
lr_task_report(const struct lr_task *t)
{
	const struct lr_port_info *pi = lr_port_info(t->port);
	enum lr_task_state s = lr_task_state(t);
	struct lr_task_stats st = t->st;	/* one snapshot */
	uint64_t end = s == LR_TASK_DONE ? st.end_tsc : rte_rdtsc();
	double secs = st.start_tsc != 0 && end > st.start_tsc ?
		      (double)(end - st.start_tsc) / rte_get_tsc_hz() : 0;
	json_t *o = json_object();

	json_object_set_new(o, "id", json_integer(t->id));
	json_object_set_new(o, "role", json_string(t->role->name));
	json_object_set_new(o, "state", json_string(state_name(s)));
	json_object_set_new(o, "lcore", json_integer(t->lcore));
	json_object_set_new(o, "port", json_integer(t->port));
	json_object_set_new(o, "port_name", json_string(pi ? pi->name : "?"));
	json_object_set_new(o, "queue", t->queue == LR_QUEUE_NONE ? json_null() :
			    json_integer(t->queue));
	lr_counters_json(o, &lr_task_counters, &(struct task_counts){
		.duration_s = secs, .rx_pkts = st.rx_pkts, .rx_bytes = st.rx_bytes,
		.tx_pkts = st.tx_pkts, .tx_bytes = st.tx_bytes,
		.tx_retry = st.tx_retry, .alloc_fail = st.alloc_fail,
		.drops = st.drops }, 0);
	if (t->capture != NULL)
		json_object_set_new(o, "end_of_capture",
				    lr_capture_ended(t->capture) ?
				    json_integer((json_int_t)t->capture->frames) :
				    json_null());
	if (t->kind->uses_tx)
		add_rates(o, "tx", st.tx_pkts, st.tx_bytes, secs);
	if (t->kind->uses_rx)
		add_rates(o, "rx", st.rx_pkts, st.rx_bytes, secs);
	if (t->kind->report != NULL)
		t->kind->report(t, o);
	if (t->kind->verdict != NULL) {
		char why[256];
		enum lr_verdict v = lr_task_verdict(t, why, sizeof(why));

		json_object_set_new(o, "verdict", json_string(lr_verdict_name(v)));
		if (v != LR_VERDICT_OK)
			json_object_set_new(o, "verdict_why", json_string(why));
	}
	return o;
}

void
lr_engine_cleanup(void)
{
	unsigned int i, n;

	lr_engine_stop();
	rte_spinlock_lock(&tasks_lock);
	n = nb_tasks;
	__atomic_store_n(&nb_tasks, 0, __ATOMIC_RELEASE);
	for (i = 0; i < n; i++) {
		if (tasks[i]->kind->free != NULL)
			tasks[i]->kind->free(tasks[i]);
		lr_capture_free(tasks[i]->capture);
		rte_free(tasks[i]);
		tasks[i] = NULL;
	}
	rte_spinlock_unlock(&tasks_lock);
	lr_pool_cleanup();
}

void
lr_engine_lock(void)
{
	rte_spinlock_lock(&tasks_lock);
}

void
lr_engine_unlock(void)
{
	rte_spinlock_unlock(&tasks_lock);
}
