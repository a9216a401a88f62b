// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Attack detection: crash statistics and verdict
 *
 * Everything here is pure computation on values passed in, so that it can be
 * tested with KUnit and reasoned about without locks.
 */

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/signal.h>
#include <linux/time64.h>
#include <linux/uidgid.h>
#include <linux/user_namespace.h>

#include "common.h"
#include "detect.h"

/**
 * brute_ema_next() - Add a period to the crash period average
 * @ema_ns: Current exponential moving average, in nanoseconds.
 * @period_ns: The new period, in nanoseconds.
 * @num: Numerator of the weight of the new period.
 * @den: Denominator of that weight, greater than @num.
 *
 * Computes ema - ema * w + period * w with w = num / den, the form the
 * Brute documentation derives.  Time is kept in nanoseconds so that periods
 * far shorter than a jiffy still move the average: rounding only ever drops
 * less than one nanosecond per term.
 *
 * Return: The new average.
 */
u64 brute_ema_next(u64 ema_ns, u64 period_ns, u32 num, u32 den)
{
	return ema_ns - mul_u64_u32_div(ema_ns, num, den) +
	       mul_u64_u32_div(period_ns, num, den);
}

/**
 * brute_stats_reset() - Start statistics afresh
 * @stats: Statistics to reset.
 * @now_ns: Current time, from ktime_get_ns().
 */
void brute_stats_reset(struct brute_stats *stats, u64 now_ns)
{
	stats->faults = 0;
	stats->last_ns = now_ns;
	stats->ema_ns = 0;
}

/**
 * brute_stats_forget() - Start statistics afresh after a quiet period
 * @stats: Statistics.
 * @now_ns: Current time, from ktime_get_ns().
 * @forget_ns: How long without a crash forgets them.
 *
 * The time of the last crash stays: the next crash adds the whole quiet
 * period to the average, so that it takes min_faults crashes again, and
 * more than that after a long quiet period, for a verdict.  A time taken
 * before a racing crash updated @stats (@now_ns earlier than the last
 * crash) is never a quiet period.
 *
 * Return: True if they were forgotten.
 */
bool brute_stats_forget(struct brute_stats *stats, u64 now_ns, u64 forget_ns)
{
	if (now_ns <= stats->last_ns || now_ns - stats->last_ns < forget_ns)
		return false;
	stats->faults = 0;
	stats->ema_ns = 0;
	return true;
}

/**
 * brute_stats_update() - Count a crash
 * @stats: Statistics of the hierarchy the crash is charged to.
 * @now_ns: Time of the crash, from ktime_get_ns().
 * @params: Detection parameters.
 *
 * Return: The period between this crash and the previous one (or the start
 * of the statistics), in nanoseconds.
 */
u64 brute_stats_update(struct brute_stats *stats, u64 now_ns,
		       const struct brute_params *params)
{
	u64 period = now_ns > stats->last_ns ? now_ns - stats->last_ns : 0;

	stats->ema_ns = brute_ema_next(stats->ema_ns, period, params->ema_num,
				       params->ema_den);
	/* A time read before a racing crash never moves the clock back. */
	stats->last_ns = max(stats->last_ns, now_ns);
	if (stats->faults < U32_MAX)
		stats->faults++;
	return period;
}

/**
 * brute_verdict() - Decide whether statistics show an attack
 * @stats: Statistics of a hierarchy.
 * @params: Detection parameters.
 *
 * No verdict is given before @params->min_faults crashes: the average needs
 * some data to show a trend, and a program that fails right after execve()
 * for unrelated reasons must not be taken for an attack.  Then a slow attack
 * is detected at @params->max_faults crashes, and a fast one as soon as the
 * average period is strictly under @params->threshold_ms.
 *
 * Return: The verdict.
 */
enum brute_verdict brute_verdict(const struct brute_stats *stats,
				 const struct brute_params *params)
{
	if (stats->faults < params->min_faults)
		return BRUTE_VERDICT_NONE;
	if (stats->faults >= params->max_faults)
		return BRUTE_VERDICT_SLOW;
	if (stats->ema_ns < (u64)params->threshold_ms * NSEC_PER_MSEC)
		return BRUTE_VERDICT_FAST;
	return BRUTE_VERDICT_NONE;
}

/**
 * brute_backstop_verdict() - Decide whether a service has crashed too often
 * @stats: Statistics of a hierarchy that is not its user's own privileged
 *         image: its crashes come from peers, or from nobody known.
 * @params: Detection parameters.
 *
 * The backstop bounds the crashes one memory image (one randomization of
 * its layout and canary) can take, however many peers cause them: at
 * @params->backstop_faults crashes without a quiet period of forget_time_s,
 * whatever their pace.
 *
 * Return: BRUTE_VERDICT_NONE, else FAST or SLOW after the average period.
 */
