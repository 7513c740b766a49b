/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /metrics in Prometheus' text exposition format (0.0.4), served by
 * libmicrohttpd polled from the main lcore's tick (lr_metrics.h).
 *
 * What is exported is read from the roles' counter tables (lr_counter.h):
 * each row with a metric names a value of a task's report
 * (lr_task_report(), the same numbers as the result document's "tasks")
 * or of a role's section of the result document, and the metric it
 * becomes. This file names no role: it walks every task's counters
 * (lr_task_counters), then each registered role's task kind's table, then
 * each role's section's (struct lr_plan's results_counters). Names follow
 * Prometheus' conventions: linerate_ prefix, _total on counters, base
 * units (seconds, bytes, ratios from 0 to 1). Labels: role, port (its
 * ethdev name), queue and task (its id) on a task's values, role alone on
 * a role's, and direction on a table's that are in one object per
 * direction (the delay box's). A value the document has as null (rx's per
 * before any frame: undetermined) has no sample: Prometheus then has none,
 * rather than a made-up 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>
#include <rte_common.h>
#include <rte_cycles.h>

#include "lr_common.h"
#include "lr_counter.h"
#include "lr_engine.h"
#include "lr_hist.h"
#include "lr_metrics.h"

/* A family: a row of a table with a metric, and whose values it is. */
struct mx_fam {
	const struct lr_counter *row;
	const struct lr_role *role;	/* NULL: every task's */
	const char *const *dirs;	/* the row is in each of these objects */
	bool section;			/* of the role's section, not a task's */
};

/* Call @p fn for every family, in the order of the exposition: every
 * task's counters, then each role's tasks', then each role's section's. */
static void
each_family(void (*fn)(const struct mx_fam *m, void *arg), void *arg)
{
	const struct lr_counters *c;
	const struct lr_role *r;
	unsigned int i, j, pass;

	for (c = &lr_task_counters; c != NULL; c = c->next)
		for (j = 0; j < c->nb; j++)
			if (c->rows[j].metric != NULL)
				fn(&(struct mx_fam){ .row = &c->rows[j],
						     .dirs = c->dirs }, arg);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; (r = lr_role_at(i)) != NULL; i++) {
			if (pass == 0)
				c = r->task != NULL ? r->task->counters : NULL;
			else
				c = r->report != NULL ? r->report->results_counters : NULL;
			for (; c != NULL; c = c->next)
				for (j = 0; j < c->nb; j++)
					if (c->rows[j].metric != NULL)
						fn(&(struct mx_fam){
							.row = &c->rows[j], .role = r,
							.dirs = c->dirs,
							.section = pass == 1 }, arg);
		}
	}
}

/*
 * The histograms' bucket bounds: 4 a power of two from 64 ns to 2^35 ns
 * (34 s), each a bound of lr_hist's buckets (those are 1/64 of a power of
 * two wide), so that every count falls wholly under one bound: cumulative
 * counts that are exact, not shares of a bucket. A quantile from them
 * (histogram_quantile()) is within a quarter of its power of two. Values
 * are whole ns: "<= B - 1 ns" is "< B", and le says B - 1 ns.
 */
#define MX_ROLES_MAX 64	/* role sections a scrape reads, at most */
#define MX_BUILD_INFO_HELP "linerate's version."

#define MX_LE_FIRST_POW 6
#define MX_LE_LAST_POW 35
#define MX_LE_PER_POW 4
#define MX_LE_NB ((MX_LE_LAST_POW - MX_LE_FIRST_POW) * MX_LE_PER_POW + 1)

/*
 * What one client may take of the server (issue 35 M7: 32 connections
 * that each dripped a byte every few seconds kept every real scrape from
 * an answer): MX_CONN_MAX connections in all, MX_CONN_PER_IP of them from
 * one address, and MX_REQUEST_S for a request from its connection's
 * accept or the previous answer to the end of its own (an inactivity
 * timeout alone is reset by each byte). A scrape takes milliseconds.
 */
#define MX_CONN_MAX 32
#define MX_CONN_PER_IP 4
#define MX_REQUEST_S 5

