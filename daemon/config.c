/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config.c - keyword-table driven configuration parser.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "peeraction.h"
#include "relp.h"
#include "tls.h"
#include "util.h"

static bool plugin_mode;

void config_set_plugin_mode(bool plugin)
{
	plugin_mode = plugin;
}

void config_defaults(struct brute_config *cfg)
{
	/* the service's StateDirectory=; auditd's plugins share auditd's environment */
	const char *state = plugin_mode ? NULL : getenv("STATE_DIRECTORY");

	memset(cfg, 0, sizeof(*cfg));
	cfg->netlink_rcvbuf = 8 * 1024 * 1024;
	correlate_config_defaults(&cfg->corr);
	cfg->journal = true;
	cfg->fwd.protocol = SIEM_NONE;
	snprintf(cfg->fwd.port, sizeof(cfg->fwd.port), "514");
	cfg->fwd.retry_min_ms = 1000;
	cfg->fwd.retry_max_ms = 60000;
	cfg->fwd.facility = LOG_AUTHPRIV;
	cfg->fwd.max_message = 8192;	/* rsyslog's default maxMessageSize */
	cfg->fwd.timeout_ms = 30000;
	siem_options_defaults(&cfg->fwd.siem);
	cfg->fwd.relp_window = RELP_WINDOW_DEFAULT;
	snprintf(cfg->fwd.tls_priority, sizeof(cfg->fwd.tls_priority), "%s", TLS_PRIORITY_DEFAULT);
	if (gethostname(cfg->fwd.hostname, sizeof(cfg->fwd.hostname) - 1) < 0)
		cfg->fwd.hostname[0] = '\0';
	cfg->siem_kinds = ENTRY_KINDS_SIEM_DEFAULT;
	/* StateDirectory= may list several; the first is ours */
	if (state && *state && *state == '/') {
		size_t n = strcspn(state, ":");

		if (n < sizeof(cfg->spool_dir)) {
			memcpy(cfg->spool_dir, state, n);
			cfg->spool_dir[n] = '\0';
		}
	}
	if (!cfg->spool_dir[0])
		snprintf(cfg->spool_dir, sizeof(cfg->spool_dir), "%s",
			 plugin_mode ? SPOOL_PLUGIN_DIR : SPOOL_DEFAULT_DIR);
	cfg->spool_max_size = 64 * 1024 * 1024;
	cfg->spool_min_free = 64 * 1024 * 1024;
	cfg->spool_sync = true;
	cfg->log_level = LOG_INFO;
	cfg->backstop_restart = true;
	snprintf(cfg->peer_action, sizeof(cfg->peer_action), "none");
	/* Debian's units whose reload executes the main process again (measured): php-fpm's
	 * ExecReload= sends SIGUSR2, sshd executes itself on SIGHUP */
	snprintf(cfg->backstop_reload, sizeof(cfg->backstop_reload), "%s", BACKSTOP_RELOAD_DEFAULT);
}

/* ---- value parsers: return NULL or a problem description ---- */

typedef const char *(*value_parser)(const char *v, struct brute_config *cfg);

static const char *parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "on") || !strcmp(v, "1"))
		*out = true;
	else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off") || !strcmp(v, "0"))
		*out = false;
	else
		return "expected yes or no";
	return NULL;
}

static const char *parse_num(const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t n;

	if (parse_u64(v, &n) < 0)
		return "expected a non-negative decimal number";
	if (n < min || n > max)
		return "number out of range";
	*out = n;
	return NULL;
}

/* 512, 64K, 8M, 1G (powers of 1024) */
static const char *parse_size(const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
	char num[32];
	size_t n = strlen(v);
	uint64_t mult = 1, x;

	if (n == 0 || n >= sizeof(num))
		return "expected a size like 512, 64K, 8M or 1G";
	memcpy(num, v, n + 1);
	switch (toupper((unsigned char)num[n - 1])) {
	case 'K': mult = 1ull << 10; num[n - 1] = '\0'; break;
	case 'M': mult = 1ull << 20; num[n - 1] = '\0'; break;
	case 'G': mult = 1ull << 30; num[n - 1] = '\0'; break;
	default: break;
	}
	if (parse_u64(num, &x) < 0)
		return "expected a size like 512, 64K, 8M or 1G";
	if (x > UINT64_MAX / mult || x * mult < min || x * mult > max)
		return "size out of range";
	*out = x * mult;
	return NULL;
}

static const char *p_netlink_rcvbuf(const char *v, struct brute_config *c)
{
	return parse_size(v, 64 * 1024, 1ull << 30, &c->netlink_rcvbuf);
}

static const char *p_max_hierarchies(const char *v, struct brute_config *c)
{
	uint64_t n;
	const char *e = parse_num(v, 16, 16 * 1024 * 1024, &n);

	if (!e)
		c->corr.max_hierarchies = (size_t)n;
	return e;
}

static const char *p_max_memory(const char *v, struct brute_config *c)
{
	uint64_t n;
	const char *e = parse_size(v, 4u << 20, 64ull << 30, &n);

	if (!e)
		c->corr.max_memory = (size_t)n;
	return e;
}

static const char *p_incident_idle(const char *v, struct brute_config *c)
{
	uint64_t n;
	const char *e = parse_num(v, 1, 30 * 86400, &n);

	if (!e)
		c->corr.incident_idle_ms = n * 1000;
	return e;
}

static const char *p_hierarchy_idle(const char *v, struct brute_config *c)
{
	uint64_t n;
	const char *e = parse_num(v, 1, 365 * 86400, &n);

	if (!e)
		c->corr.hierarchy_idle_ms = n * 1000;
	return e;
}

static const char *p_kill_coalesce(const char *v, struct brute_config *c)
{
	return parse_num(v, 0, 1000, &c->corr.kill_coalesce_ms);
}

static const char *p_boundary_entries(const char *v, struct brute_config *c)
{
	return parse_bool(v, &c->corr.boundary_entries);
}

static const char *p_journal(const char *v, struct brute_config *c)
{
	return parse_bool(v, &c->journal);
}

static const char *p_siem_protocol(const char *v, struct brute_config *c)
{
	if (!strcmp(v, "none"))
		c->fwd.protocol = SIEM_NONE;
	else if (!strcmp(v, "udp"))
		c->fwd.protocol = SIEM_UDP;
	else if (!strcmp(v, "tcp"))
		c->fwd.protocol = SIEM_TCP;
	else if (!strcmp(v, "json"))
		c->fwd.protocol = SIEM_JSON;
	else if (!strcmp(v, "tls"))
		c->fwd.protocol = SIEM_TLS;
	else if (!strcmp(v, "relp"))
		c->fwd.protocol = SIEM_RELP;
	else
		return "expected none, udp, tcp, tls, relp or json";
	return NULL;
}

static const char *p_siem_host(const char *v, struct brute_config *c)
{
	if (strlen(v) >= sizeof(c->fwd.host))
		return "host name too long";
	for (const char *p = v; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr(".-:_%", *p))
			return "not a host name or IP address";
	snprintf(c->fwd.host, sizeof(c->fwd.host), "%s", v);
	return NULL;
}

static const char *p_siem_port(const char *v, struct brute_config *c)
{
	uint64_t n;
	const char *e = parse_num(v, 1, 65535, &n);

	if (!e)
		snprintf(c->fwd.port, sizeof(c->fwd.port), "%u", (unsigned)n);
	return e;
}

static const char *p_siem_hostname(const char *v, struct brute_config *c)
{
	if (strlen(v) > 255)
		return "longer than 255 characters";
	for (const char *p = v; *p; p++)
		if (*p <= 32 || *p >= 127)
			return "only printable ASCII without spaces is allowed (RFC 5424)";
	snprintf(c->fwd.hostname, sizeof(c->fwd.hostname), "%s", v);
	return NULL;
}

/* node= of this host's records as auditd writes them (its name_format), "none": unset */
static const char *p_local_node(const char *v, struct brute_config *c)
{
	if (!strcmp(v, "none")) {
		c->corr.local_node[0] = '\0';
		return NULL;
	}
	if (strlen(v) >= sizeof(c->corr.local_node))
		return "longer than 255 characters";
	for (const char *p = v; *p; p++)
		if (*p <= 32 || *p >= 127)
			return "only printable ASCII without spaces is allowed (an audit node name)";
	snprintf(c->corr.local_node, sizeof(c->corr.local_node), "%s", v);
	return NULL;
}