enum brute_verdict brute_backstop_verdict(const struct brute_stats *stats,
					  const struct brute_params *params)
{
	if (stats->faults < params->backstop_faults)
		return BRUTE_VERDICT_NONE;
	if (stats->ema_ns < (u64)params->threshold_ms * NSEC_PER_MSEC)
		return BRUTE_VERDICT_FAST;
	return BRUTE_VERDICT_SLOW;
}

/**
 * brute_signal_counts() - Tell whether a fatal signal is a crash
 * @info: The signal that kills the task.
 * @self_tgid: The dying task's thread group id, as seen in its own pid
 *             namespace (task_tgid_vnr(current)).
 *
 * A crash is either a fault the kernel raised against the task (SIGSEGV,
 * SIGBUS, SIGILL, SIGFPE, SIGTRAP or SIGSYS with a kernel si_code), or one
 * of those signals or SIGABRT that the task sent itself: glibc's abort() on
 * a smashed stack canary or a corrupted heap, and the crash handlers that
 * end with kill(getpid(), sig) (httpd, Python's faulthandler).
 *
 * Nothing another process sends counts, whatever its number: otherwise any
 * user could get a privileged process killed by signalling it.  A positive
 * si_code is not proof of a fault for every signal: F_SETOWN/F_SETSIG
 * delivers any signal with a POLL_* code, which the kernel replaces with
 * SI_SIGIO only for the signals that have codes of their own (the fault
 * signals above); so for SIGABRT only the self-sent forms count.  SIGKILL
 * never counts: it is how the OOM killer, Brute itself and group exits end
 * tasks.
 *
 * The kernel fills si_pid itself for SI_USER and SI_TKILL (kill(), tgkill()
 * and friends), so a self-sent signal cannot be faked by another process;
 * rt_sigqueueinfo() to another process cannot use those codes.
 *
 * Return: True if the signal counts as a crash.
 */
bool brute_signal_counts(const kernel_siginfo_t *info, pid_t self_tgid)
{
	switch (info->si_signo) {
	case SIGSEGV:
	case SIGBUS:
	case SIGILL:
	case SIGFPE:
	case SIGTRAP:
	case SIGSYS:
		if (SI_FROMKERNEL(info))
			return true;
		break;
	case SIGABRT:
		break;
	default:
		return false;
	}
	return (info->si_code == SI_TKILL || info->si_code == SI_USER) &&
	       info->si_pid == self_tgid;
}

/**
 * brute_ids_save() - Save the IDs of credentials
 * @ids: Where to save them.
 * @cred: Credentials to read.
 */
void brute_ids_save(struct brute_ids *ids, const struct cred *cred)
{
	ids->uid = cred->uid;
	ids->suid = cred->suid;
	ids->euid = cred->euid;
	ids->fsuid = cred->fsuid;
	ids->gid = cred->gid;
	ids->sgid = cred->sgid;
	ids->egid = cred->egid;
	ids->fsgid = cred->fsgid;
}

/**
 * brute_ids_changed() - Compare credentials with saved IDs
 * @ids: Saved IDs.
 * @cred: Credentials to compare.
 *
 * Return: True if any of the real, saved, effective or filesystem user or
 * group IDs differs.
 */
bool brute_ids_changed(const struct brute_ids *ids, const struct cred *cred)
{
	return !uid_eq(ids->uid, cred->uid) || !uid_eq(ids->suid, cred->suid) ||
	       !uid_eq(ids->euid, cred->euid) ||
	       !uid_eq(ids->fsuid, cred->fsuid) ||
	       !gid_eq(ids->gid, cred->gid) || !gid_eq(ids->sgid, cred->sgid) ||
	       !gid_eq(ids->egid, cred->egid) ||
	       !gid_eq(ids->fsgid, cred->fsgid);
}

/**
 * brute_exec_gain() - Tell what privilege an execve() gains
 * @old: The credentials of the task before the execve().
 * @new: The credentials of the new image.
 *
 * A gain is what the user could not have had without the program: an
 * effective user ID that is none of the task's own and that it could not
 * switch to (no CAP_SETUID), an effective group ID that is none of its own
 * nor of its supplementary groups (no CAP_SETGID), or permitted capabilities
 * beyond the ambient set for a user who is not root in its user namespace
 * (file capabilities).  What a user could take anyway is no gain: a
 * set-group-ID copy for a group they are in, the capabilities root of a
 * user namespace gets back at execve() after dropping them, anything root
 * executes (even after dropping CAP_SETUID: root is never the user of an
 * exec attack, whose processes would be killed).
 *
 * Return: BRUTE_BOUNDARY_SETID, BRUTE_BOUNDARY_FCAPS, or 0 for no gain.
 */