/* A connection, its request's start and whether an answer is going out. */
struct mx_conn {
	struct MHD_Connection *c;	/* NULL: a free slot */
	int fd;
	uint64_t since_tsc;	/* accept, or the end of the last answer */
	bool sending;		/* an answer queued, not yet sent whole */
	bool cut;		/* shut down past the deadline */
};

static struct {
	struct MHD_Daemon *d;
	int fd;
	unsigned long scrapes;
	double linger_s;
	char url[96];		/* where it serves, the port bound */
	struct mx_conn conns[MX_CONN_MAX];
} srv = { .fd = -1 };

/* Split "[ADDR:]PORT" into a socket address. */
static int
parse_listen(const char *listen, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	char host[64] = "";
	const char *port = listen, *colon;
	unsigned long pn;
	char *end;

	memset(ss, 0, sizeof(*ss));
	if (listen[0] == '[') {
		colon = strstr(listen, "]:");
		if (colon == NULL || (size_t)(colon - listen - 1) >= sizeof(host))
			goto bad;
		memcpy(host, listen + 1, (size_t)(colon - listen - 1));
		host[colon - listen - 1] = '\0';
		port = colon + 2;
	} else if ((colon = strrchr(listen, ':')) != NULL) {
		if ((size_t)(colon - listen) >= sizeof(host))
			goto bad;
		memcpy(host, listen, (size_t)(colon - listen));
		host[colon - listen] = '\0';
		port = colon + 1;
	}
	errno = 0;
	pn = strtoul(port, &end, 10);
	if (*port < '0' || *port > '9' || *end != '\0' || errno != 0 ||
	    pn > 65535)
		goto bad;
	if (listen[0] == '[') {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)pn);
		if (inet_pton(AF_INET6, host, &s6->sin6_addr) != 1)
			goto bad;
		*len = sizeof(*s6);
		return 0;
	}
	s4->sin_family = AF_INET;
	s4->sin_port = htons((uint16_t)pn);
	/* Without ADDR, this host only: a tool that runs as root on a lab
	 * host does not offer its counters (and its connections) to every
	 * host that reaches it unasked; 0.0.0.0:PORT does. */
	s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (host[0] != '\0' && inet_pton(AF_INET, host, &s4->sin_addr) != 1)
		goto bad;
	*len = sizeof(*s4);
	return 0;
bad:
	return lr_err(EINVAL, "--metrics '%s': want [ADDR:]PORT, PORT 0..65535 (0: any free one), "
		      "ADDR numeric IPv4 or [IPv6]", listen);
}

int
lr_metrics_check(const char *listen)
{
	struct sockaddr_storage ss;
	socklen_t len;

	return parse_listen(listen, &ss, &len);
}

/* ---- the exposition ---- */

/* A label value as the text format wants it: \ " and newline escaped. */
static void
put_label(FILE *f, const char *key, const char *val, bool first)
{
	const char *c;

	fprintf(f, "%s%s=\"", first ? "" : ",", key);
	for (c = val; *c != '\0'; c++) {
		if (*c == '\\' || *c == '"')
			fprintf(f, "\\%c", *c);
		else if (*c == '\n')
			fputs("\\n", f);
		else
			fputc(*c, f);
	}
	fputc('"', f);
}

/* The value at dotted @p path in @p o, or NULL. */
static json_t *
at_path(json_t *o, const char *path)
{
	char key[64];
	const char *dot;
	size_t n;

	while (o != NULL && (dot = strchr(path, '.')) != NULL) {
		n = (size_t)(dot - path);
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		o = json_object_get(o, key);
		path = dot + 1;
	}
	return o != NULL ? json_object_get(o, path) : NULL;
}

struct mx_src {
	json_t *o;		/* report or role section (owned) */
	const struct lr_role *role;
	char port[64];
	char queue[16];
	char task[16];
	bool is_task;
};

static void
put_labels(FILE *f, const struct mx_src *s, const char *dir, const char *le)
{
	put_label(f, "role", s->role->name, true);
	if (s->is_task) {
		put_label(f, "port", s->port, false);
		put_label(f, "queue", s->queue, false);
		put_label(f, "task", s->task, false);
	}
	if (dir != NULL)
		put_label(f, "direction", dir, false);
	if (le != NULL)
		put_label(f, "le", le, false);
}

