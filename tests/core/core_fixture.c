#include "core_fixture.h"

#include <string.h>
#include <unistd.h>

struct rec_msg *cf_msg(uint32_t topic, int64_t seq, size_t len, int64_t recv_time,
		       int64_t source_time)
{
	struct rec_msg *m = rec_msg_new(topic, len);
	assert_non_null(m);
	m->writer_sn = seq;
	m->recv_time = recv_time;
	m->source_time = source_time;
	memset(m->data, (int)(seq & 0xff), len);
	return m;
}

void cf_check_batch(const struct rec_batch *b, size_t n)
{
	size_t i = 0, bytes = 0;
	for (const struct rec_msg *m = b->head; m != NULL; m = m->next, i++) {
		assert_true(i < n);
		for (size_t k = 0; k < m->len; k++)
			if (m->data[k] != (unsigned char)(m->writer_sn & 0xff))
				fail_msg("entry %zu (seq %lld): byte %zu is %u", i,
					 (long long)m->writer_sn, k, m->data[k]);
		bytes += m->len;
		if (m->next == NULL)
			assert_ptr_equal(b->tail, m);
	}
	assert_int_equal(i, n);
	assert_int_equal(b->count, n);
	assert_int_equal(b->bytes, bytes);
}

static void *cf_later_run(void *arg)
{
	struct cf_later *l = arg;
	usleep(50000);
	l->fn(l->arg);
	return NULL;
}

void cf_later_start(struct cf_later *l, void (*fn)(void *), void *arg)
{
	l->fn = fn;
	l->arg = arg;
	assert_int_equal(pthread_create(&l->th, NULL, cf_later_run, l), 0);
}

void cf_later_join(struct cf_later *l)
{
	assert_int_equal(pthread_join(l->th, NULL), 0);
}
