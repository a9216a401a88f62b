// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Tunables in /proc/sys/kernel/brute/
 *
 * Each value is read locklessly on the crash path; writers are serialized so
 * that the checks between values (min_faults <= max_faults, numerator <
 * denominator, min_faults <= escalate_faults) hold against the other values
 * as they are.
 */

#include <linux/capability.h>
#include <linux/init.h>
#include <linux/kstrtox.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/sysctl.h>

#include "audit.h"
#include "common.h"
#include "sysctl.h"

static unsigned int brute_mode_value = BRUTE_MODE_KILL;
static unsigned int brute_threshold_ms = 30000;
static unsigned int brute_min_faults = 5;
static unsigned int brute_max_faults = 200;
static unsigned int brute_ema_num = 7;
static unsigned int brute_ema_den = 10;
static unsigned int brute_ban_time_s = 900;
static unsigned int brute_table_size = 1024;
static unsigned int brute_forget_time_s = 3600;
static unsigned int brute_backstop_faults = 32;
static unsigned int brute_backstop_hold_s;
static unsigned int brute_peer_ban_time_s = 900;
static unsigned int brute_peer_prefix_v4 = 32;
static unsigned int brute_peer_prefix_v6 = 64;
static unsigned int brute_escalate_prefix_v4 = 24;
static unsigned int brute_escalate_prefix_v6 = 48;
static unsigned int brute_escalate_faults = 15;
static unsigned int brute_trusted_uid_max = 999;

/* Upper bounds that keep every product in range and values meaningful. */
#define BRUTE_THRESHOLD_MS_MAX (30U * 24 * 3600 * 1000)
#define BRUTE_FAULTS_MAX 1000000U
#define BRUTE_EMA_DEN_MAX 1000U
#define BRUTE_BAN_TIME_S_MAX (7U * 24 * 3600)
#define BRUTE_TABLE_SIZE_MIN 16U
#define BRUTE_TABLE_SIZE_MAX 65536U
#define BRUTE_FORGET_TIME_S_MAX (30U * 24 * 3600)
#define BRUTE_UID_MAX 4294967294U
#define BRUTE_HOLD_S_MAX 3600U

static DEFINE_MUTEX(brute_sysctl_mutex);

/**
 * brute_mode() - Get the current mode
 *
 * Return: The mode.
 */
enum brute_mode brute_mode(void)
{
	return READ_ONCE(brute_mode_value);
}

/**
 * brute_params_get() - Get a snapshot of the detection parameters
 * @params: Where to store them.
 *
 * The values are read without a lock: a snapshot taken during a write may
 * mix old and new values, so the invariants are enforced again here.
 */
void brute_params_get(struct brute_params *params)
{
	params->threshold_ms = READ_ONCE(brute_threshold_ms);
	params->min_faults = READ_ONCE(brute_min_faults);
	params->max_faults = READ_ONCE(brute_max_faults);
	params->ema_num = READ_ONCE(brute_ema_num);
	params->ema_den = READ_ONCE(brute_ema_den);
	params->ban_time_s = READ_ONCE(brute_ban_time_s);
	params->table_size = READ_ONCE(brute_table_size);
	params->forget_time_s = READ_ONCE(brute_forget_time_s);
	params->backstop_faults = READ_ONCE(brute_backstop_faults);
	params->backstop_hold_s = READ_ONCE(brute_backstop_hold_s);
	params->peer_ban_time_s = READ_ONCE(brute_peer_ban_time_s);
	params->peer_prefix_v4 = READ_ONCE(brute_peer_prefix_v4);
	params->peer_prefix_v6 = READ_ONCE(brute_peer_prefix_v6);
	params->escalate_prefix_v4 = READ_ONCE(brute_escalate_prefix_v4);
	params->escalate_prefix_v6 = READ_ONCE(brute_escalate_prefix_v6);
	params->escalate_faults = READ_ONCE(brute_escalate_faults);
	params->trusted_uid_max = READ_ONCE(brute_trusted_uid_max);
	if (params->ema_num >= params->ema_den)
		params->ema_num = params->ema_den - 1;
	params->max_faults = max(params->max_faults, params->min_faults);
	params->escalate_faults = max(params->escalate_faults,
				      params->min_faults);
}

/**
 * struct brute_tunable - A tunable and its bounds
 * @data: The value.
 * @min: Its lowest value, unless @bounds says otherwise.
 * @max: Its highest value, unless @bounds says otherwise.
 * @bounds: Bounds that depend on other values, or NULL.
 */
struct brute_tunable {
	unsigned int *data;
	unsigned int min;
	unsigned int max;
	void (*bounds)(unsigned int *min, unsigned int *max);
};

/* The cross-checked bounds, called with brute_sysctl_mutex held. */
static void brute_min_faults_bounds(unsigned int *min, unsigned int *max)
{
	*max = min(brute_max_faults, brute_escalate_faults);
}

static void brute_max_faults_bounds(unsigned int *min, unsigned int *max)
{
	*min = brute_min_faults;
}

static void brute_escalate_faults_bounds(unsigned int *min, unsigned int *max)
{
	*min = brute_min_faults;
}

static void brute_ema_num_bounds(unsigned int *min, unsigned int *max)
{
	*max = brute_ema_den - 1;
}

static void brute_ema_den_bounds(unsigned int *min, unsigned int *max)
{
	*min = brute_ema_num + 1;
}