/* A number of the document as a sample's value; false for null, strings
 * and objects: no sample. */
static bool
value_of(json_t *v, char *buf, size_t len)
{
	if (json_is_integer(v))
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%.17g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, len, "%d", json_is_true(v) ? 1 : 0);
	else
		return false;
	return true;
}

/* An lr_hist_json() object as _bucket, _sum and _count. _count is the
 * buckets' own sum, so that +Inf equals it whatever a worker added
 * between the reads of its count and of its buckets. */
static void
put_hist(FILE *f, const char *name, const struct mx_src *s, json_t *h)
{
	json_t *b = json_object_get(h, "buckets"), *e;
	uint64_t cum = 0, low, width, n, bound;
	char le[32];
	size_t i = 0, nb = json_array_size(b);
	unsigned int j, pw, m;

	if (!json_is_object(h) || !json_is_array(b))
		return;
	for (j = 0; j < MX_LE_NB; j++) {
		pw = MX_LE_FIRST_POW + j / MX_LE_PER_POW;
		m = MX_LE_PER_POW + j % MX_LE_PER_POW;
		bound = ((uint64_t)m << pw) / MX_LE_PER_POW;
		/* Buckets ascend; each whole under the first bound its last
		 * value (low + width - 1) is below. */
		for (; i < nb; i++) {
			e = json_array_get(b, i);
			low = (uint64_t)json_integer_value(json_array_get(e, 0));
			width = (uint64_t)json_integer_value(json_array_get(e, 1));
			n = (uint64_t)json_integer_value(json_array_get(e, 2));
			if (low + width > bound)
				break;
			cum += n;
		}
		snprintf(le, sizeof(le), "%.9g", (double)(bound - 1) * 1e-9);
		fprintf(f, "linerate_%s_bucket{", name);
		put_labels(f, s, NULL, le);
		fprintf(f, "} %" PRIu64 "\n", cum);
	}
	for (; i < nb; i++)
		cum += (uint64_t)json_integer_value(json_array_get(
				json_array_get(b, i), 2));
	fprintf(f, "linerate_%s_bucket{", name);
	put_labels(f, s, NULL, "+Inf");
	fprintf(f, "} %" PRIu64 "\n", cum);
	fprintf(f, "linerate_%s_sum{", name);
	put_labels(f, s, NULL, NULL);
	fprintf(f, "} %.17g\n", json_number_value(json_object_get(h, "mean_ns")) *
		(double)json_integer_value(json_object_get(h, "count")) * 1e-9);
	fprintf(f, "linerate_%s_count{", name);
	put_labels(f, s, NULL, NULL);
	fprintf(f, "} %" PRIu64 "\n", cum);
}

static void
put_sample(FILE *f, const struct lr_counter *r, const struct mx_src *s,
	   json_t *o, const char *dir)
{
	json_t *v = at_path(o, r->key);
	char val[64];

	if (r->kind == LR_COUNTER_HISTOGRAM) {
		put_hist(f, r->metric, s, v);
		return;
	}
	if (!value_of(v, val, sizeof(val)))
		return;
	fprintf(f, "linerate_%s{", r->metric);
	put_labels(f, s, dir, NULL);
	fprintf(f, "} %s\n", val);
}

/* Does @p r's section export a metric? */
static bool
section_metrics(const struct lr_role *r)
{
	const struct lr_counters *c;
	unsigned int j;

	if (r->report == NULL || r->report->results == NULL)
		return false;
	for (c = r->report->results_counters; c != NULL; c = c->next)
		for (j = 0; j < c->nb; j++)
			if (c->rows[j].metric != NULL)
				return true;
	return false;
}

/* Every task's report and the sections of the roles whose section exports
 * metrics and that have tasks: read once a scrape, before any family is
 * written (a family's samples go together). */