u32 brute_exec_gain(const struct cred *old, const struct cred *new)
{
	/* Root has nothing to gain, whatever capabilities it dropped. */
	if (uid_eq(old->uid, GLOBAL_ROOT_UID) ||
	    uid_eq(old->euid, GLOBAL_ROOT_UID))
		return 0;
	if (!uid_eq(new->euid, old->uid) && !uid_eq(new->euid, old->euid) &&
	    !uid_eq(new->euid, old->suid) &&
	    !cap_raised(old->cap_effective, CAP_SETUID))
		return BRUTE_BOUNDARY_SETID;
	if (!gid_eq(new->egid, old->gid) && !gid_eq(new->egid, old->egid) &&
	    !gid_eq(new->egid, old->sgid) &&
	    !(old->group_info && groups_search(old->group_info, new->egid)) &&
	    !cap_raised(old->cap_effective, CAP_SETGID))
		return BRUTE_BOUNDARY_SETID;
	if (!uid_eq(new->uid, make_kuid(new->user_ns, 0)) &&
	    !cap_issubset(new->cap_permitted, new->cap_ambient))
		return BRUTE_BOUNDARY_FCAPS;
	return 0;
}

/* Is @gid the real group of @cred or one of its supplementary groups? */
static bool brute_cred_in_group(const struct cred *cred, kgid_t gid)
{
	return gid_eq(gid, cred->gid) ||
	       (cred->group_info && groups_search(cred->group_info, gid));
}

/**
 * brute_cred_is_user() - Tell whether credentials are a user's own
 * @cred: Credentials.
 * @uid: The user.
 *
 * What brute_exec_gain() counts as no gain is the user's own here too: a
 * set-group-ID program for a group the user is in leaves nothing gained.
 *
 * Return: True if every user ID of @cred is @uid, its effective, saved and
 * filesystem group IDs are its real one or among its supplementary groups,
 * and it has no permitted capability beyond the ambient set: nothing of a
 * privilege gained is left.
 */
bool brute_cred_is_user(const struct cred *cred, kuid_t uid)
{
	return uid_eq(cred->uid, uid) && uid_eq(cred->euid, uid) &&
	       uid_eq(cred->suid, uid) && uid_eq(cred->fsuid, uid) &&
	       brute_cred_in_group(cred, cred->egid) &&
	       brute_cred_in_group(cred, cred->sgid) &&
	       brute_cred_in_group(cred, cred->fsgid) &&
	       cap_issubset(cred->cap_permitted, cred->cap_ambient);
}

/**
 * brute_principal() - Tell who answers for a user
 * @ns: The user namespace the user's task runs in.
 * @uid: The user.
 *
 * Inside a user namespace, every ID and capability is mapped from what the
 * namespace's creator was given (its own ID, its subordinate IDs): its
 * creator answers for all of them, so that a user with 65536 subordinate
 * IDs is one user to Brute.  A nested namespace answers to the creator of
 * the outermost one below the initial namespace.
 *
 * Return: @uid in the initial user namespace, else the kernel user ID of
 * that creator.
 */
kuid_t brute_principal(const struct user_namespace *ns, kuid_t uid)
{
	if (ns == &init_user_ns)
		return uid;
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	return ns->owner;
}

#ifdef CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST

#include <kunit/test.h>

static const struct brute_params test_params = {
	.threshold_ms = 30000,
	.min_faults = 5,
	.max_faults = 200,
	.ema_num = 7,
	.ema_den = 10,
	.ban_time_s = 900,
	.table_size = 1024,
	.forget_time_s = 3600,
	.backstop_faults = 32,
	.backstop_hold_s = 0,
	.peer_ban_time_s = 900,
	.peer_prefix_v4 = 32,
	.peer_prefix_v6 = 64,
	.escalate_prefix_v4 = 24,
	.escalate_prefix_v6 = 48,
	.escalate_faults = 15,
	.trusted_uid_max = 999,
};

static void test_ema_weight(struct kunit *const test)
{
	/* From 0, a period enters with weight 7/10. */
	KUNIT_EXPECT_EQ(test, 7000, brute_ema_next(0, 10000, 7, 10));
	/* A constant period is a fixed point. */
	KUNIT_EXPECT_EQ(test, 10000, brute_ema_next(10000, 10000, 7, 10));
	/* 100 - 70 + 0 */
	KUNIT_EXPECT_EQ(test, 30, brute_ema_next(100, 0, 7, 10));
	/* Other weights. */
	KUNIT_EXPECT_EQ(test, 500, brute_ema_next(0, 1000, 1, 2));
	KUNIT_EXPECT_EQ(test, 750, brute_ema_next(1000, 500, 1, 2));
}

