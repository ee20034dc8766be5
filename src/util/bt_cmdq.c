/* bt_cmdq — the command queue; see the header.
 *
 * DESIGN: `capacity` slots, each free or holding one outstanding command
 * (queued, then taken by the consumer) until its result is delivered; a
 * ring of slot indices keeps the queued ones in submission order. Tickets
 * grow by one per accepted command and name their slot (a linear search
 * over the few slots). A waiter (bt_cmdq_call) keeps its slot until it has
 * copied the result out, or gives it up on timeout (`abandoned`: the
 * finisher then frees it). Callbacks are called after unlocking.
 *
 * Lock: q->mu only; held to copy commands and move indices, never while a
 * callback runs. */
#include "bt_cmdq.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bt_sync.h"

enum cmdq_slot_state { SLOT_FREE = 0, SLOT_QUEUED, SLOT_TAKEN };

struct cmdq_slot {
	enum cmdq_slot_state state;
	uint64_t ticket;
	struct bt_cmd cmd;
	bt_cmd_done_fn done;
	void *ctx;
	bool waiter;    /* bt_cmdq_call waits for it */
	bool abandoned; /* the waiter gave up */
	bool ready;     /* `res` holds the result for the waiter */
	struct bt_cmd_result res;
};

struct bt_cmdq {
	pthread_mutex_t mu;
	pthread_cond_t work;    /* the consumer: a command, a wake, the close */
	pthread_cond_t results; /* waiters: a result is ready */
	size_t cap;
	struct cmdq_slot *slots;
	size_t *ring; /* queued slot indices, oldest at head */
	size_t head, n_queued;
	uint64_t next_ticket;
	bool closed, woken;
	char close_reason[BT_CMD_REASON_MAX];
	struct bt_cmdq_stats st;
};

struct bt_cmdq *bt_cmdq_new(size_t capacity)
{
	struct bt_cmdq *q = calloc(1, sizeof *q);
	if (q == NULL || capacity == 0)
		goto err_q;
	q->slots = calloc(capacity, sizeof *q->slots);
	q->ring = calloc(capacity, sizeof *q->ring);
	if (q->slots == NULL || q->ring == NULL)
		goto err_arrays;
	if (pthread_mutex_init(&q->mu, NULL) != 0) /* cannot fail on Linux */
		abort();
	bt_sync_cond_init(&q->work);
	bt_sync_cond_init(&q->results);
	q->cap = capacity;
	q->next_ticket = 1;
	return q;
err_arrays:
	free(q->ring);
	free(q->slots);
err_q:
	free(q);
	return NULL;
}

void bt_cmd_result_set(struct bt_cmd_result *res, enum bt_cmd_outcome o, const char *fmt, ...)
{
	memset(res, 0, sizeof *res);
	res->outcome = o;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(res->reason, sizeof res->reason, fmt, ap);
	va_end(ap);
}

static void cmdq_count(struct bt_cmdq_stats *st, enum bt_cmd_outcome o)
{
	if (o == BT_CMD_DONE)
		st->done++;
	else if (o == BT_CMD_REFUSED)
		st->refused++;
	else
		st->failed++;
}

/* Under the lock: the slot's result is `res`. Returns true when the caller
 * must call *done (copied out with *cmd and *ctx) after unlocking; the slot
 * is then free. A waiter's slot keeps the result for it. */
static bool cmdq_deliver(struct bt_cmdq *q, struct cmdq_slot *s, const struct bt_cmd_result *res,
			 bt_cmd_done_fn *done, void **ctx, struct bt_cmd *cmd)
{
	cmdq_count(&q->st, res->outcome);
	if (s->waiter && !s->abandoned) {
		s->res = *res;
		s->ready = true;
		pthread_cond_broadcast(&q->results);
		return false;
	}
	*done = s->done;
	*ctx = s->ctx;
	*cmd = s->cmd;
	s->state = SLOT_FREE;
	q->st.outstanding--;
	return *done != NULL;
}

static struct cmdq_slot *cmdq_find(struct bt_cmdq *q, uint64_t ticket)
{
	for (size_t i = 0; i < q->cap; i++)
		if (q->slots[i].state != SLOT_FREE && q->slots[i].ticket == ticket)
			return &q->slots[i];
	return NULL;
}