static struct mx_src *
sources(unsigned int *nb)
{
	unsigned int i, n, k = 0, it;
	const struct lr_role *r;
	struct mx_src *src;
	json_t *doc, *o;

	lr_engine_lock();
	n = lr_engine_task_count();
	src = calloc(n + MX_ROLES_MAX, sizeof(*src));
	if (src == NULL) {
		lr_engine_unlock();
		return NULL;
	}
	for (i = 0; i < n; i++) {
		struct lr_task *t = lr_engine_task(i);
		struct mx_src *s = &src[k];

		if (t->priv == NULL)	/* its init failed: no task */
			continue;
		s->o = lr_task_report(t);
		s->role = t->role;
		s->is_task = true;
		o = json_object_get(s->o, "port_name");
		snprintf(s->port, sizeof(s->port), "%s",
			 json_is_string(o) ? json_string_value(o) : "");
		if (t->queue == LR_QUEUE_NONE)
			snprintf(s->queue, sizeof(s->queue), "none");
		else
			snprintf(s->queue, sizeof(s->queue), "%u", t->queue);
		snprintf(s->task, sizeof(s->task), "%u", t->id);
		k++;
	}
	lr_engine_unlock();
	for (i = 0; (r = lr_role_at(i)) != NULL && k < n + MX_ROLES_MAX; i++) {
		if (!section_metrics(r))
			continue;
		/* A plan without tasks of its own (rtt) says whether it has
		 * any in its section; a role with tasks is asked only then. */
		it = 0;
		if (r->task != NULL && lr_role_next(r, &it) == NULL)
			continue;
		doc = json_object();
		r->report->results(doc);
		o = json_object_get(doc, r->name);
		if (json_is_object(o)) {
			src[k].o = json_incref(o);
			src[k].role = r;
			k++;
		}
		json_decref(doc);
	}
	*nb = k;
	return src;
}

/* What lr_metrics_write()'s families read. */
struct mx_scrape {
	FILE *f;
	const struct mx_src *src;
	unsigned int nb;
};

/* A family's HELP and TYPE, and a sample of each source it is of. */
static void
put_family(const struct mx_fam *m, void *arg)
{
	const struct mx_scrape *sc = arg;
	const struct lr_counter *r = m->row;
	unsigned int i, d;

	fprintf(sc->f, "# HELP linerate_%s %s\n# TYPE linerate_%s %s\n",
		r->metric, r->help, r->metric, lr_counter_kind_name(r->kind));
	for (i = 0; i < sc->nb; i++) {
		const struct mx_src *s = &sc->src[i];

		if (s->is_task == m->section ||
		    (m->role != NULL && m->role != s->role))
			continue;
		if (m->dirs == NULL) {
			put_sample(sc->f, r, s, s->o, NULL);
			continue;
		}
		for (d = 0; m->dirs[d] != NULL; d++)
			put_sample(sc->f, r, s, json_object_get(s->o, m->dirs[d]),
				   m->dirs[d]);
	}
}

int
lr_metrics_write(FILE *f)
{
	struct mx_scrape sc = { .f = f };
	struct mx_src *src;
	unsigned int i;

	src = sources(&sc.nb);
	if (src == NULL)
		return -ENOMEM;
	sc.src = src;
	fputs("# HELP linerate_build_info " MX_BUILD_INFO_HELP "\n"
	      "# TYPE linerate_build_info gauge\n", f);
	fprintf(f, "linerate_build_info{version=\"%s\"} 1\n", LR_VERSION);
	/* Every family's HELP and TYPE, samples or not: what exists is the
	 * same in every scrape (a dashboard's names can be checked). */
	each_family(put_family, &sc);
	for (i = 0; i < sc.nb; i++)
		json_decref(src[i].o);
	free(src);
	return ferror(f) ? -EIO : 0;
}

/* A row of doc/usage.md's table of metrics. */
static void
md_family(const struct mx_fam *m, void *arg)
{
	FILE *f = arg;

	fprintf(f, "| `linerate_%s` | %s | %s |\n", m->row->metric,
		lr_counter_kind_name(m->row->kind), m->row->help);
}

int
lr_metrics_md(FILE *f)
{
	fputs("| metric | type | what |\n| --- | --- | --- |\n"
	      "| `linerate_build_info` | gauge | " MX_BUILD_INFO_HELP " |\n", f);
	each_family(md_family, f);
	return ferror(f) ? -EIO : 0;
}