static void test_ema_rounding(struct kunit *const test)
{
	/* Each product rounds down: 9 - 6 + 0 (0.7 dropped). */
	KUNIT_EXPECT_EQ(test, 3, brute_ema_next(9, 1, 7, 10));
	/* 2 - 1 + 0: never more than one unit off per product. */
	KUNIT_EXPECT_EQ(test, 1, brute_ema_next(2, 0, 7, 10));
	/* Sub-jiffy periods still move the average (v6 kept jiffies: 0). */
	KUNIT_EXPECT_EQ(test, 70000, brute_ema_next(0, 100000, 7, 10));
	/* No overflow with huge values: 10 years in ns, times 7. */
	KUNIT_EXPECT_EQ(test, 315360000ULL * NSEC_PER_SEC,
			brute_ema_next(315360000ULL * NSEC_PER_SEC,
				       315360000ULL * NSEC_PER_SEC, 7, 10));
}

static void test_stats_update(struct kunit *const test)
{
	struct brute_stats stats;

	brute_stats_reset(&stats, 1000);
	KUNIT_EXPECT_EQ(test, 0, stats.faults);
	KUNIT_EXPECT_EQ(test, 500, brute_stats_update(&stats, 1500, &test_params));
	KUNIT_EXPECT_EQ(test, 1, stats.faults);
	KUNIT_EXPECT_EQ(test, 1500, stats.last_ns);
	KUNIT_EXPECT_EQ(test, 350, stats.ema_ns);
	/* A clock that did not move gives a zero period, not a huge one. */
	KUNIT_EXPECT_EQ(test, 0, brute_stats_update(&stats, 1400, &test_params));
	KUNIT_EXPECT_EQ(test, 2, stats.faults);
	KUNIT_EXPECT_EQ(test, 1500, stats.last_ns);
	/* The fault count saturates. */
	stats.faults = U32_MAX;
	brute_stats_update(&stats, 2000, &test_params);
	KUNIT_EXPECT_EQ(test, U32_MAX, stats.faults);
}

static void test_verdict_thresholds(struct kunit *const test)
{
	struct brute_stats stats = {};

	/* Under min_faults, even a zero period gives no verdict. */
	stats.faults = 4;
	stats.ema_ns = 0;
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_NONE,
			brute_verdict(&stats, &test_params));
	/* At min_faults, a fast average is an attack. */
	stats.faults = 5;
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_FAST,
			brute_verdict(&stats, &test_params));
	/* The threshold itself is not under the threshold. */
	stats.ema_ns = 30000ULL * NSEC_PER_MSEC;
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_NONE,
			brute_verdict(&stats, &test_params));
	stats.ema_ns = 30000ULL * NSEC_PER_MSEC - 1;
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_FAST,
			brute_verdict(&stats, &test_params));
	/* A slow attack: one under max_faults is none, max_faults is one. */
	stats.ema_ns = 3600ULL * NSEC_PER_SEC;
	stats.faults = 199;
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_NONE,
			brute_verdict(&stats, &test_params));
	stats.faults = 200;
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_SLOW,
			brute_verdict(&stats, &test_params));
}

/*
 * The documentation's table: after a quiet month, year and decade (the
 * average is that long), an attack crashing every second is detected on
 * crash 10, 12 and 14 (n = log(30 s / quiet) / log(1 - 0.7): 9.44, 11.50,
 * 13.42).
 */
