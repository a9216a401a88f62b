/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * brute-reportd - turn brute's kernel audit records into incidents.
 *
 * main.c - command line, configuration (re)loading, signals, sd_notify and
 * the event loop tying input -> parser -> correlate -> output together.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "actions.h"
#include "config.h"
#include "correlate.h"
#include "forward.h"
#include "health.h"
#include "input.h"
#include "output.h"
#include "parser.h"
#include "reload.h"
#include "spool.h"
#include "status.h"
#include "unit.h"
#include "util.h"

#ifndef VERSION
#define VERSION "0.1"
#endif

#define FOLLOW_POLL_MS	250
#define DRAIN_MS	2000
#define JOURNAL_POLL_MS	100

static volatile sig_atomic_t sig_stop, sig_reload, sig_stats;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		sig_reload = 1;
	else if (sig == SIGUSR1)
		sig_stats = 1;
	else
		sig_stop = 1;
}

enum mode { MODE_NETLINK, MODE_PLUGIN, MODE_REPLAY };

struct args {
	const char *config_path;
	bool config_given;
	enum mode mode;
	const char *input;
	bool follow;
	int print;		/* -1: default for the mode */
	int journal;		/* -1: from config */
	bool forward;
	bool check_config;
	bool reload;
	bool stats;
	bool health;
	int log_level;		/* -1: from config */
	bool quiet;
};

struct daemon {
	struct args args;
	struct brute_config cfg;
	struct parser *parser;
	struct correlate *corr;
	struct input *input;
	struct spool *spool;
	struct forward *forward;
	struct output out;
	bool record_time;
	uint64_t watchdog_ms, watchdog_next;
	/* live (netlink, plugin): health polled, STATUS= and the state file published */
	bool live;
	struct health health;
	uint64_t health_next, status_last;
	bool status_due;
	struct status_counters published;
	uint64_t started_usec;
	bool status_file_failed;
	struct status_reload reload;	/* the verdict of the last SIGHUP */
	struct actions *actions;	/* live: the backstop's restarts, peer ban actions */
	uint64_t rcvbuf_asked;	/* netlink_rcvbuf when the socket was opened (a reload does not resize it) */
};

static void help(void)
{
	printf("Usage: brute-reportd [OPTIONS]\n\n"
	       "Correlate brute LSM audit records into incidents; report them to the\n"
	       "journal and a SIEM.  Without options, read the kernel's audit multicast\n"
	       "group (needs CAP_AUDIT_READ).\n\n"
	       "  -c --config=PATH     configuration file (default " CONFIG_DEFAULT_PATH ")\n"
	       "     --stdin           read auditd's plugin protocol on stdin\n"
	       "  -i --input=FILE      replay an audit.log (- for stdin), print incidents\n"
	       "  -f --follow          with --input FILE: keep reading as the file grows\n"
	       "  -o --output=MODE     text, json or none: print entries on stdout\n"
	       "                       (default: text with --input, none otherwise)\n"
	       "     --journal=BOOL    send entries to the journal (default: config;\n"
	       "                       never with --input unless given)\n"
	       "     --forward         with --input: also forward to the configured SIEM\n"
	       "     --check-config    validate the configuration (and that the spool\n"
	       "                       directory is usable) and exit\n"
	       "     --reload          make the running daemon reload its configuration,\n"
	       "                       exit 1 if it refuses (the unit's ExecReload=)\n"
	       "  -s --stats           print counters on exit\n"
	       "     --health          check Brute, audit and the mode, print what is wrong,\n"
	       "                       exit 1 if anything is (as root: audit's state too)\n"
	       "  -d --debug           debug logging\n"
	       "  -q --quiet           no diagnostics on stderr\n"
	       "  -h --help            this help\n"
	       "     --version         version\n\n"
	       "See brute-reportd(8) and brute-reportd.conf(5).\n");
}

