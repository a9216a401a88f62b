// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * auparse-floor: what libauparse alone costs on a stream, fed the way
 * brute-reportd feeds it (one record line, then a flush) and every field of
 * every record visited by name and value.  Any libauparse consumer pays at
 * least this; `make -C daemon bench` prints it beside brute-reportd and
 * audisp-syslog.
 */
#include <auparse.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static unsigned long records, fields;

static void on_event(auparse_state_t *au, auparse_cb_event_t type, void *data)
{
	(void)type;
	(void)data;
	if (auparse_first_record(au) <= 0)
		return;
	do {
		records++;
		if (auparse_first_field(au) <= 0)
			continue;
		do {
			if (auparse_get_field_name(au) && auparse_get_field_str(au))
				fields++;
		} while (auparse_next_field(au) > 0);
	} while (auparse_next_record(au) > 0);
}

int main(void)
{
	static char buf[1 << 16];
	auparse_state_t *au = auparse_init(AUSOURCE_FEED, NULL);
	size_t have = 0;
	ssize_t n;

	if (!au) {
		perror("auparse_init");
		return 1;
	}
	auparse_set_escape_mode(au, AUPARSE_ESC_RAW);
	auparse_add_callback(au, on_event, NULL, NULL);
	while ((n = read(0, buf + have, sizeof(buf) - have)) > 0) {
		char *p = buf, *end = buf + have + (size_t)n, *nl;

		while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
			auparse_feed(au, p, (size_t)(nl - p + 1));
			auparse_flush_feed(au);
			p = nl + 1;
		}
		have = (size_t)(end - p);
		if (have == sizeof(buf))
			have = 0;	/* a line longer than the buffer: not in a generated stream */
		memmove(buf, p, have);
	}
	auparse_flush_feed(au);
	auparse_destroy(au);
	fprintf(stderr, "auparse-floor: %lu records, %lu fields\n", records, fields);
	return n < 0;
}