static void test_doc_table(struct kunit *const test)
{
	static const struct {
		u64 quiet_s;
		u32 detected_at;
	} cases[] = {
		{ 30ULL * 24 * 3600, 10 },
		{ 365ULL * 24 * 3600, 12 },
		{ 3650ULL * 24 * 3600, 14 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct brute_stats stats = {
			.faults = 0,
			.last_ns = 0,
			.ema_ns = cases[i].quiet_s * NSEC_PER_SEC,
		};
		u64 now = 0;
		u32 crash;

		for (crash = 1; crash <= 20; crash++) {
			now += NSEC_PER_SEC;
			brute_stats_update(&stats, now, &test_params);
			if (brute_verdict(&stats, &test_params) !=
			    BRUTE_VERDICT_NONE)
				break;
		}
		KUNIT_EXPECT_EQ_MSG(test, cases[i].detected_at, crash,
				    "quiet period %llu s", cases[i].quiet_s);
	}
}

/* Crashes much faster than a jiffy are detected at min_faults (v6: never). */
static void test_fast_attack_sub_jiffy(struct kunit *const test)
{
	struct brute_stats stats;
	u64 now = 1000000;
	u32 crash;

	brute_stats_reset(&stats, now);
	for (crash = 1; crash <= 5; crash++) {
		now += 200 * NSEC_PER_USEC;
		brute_stats_update(&stats, now, &test_params);
		KUNIT_EXPECT_EQ(test, crash < 5 ? BRUTE_VERDICT_NONE :
						  BRUTE_VERDICT_FAST,
				brute_verdict(&stats, &test_params));
	}
	KUNIT_EXPECT_GT(test, stats.ema_ns, 0);
}

static void test_signal_filter(struct kunit *const test)
{
	kernel_siginfo_t info;

	/* A real fault counts. */
	clear_siginfo(&info);
	info.si_signo = SIGSEGV;
	info.si_code = SEGV_MAPERR;
	KUNIT_EXPECT_TRUE(test, brute_signal_counts(&info, 42));
	info.si_code = SI_KERNEL;
	KUNIT_EXPECT_TRUE(test, brute_signal_counts(&info, 42));
	info.si_signo = SIGBUS;
	info.si_code = BUS_ADRERR;
	KUNIT_EXPECT_TRUE(test, brute_signal_counts(&info, 42));

	/* kill -SEGV from another process does not... */
	info.si_signo = SIGSEGV;
	info.si_code = SI_USER;
	info.si_pid = 7;
	KUNIT_EXPECT_FALSE(test, brute_signal_counts(&info, 42));
	info.si_code = SI_TKILL;
	KUNIT_EXPECT_FALSE(test, brute_signal_counts(&info, 42));
	/* ...nor a forged sigqueue(), even with the task's own pid... */
	info.si_code = SI_QUEUE;
	info.si_pid = 42;
	KUNIT_EXPECT_FALSE(test, brute_signal_counts(&info, 42));
	/* ...nor SIGIO-style delivery (F_SETSIG), always SI_SIGIO here. */
	info.si_code = SI_SIGIO;
	KUNIT_EXPECT_FALSE(test, brute_signal_counts(&info, 42));

	/* A crash handler re-raising the fault on itself counts. */
	info.si_code = SI_USER;
	info.si_pid = 42;
	KUNIT_EXPECT_TRUE(test, brute_signal_counts(&info, 42));
	info.si_code = SI_TKILL;
	KUNIT_EXPECT_TRUE(test, brute_signal_counts(&info, 42));

	/* SIGKILL never counts, not even from the kernel or the task. */
	info.si_signo = SIGKILL;
	info.si_code = SI_KERNEL;
	KUNIT_EXPECT_FALSE(test, brute_signal_counts(&info, 42));
	info.si_code = SI_USER;
	info.si_pid = 42;
	KUNIT_EXPECT_FALSE(test, brute_signal_counts(&info, 42));

	/* Other fatal signals are not crashes, even self-sent. */
	info.si_signo = SIGXCPU;
	info.si_code = SI_KERNEL;
	KUNIT_EXPECT_FALSE(test, brute_signal_counts(&info, 42));
	info.si_signo = SIGTERM;
	info.si_code = SI_USER;
	KUNIT_EXPECT_FALSE(test, brute_signal_counts(&info, 42));

	/* SIGABRT raised by the task itself (glibc abort()) counts... */
	info.si_signo = SIGABRT;
	info.si_code = SI_TKILL;
	info.si_pid = 42;
	KUNIT_EXPECT_TRUE(test, brute_signal_counts(&info, 42));
	info.si_code = SI_USER;
	KUNIT_EXPECT_TRUE(test, brute_signal_counts(&info, 42));
	/* ...but not sent by another process, nor forged with sigqueue()... */
	info.si_pid = 7;
	KUNIT_EXPECT_FALSE(test, brute_signal_counts(&info, 42));
	info.si_code = SI_QUEUE;
	info.si_pid = 42;
	KUNIT_EXPECT_FALSE(test, brute_signal_counts(&info, 42));
	/* ...nor delivered by F_SETOWN/F_SETSIG, which keeps POLL_IN here. */
	info.si_code = POLL_IN;
	info.si_pid = 0;
	KUNIT_EXPECT_FALSE(test, brute_signal_counts(&info, 42));
	info.si_code = POLL_HUP;
	KUNIT_EXPECT_FALSE(test, brute_signal_counts(&info, 42));
	info.si_code = SI_KERNEL;
	KUNIT_EXPECT_FALSE(test, brute_signal_counts(&info, 42));
}

static void test_ids_changed(struct kunit *const test)
{
	struct cred cred = {};
	struct brute_ids ids;

	cred.uid = KUIDT_INIT(1000);
	cred.suid = KUIDT_INIT(1000);
	cred.euid = KUIDT_INIT(1000);
	cred.fsuid = KUIDT_INIT(1000);
	cred.gid = KGIDT_INIT(1000);
	cred.sgid = KGIDT_INIT(1000);
	cred.egid = KGIDT_INIT(1000);
	cred.fsgid = KGIDT_INIT(1000);
	brute_ids_save(&ids, &cred);
	KUNIT_EXPECT_FALSE(test, brute_ids_changed(&ids, &cred));

#define CHECK_ID_FIELD(field, make)					\
	do {								\
		struct cred c = cred;					\
		c.field = make(0);					\
		KUNIT_EXPECT_TRUE_MSG(test, brute_ids_changed(&ids, &c), \
				      #field);				\
	} while (0)
	CHECK_ID_FIELD(uid, KUIDT_INIT);
	CHECK_ID_FIELD(suid, KUIDT_INIT);
	CHECK_ID_FIELD(euid, KUIDT_INIT);
	CHECK_ID_FIELD(fsuid, KUIDT_INIT);
	CHECK_ID_FIELD(gid, KGIDT_INIT);
	CHECK_ID_FIELD(sgid, KGIDT_INIT);
	CHECK_ID_FIELD(egid, KGIDT_INIT);
	CHECK_ID_FIELD(fsgid, KGIDT_INIT);
#undef CHECK_ID_FIELD
}

/* A quiet period forgets; a time from before a racing crash does not. */
static void test_stats_forget(struct kunit *const test)
{
	const u64 forget = 3600ULL * NSEC_PER_SEC;
	struct brute_stats stats;

	brute_stats_reset(&stats, 0);
	brute_stats_update(&stats, 1000, &test_params);
	brute_stats_update(&stats, 2000, &test_params);
	KUNIT_EXPECT_EQ(test, 2, stats.faults);

	/* Just under the quiet period: kept. */
	KUNIT_EXPECT_FALSE(test, brute_stats_forget(&stats, 2000 + forget - 1,
						    forget));
	KUNIT_EXPECT_EQ(test, 2, stats.faults);
	/* Out of order: now was read before a racing crash at 2000. */
	KUNIT_EXPECT_FALSE(test, brute_stats_forget(&stats, 1500, forget));
	KUNIT_EXPECT_FALSE(test, brute_stats_forget(&stats, 2000, forget));
	KUNIT_EXPECT_EQ(test, 2, stats.faults);
	KUNIT_EXPECT_EQ(test, 0, brute_stats_update(&stats, 1500, &test_params));
	KUNIT_EXPECT_EQ(test, 3, stats.faults);

	/* The quiet period: forgotten, and it weighs in the next average. */
	KUNIT_EXPECT_TRUE(test, brute_stats_forget(&stats, 2000 + forget,
						   forget));
	KUNIT_EXPECT_EQ(test, 0, stats.faults);
	KUNIT_EXPECT_EQ(test, 0, stats.ema_ns);
	brute_stats_update(&stats, 2000 + forget, &test_params);
	KUNIT_EXPECT_EQ(test, 1, stats.faults);
	KUNIT_EXPECT_EQ(test, forget / 10 * 7, stats.ema_ns);
}

/* The backstop needs backstop_faults crashes, fast or slow. */
static void test_backstop_verdict(struct kunit *const test)
{
	struct brute_stats stats = { .faults = 31, .ema_ns = 0 };

	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_NONE,
			brute_backstop_verdict(&stats, &test_params));
	/* A handful of fast crashes is no verdict for a service. */
	stats.faults = 12;
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_NONE,
			brute_backstop_verdict(&stats, &test_params));
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_FAST,
			brute_verdict(&stats, &test_params));
	stats.faults = 32;
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_FAST,
			brute_backstop_verdict(&stats, &test_params));
	stats.ema_ns = 3600ULL * NSEC_PER_SEC;
	KUNIT_EXPECT_EQ(test, BRUTE_VERDICT_SLOW,
			brute_backstop_verdict(&stats, &test_params));
}