/* ---- the server ---- */

/* A request's mark (its con_cls): a GET of /metrics answered 200, counted
 * a scrape once its body has gone out whole (completed()). */
static char scrape_mark;

static enum MHD_Result
answer(void *cls, struct MHD_Connection *c, const char *url,
       const char *method, const char *version, const char *upload_data,
       size_t *upload_data_size, void **con_cls)
{
	static const char not_found[] = "linerate serves /metrics only\n";
	const union MHD_ConnectionInfo *ci;
	struct MHD_Response *resp;
	enum MHD_Result ret;
	unsigned int status = MHD_HTTP_OK;
	char *body = NULL;
	size_t len = 0;
	FILE *f;

	RTE_SET_USED(cls);
	RTE_SET_USED(version);
	RTE_SET_USED(upload_data);
	RTE_SET_USED(upload_data_size);
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (ci != NULL && ci->socket_context != NULL)
		((struct mx_conn *)ci->socket_context)->sending = true;
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
	} else if (strcmp(url, "/metrics") != 0) {
		status = MHD_HTTP_NOT_FOUND;
	} else {
		f = open_memstream(&body, &len);
		if (f == NULL)
			return MHD_NO;
		if (lr_metrics_write(f) != 0) {
			fclose(f);
			free(body);
			return MHD_NO;
		}
		fclose(f);
		/* A HEAD reads no counts: no scrape, and no end of the
		 * linger (issue 35 L2). */
		if (strcmp(method, "GET") == 0)
			*con_cls = &scrape_mark;
	}
	if (status != MHD_HTTP_OK)
		resp = MHD_create_response_from_buffer(sizeof(not_found) - 1,
			(void *)(uintptr_t)not_found, MHD_RESPMEM_PERSISTENT);
	else
		resp = MHD_create_response_from_buffer(len, body,
						       MHD_RESPMEM_MUST_FREE);
	if (resp == NULL) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, status ==
		MHD_HTTP_OK ? "text/plain; version=0.0.4; charset=utf-8" :
		"text/plain; charset=utf-8");
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* A request ended: a scrape if its body was sent whole (a client that
 * went away meanwhile read nothing). */
static void
completed(void *cls, struct MHD_Connection *c, void **con_cls,
	  enum MHD_RequestTerminationCode toe)
{
	const union MHD_ConnectionInfo *ci;
	struct mx_conn *mc;

	RTE_SET_USED(cls);
	if (*con_cls == &scrape_mark && toe == MHD_REQUEST_TERMINATED_COMPLETED_OK)
		srv.scrapes++;
	*con_cls = NULL;
	/* The next request on the connection has its own deadline. */
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (ci != NULL && (mc = ci->socket_context) != NULL) {
		mc->sending = false;
		mc->since_tsc = rte_rdtsc();
	}
}

/* A connection opened or closed: its slot, for the deadline. */
static void
connection(void *cls, struct MHD_Connection *c, void **socket_context,
	   enum MHD_ConnectionNotificationCode toe)
{
	const union MHD_ConnectionInfo *ci;
	unsigned int i;

	RTE_SET_USED(cls);
	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (*socket_context != NULL)
			memset(*socket_context, 0, sizeof(struct mx_conn));
		*socket_context = NULL;
		return;
	}
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	for (i = 0; i < MX_CONN_MAX; i++)
		if (srv.conns[i].c == NULL)
			break;
	if (ci == NULL || i == MX_CONN_MAX)
		return;		/* MHD's own limit is MX_CONN_MAX */
	srv.conns[i] = (struct mx_conn){ .c = c, .fd = ci->connect_fd,
					 .since_tsc = rte_rdtsc() };
	*socket_context = &srv.conns[i];
}

/* Shut down the connections whose request has taken more than
 * MX_REQUEST_S (none while its answer goes out): MHD then closes them. */
static void
cut_slow(void)
{
	uint64_t now = rte_rdtsc(), max = MX_REQUEST_S * rte_get_tsc_hz();
	unsigned int i;

	for (i = 0; i < MX_CONN_MAX; i++) {
		struct mx_conn *mc = &srv.conns[i];

		if (mc->c != NULL && !mc->sending && !mc->cut &&
		    now - mc->since_tsc > max) {
			shutdown(mc->fd, SHUT_RDWR);
			mc->cut = true;
		}
	}
}