/* > 0 continue, 0 exit successfully (help), < 0 error */
static int parse_argv(int argc, char **argv, struct args *a)
{
	enum { ARG_STDIN = 0x100, ARG_JOURNAL, ARG_FORWARD, ARG_CHECK, ARG_VERSION, ARG_HEALTH,
	       ARG_RELOAD };
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "stdin", no_argument, NULL, ARG_STDIN },
		{ "input", required_argument, NULL, 'i' },
		{ "follow", no_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "journal", required_argument, NULL, ARG_JOURNAL },
		{ "forward", no_argument, NULL, ARG_FORWARD },
		{ "check-config", no_argument, NULL, ARG_CHECK },
		{ "reload", no_argument, NULL, ARG_RELOAD },
		{ "stats", no_argument, NULL, 's' },
		{ "health", no_argument, NULL, ARG_HEALTH },
		{ "debug", no_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, ARG_VERSION },
		{}
	};
	int c;

	memset(a, 0, sizeof(*a));
	a->config_path = CONFIG_DEFAULT_PATH;
	a->mode = MODE_NETLINK;
	a->print = a->journal = a->log_level = -1;

	while ((c = getopt_long(argc, argv, "c:i:fo:sdqh", opts, NULL)) >= 0) {
		switch (c) {
		case 'c':
			a->config_path = optarg;
			a->config_given = true;
			break;
		case ARG_STDIN:
			a->mode = MODE_PLUGIN;
			break;
		case 'i':
			a->mode = MODE_REPLAY;
			a->input = optarg;
			break;
		case 'f':
			a->follow = true;
			break;
		case 'o':
			if (!strcmp(optarg, "text"))
				a->print = PRINT_TEXT;
			else if (!strcmp(optarg, "json"))
				a->print = PRINT_JSON;
			else if (!strcmp(optarg, "none"))
				a->print = PRINT_NONE;
			else {
				log_error("--output: expected text, json or none, got \"%s\"", optarg);
				return -EINVAL;
			}
			break;
		case ARG_JOURNAL:
			if (!strcmp(optarg, "yes"))
				a->journal = 1;
			else if (!strcmp(optarg, "no"))
				a->journal = 0;
			else {
				log_error("--journal: expected yes or no, got \"%s\"", optarg);
				return -EINVAL;
			}
			break;
		case ARG_FORWARD:
			a->forward = true;
			break;
		case ARG_CHECK:
			a->check_config = true;
			break;
		case ARG_RELOAD:
			a->reload = true;
			break;
		case 's':
			a->stats = true;
			break;
		case ARG_HEALTH:
			a->health = true;
			break;
		case 'd':
			a->log_level = LOG_DEBUG;
			break;
		case 'q':
			a->quiet = true;
			break;
		case 'h':
			help();
			return 0;
		case ARG_VERSION:
			printf("brute-reportd " VERSION "\n");
			return 0;
		default:
			return -EINVAL;
		}
	}
	if (optind < argc) {
		log_error("unexpected argument \"%s\" (see --help)", argv[optind]);
		return -EINVAL;
	}
	if (a->follow && (a->mode != MODE_REPLAY || !strcmp(a->input, "-"))) {
		log_error("--follow needs --input FILE");
		return -EINVAL;
	}
	if (a->forward && a->mode != MODE_REPLAY) {
		log_error("--forward only applies to --input (the daemon forwards by configuration)");
		return -EINVAL;
	}
	return 1;
}

/* At a reload the file must be there: a missing one keeps the running configuration. */
static int load_config(const struct args *a, struct brute_config *cfg, bool reloading)
{
	return config_read(a->config_path, a->config_given || reloading, cfg);
}

/*
 * --check-config: the spool directory exists or can be created, and files
 * can be made in it, as the process running the check sees it.
 */
static int check_spool_dir(const struct args *a, const struct brute_config *cfg)
{
	char probe[PATH_MAX + 64];
	int fd, r = mkdir_p(cfg->spool_dir, 0700);

	if (r < 0) {
		log_error("spool_dir %s: cannot create it: %s", cfg->spool_dir, strerror(-r));
		return r;
	}
	snprintf(probe, sizeof(probe), "%s/.check-config.%d", cfg->spool_dir, (int)getpid());
	fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		r = -errno;
		log_error("spool_dir %s: cannot create files there: %s", cfg->spool_dir, strerror(errno));
		return r;
	}
	close(fd);
	unlink(probe);
	/* outside the unit: what its sandbox will say */
	if (a->mode == MODE_NETLINK && !getenv("STATE_DIRECTORY") &&
	    strncmp(cfg->spool_dir, SPOOL_DEFAULT_DIR, strlen(SPOOL_DEFAULT_DIR)) != 0)
		log_warning("spool_dir %s is outside %s: under brute-reportd.service (ProtectSystem=strict) only its StateDirectory= is writable; without ReadWritePaths=%s in a drop-in, the service cannot start or reload with it",
			    cfg->spool_dir, SPOOL_DEFAULT_DIR, cfg->spool_dir);
	return 0;
}

static void apply_log_level(const struct daemon *d)
{
	log_set_max_level(d->args.log_level >= 0 ? d->args.log_level : d->cfg.log_level);
}

static bool use_siem(const struct daemon *d, const struct brute_config *cfg)
{
	return cfg->fwd.protocol != SIEM_NONE && (d->args.mode != MODE_REPLAY || d->args.forward);
}

