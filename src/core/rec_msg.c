#include "rec_msg.h"

#include <stdlib.h>
#include <string.h>

struct rec_msg *rec_msg_new(uint32_t topic, size_t len)
{
	if (len > SIZE_MAX - sizeof(struct rec_msg))
		return NULL;
	struct rec_msg *m = malloc(sizeof *m + len);
	if (m == NULL)
		return NULL;
	memset(m, 0, sizeof *m);
	m->topic = topic;
	m->len = len;
	m->data = (unsigned char *)(m + 1);
	m->writer_sn = REC_SN_UNKNOWN;
	return m;
}

void rec_msg_free(struct rec_msg *m)
{
	if (m != NULL && m->release != NULL)
		m->release(m);
	else
		free(m);
}

void rec_msg_free_list(struct rec_msg *head)
{
	while (head != NULL) {
		struct rec_msg *next = head->next;
		rec_msg_free(head);
		head = next;
	}
}