static void test_cred_init(struct cred *cred, u32 uid, u32 gid)
{
	memset(cred, 0, sizeof(*cred));
	cred->uid = KUIDT_INIT(uid);
	cred->euid = KUIDT_INIT(uid);
	cred->suid = KUIDT_INIT(uid);
	cred->fsuid = KUIDT_INIT(uid);
	cred->gid = KGIDT_INIT(gid);
	cred->egid = KGIDT_INIT(gid);
	cred->sgid = KGIDT_INIT(gid);
	cred->fsgid = KGIDT_INIT(gid);
	cred->user_ns = &init_user_ns;
	if (!uid) {
		cred->cap_permitted = CAP_FULL_SET;
		cred->cap_effective = CAP_FULL_SET;
	}
}

/* What an execve() gains, and what it only seems to. */
static void test_exec_gain(struct kunit *const test)
{
	struct cred *old = kunit_kzalloc(test, sizeof(*old), GFP_KERNEL);
	struct cred *new = kunit_kzalloc(test, sizeof(*new), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, old);
	KUNIT_ASSERT_NOT_NULL(test, new);

	/* A user runs a set-user-ID root program. */
	test_cred_init(old, 1000, 1000);
	*new = *old;
	new->euid = KUIDT_INIT(0);
	new->suid = KUIDT_INIT(0);
	KUNIT_EXPECT_EQ(test, BRUTE_BOUNDARY_SETID, brute_exec_gain(old, new));

	/* A set-group-ID program of a group the user is not in. */
	*new = *old;
	new->egid = KGIDT_INIT(42);
	KUNIT_EXPECT_EQ(test, BRUTE_BOUNDARY_SETID, brute_exec_gain(old, new));

	/* Root runs a set-user-ID program of another user: no gain. */
	test_cred_init(old, 0, 0);
	*new = *old;
	new->euid = KUIDT_INIT(1000);
	KUNIT_EXPECT_EQ(test, 0, brute_exec_gain(old, new));

	/* A root daemon that kept its saved ID executes: no gain. */
	test_cred_init(old, 1000, 1000);
	old->suid = KUIDT_INIT(0);
	*new = *old;
	new->euid = KUIDT_INIT(0);
	KUNIT_EXPECT_EQ(test, 0, brute_exec_gain(old, new));

	/* The payload of a full-ID wrapper (all IDs root): no gain itself. */
	test_cred_init(old, 0, 0);
	*new = *old;
	KUNIT_EXPECT_EQ(test, 0, brute_exec_gain(old, new));

	/* File capabilities for a user... */
	test_cred_init(old, 1000, 1000);
	*new = *old;
	cap_raise(new->cap_permitted, CAP_NET_RAW);
	KUNIT_EXPECT_EQ(test, BRUTE_BOUNDARY_FCAPS, brute_exec_gain(old, new));
	/* ...but not what the ambient set keeps. */
	cap_raise(new->cap_ambient, CAP_NET_RAW);
	KUNIT_EXPECT_EQ(test, 0, brute_exec_gain(old, new));
	/* Root gets capabilities back at execve(): no gain. */
	test_cred_init(old, 0, 0);
	old->cap_permitted = CAP_EMPTY_SET;
	old->cap_effective = CAP_EMPTY_SET;
	test_cred_init(new, 0, 0);
	KUNIT_EXPECT_EQ(test, 0, brute_exec_gain(old, new));

	/*
	 * Root that dropped CAP_SETUID runs a set-user-ID program of
	 * another user: root is never the gaining user of an exec attack.
	 */
	test_cred_init(old, 0, 0);
	cap_lower(old->cap_effective, CAP_SETUID);
	cap_lower(old->cap_permitted, CAP_SETUID);
	*new = *old;
	new->euid = KUIDT_INIT(1000);
	new->suid = KUIDT_INIT(1000);
	KUNIT_EXPECT_EQ(test, 0, brute_exec_gain(old, new));
}