/* TLS counts as changed on every reload: certificate files are re-read (rotation). */
static bool fwd_equal(const struct forward_config *a, const struct forward_config *b)
{
	return a->protocol == b->protocol && a->protocol != SIEM_TLS && !strcmp(a->host, b->host) &&
	       !strcmp(a->port, b->port) && a->retry_min_ms == b->retry_min_ms &&
	       a->retry_max_ms == b->retry_max_ms && !strcmp(a->hostname, b->hostname) &&
	       a->facility == b->facility && a->max_message == b->max_message &&
	       a->timeout_ms == b->timeout_ms && !strcmp(a->siem.sd_id, b->siem.sd_id) &&
	       a->siem.json_format == b->siem.json_format && !strcmp(a->tls_ca, b->tls_ca) &&
	       !strcmp(a->tls_cert, b->tls_cert) && !strcmp(a->tls_key, b->tls_key) &&
	       !strcmp(a->tls_name, b->tls_name) && !strcmp(a->tls_priority, b->tls_priority) &&
	       a->relp_window == b->relp_window;
}

/* The spool cfg names, ready: created if missing, locked, its limits set. */
static int open_spool(const struct brute_config *cfg, struct spool **ret, char *err, size_t errlen)
{
	int r;

	/* as an auditd plugin there is no StateDirectory= to create it */
	r = mkdir_p(cfg->spool_dir, 0700);
	if (r < 0) {
		snprintf(err, errlen, "cannot create the SIEM spool directory %.300s: %s", cfg->spool_dir,
			 strerror(-r));
		return r;
	}
	r = spool_open(cfg->spool_dir, cfg->spool_max_size, cfg->spool_sync, ret);
	if (r < 0) {
		snprintf(err, errlen, "cannot open the SIEM spool in %.300s: %s", cfg->spool_dir,
			 r == -EBUSY ? "another process uses it" : strerror(-r));
		return r;
	}
	spool_set_min_free(*ret, cfg->spool_min_free);
	return 0;
}

/*
 * Make the SIEM forwarding what cfg says, or nothing of it: the new spool
 * and forwarder are set up first (the spool reused when its directory is
 * the same), and only then replace the running ones.  On failure
 * everything running stays as it was and err says why.
 */
static int switch_siem(struct daemon *d, const struct brute_config *cfg, char *err, size_t errlen)
{
	bool same_spool = d->spool && !strcmp(cfg->spool_dir, d->cfg.spool_dir);
	struct spool *sp = NULL;
	struct forward *fw = NULL;
	int r;

	if (use_siem(d, cfg)) {
		if (same_spool) {
			sp = d->spool;
		} else {
			r = open_spool(cfg, &sp, err, errlen);
			if (r < 0)
				return r;
		}
		fw = forward_new(&cfg->fwd, sp);	/* logs what is wrong with TLS files */
		if (!fw) {
			snprintf(err, errlen, "cannot set up forwarding to %s:%s (%s)", cfg->fwd.host,
				 cfg->fwd.port, siem_protocol_name(cfg->fwd.protocol));
			if (sp != d->spool)
				spool_close(sp);
			return -EINVAL;
		}
		spool_set_limits(sp, cfg->spool_max_size, cfg->spool_sync);
		spool_set_min_free(sp, cfg->spool_min_free);
		if (d->spool && sp != d->spool)
			spool_inherit(sp, d->spool);	/* the counters go on */
	}
	if (fw && d->forward)
		forward_inherit(fw, d->forward);	/* the counters go on */
	forward_free(d->forward);
	if (d->spool && d->spool != sp) {
		if (!spool_empty(d->spool))
			log_notice("%llu SIEM message(s) stay in %s: this configuration spools into %s",
				   (unsigned long long)spool_get_stats(d->spool)->records,
				   spool_dir(d->spool), sp ? spool_dir(sp) : "nothing (no SIEM)");
		spool_close(d->spool);
	}
	d->spool = sp;
	d->forward = fw;
	if (sp && !same_spool && !spool_empty(sp))
		log_notice("%llu spooled SIEM message(s) from a previous run will be delivered first",
			   (unsigned long long)spool_get_stats(sp)->records);
	if (fw)
		log_info("forwarding %s entries to %s:%s (%s)",
			 cfg->siem_kinds == ((1u << _ENTRY_KIND_MAX) - 1) ? "all" : "selected",
			 cfg->fwd.host, cfg->fwd.port, siem_protocol_name(cfg->fwd.protocol));
	return 0;
}

static int setup_siem(struct daemon *d)
{
	char err[512];
	int r = switch_siem(d, &d->cfg, err, sizeof(err));

	if (r < 0)
		log_error("%s", err);
	return r;
}

static void teardown_siem(struct daemon *d)
{
	forward_free(d->forward);
	d->forward = NULL;
	spool_close(d->spool);
	d->spool = NULL;
}

static void apply_outputs(struct daemon *d)
{
	d->out.journal = d->args.journal >= 0 ? d->args.journal :
			 d->args.mode == MODE_REPLAY ? false : d->cfg.journal;
	/* a replay loses nothing: a full journal queue waits */
	d->out.journal_wait = d->args.mode == MODE_REPLAY;
	d->out.forward = d->forward;
	d->out.siem_kinds = d->cfg.siem_kinds;
	d->out.fmt.hostname = d->cfg.fwd.hostname;
	d->out.fmt.app_name = "brute-reportd";
	d->out.fmt.pid = (int)getpid();
	d->out.fmt.facility = d->cfg.fwd.facility;
	d->out.fmt.opts = &d->cfg.fwd.siem;
}

static void publish_status(struct daemon *d, uint64_t now, bool force);

/*
 * SIGHUP.  All or nothing: a file that cannot be loaded, or forwarding
 * that cannot be set up as configured (a spool directory that cannot be
 * used, TLS files...), leaves the running configuration in place.  The
 * verdict goes to the log and the state file, where brute-reportd
 * --reload (ExecReload=) waits for it.
 */
static void reload(struct daemon *d)
{
	struct brute_config n;
	char err[512] = "";
	bool siem_changed;
	int r;

	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu", (unsigned long long)now_monotonic_ms() * 1000);
	r = load_config(&d->args, &n, true);
	if (r < 0) {
		snprintf(err, sizeof(err), "%s: %s", d->args.config_path,
			 r == -EINVAL ? "the file has errors (logged above)" :
			 r == -EPERM ? "refused (its owner or mode, logged above)" : strerror(-r));
	} else {
		n.corr.record_time = d->record_time;
		siem_changed = !fwd_equal(&n.fwd, &d->cfg.fwd) ||
			       strcmp(n.spool_dir, d->cfg.spool_dir) != 0 ||
			       use_siem(d, &n) != use_siem(d, &d->cfg);
		if (siem_changed)
			r = switch_siem(d, &n, err, sizeof(err));
		else if (d->spool) {
			spool_set_limits(d->spool, n.spool_max_size, n.spool_sync);
			spool_set_min_free(d->spool, n.spool_min_free);
		}
	}
	d->reload.count++;
	d->reload.failed = r < 0;
	snprintf(d->reload.error, sizeof(d->reload.error), "%s", r < 0 ? err : "");
	if (r < 0) {
		log_error("reload failed, keeping the running configuration: %s", err);
	} else {
		if (n.netlink_rcvbuf != d->cfg.netlink_rcvbuf)
			log_notice("netlink_rcvbuf changes take effect at the next start");
		d->cfg = n;
		apply_log_level(d);
		correlate_set_config(d->corr, &d->cfg.corr, now_monotonic_ms());
		apply_outputs(d);
		if (d->actions) {
			actions_set_local_node(d->actions, d->cfg.corr.local_node);
			actions_configure(d->actions, d->cfg.backstop_restart, d->cfg.peer_action);
			actions_set_reload(d->actions, d->cfg.backstop_reload);
		}
		log_info("configuration reloaded");
	}
	/* READY=1 first: when --reload (ExecReload=) sees the verdict and exits, systemd has the
	 * end of the reload already (else it would wait for one after the job ended) */
	sd_notify(0, "READY=1");
	d->status_due = true;
	publish_status(d, now_monotonic_ms(), true);
}

static void log_stats(struct daemon *d, bool to_stderr)
{
	const struct parser_stats *ps = parser_get_stats(d->parser);
	const struct correlate_stats *cs = correlate_get_stats(d->corr);
	struct actions_stats as = { 0 };
	char buf[1536];

	if (d->actions)
		actions_get_stats(d->actions, &as);
	snprintf(buf, sizeof(buf),
		 "lines %llu, brute records %llu, malformed %llu, garbage %llu, oversized %llu, "
		 "maybe cut by auditd %llu, other %llu, "
		 "netlink overruns %llu, truncated %llu; hierarchies %llu, open incidents %llu, opened %llu, closed %llu, "
		 "attacks %llu, kills %llu, evictions %llu, expired %llu, late %llu, memory %llu KiB, "
		 "targets %llu, bans %llu, ban ends %llu, peer bans %llu, peer ban ends %llu, "
		 "uncharged crashes %llu, records the kernel dropped %llu; "
		 "entries %llu, of other hosts not acted upon %llu, journal failures %llu, "
		 "SIEM queued %llu (failed %llu, spooled now %llu, dropped %llu, sent again %llu, unconfirmed %llu)",
		 (unsigned long long)ps->lines, (unsigned long long)ps->records,
		 (unsigned long long)ps->malformed, (unsigned long long)ps->garbage,
		 (unsigned long long)ps->oversized, (unsigned long long)ps->cut,
		 (unsigned long long)ps->other,
		 (unsigned long long)(d->input ? input_overruns(d->input) : 0),
		 (unsigned long long)(d->input ? input_truncated(d->input) : 0),
		 (unsigned long long)cs->hierarchies, (unsigned long long)cs->incidents,
		 (unsigned long long)cs->opened, (unsigned long long)cs->closed,
		 (unsigned long long)cs->attacks, (unsigned long long)cs->kills,
		 (unsigned long long)cs->evictions, (unsigned long long)cs->expired,
		 (unsigned long long)cs->late, (unsigned long long)(cs->memory >> 10),
		 (unsigned long long)cs->targets, (unsigned long long)cs->bans,
		 (unsigned long long)cs->unbans, (unsigned long long)cs->peer_bans,
		 (unsigned long long)cs->peer_unbans, (unsigned long long)cs->uncharged,
		 (unsigned long long)cs->kernel_dropped,
		 (unsigned long long)cs->entries, (unsigned long long)as.remote_ignored,
		 (unsigned long long)d->out.journal_failed,
		 (unsigned long long)d->out.forwarded, (unsigned long long)d->out.forward_failed,
		 (unsigned long long)(d->spool ? spool_get_stats(d->spool)->records : 0),
		 (unsigned long long)(d->spool ? spool_get_stats(d->spool)->dropped : 0),
		 (unsigned long long)(d->forward ? forward_get_stats(d->forward)->resent : 0),
		 (unsigned long long)(d->forward ? forward_get_stats(d->forward)->unconfirmed : 0));
	if (to_stderr) {
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr, "brute-reportd: %s; max RSS %ld KiB\n", buf, ru.ru_maxrss);
	} else {
		log_info("%s", buf);
	}
}

static void on_entry(const struct entry *e, void *userdata)
{
	struct daemon *d = userdata;

	output_entry(&d->out, e);
	if (d->actions)
		actions_entry(d->actions, e);
}

static void on_record(const struct brute_record *r, void *userdata)
{
	struct daemon *d = userdata;
	uint64_t now;

	if (d->record_time) {
		now = r->sec * 1000 + r->milli;
		correlate_tick(d->corr, now);
	} else {
		now = now_monotonic_ms();
	}
	if (correlate_record(d->corr, r, now) < 0)
		log_error("out of memory tracking hierarchy %llu", (unsigned long long)r->hierarchy);
}

