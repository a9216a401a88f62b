// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Faults: which fatal signals are crashes, and the faults a
 * handler caught but that ended the process all the same
 *
 * A crash is a fault the kernel raised against a process (or the abort it
 * sent itself, detect.c) that ends it: whether it dies of the signal
 * (the task_fatal_signal hook) or a handler it installed catches
 * the fault and ends it -- exit() from the handler (ProFTPD's session
 * processes), or a runtime that turns the fault into a panic and exits
 * with an error status (Go).  Both cost an attacker the same: one wrong
 * guess, one process, nothing the service learns.
 *
 * A handler that goes back to the work the process was doing is no crash:
 * a JVM's implicit null checks return from the handler into the code that
 * throws the exception, a server's handler siglongjmp()s into its request
 * loop.  The process is taken to have gone back to work when it reads input
 * again (a socket, a pipe) or executes a new image.  A fault whose process
 * ends without that counts when it ends by exit() with the fault's signal
 * still blocked (it never left the handler) or with a non-zero status;
 * a process killed by a signal is the fatal hook's.
 *
 * The delivery and the end are seen through the kernel's tracepoints
 * (signal_deliver, sched_process_exit), where the task cannot sleep: the
 * work that needs to is done where it can.  A SIGBUS's mapping is looked at
 * in a task work that runs before the handler.  The crash is counted
 * (task.c) when the exiting process releases its first file: before its
 * connections close, so that a verdict's ban is in place before the peer
 * sees the end of its request, as on the fatal path; or, if it releases
 * none, in a task work at the end of do_exit().
 *
 * A SIGBUS past the end of a mapped file is what the file's truncation
 * does to every process that maps it: nobody's input is to blame when
 * another user could have truncated the file.  Any other SIGBUS -- a
 * non-canonical stack address (#SS, SI_KERNEL), a misaligned access, past
 * the end of a file only the process's own user can write -- is charged
 * like a SIGSEGV: an attacker must not be able to pick the signal that is
 * never charged.
 */

#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/lsm_hooks.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/signal.h>
#include <linux/task_work.h>
#include <trace/events/sched.h>
#include <trace/events/signal.h>

#include "common.h"
#include "detect.h"
#include "fault.h"
#include "setup.h"
#include "sysctl.h"
#include "task.h"

/*
 * Whether @addr lies in a page of a file mapping past the end of its file,
 * and someone other than the process's own user could have truncated the
 * file: it belongs to another user, or its group or others may write it.
 * Root is not counted as someone else: it could have truncated any file.
 */
static bool brute_sigbus_truncated(struct mm_struct *mm,
				   const void __user *addr)
{
	const unsigned long address = (unsigned long)addr;
	const struct cred *const cred = current_cred();
	struct vm_area_struct *vma;
	const struct inode *inode;
	bool truncated = false;
	pgoff_t pgoff;

	if (mmap_read_lock_killable(mm))
		return true;
	vma = vma_lookup(mm, address);
	if (vma && vma->vm_file) {
		inode = file_inode(vma->vm_file);
		pgoff = linear_page_index(vma, address);
		truncated = pgoff >= DIV_ROUND_UP(i_size_read(inode),
						  PAGE_SIZE) &&
			    (!uid_eq(inode->i_uid, cred->euid) ||
			     (inode->i_mode & 0022));
	}
	mmap_read_unlock(mm);
	return truncated;
}

/*
 * Whether a fault of the current task that counts as a crash is nobody's
 * input's doing: a SIGBUS past the end of a mapped file another user could
 * have truncated; a traced task's signal, which may be the tracer's
 * (PTRACE_SETSIGINFO).  Such a crash is counted, but never charged to the
 * peer whose input the process read.  Task context, may sleep: the current
 * task's memory is there.
 */
static bool brute_fault_not_peers(const kernel_siginfo_t *info)
{
	if (current->ptrace)
		return true;
	if (info->si_signo != SIGBUS || info->si_code != BUS_ADRERR ||
	    !current->mm)
		return false;
	return brute_sigbus_truncated(current->mm, info->si_addr);
}

/*
 * The current task is about to die from a signal: a crash if the kernel
 * raised it against the task (or the task aborted itself).  A fault a
 * handler caught before is this one's, or behind it.
 */
static void hook_task_fatal_signal(const kernel_siginfo_t *const info)
{
	struct brute_task_security *const ts = brute_task(current);

	clear_bit(BRUTE_TASK_FAULTED, &ts->flags);
	if (!info || !ts->hierarchy || brute_mode() == BRUTE_MODE_OFF ||
	    (current->flags & PF_KTHREAD))
		return;
	if (!brute_signal_counts(info, task_tgid_vnr(current)))
		return;
	brute_task_crash(info, brute_fault_not_peers(info), false);
}

static void brute_fault_classify(struct callback_head *work)
{
	struct brute_task_security *const ts =
		container_of(work, struct brute_task_security, fault.classify);

	if (current->mm)
		ts->fault.not_peers =
			brute_sigbus_truncated(current->mm, ts->fault.addr);
	clear_bit(BRUTE_TASK_FAULT_CLASSIFY, &ts->flags);
}

/*
 * signal_deliver, from get_signal() with the siglock held: a crash's
 * signal delivered to a handler of the current task.  Remembered until the
 * task goes back to work; a SIGBUS is looked at before the handler runs.
 */
static void brute_fault_delivered(void *data, int sig,
				  struct kernel_siginfo *info,
				  struct k_sigaction *ka)
{
	struct brute_task_security *const ts = brute_task(current);
	struct brute_fault *const fault = &ts->fault;
	const __sighandler_t handler = ka->sa.sa_handler;

	if (handler == SIG_DFL || handler == SIG_IGN || info == SEND_SIG_NOINFO ||
	    !ts->hierarchy || (current->flags & PF_KTHREAD) ||
	    brute_mode() == BRUTE_MODE_OFF ||
	    !brute_signal_counts(info, task_tgid_vnr(current)))
		return;
	fault->signo = info->si_signo;
	fault->code = info->si_code;
	fault->addr = info->si_addr;
	fault->not_peers = !!current->ptrace;
	set_bit(BRUTE_TASK_FAULTED, &ts->flags);
	if (info->si_signo != SIGBUS || info->si_code != BUS_ADRERR ||
	    test_and_set_bit(BRUTE_TASK_FAULT_CLASSIFY, &ts->flags))
		return;
	/* Before the handler: TWA_RESUME takes no lock of the siglock's. */
	init_task_work(&fault->classify, brute_fault_classify);
	if (task_work_add(current, &fault->classify, TWA_RESUME))
		clear_bit(BRUTE_TASK_FAULT_CLASSIFY, &ts->flags);
}

/* Count the crash of the exiting current task, once. */
static void brute_fault_count(struct brute_task_security *const ts)
{
	kernel_siginfo_t info;

	if (!test_and_clear_bit(BRUTE_TASK_FAULT_EXIT, &ts->flags))
		return;
	clear_siginfo(&info);
	info.si_signo = ts->fault.signo;
	info.si_code = ts->fault.code;
	info.si_addr = ts->fault.addr;
	brute_task_crash(&info, ts->fault.not_peers, true);
}

static void brute_fault_exit(struct callback_head *work)
{
	brute_fault_count(container_of(work, struct brute_task_security,
				       fault.exit));
}

/*
 * An exiting task releases the files it held last in task works of its
 * own, ahead of the one brute_fault_exited() queued.
 */
static void hook_file_release(struct file *const file)
{
	struct brute_task_security *ts;

	if (likely(!(current->flags & PF_EXITING)))
		return;
	ts = brute_task(current);
	if (unlikely(test_bit(BRUTE_TASK_FAULT_EXIT, &ts->flags)))
		brute_fault_count(ts);
}

/*
 * Whether the process of @task, which caught a fault and did not go back
 * to work, ends with it: by exit() (a signal's death is the fatal hook's),
 * from inside the handler (the fault's signal still blocked) or with an
 * error status.
 */
static bool brute_fault_exit_counts(const int exit_code, const bool in_handler)
{
	if (exit_code & 0x7f)
		return false;
	return in_handler || (exit_code >> 8);
}

static bool brute_fault_ends(struct task_struct *task,
			     const struct brute_fault *fault)
{
	if (!(task->signal->flags & SIGNAL_GROUP_EXIT) &&
	    atomic_read(&task->signal->live))
		return false;
	return brute_fault_exit_counts(task->exit_code,
				       sigismember(&task->blocked,
						   fault->signo));
}

/* sched_process_exit, from do_exit() of the current task. */
static void brute_fault_exited(void *data, struct task_struct *task)
{
	struct brute_task_security *const ts = brute_task(task);

	if (likely(!test_bit(BRUTE_TASK_FAULTED, &ts->flags)))
		return;
	clear_bit(BRUTE_TASK_FAULTED, &ts->flags);
	/* Killed before its handler ran: not its handler's end. */
	if (test_bit(BRUTE_TASK_FAULT_CLASSIFY, &ts->flags) ||
	    !brute_fault_ends(task, &ts->fault))
		return;
	set_bit(BRUTE_TASK_FAULT_EXIT, &ts->flags);
	init_task_work(&ts->fault.exit, brute_fault_exit);
	/* Runs in exit_task_work(), later in do_exit(). */
	if (task_work_add(task, &ts->fault.exit, TWA_NONE)) {
		clear_bit(BRUTE_TASK_FAULT_EXIT, &ts->flags);
		pr_warn_ratelimited("crash of %d (%s) ended by its handler not counted\n",
				    task_tgid_nr(task), task->comm);
	}
}

static struct security_hook_list brute_fault_hooks[] __ro_after_init = {
	LSM_HOOK_INIT(task_fatal_signal, hook_task_fatal_signal),
	LSM_HOOK_INIT(file_release, hook_file_release),
};

#ifdef CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST

#include <kunit/test.h>

/*
 * exit(0) from inside the handler counts; after the handler returned,
 * only an error status (Go's panic: 2); a death by a signal is the fatal
 * hook's.
 */
static void test_fault_exit_counts(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, brute_fault_exit_counts(0, true));
	KUNIT_EXPECT_TRUE(test, brute_fault_exit_counts(2 << 8, false));
	KUNIT_EXPECT_FALSE(test, brute_fault_exit_counts(0, false));
	KUNIT_EXPECT_FALSE(test, brute_fault_exit_counts(SIGKILL, true));
	KUNIT_EXPECT_FALSE(test, brute_fault_exit_counts(SIGSEGV | 0x80, true));
}

static struct kunit_case test_fault_cases[] = {
	KUNIT_CASE(test_fault_exit_counts),
	{}
};

static struct kunit_suite test_fault_suite = {
	.name = "brute_fault",
	.test_cases = test_fault_cases,
};

kunit_test_suite(test_fault_suite);

#endif /* CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST */

/**
 * brute_fault_setup() - Register the crash hooks, attach to the tracepoints
 *
 * The fatal signal and file release hooks; the signal delivery and exit
 * tracepoints.
 *
 * Return: 0, or an error if a tracepoint could not be attached.
 */
__init int brute_fault_setup(void)
{
	int err;

	security_add_hooks(brute_fault_hooks, ARRAY_SIZE(brute_fault_hooks),
			   &brute_lsmid);

	err = register_trace_signal_deliver(brute_fault_delivered, NULL);
	if (err)
		return err;
	err = register_trace_sched_process_exit(brute_fault_exited, NULL);
	if (err)
		unregister_trace_signal_deliver(brute_fault_delivered, NULL);
	return err;
}