/* A set-group-ID copy for one's own supplementary group gains nothing. */
static void test_exec_gain_own_group(struct kunit *const test)
{
	struct cred *old = kunit_kzalloc(test, sizeof(*old), GFP_KERNEL);
	struct cred *new = kunit_kzalloc(test, sizeof(*new), GFP_KERNEL);
	struct group_info *groups = groups_alloc(1);

	KUNIT_ASSERT_NOT_NULL(test, old);
	KUNIT_ASSERT_NOT_NULL(test, new);
	KUNIT_ASSERT_NOT_NULL(test, groups);
	groups->gid[0] = KGIDT_INIT(42);
	test_cred_init(old, 1000, 1000);
	old->group_info = groups;
	*new = *old;
	new->egid = KGIDT_INIT(42);
	KUNIT_EXPECT_EQ(test, 0, brute_exec_gain(old, new));
	new->egid = KGIDT_INIT(43);
	KUNIT_EXPECT_EQ(test, BRUTE_BOUNDARY_SETID, brute_exec_gain(old, new));
	put_group_info(groups);
}

static void test_cred_is_user(struct kunit *const test)
{
	struct cred *cred = kunit_kzalloc(test, sizeof(*cred), GFP_KERNEL);
	struct group_info *groups = groups_alloc(1);

	KUNIT_ASSERT_NOT_NULL(test, cred);
	KUNIT_ASSERT_NOT_NULL(test, groups);
	groups->gid[0] = KGIDT_INIT(42);
	test_cred_init(cred, 1000, 1000);
	KUNIT_EXPECT_TRUE(test, brute_cred_is_user(cred, KUIDT_INIT(1000)));
	KUNIT_EXPECT_FALSE(test, brute_cred_is_user(cred, KUIDT_INIT(1001)));
	/* A set-user-ID program's saved ID is left. */
	cred->suid = KUIDT_INIT(0);
	KUNIT_EXPECT_FALSE(test, brute_cred_is_user(cred, KUIDT_INIT(1000)));
	/* A set-group-ID program's effective group. */
	test_cred_init(cred, 1000, 1000);
	cred->egid = KGIDT_INIT(42);
	KUNIT_EXPECT_FALSE(test, brute_cred_is_user(cred, KUIDT_INIT(1000)));
	/*
	 * ... unless the user is in that group: as for brute_exec_gain(),
	 * the user could have had it without the program.
	 */
	cred->group_info = groups;
	KUNIT_EXPECT_TRUE(test, brute_cred_is_user(cred, KUIDT_INIT(1000)));
	cred->sgid = KGIDT_INIT(42);
	cred->fsgid = KGIDT_INIT(42);
	KUNIT_EXPECT_TRUE(test, brute_cred_is_user(cred, KUIDT_INIT(1000)));
	cred->fsgid = KGIDT_INIT(43);
	KUNIT_EXPECT_FALSE(test, brute_cred_is_user(cred, KUIDT_INIT(1000)));
	cred->group_info = NULL;
	/* Capabilities beyond the ambient set. */
	test_cred_init(cred, 1000, 1000);
	cap_raise(cred->cap_permitted, CAP_NET_RAW);
	KUNIT_EXPECT_FALSE(test, brute_cred_is_user(cred, KUIDT_INIT(1000)));
	/* Root's own credentials are root's. */
	test_cred_init(cred, 0, 0);
	cred->cap_ambient = CAP_FULL_SET;
	KUNIT_EXPECT_TRUE(test, brute_cred_is_user(cred, GLOBAL_ROOT_UID));
	put_group_info(groups);
}