int
lr_metrics_start(const char *listen_at, double linger_s)
{
	struct sockaddr_storage ss;
	socklen_t len = 0;
	int ret, one = 1;

	if (srv.d != NULL)
		return lr_err(EINVAL, "--metrics %s: already serving", listen_at);
	ret = parse_listen(listen_at, &ss, &len);
	if (ret != 0)
		return ret;
	/* Our own socket, so that a port in use is said as such (MHD alone
	 * would only fail to start). */
	srv.fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (srv.fd < 0)
		return lr_err(errno, "--metrics %s: socket", listen_at);
	setsockopt(srv.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(srv.fd, (struct sockaddr *)&ss, len) != 0 ||
	    listen(srv.fd, 64) != 0) {
		ret = errno;
		close(srv.fd);
		srv.fd = -1;
		return lr_err(ret, "--metrics %s: cannot listen", listen_at);
	}
	/* The port bound, which port 0 left to the kernel. */
	len = sizeof(ss);
	if (getsockname(srv.fd, (struct sockaddr *)&ss, &len) == 0) {
		char host[INET6_ADDRSTRLEN] = "";

		if (ss.ss_family == AF_INET6) {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

			inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
			snprintf(srv.url, sizeof(srv.url), "http://[%s]:%u/metrics",
				 host, ntohs(s6->sin6_port));
		} else {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

			inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
			snprintf(srv.url, sizeof(srv.url), "http://%s:%u/metrics",
				 host, ntohs(s4->sin_port));
		}
	}
	/* No MHD thread: lr_metrics_poll() from the main lcore's tick
	 * (external select mode, never blocking). */
	srv.d = MHD_start_daemon((ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				 0, NULL, NULL, answer, NULL,
				 MHD_OPTION_LISTEN_SOCKET, srv.fd,
				 MHD_OPTION_CONNECTION_LIMIT, (unsigned int)MX_CONN_MAX,
				 MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				 (unsigned int)MX_CONN_PER_IP,
				 MHD_OPTION_CONNECTION_TIMEOUT, 10u,
				 MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
				 MHD_OPTION_NOTIFY_CONNECTION, connection, NULL,
				 MHD_OPTION_END);
	if (srv.d == NULL) {
		close(srv.fd);
		srv.fd = -1;
		return lr_err(EIO, "--metrics %s: libmicrohttpd did not start",
			      listen_at);
	}
	srv.scrapes = 0;
	srv.linger_s = linger_s;
	memset(srv.conns, 0, sizeof(srv.conns));
	return 0;
}

const char *
lr_metrics_url(void)
{
	return srv.d != NULL ? srv.url : NULL;
}

int
lr_metrics_running(void)
{
	return srv.d != NULL;
}

void
lr_metrics_poll(void)
{
	if (srv.d == NULL)
		return;
	cut_slow();
	MHD_run(srv.d);
}

unsigned long
lr_metrics_scrapes(void)
{
	return srv.scrapes;
}

int
lr_metrics_linger(void)
{
	unsigned long before = srv.scrapes;
	uint64_t start = rte_rdtsc();
	uint64_t len = (uint64_t)(srv.linger_s * (double)rte_get_tsc_hz());

	if (srv.d == NULL || srv.linger_s <= 0)
		return 0;
	while (srv.scrapes == before && rte_rdtsc() - start < len &&
	       !lr_interrupted()) {
		lr_metrics_poll();
		rte_delay_us_sleep(1000);
	}
	/* The scrape's answer may still be on its way out. */
	for (start = rte_rdtsc(); rte_rdtsc() - start < rte_get_tsc_hz() / 10;) {
		lr_metrics_poll();
		rte_delay_us_sleep(1000);
	}
	return srv.scrapes != before;
}

void
lr_metrics_stop(void)
{
	if (srv.d == NULL)
		return;
	MHD_stop_daemon(srv.d);
	srv.d = NULL;
	close(srv.fd);
	srv.fd = -1;
}