static const struct brute_tunable brute_tunables[] = {
	{ &brute_mode_value, BRUTE_MODE_OFF, BRUTE_MODE_KILL },
	{ &brute_threshold_ms, 1, BRUTE_THRESHOLD_MS_MAX },
	{ &brute_min_faults, 1, 0, brute_min_faults_bounds },
	{ &brute_max_faults, 0, BRUTE_FAULTS_MAX, brute_max_faults_bounds },
	{ &brute_ema_num, 1, 0, brute_ema_num_bounds },
	{ &brute_ema_den, 0, BRUTE_EMA_DEN_MAX, brute_ema_den_bounds },
	{ &brute_ban_time_s, 0, BRUTE_BAN_TIME_S_MAX },
	{ &brute_table_size, BRUTE_TABLE_SIZE_MIN, BRUTE_TABLE_SIZE_MAX },
	{ &brute_forget_time_s, 1, BRUTE_FORGET_TIME_S_MAX },
	{ &brute_backstop_faults, 1, BRUTE_FAULTS_MAX },
	{ &brute_peer_ban_time_s, 0, BRUTE_BAN_TIME_S_MAX },
	{ &brute_peer_prefix_v4, 1, 32 },
	{ &brute_peer_prefix_v6, 1, 128 },
	{ &brute_escalate_prefix_v4, 8, 32 },
	{ &brute_escalate_prefix_v6, 16, 128 },
	{ &brute_escalate_faults, 0, BRUTE_FAULTS_MAX,
	  brute_escalate_faults_bounds },
	{ &brute_trusted_uid_max, 0, BRUTE_UID_MAX },
	{ &brute_backstop_hold_s, 0, BRUTE_HOLD_S_MAX },
};

static const struct brute_tunable *brute_tunable(const unsigned int *data)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(brute_tunables); i++)
		if (brute_tunables[i].data == data)
			return &brute_tunables[i];
	return NULL;
}

static int brute_sysctl_handler(const struct ctl_table *table, int write,
				void *buffer, size_t *lenp, loff_t *ppos)
{
	const struct brute_tunable *tunable = brute_tunable(table->data);
	unsigned int *data = table->data;
	unsigned int min, max, value;
	struct ctl_table tmp = *table;
	int ret;

	if (!write)
		return proc_douintvec(table, write, buffer, lenp, ppos);

	/* Like Yama's ptrace_scope: changing the policy needs privilege. */
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (WARN_ON_ONCE(!tunable))
		return -EINVAL;

	mutex_lock(&brute_sysctl_mutex);
	min = tunable->min;
	max = tunable->max;
	if (tunable->bounds)
		tunable->bounds(&min, &max);
	value = *data;
	tmp.data = &value;
	tmp.extra1 = &min;
	tmp.extra2 = &max;
	ret = proc_douintvec_minmax(&tmp, write, buffer, lenp, ppos);
	if (!ret && value != *data) {
		const unsigned int old = *data;

		WRITE_ONCE(*data, value);
		brute_audit_config(table->procname, old, value);
	}
	mutex_unlock(&brute_sysctl_mutex);
	return ret;
}

#define BRUTE_SYSCTL(name, var)					\
	{							\
		.procname = name,				\
		.data = &(var),					\
		.maxlen = sizeof(unsigned int),			\
		.mode = 0644,					\
		.proc_handler = brute_sysctl_handler,		\
	}

static struct ctl_table brute_sysctl_table[] = {
	BRUTE_SYSCTL("mode", brute_mode_value),
	BRUTE_SYSCTL("crash_period_threshold_ms", brute_threshold_ms),
	BRUTE_SYSCTL("min_faults", brute_min_faults),
	BRUTE_SYSCTL("max_faults", brute_max_faults),
	BRUTE_SYSCTL("ema_weight_numerator", brute_ema_num),
	BRUTE_SYSCTL("ema_weight_denominator", brute_ema_den),
	BRUTE_SYSCTL("ban_time_s", brute_ban_time_s),
	BRUTE_SYSCTL("table_size", brute_table_size),
	BRUTE_SYSCTL("forget_time_s", brute_forget_time_s),
	BRUTE_SYSCTL("backstop_faults", brute_backstop_faults),
	BRUTE_SYSCTL("peer_ban_time_s", brute_peer_ban_time_s),
	BRUTE_SYSCTL("peer_prefix_v4", brute_peer_prefix_v4),
	BRUTE_SYSCTL("peer_prefix_v6", brute_peer_prefix_v6),
	BRUTE_SYSCTL("escalate_prefix_v4", brute_escalate_prefix_v4),
	BRUTE_SYSCTL("escalate_prefix_v6", brute_escalate_prefix_v6),
	BRUTE_SYSCTL("escalate_faults", brute_escalate_faults),
	BRUTE_SYSCTL("trusted_uid_max", brute_trusted_uid_max),
	BRUTE_SYSCTL("backstop_hold_s", brute_backstop_hold_s),
};

static_assert(ARRAY_SIZE(brute_sysctl_table) == ARRAY_SIZE(brute_tunables));

/* brute.mode= on the kernel command line: boot in audit-only mode, say. */
static int __init brute_mode_setup(char *str)
{
	unsigned int mode;

	if (kstrtouint(str, 0, &mode) || mode > BRUTE_MODE_KILL) {
		pr_err("ignoring brute.mode=%s: not 0, 1 or 2\n", str);
		return 1;
	}
	brute_mode_value = mode;
	return 1;
}
__setup("brute.mode=", brute_mode_setup);

/**
 * brute_sysctl_init() - Register /proc/sys/kernel/brute/
 *
 * Return: 0, or -ENOMEM.
 */
int __init brute_sysctl_init(void)
{
	if (!register_sysctl("kernel/brute", brute_sysctl_table))
		return -ENOMEM;
	return 0;
}
