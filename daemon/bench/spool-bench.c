// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * spool-bench DIR SIZE_MIB [RECORD_BYTES]: what a large spool costs the event loop.
 *
 * Fills a spool in DIR (spool_max_size = SIZE_MIB, no sync) with records of
 * RECORD_BYTES (1024) until it is full, then measures, wall clock:
 *   fill:   the slowest append while filling it, up to and including the first drop;
 *   open:   spool_open() of that spool (what start-up does before READY=1);
 *   append: the slowest of 20000 appends into the full spool;
 *   ack:    acknowledging everything (delivered segments removed).
 * Page cache warm (the files were just written).  Not a test: figures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spool.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	uint64_t max, n = 0;
	size_t rec = argc > 3 ? (size_t)atol(argv[3]) : 1024;
	double t, worst = 0, fill_worst = 0, open_s, ack_s;
	struct spool *s;
	char *buf;

	if (argc < 3) {
		fprintf(stderr, "usage: spool-bench DIR SIZE_MIB [RECORD_BYTES]\n");
		return 2;
	}
	max = (uint64_t)atoll(argv[2]) << 20;
	buf = malloc(rec);
	if (!buf)
		return 1;
	memset(buf, 'b', rec);
	log_set_quiet(true);
	if (spool_open(argv[1], max, false, &s) < 0)
		return 1;
	while (spool_get_stats(s)->dropped == 0) {
		t = now_s();
		if (spool_append(s, buf, rec) < 0)
			return 1;
		t = now_s() - t;
		if (t > fill_worst)
			fill_worst = t;
		n++;
	}
	spool_close(s);

	t = now_s();
	if (spool_open(argv[1], max, false, &s) < 0)
		return 1;
	open_s = now_s() - t;
	for (int i = 0; i < 20000; i++) {
		t = now_s();
		if (spool_append(s, buf, rec) < 0)
			return 1;
		t = now_s() - t;
		if (t > worst)
			worst = t;
	}
	t = now_s();
	spool_ack(s, spool_tail(s));
	ack_s = now_s() - t;
	printf("spool %llu MiB, %llu records of %zu bytes: slowest append filling it %.3f s, "
	       "open %.3f s, slowest of 20000 appends when full %.3f s, ack of everything %.3f s\n",
	       (unsigned long long)(max >> 20), (unsigned long long)n, rec, fill_worst, open_s,
	       worst, ack_s);
	spool_close(s);
	free(buf);
	return 0;
}