void bt_cmdq_finish(struct bt_cmdq *q, uint64_t ticket, const struct bt_cmd_result *res)
{
	bt_cmd_done_fn done = NULL;
	void *ctx = NULL;
	struct bt_cmd cmd;
	pthread_mutex_lock(&q->mu);
	struct cmdq_slot *s = cmdq_find(q, ticket);
	bool call = s != NULL && s->state == SLOT_TAKEN && !s->ready &&
		    cmdq_deliver(q, s, res, &done, &ctx, &cmd);
	pthread_mutex_unlock(&q->mu);
	if (call)
		done(ctx, &cmd, res);
}

/* Under the lock: the oldest queued slot, taken off the ring; NULL if none. */
static struct cmdq_slot *cmdq_pop(struct bt_cmdq *q)
{
	if (q->n_queued == 0)
		return NULL;
	struct cmdq_slot *s = &q->slots[q->ring[q->head]];
	q->head = (q->head + 1) % q->cap;
	q->n_queued--;
	s->state = SLOT_TAKEN;
	return s;
}

void bt_cmdq_close(struct bt_cmdq *q, const char *reason)
{
	pthread_mutex_lock(&q->mu);
	if (!q->closed)
		snprintf(q->close_reason, sizeof q->close_reason, "%s", reason);
	q->closed = true;
	pthread_cond_broadcast(&q->work);
	pthread_mutex_unlock(&q->mu);
}

void bt_cmdq_free(struct bt_cmdq *q)
{
	if (q == NULL)
		return;
	bt_cmdq_close(q, "shutting down");
	struct bt_cmd_result res;
	bt_cmd_result_set(&res, BT_CMD_REFUSED, "shutting down");
	struct bt_cmd cmd;
	uint64_t ticket;
	while (bt_cmdq_take(q, 0, &cmd, &ticket)) /* queued: taken here, refused */
		bt_cmdq_finish(q, ticket, &res);
	for (size_t i = 0; i < q->cap; i++) /* taken, never finished */
		if (q->slots[i].state == SLOT_TAKEN && !q->slots[i].ready)
			bt_cmdq_finish(q, q->slots[i].ticket, &res);
	pthread_cond_destroy(&q->results);
	pthread_cond_destroy(&q->work);
	pthread_mutex_destroy(&q->mu);
	free(q->ring);
	free(q->slots);
	free(q);
}

/* Under the lock: a free slot for *cmd, queued; NULL when refused (*res
 * says why, counted). */
static struct cmdq_slot *cmdq_push(struct bt_cmdq *q, const struct bt_cmd *cmd,
				   struct bt_cmd_result *res)
{
	if (q->closed) {
		q->st.refused_closed++;
		bt_cmd_result_set(res, BT_CMD_REFUSED, "%s", q->close_reason);
		return NULL;
	}
	if (q->st.outstanding == q->cap) {
		q->st.refused_full++;
		bt_cmd_result_set(res, BT_CMD_REFUSED, "too many commands waiting (%zu)", q->cap);
		return NULL;
	}
	size_t i = 0;
	while (q->slots[i].state != SLOT_FREE) /* outstanding < cap: one is free */
		i++;
	struct cmdq_slot *s = &q->slots[i];
	*s = (struct cmdq_slot){.state = SLOT_QUEUED, .ticket = q->next_ticket++, .cmd = *cmd};
	q->ring[(q->head + q->n_queued++) % q->cap] = i;
	q->st.submitted++;
	if (++q->st.outstanding > q->st.high_water)
		q->st.high_water = q->st.outstanding;
	pthread_cond_signal(&q->work);
	return s;
}

bt_status bt_cmdq_submit(struct bt_cmdq *q, const struct bt_cmd *cmd, bt_cmd_done_fn done,
			 void *ctx, uint64_t *ticket)
{
	struct bt_cmd_result res;
	pthread_mutex_lock(&q->mu);
	bool closed = q->closed;
	struct cmdq_slot *s = cmdq_push(q, cmd, &res);
	if (s != NULL) {
		s->done = done;
		s->ctx = ctx;
		if (ticket != NULL)
			*ticket = s->ticket;
	}
	pthread_mutex_unlock(&q->mu);
	if (s != NULL)
		return BT_OK;
	if (done != NULL)
		done(ctx, cmd, &res);
	return closed ? BT_ERR_STATE : BT_ERR_FULL;
}

bt_status bt_cmdq_call(struct bt_cmdq *q, const struct bt_cmd *cmd, int64_t timeout_ns,
		       struct bt_cmd_result *res)
{
	struct timespec until = bt_sync_deadline(timeout_ns);
	pthread_mutex_lock(&q->mu);
	bool closed = q->closed;
	struct cmdq_slot *s = cmdq_push(q, cmd, res);
	if (s == NULL) {
		pthread_mutex_unlock(&q->mu);
		return closed ? BT_ERR_STATE : BT_ERR_FULL;
	}
	s->waiter = true;
	while (!s->ready && pthread_cond_timedwait(&q->results, &q->mu, &until) == 0)
		;
	bool ready = s->ready;
	if (ready) {
		*res = s->res;
		s->state = SLOT_FREE;
		q->st.outstanding--;
	} else {
		s->abandoned = true; /* the finisher frees it */
		q->st.abandoned++;
	}
	pthread_mutex_unlock(&q->mu);
	if (!ready)
		bt_cmd_result_set(res, BT_CMD_FAILED, "no answer within %.3g s",
				  (double)timeout_ns / 1e9);
	return ready ? BT_OK : BT_ERR_NOTFOUND;
}

bool bt_cmdq_take(struct bt_cmdq *q, int64_t timeout_ns, struct bt_cmd *cmd, uint64_t *ticket)
{
	struct timespec until = bt_sync_deadline(timeout_ns);
	pthread_mutex_lock(&q->mu);
	while (q->n_queued == 0 && !q->woken && !q->closed && timeout_ns > 0 &&
	       pthread_cond_timedwait(&q->work, &q->mu, &until) == 0)
		;
	q->woken = false;
	struct cmdq_slot *s = cmdq_pop(q);
	if (s != NULL) {
		*cmd = s->cmd;
		*ticket = s->ticket;
	}
	pthread_mutex_unlock(&q->mu);
	return s != NULL;
}

void bt_cmdq_wake(struct bt_cmdq *q)
{
	bt_sync_raise(&q->mu, &q->work, &q->woken);
}

void bt_cmdq_get_stats(struct bt_cmdq *q, struct bt_cmdq_stats *st)
{
	pthread_mutex_lock(&q->mu);
	*st = q->st;
	pthread_mutex_unlock(&q->mu);
}

void bt_cmd_origin_str(const struct bt_cmd_origin *o, char *out, size_t cap)
{
	static const char *const kinds[] = {
		[BT_CMD_FROM_INTERNAL] = "internal", [BT_CMD_FROM_KEY] = "key",
		[BT_CMD_FROM_SIGNAL] = "signal", [BT_CMD_FROM_PIDCMD] = "bagtop",
		[BT_CMD_FROM_SERVICE] = "service"};
	const char *k = (size_t)o->kind < sizeof kinds / sizeof kinds[0] ? kinds[o->kind] : "?";
	snprintf(out, cap, "%s%s%s", k, o->detail[0] ? " " : "", o->detail);
}

void bt_cmd_line(const char *what, const struct bt_cmd *cmd, const struct bt_cmd_result *res,
		 char *out, size_t cap)
{
	char from[BT_CMD_DETAIL_MAX + 16];
	bt_cmd_origin_str(&cmd->origin, from, sizeof from);
	if (res->outcome == BT_CMD_DONE && res->reason[0] != '\0')
		snprintf(out, cap, "%s (%s)", res->reason, from);
	else if (res->outcome == BT_CMD_DONE && res->file[0] != '\0')
		snprintf(out, cap, "%s: wrote %s (%llu message%s) (%s)", what, res->file,
			 (unsigned long long)res->messages, res->messages == 1 ? "" : "s", from);
	else if (res->outcome == BT_CMD_DONE)
		snprintf(out, cap, "%s done (%s)", what, from);
	else
		snprintf(out, cap, "%s %s: %s (%s)", what,
			 res->outcome == BT_CMD_REFUSED ? "refused" : "failed", res->reason, from);
}
