/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-second counts for make demo's timeline plot (tests/bench/plot.py): the demo's clients
 * count what happened in each second from their start and print it as NAME=N,N,... with
 * t0=SECONDS, their start on CLOCK_MONOTONIC (one clock for every process of the guest), so
 * that the host can put the attacker's and the legitimate client's counts on one time axis.
 */
#ifndef BRUTE_DEMO_TIMELINE_H
#define BRUTE_DEMO_TIMELINE_H
#include <stdio.h>
#include <time.h>

#define TIMELINE_SECONDS 600

struct timeline {
	double t0;
	int last;			/* the last second counted, -1: none */
	unsigned int n[TIMELINE_SECONDS];
};

static inline double timeline_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Starts every timeline of @tl (an array of @count) now. */
static inline void timeline_start(struct timeline *tl, int count)
{
	double t0 = timeline_now();

	for (int i = 0; i < count; i++) {
		tl[i].t0 = t0;
		tl[i].last = -1;
	}
}

/* One more event now. */
static inline void timeline_count(struct timeline *tl)
{
	int s = (int)(timeline_now() - tl->t0);

	if (s < 0 || s >= TIMELINE_SECONDS)
		return;
	tl->n[s]++;
	if (s > tl->last)
		tl->last = s;
}

/* " NAME=N,N,..." (up to @upto, the last second of the run; "-" when empty) on @f. */
static inline void timeline_print(FILE *f, const char *name, const struct timeline *tl, int upto)
{
	fprintf(f, " %s=", name);
	if (upto < 0)
		fputc('-', f);
	for (int s = 0; s <= upto && s < TIMELINE_SECONDS; s++)
		fprintf(f, "%s%u", s ? "," : "", tl->n[s]);
}
#endif