static const char *p_siem_facility(const char *v, struct brute_config *c)
{
	static const struct { const char *n; int f; } t[] = {
		{ "kern", LOG_KERN }, { "user", LOG_USER }, { "daemon", LOG_DAEMON },
		{ "auth", LOG_AUTH }, { "authpriv", LOG_AUTHPRIV }, { "syslog", LOG_SYSLOG },
		{ "local0", LOG_LOCAL0 }, { "local1", LOG_LOCAL1 }, { "local2", LOG_LOCAL2 },
		{ "local3", LOG_LOCAL3 }, { "local4", LOG_LOCAL4 }, { "local5", LOG_LOCAL5 },
		{ "local6", LOG_LOCAL6 }, { "local7", LOG_LOCAL7 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (!strcmp(v, t[i].n)) {
			c->fwd.facility = t[i].f;
			return NULL;
		}
	return "expected a syslog facility name (authpriv, auth, daemon, local0..local7, ...)";
}

static const char *p_siem_kinds(const char *v, struct brute_config *c)
{
	char buf[128], *save = NULL, *tok;
	unsigned m = 0;

	if (strlen(v) >= sizeof(buf))
		return "too long";
	strcpy(buf, v);
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		int k = entry_kind_from_name(tok);

		if (k < 0)
			return "expected a list of boundary, attack, kill, closed, ban, unban, peer_ban, peer_unban";
		m |= 1u << k;
	}
	if (!m)
		return "empty list";
	c->siem_kinds = m;
	return NULL;
}

static const char *p_siem_retry_min(const char *v, struct brute_config *c)
{
	uint64_t n;
	const char *e = parse_num(v, 1, 3600, &n);

	if (!e)
		c->fwd.retry_min_ms = n * 1000;
	return e;
}

static const char *p_siem_retry_max(const char *v, struct brute_config *c)
{
	uint64_t n;
	const char *e = parse_num(v, 1, 86400, &n);

	if (!e)
		c->fwd.retry_max_ms = n * 1000;
	return e;
}

static const char *p_siem_timeout(const char *v, struct brute_config *c)
{
	uint64_t n;
	const char *e = parse_num(v, 0, 3600, &n);

	if (!e)
		c->fwd.timeout_ms = n * 1000;
	return e;
}

static const char *p_siem_max_message(const char *v, struct brute_config *c)
{
	uint64_t n;
	/* a UDP datagram carries at most 65507 bytes over IPv4 */
	const char *e = parse_size(v, SIEM_MESSAGE_MIN, 65507, &n);

	if (!e)
		c->fwd.max_message = (size_t)n;
	return e;
}

static const char *p_siem_enterprise_id(const char *v, struct brute_config *c)
{
	return siem_set_enterprise_id(&c->fwd.siem, v);
}

static const char *p_json_format(const char *v, struct brute_config *c)
{
	if (!strcmp(v, "native"))
		c->fwd.siem.json_format = SIEM_JSON_NATIVE;
	else if (!strcmp(v, "ecs"))
		c->fwd.siem.json_format = SIEM_JSON_ECS;
	else
		return "expected native or ecs";
	return NULL;
}

static const char *parse_path(const char *v, char *out, size_t size)
{
	if (v[0] != '/')
		return "must be an absolute path";
	if (strlen(v) >= size)
		return "path too long";
	snprintf(out, size, "%s", v);
	return NULL;
}

static const char *p_siem_tls_ca(const char *v, struct brute_config *c)
{
	return parse_path(v, c->fwd.tls_ca, sizeof(c->fwd.tls_ca));
}

static const char *p_siem_tls_cert(const char *v, struct brute_config *c)
{
	return parse_path(v, c->fwd.tls_cert, sizeof(c->fwd.tls_cert));
}

static const char *p_siem_tls_key(const char *v, struct brute_config *c)
{
	return parse_path(v, c->fwd.tls_key, sizeof(c->fwd.tls_key));
}

static const char *p_siem_tls_name(const char *v, struct brute_config *c)
{
	if (strlen(v) >= sizeof(c->fwd.tls_name))
		return "name too long";
	if (strchr(v, '*'))
		return "a wildcard is refused: GnuTLS (tls) takes \"*\" as a character of the name, librelp (relp) as a pattern matching many; give the name in the receiver's certificate";
	for (const char *p = v; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr(".-:_", *p))
			return "not a host name or IP address";
	snprintf(c->fwd.tls_name, sizeof(c->fwd.tls_name), "%s", v);
	return NULL;
}

static const char *p_siem_tls_priority(const char *v, struct brute_config *c)
{
	if (strlen(v) >= sizeof(c->fwd.tls_priority))
		return "longer than 255 characters";
	for (const char *p = v; *p; p++)
		if (*p <= 32 || *p >= 127)
			return "a GnuTLS priority string has no spaces or control characters";
	snprintf(c->fwd.tls_priority, sizeof(c->fwd.tls_priority), "%s", v);
	return NULL;
}

static const char *p_siem_relp_window(const char *v, struct brute_config *c)
{
	uint64_t n;
	const char *e = parse_num(v, 2, 1000, &n);

	if (!e)
		c->fwd.relp_window = (unsigned)n;
	return e;
}

static const char *p_spool_dir(const char *v, struct brute_config *c)
{
	if (v[0] != '/')
		return "must be an absolute path";
	if (strlen(v) >= sizeof(c->spool_dir) - 16)
		return "path too long";
	snprintf(c->spool_dir, sizeof(c->spool_dir), "%s", v);
	return NULL;
}

static const char *p_spool_max_size(const char *v, struct brute_config *c)
{
	return parse_size(v, 64 * 1024, 1ull << 40, &c->spool_max_size);
}

static const char *p_spool_min_free(const char *v, struct brute_config *c)
{
	return parse_size(v, 0, 1ull << 40, &c->spool_min_free);
}

static const char *p_spool_sync(const char *v, struct brute_config *c)
{
	return parse_bool(v, &c->spool_sync);
}

static const char *p_log_level(const char *v, struct brute_config *c)
{
	static const char *const n[] = { "emerg", "alert", "crit", "err", "warning",
					 "notice", "info", "debug" };

	for (int i = 0; i < 8; i++)
		if (!strcmp(v, n[i])) {
			c->log_level = i;
			return NULL;
		}
	return "expected err, warning, notice, info or debug";
}

static const char *p_backstop_restart(const char *v, struct brute_config *c)
{
	return parse_bool(v, &c->backstop_restart);
}

/* "none", or unit name patterns (NAME.service, with * ? [...]), comma- or space-separated */
static const char *p_backstop_reload(const char *v, struct brute_config *c)
{
	char buf[sizeof(c->backstop_reload)], out[sizeof(c->backstop_reload)], *save = NULL, *tok;
	size_t used = 0;

	if (!strcmp(v, "none")) {
		c->backstop_reload[0] = '\0';
		return NULL;
	}
	if (strlen(v) >= sizeof(buf))
		return "too long";
	strcpy(buf, v);
	out[0] = '\0';
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		size_t n = strlen(tok);

		if (n < 9 || n >= 256 || strcmp(tok + n - 8, ".service") ||
		    strspn(tok, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.@\\*?[]") != n)
			return "expected none or a list of service unit names or patterns (php*-fpm.service)";
		used += (size_t)snprintf(out + used, sizeof(out) - used, "%s%s", used ? " " : "", tok);
	}
	if (!out[0])
		return "empty list (none: no unit is reloaded)";
	snprintf(c->backstop_reload, sizeof(c->backstop_reload), "%s", out);
	return NULL;
}

static const char *p_peer_action(const char *v, struct brute_config *c)
{
	if (strcmp(v, "none") && !peeraction_template_valid(v))
		return "expected none or a template service unit, NAME@.service";
	snprintf(c->peer_action, sizeof(c->peer_action), "%s", v);
	return NULL;
}

static const struct kw {
	const char *name;
	value_parser parse;
} keywords[] = {
	{ "netlink_rcvbuf",		p_netlink_rcvbuf },
	{ "max_hierarchies",		p_max_hierarchies },
	{ "max_memory",			p_max_memory },
	{ "incident_idle_timeout",	p_incident_idle },
	{ "hierarchy_idle_timeout",	p_hierarchy_idle },
	{ "kill_coalesce_ms",		p_kill_coalesce },
	{ "boundary_entries",		p_boundary_entries },
	{ "journal",			p_journal },
	{ "siem_protocol",		p_siem_protocol },
	{ "siem_host",			p_siem_host },
	{ "siem_port",			p_siem_port },
	{ "siem_hostname",		p_siem_hostname },
	{ "siem_facility",		p_siem_facility },
	{ "siem_kinds",			p_siem_kinds },
	{ "siem_retry_min",		p_siem_retry_min },
	{ "siem_retry_max",		p_siem_retry_max },
	{ "siem_max_message",		p_siem_max_message },
	{ "siem_timeout",		p_siem_timeout },
	{ "siem_enterprise_id",		p_siem_enterprise_id },
	{ "json_format",		p_json_format },
	{ "siem_tls_ca",		p_siem_tls_ca },
	{ "siem_tls_cert",		p_siem_tls_cert },
	{ "siem_tls_key",		p_siem_tls_key },
	{ "siem_tls_name",		p_siem_tls_name },
	{ "siem_tls_priority",		p_siem_tls_priority },
	{ "siem_relp_window",		p_siem_relp_window },
	{ "spool_dir",			p_spool_dir },
	{ "spool_max_size",		p_spool_max_size },
	{ "spool_min_free",		p_spool_min_free },
	{ "spool_sync",			p_spool_sync },
	{ "log_level",			p_log_level },
	{ "backstop_restart",		p_backstop_restart },
	{ "backstop_reload",		p_backstop_reload },
	{ "peer_action",		p_peer_action },
	{ "local_node",			p_local_node },
};

static size_t keyword_index(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keywords); i++)
		if (!strcmp(keywords[i].name, key))
			break;
	return i;
}

static char *strip(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int parse_line(const char *name, unsigned lineno, char *line,
		      struct brute_config *cfg, uint64_t *seen)
{
	char *eq, *key, *value, *hash;
	const char *problem;
	size_t i;

	hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	line = strip(line);
	if (!*line)
		return 0;
	eq = strchr(line, '=');
	if (!eq) {
		log_error("%s:%u: expected \"key = value\", got \"%s\"", name, lineno, line);
		return -EINVAL;
	}
	*eq = '\0';
	key = strip(line);
	value = strip(eq + 1);
	i = keyword_index(key);
	if (i == ARRAY_SIZE(keywords)) {
		log_error("%s:%u: unknown keyword \"%s\"", name, lineno, key);
		return -EINVAL;
	}
	if (*seen & (1ull << i)) {
		log_error("%s:%u: \"%s\" given more than once", name, lineno, key);
		return -EINVAL;
	}
	*seen |= 1ull << i;
	if (!*value) {
		log_error("%s:%u: \"%s\" has no value", name, lineno, key);
		return -EINVAL;
	}
	problem = keywords[i].parse(value, cfg);
	if (problem) {
		log_error("%s:%u: %s = \"%s\": %s", name, lineno, key, value, problem);
		return -EINVAL;
	}
	return 0;
}

static bool is_ip_address(const char *s)
{
	unsigned char a[16];

	return inet_pton(AF_INET, s, a) == 1 || inet_pton(AF_INET6, s, a) == 1;
}

static int validate(const char *name, const struct brute_config *cfg)
{
	const char *tls_name = cfg->fwd.tls_name[0] ? cfg->fwd.tls_name : cfg->fwd.host;
	int r = 0;

	if (cfg->fwd.protocol != SIEM_NONE && !cfg->fwd.host[0]) {
		log_error("%s: siem_protocol = %s needs siem_host", name,
			  siem_protocol_name(cfg->fwd.protocol));
		r = -EINVAL;
	}
	if (cfg->fwd.retry_min_ms > cfg->fwd.retry_max_ms) {
		log_error("%s: siem_retry_min is larger than siem_retry_max", name);
		r = -EINVAL;
	}
	if (cfg->fwd.protocol == SIEM_TLS || (cfg->fwd.protocol == SIEM_RELP && cfg->fwd.tls_ca[0])) {
		/* the files are read now: a bad one is this file's error, not a later outage */
		struct tls_ctx *ctx;
		char err[768];

		if (tls_ctx_new(cfg->fwd.tls_ca, cfg->fwd.tls_cert, cfg->fwd.tls_key,
				cfg->fwd.tls_priority, &ctx, err, sizeof(err)) < 0) {
			log_error("%s: %s", name, err);
			r = -EINVAL;
		}
		tls_ctx_free(ctx);
		/* librelp compares the name with the certificate's DNS names and CN only */
		if (cfg->fwd.protocol == SIEM_RELP && is_ip_address(tls_name)) {
			log_error("%s: siem_protocol = relp over TLS checks the receiver's certificate for the DNS name %s, and librelp never matches an IP address against the certificate's IP addresses: set siem_tls_name to the DNS name in the receiver's certificate",
				  name, cfg->fwd.tls_name[0] ? "siem_tls_name" : "siem_host");
			r = -EINVAL;
		}
	} else if (cfg->fwd.tls_ca[0] || cfg->fwd.tls_cert[0] || cfg->fwd.tls_key[0] ||
		   cfg->fwd.tls_name[0] || strcmp(cfg->fwd.tls_priority, TLS_PRIORITY_DEFAULT)) {
		log_warning("%s: siem_tls_* settings apply only to siem_protocol = tls or relp (with siem_tls_ca); ignored", name);
	}
	return r;
}

static int parse_stream(const char *name, FILE *f, struct brute_config *cfg)
{
	struct brute_config tmp = *cfg;
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	uint64_t seen = 0;
	int errors = 0;

	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		if (strlen(line) > 4096) {
			log_error("%s:%u: line too long", name, lineno);
			errors++;
			continue;
		}
		if (parse_line(name, lineno, line, &tmp, &seen) < 0)
			errors++;
	}
	free(line);
	if (ferror(f)) {
		log_error("%s: read error: %m", name);
		return -EIO;
	}
	if (tmp.fwd.protocol == SIEM_TLS && !(seen & (1ull << keyword_index("siem_port"))))
		snprintf(tmp.fwd.port, sizeof(tmp.fwd.port), "6514");	/* RFC 5425 */
	if (validate(name, &tmp) < 0)
		errors++;
	if (errors) {
		log_error("%s: %d error%s, configuration not used", name, errors, errors == 1 ? "" : "s");
		return -EINVAL;
	}
	*cfg = tmp;
	return 0;
}