static void test_principal(struct kunit *const test)
{
	struct user_namespace *outer, *inner;

	outer = kunit_kzalloc(test, sizeof(*outer), GFP_KERNEL);
	inner = kunit_kzalloc(test, sizeof(*inner), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, outer);
	KUNIT_ASSERT_NOT_NULL(test, inner);
	KUNIT_EXPECT_EQ(test, 1000, __kuid_val(brute_principal(&init_user_ns,
							       KUIDT_INIT(1000))));
	outer->parent = &init_user_ns;
	outer->owner = KUIDT_INIT(1000);
	inner->parent = outer;
	inner->owner = KUIDT_INIT(165537);
	/* Subordinate IDs answer to the creator of the namespace. */
	KUNIT_EXPECT_EQ(test, 1000, __kuid_val(brute_principal(outer,
							       KUIDT_INIT(165536))));
	KUNIT_EXPECT_EQ(test, 1000, __kuid_val(brute_principal(inner,
							       KUIDT_INIT(165540))));
}

static struct kunit_case test_cases[] = {
	KUNIT_CASE(test_ema_weight),
	KUNIT_CASE(test_ema_rounding),
	KUNIT_CASE(test_stats_update),
	KUNIT_CASE(test_verdict_thresholds),
	KUNIT_CASE(test_doc_table),
	KUNIT_CASE(test_fast_attack_sub_jiffy),
	KUNIT_CASE(test_signal_filter),
	KUNIT_CASE(test_ids_changed),
	KUNIT_CASE(test_stats_forget),
	KUNIT_CASE(test_backstop_verdict),
	KUNIT_CASE(test_exec_gain),
	KUNIT_CASE(test_exec_gain_own_group),
	KUNIT_CASE(test_cred_is_user),
	KUNIT_CASE(test_principal),
	{}
};

static struct kunit_suite test_suite = {
	.name = "brute_detect",
	.test_cases = test_cases,
};

kunit_test_suite(test_suite);

#endif /* CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST */
