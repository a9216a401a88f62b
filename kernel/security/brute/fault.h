/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Faults: which fatal signals are crashes, and the faults a
 * handler caught but that ended the process all the same
 */

#ifndef _SECURITY_BRUTE_FAULT_H
#define _SECURITY_BRUTE_FAULT_H

#include <linux/init.h>
#include <linux/signal_types.h>
#include <linux/types.h>

/**
 * struct brute_fault - A fault a task's handler caught
 * @signo: Its signal.
 * @code: Its si_code.
 * @addr: Its si_addr.
 * @not_peers: It is not any peer's doing (a SIGBUS past the end of a file
 *             another user could have truncated, a traced task's signal).
 * @classify: Classifies a SIGBUS where the task's memory can be looked at:
 *            before the handler runs.
 * @exit: Counts the crash where the task can sleep: at the end of
 *        do_exit().
 *
 * Only the task itself writes it, from a tracepoint of its own or a task
 * work of its own.
 */
struct brute_fault {
	int signo;
	int code;
	void __user *addr;
	bool not_peers;
	struct callback_head classify;
	struct callback_head exit;
};

bool brute_fault_not_peers(const kernel_siginfo_t *info);
__init int brute_fault_setup(void);

#endif /* _SECURITY_BRUTE_FAULT_H */