int config_parse_string(const char *name, const char *text, struct brute_config *cfg)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r;

	if (!f)
		return -errno;
	r = parse_stream(name, f, cfg);
	fclose(f);
	return r;
}

/*
 * The directories the file is in, up to the root: whoever may write one
 * of them may replace the file (or a directory on its way) with theirs.
 * Each must belong to root or the effective user and be writable by no
 * one else (a sticky directory excepted: nobody else may rename or remove
 * what is in it; group write: only by group root).
 */
static int check_dirs(const char *path)
{
	char dir[PATH_MAX], *real, *slash;
	struct stat st;
	int r = 0;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	real = realpath(dir, NULL);
	if (!real)
		return -errno;
	for (;;) {
		if (stat(real, &st) < 0) {
			r = -errno;
			break;
		}
		if (st.st_uid != 0 && st.st_uid != geteuid()) {
			log_error("%s: its directory %s is owned by uid %u, neither root nor the user running brute-reportd; refused",
				  path, real, (unsigned)st.st_uid);
			r = -EPERM;
			break;
		}
		if (!(st.st_mode & S_ISVTX) &&
		    ((st.st_mode & S_IWOTH) || ((st.st_mode & S_IWGRP) && st.st_gid != 0))) {
			log_error("%s: its directory %s is writable by %s (mode %04o): anyone may replace the file; refused",
				  path, real, (st.st_mode & S_IWOTH) ? "everyone" : "a group other than root",
				  (unsigned)(st.st_mode & 07777));
			r = -EPERM;
			break;
		}
		if (!strcmp(real, "/"))
			break;
		slash = strrchr(real, '/');
		if (slash == real)
			real[1] = '\0';
		else
			*slash = '\0';
	}
	free(real);
	return r;
}

