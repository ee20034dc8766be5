/* xtypes_decode — compiled by xtypes.sh at test time against the C that
 * idlc generates from the IDL in the bag (Rich.h, Rich.c): decodes each
 * recorded bagtest::Rich message (hex, one a line, on stdin) with that
 * generated type and prints its fields, one line a message. A wrong IDL
 * decodes to other values, or fails.
 *
 * The generated type's sertype comes from a sample sent through a local
 * reader (dds_takecdr), so only public Cyclone calls are used. Domain 68,
 * which stays in this process. Exit 0 ok, 1 a message did not decode. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/dds.h>
#include <dds/ddsi/ddsi_serdata.h>

#include "Rich.h"

static const struct ddsi_sertype *sertype_of(dds_entity_t pp)
{
	dds_entity_t tp = dds_create_topic(pp, &bagtest_Rich_desc, "xtypes_decode", NULL, NULL);
	dds_entity_t rd = dds_create_reader(pp, tp, NULL, NULL);
	dds_entity_t wr = dds_create_writer(pp, tp, NULL, NULL);
	bagtest_Rich m;
	memset(&m, 0, sizeof m);
	struct ddsi_serdata *sd = NULL;
	dds_sample_info_t si;
	if (tp < 0 || rd < 0 || wr < 0 || dds_write(wr, &m) < 0 ||
	    dds_takecdr(rd, &sd, 1, &si, 0) != 1)
		return NULL;
	return sd->type; /* the serdata is kept: it holds the sertype */
}

static void print(const bagtest_Rich *m)
{
	printf("id=%d name=%s mode=%d points=", (int)m->id, m->name, (int)m->mode);
	for (uint32_t i = 0; i < m->points._length; i++)
		printf("%g,%g;", m->points._buffer[i].x, m->points._buffer[i].y);
	printf(" few=");
	for (uint32_t i = 0; i < m->few_points._length; i++)
		printf("%g,%g;", m->few_points._buffer[i].x, m->few_points._buffer[i].y);
	printf(" matrix=");
	for (int r = 0; r < 2; r++)
		for (int c = 0; c < 3; c++)
			printf("%g;", m->matrix[r][c]);
	printf(" label=%s tags=", m->label);
	for (uint32_t i = 0; i < m->tags._length; i++)
		printf("%s;", m->tags._buffer[i]);
	if (m->extra._d == bagtest_parts_IDLE)
		printf(" extra=code:%d", (int)m->extra._u.code);
	else
		printf(" extra=note:%s", m->extra._u.note);
	if (m->maybe != NULL)
		printf(" maybe=%d\n", (int)*m->maybe);
	else
		printf(" maybe=none\n");
}

int main(void)
{
	dds_entity_t pp = dds_create_participant(68, NULL, NULL);
	const struct ddsi_sertype *st = pp > 0 ? sertype_of(pp) : NULL;
	if (st == NULL) {
		fprintf(stderr, "xtypes_decode: no sertype\n");
		return 1;
	}
	static char line[1 << 16];
	static unsigned char buf[1 << 15];
	while (fgets(line, sizeof line, stdin) != NULL) {
		size_t n = strcspn(line, "\r\n") / 2;
		for (size_t i = 0; i < n && i < sizeof buf; i++)
			sscanf(line + 2 * i, "%2hhx", &buf[i]);
		ddsrt_iovec_t iov = {.iov_base = buf, .iov_len = (ddsrt_iov_len_t)n};
		struct ddsi_serdata *sd = ddsi_serdata_from_ser_iov(st, SDK_DATA, 1, &iov, n);
		bagtest_Rich m;
		memset(&m, 0, sizeof m);
		if (sd == NULL || !ddsi_serdata_to_sample(sd, &m, NULL, NULL)) {
			fprintf(stderr, "xtypes_decode: a message does not decode\n");
			return 1;
		}
		print(&m);
		dds_sample_free(&m, &bagtest_Rich_desc, DDS_FREE_CONTENTS);
		ddsi_serdata_unref(sd);
	}
	dds_delete(pp);
	return 0;
}