static int open_input(struct daemon *d)
{
	switch (d->args.mode) {
	case MODE_NETLINK:
		d->rcvbuf_asked = d->cfg.netlink_rcvbuf;
		return input_open_netlink(d->parser, d->cfg.netlink_rcvbuf, &d->input);
	case MODE_PLUGIN:
		return input_open_fd(d->parser, STDIN_FILENO, &d->input);
	case MODE_REPLAY:
		if (!strcmp(d->args.input, "-"))
			return input_open_fd(d->parser, STDIN_FILENO, &d->input);
		return input_open_file(d->parser, d->args.input, d->args.follow, &d->input);
	}
	return -EINVAL;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Try to hand the spool to the receiver before exiting; it stays on disk anyway. */
static void drain(struct daemon *d, const sigset_t *mask)
{
	uint64_t end = now_monotonic_ms() + DRAIN_MS;

	while (d->forward && !forward_idle(d->forward)) {
		uint64_t now = now_monotonic_ms(), dl;
		struct pollfd pfd;
		struct timespec ts;
		bool have;

		if (now >= end)
			break;
		forward_dispatch(d->forward, 0, now);
		if (forward_idle(d->forward))
			break;
		have = forward_pollfd(d->forward, &pfd);
		dl = min_u64(min_u64(forward_next_deadline(d->forward, now), end), now + 50);
		ts.tv_sec = (time_t)((dl - now) / 1000);
		ts.tv_nsec = (long)((dl - now) % 1000) * 1000000;
		if (ppoll(have ? &pfd : NULL, have ? 1 : 0, &ts, mask) > 0 && have)
			forward_dispatch(d->forward, pfd.revents, now_monotonic_ms());
	}
	if (d->spool && !spool_empty(d->spool))
		log_notice("%llu SIEM message(s) stay spooled in %s for the next start",
			   (unsigned long long)spool_get_stats(d->spool)->records, d->cfg.spool_dir);
}

static void probe_health(struct daemon *d, bool first)
{
	struct health old = d->health;
	enum health_audit audit;
	int err;

	audit = health_query_audit(&err);
	health_probe("", audit, err, d->input ? input_rcvbuf(d->input) : 0,
		     d->rcvbuf_asked, &d->health);
	health_log_changes(first ? NULL : &old, &d->health);
	if (first || memcmp(&old, &d->health, sizeof(old)) != 0)
		d->status_due = true;
}

/* oldest: read the oldest spooled entry's time (one spool read when the head moved); else
 * the published one is copied (what decides a publication is the rest) */
static void counters(struct daemon *d, struct status_counters *c, bool oldest)
{
	const struct correlate_stats *cs = correlate_get_stats(d->corr);
	const struct spool_stats *ss = d->spool ? spool_get_stats(d->spool) : NULL;
	const struct forward_stats *fs = d->forward ? forward_get_stats(d->forward) : NULL;

	memset(c, 0, sizeof(*c));
	c->records = parser_get_stats(d->parser)->records;
	c->incidents = cs->opened;
	c->open = cs->incidents;
	c->attacks = cs->attacks;
	c->entries = cs->entries;
	c->queued = d->out.forwarded;
	/* never delivered: not queued (the spool refused them), dropped from a full spool,
	 * corrupt or missing in it, too long for a datagram, refused by the receiver and not
	 * kept; entries, all of them */
	c->dropped = d->out.forward_failed + (ss ? ss->dropped + ss->lost : 0) +
		     (fs ? fs->refused + fs->park_failed : 0);
	c->spooled = ss ? ss->records : 0;
	c->lost = d->input ? input_overruns(d->input) + input_truncated(d->input) : 0;
	c->malformed = parser_get_stats(d->parser)->malformed;
	c->oversized = parser_get_stats(d->parser)->oversized;
	c->garbage = parser_get_stats(d->parser)->garbage;
	c->cut = parser_get_stats(d->parser)->cut;
	c->journal_failed = d->out.journal_failed;
	if (fs) {
		c->parked = fs->parked - fs->park_failed;
		snprintf(c->siem, sizeof(c->siem), "%s", siem_protocol_name(d->cfg.fwd.protocol));
		snprintf(c->siem_target, sizeof(c->siem_target), "%s:%s", d->cfg.fwd.host, d->cfg.fwd.port);
		c->connected = fs->connected;
		c->failures = fs->failures;
		c->resent = fs->resent;
		c->unconfirmed = fs->unconfirmed;
		c->last_delivery_usec = fs->last_delivery_usec;
		c->last_error_usec = fs->last_error_usec;
		snprintf(c->last_error, sizeof(c->last_error), "%s", fs->last_error);
		c->oldest_usec = oldest ? forward_oldest_usec(d->forward) : d->published.oldest_usec;
	}
	if (d->actions) {
		struct actions_stats as;

		actions_get_stats(d->actions, &as);
		c->unit_restarts = as.unit_restarts;
		c->unit_starts = as.unit_starts;
		c->unit_failures = as.unit_failures;
		c->peer_actions = as.peer_actions;
		c->peer_action_failures = as.peer_action_failures;
		c->remote_ignored = as.remote_ignored;
	}
	c->backstop_restart = d->cfg.backstop_restart;
}

/* STATUS= and the state file: on a health change at once, counters at most every 5 s. */
static void publish_status(struct daemon *d, uint64_t now, bool force)
{
	struct status_counters c;
	char text[1024];
	int r;

	if (!d->live)
		return;
	counters(d, &c, false);
	if (!force && !d->status_due && !memcmp(&c, &d->published, sizeof(c)))
		return;
	if (!force && !d->status_due && d->status_last && now - d->status_last < STATUS_MIN_INTERVAL_MS)
		return;
	counters(d, &c, true);
	status_text(&d->health, &c, text, sizeof(text));
	sd_notifyf(0, "STATUS=%s", text);
	r = status_write(status_dir(), &d->health, &c, &d->reload, (uint64_t)getpid(), d->started_usec);
	if (r < 0 && !d->status_file_failed)
		log_warning("cannot write the state file %s/%s: %s (brutectl status will not show the daemon)",
			    status_dir(), STATUS_FILE, strerror(-r));
	d->status_file_failed = r < 0;
	d->published = c;
	d->status_last = now ? now : 1;
	d->status_due = false;
}

/* When publish_status has something to do next. */
static uint64_t status_deadline(struct daemon *d)
{
	struct status_counters c;

	if (!d->live)
		return UINT64_MAX;
	counters(d, &c, false);
	if (d->status_due)
		return 0;
	if (!memcmp(&c, &d->published, sizeof(c)))
		return UINT64_MAX;
	return d->status_last + STATUS_MIN_INTERVAL_MS;
}

/*
 * The handled signals are blocked outside ppoll(), and ppoll() returns
 * without delivering them when an fd is ready: under input that stays
 * readable they would wait until it goes idle.  Take the pending ones on
 * every iteration, as their handler would.
 */
static void take_pending_signals(const sigset_t *handled)
{
	static const struct timespec zero = { 0, 0 };
	int sig;

	while ((sig = sigtimedwait(handled, NULL, &zero)) > 0)
		on_signal(sig);
}

static int loop(struct daemon *d, const sigset_t *mask, const sigset_t *handled)
{
	bool input_eof = false, file_ready = true;
	int ret = 0;

	for (;;) {
		struct pollfd pfd[3];
		struct timespec ts;
		uint64_t now, deadline = UINT64_MAX;
		int n = 0, in_idx = -1, fw_idx = -1, act_idx = -1, r;

		take_pending_signals(handled);
		if (sig_stop)
			break;
		if (sig_reload) {
			sig_reload = 0;
			reload(d);
		}
		if (sig_stats) {
			sig_stats = 0;
			log_stats(d, false);
		}

		now = now_monotonic_ms();
		if (!d->record_time)
			correlate_tick(d->corr, now);
		parser_tick(d->parser, now);
		if (d->forward)
			forward_dispatch(d->forward, 0, now);
		if (d->actions)
			actions_dispatch(d->actions, now);
		if (d->watchdog_ms && now >= d->watchdog_next) {
			sd_notify(0, "WATCHDOG=1");
			d->watchdog_next = now + d->watchdog_ms;
		}
		if (d->live && now >= d->health_next) {
			probe_health(d, false);
			d->health_next = now + HEALTH_POLL_MS;
		}
		publish_status(d, now, false);
		output_flush(&d->out);
		if (input_eof)
			break;

		if (!d->record_time)
			deadline = correlate_next_deadline(d->corr);
		deadline = min_u64(deadline, parser_next_deadline(d->parser));
		if (d->forward)
			deadline = min_u64(deadline, forward_next_deadline(d->forward, now));
		if (d->watchdog_ms)
			deadline = min_u64(deadline, d->watchdog_next);
		if (d->actions)
			deadline = min_u64(deadline, actions_next_deadline(d->actions));
		/* the journal's worker: its counters taken (output_flush) as it goes */
		if (output_journal_busy(&d->out))
			deadline = min_u64(deadline, now + JOURNAL_POLL_MS);
		if (d->live) {
			deadline = min_u64(deadline, d->health_next);
			deadline = min_u64(deadline, status_deadline(d));
		}
		if (input_pollfd(d->input) >= 0) {
			pfd[n].fd = input_pollfd(d->input);
			pfd[n].events = POLLIN;
			pfd[n].revents = 0;
			in_idx = n++;
		} else {
			deadline = min_u64(deadline, file_ready ? now : now + FOLLOW_POLL_MS);
		}
		if (d->forward && forward_pollfd(d->forward, &pfd[n]))
			fw_idx = n++;
		if (d->actions && actions_pollfd(d->actions, &pfd[n]))
			act_idx = n++;

		if (deadline == UINT64_MAX) {
			r = ppoll(pfd, (nfds_t)n, NULL, mask);
		} else {
			uint64_t wait = deadline > now ? deadline - now : 0;

			ts.tv_sec = (time_t)(wait / 1000);
			ts.tv_nsec = (long)(wait % 1000) * 1000000;
			r = ppoll(pfd, (nfds_t)n, &ts, mask);
		}
		if (r < 0 && errno != EINTR) {
			log_error("poll: %m");
			ret = -errno;
			break;
		}
		if (r < 0)
			continue;

		if (in_idx < 0 || (pfd[in_idx].revents & (POLLIN | POLLHUP | POLLERR))) {
			r = input_read(d->input);
			if (r < 0) {
				log_error("reading input: %s", strerror(-r));
				ret = r;
				break;
			}
			if (r == INPUT_EOF)
				input_eof = true;
			file_ready = r != INPUT_AGAIN;
		}
		if (fw_idx >= 0)
			forward_dispatch(d->forward, pfd[fw_idx].revents, now_monotonic_ms());
		if (act_idx >= 0 && pfd[act_idx].revents)
			actions_dispatch(d->actions, now_monotonic_ms());
	}
	return ret;
}

static int run(int argc, char **argv)
{
	struct daemon d = { 0 };
	struct sigaction sa = { 0 };
	sigset_t block, wait_mask;
	uint64_t usec;
	int r;

	log_setup();
	r = parse_argv(argc, argv, &d.args);
	if (r <= 0)
		return r;
	log_set_quiet(d.args.quiet);
	config_set_plugin_mode(d.args.mode == MODE_PLUGIN);
	status_set_plugin_mode(d.args.mode == MODE_PLUGIN);
	if (d.args.log_level >= 0)
		log_set_max_level(d.args.log_level);

	if (d.args.reload)
		return reload_client(status_dir(), RELOAD_TIMEOUT_MS);

	/* configuration file first, then the command line on top */
	r = load_config(&d.args, &d.cfg, false);
	if (r < 0)
		return r;
	apply_log_level(&d);
	if (d.args.check_config) {
		if (use_siem(&d, &d.cfg)) {
			r = check_spool_dir(&d.args, &d.cfg);
			if (r < 0)
				return r;
		}
		printf("%s: configuration OK\n", d.args.config_path);
		return 0;
	}
	if (d.args.health) {
		struct health h;
		enum health_audit audit;
		char text[160];
		int err;

		audit = health_query_audit(&err);
		health_probe("", audit, err, 0, 0, &h);
		health_log_changes(NULL, &h);
		health_summary(&h, text, sizeof(text));
		printf("%s\n", text);
		return health_problems(&h) ? -EIO : 0;
	}

	d.record_time = d.args.mode == MODE_REPLAY && !d.args.follow;
	d.cfg.corr.record_time = d.record_time;
	d.out.print = d.args.print >= 0 ? (enum print_mode)d.args.print :
		      d.args.mode == MODE_REPLAY ? PRINT_TEXT : PRINT_NONE;
	d.out.out = stdout;

	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* signals are only delivered inside ppoll() (no lost wakeups), or taken by
	 * sigtimedwait() on every turn of the loop (take_pending_signals) */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	sigdelset(&wait_mask, SIGTERM);
	sigdelset(&wait_mask, SIGINT);
	sigdelset(&wait_mask, SIGHUP);
	sigdelset(&wait_mask, SIGUSR1);

	d.parser = parser_new(on_record, &d);
	d.corr = correlate_new(&d.cfg.corr, on_entry, &d);
	if (!d.parser || !d.corr) {
		r = -ENOMEM;
		log_error("out of memory");
		goto out;
	}
	/* live: the pids of the records are the attacked processes (OBJECT_SYSTEMD_UNIT) */
	if (d.args.mode != MODE_REPLAY) {
		correlate_set_unit_lookup(d.corr, unit_of_pid);
		correlate_set_cgroup_lookup(d.corr, unit_cgroup_path_of_pid);
		/* live: act through systemd (BRUTE_REPORTD_MANAGER: another manager's address, tests) */
		d.actions = actions_new(status_dir(), getenv("BRUTE_REPORTD_MANAGER"));
		if (d.actions)
			actions_set_local_node(d.actions, d.cfg.corr.local_node);
		if (!d.actions || actions_configure(d.actions, d.cfg.backstop_restart, d.cfg.peer_action) < 0 ||
		    actions_set_reload(d.actions, d.cfg.backstop_reload) < 0) {
			r = -ENOMEM;
			log_error("out of memory");
			goto out;
		}
	}
	r = setup_siem(&d);
	if (r < 0)
		goto out;
	apply_outputs(&d);
	r = open_input(&d);
	if (r < 0)
		goto out;

	if (sd_watchdog_enabled(0, &usec) > 0 && usec >= 2000) {
		d.watchdog_ms = usec / 2000;
		d.watchdog_next = now_monotonic_ms();
	}
	if (d.args.mode == MODE_NETLINK)
		log_info("reading brute records from the audit multicast group");
	d.live = d.args.mode != MODE_REPLAY;
	if (d.live) {
		d.started_usec = now_realtime_usec();
		probe_health(&d, true);
		d.health_next = now_monotonic_ms() + HEALTH_POLL_MS;
		publish_status(&d, now_monotonic_ms(), true);
	}
	sd_notify(0, "READY=1");

	r = loop(&d, &wait_mask, &block);

	sd_notify(0, "STOPPING=1");
	if (d.live)
		status_remove(status_dir());
	parser_finish(d.parser);
	parser_flush_log(d.parser);
	correlate_close_all(d.corr, d.record_time ? "end-of-input" : "shutdown");
	drain(&d, &wait_mask);
	output_finish(&d.out);
	if (parser_get_stats(d.parser)->malformed || parser_get_stats(d.parser)->oversized)
		log_warning("skipped %llu malformed and %llu oversized record(s)",
			    (unsigned long long)parser_get_stats(d.parser)->malformed,
			    (unsigned long long)parser_get_stats(d.parser)->oversized);
	if (d.args.stats)
		log_stats(&d, true);
	else if (d.args.mode != MODE_REPLAY)
		log_stats(&d, false);
out:
	actions_free(d.actions);
	input_free(d.input);
	teardown_siem(&d);
	correlate_free(d.corr);
	parser_free(d.parser);
	output_free(&d.out);
	return r;
}

int main(int argc, char **argv)
{
	int r = run(argc, argv);

	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