int config_load(const char *path, struct brute_config *cfg)
{
	struct stat st;
	FILE *f;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		log_error("%s: not a regular file, refused", path);
		close(fd);
		return -EPERM;
	}
	/* root's, or (brute-reportd not run by root: a replay) the running user's own */
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		log_error("%s: owned by uid %u, neither root nor the user running brute-reportd; refused",
			  path, (unsigned)st.st_uid);
		close(fd);
		return -EPERM;
	}
	if (st.st_mode & S_IWOTH) {
		log_error("%s: writable by everyone (mode %04o); refused", path,
			  (unsigned)(st.st_mode & 07777));
		close(fd);
		return -EPERM;
	}
	r = check_dirs(path);
	if (r < 0) {
		close(fd);
		return r;
	}
	f = fdopen(fd, "r");
	if (!f) {
		r = -errno;
		close(fd);
		return r;
	}
	r = parse_stream(path, f, cfg);
	fclose(f);
	return r;
}

int config_read(const char *path, bool required, struct brute_config *cfg)
{
	struct brute_config n;
	int r;

	config_defaults(&n);
	r = config_load(path, &n);
	if (r == -ENOENT && !required) {
		log_debug("%s does not exist, using defaults", path);
		r = 0;
	} else if (r == -ENOENT) {
		log_error("cannot open %s: %s", path, strerror(-r));
	} else if (r < 0 && r != -EINVAL && r != -EPERM) {
		log_error("cannot read %s: %s", path, strerror(-r));
	}
	if (r == 0)
		*cfg = n;
	return r;
}
