/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Input: what a process read, and who may answer for a crash
 */

#ifndef _SECURITY_BRUTE_INPUT_H
#define _SECURITY_BRUTE_INPUT_H

#include <linux/fs.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>

#include "detect.h"
#include "peer.h"

struct brute_origin;
struct sock;

/**
 * enum brute_input_flag - Bits of &brute_input_state.flags
 * @BRUTE_INPUT_AMBIGUOUS: Since the peer's input, the process read from
 *                         another source: another party's connection, a
 *                         datagram, a connection it made, a named pipe
 *                         of another process.  Nobody can be charged.
 * @BRUTE_INPUT_SERVED: The process read input another party sent to a
 *                      listener: it serves that party; a crash is not its
 *                      user's doing, whatever the image's privileges.
 */
enum brute_input_flag {
	BRUTE_INPUT_AMBIGUOUS = BIT(0),
	BRUTE_INPUT_SERVED = BIT(1),
};

#define BRUTE_INPUT_PIPES 4

/**
 * struct brute_input_state - What a process read since its image started
 * @lock: Serializes changes (threads, io_uring workers) and copies.
 * @sk: The last connection read whose input a party answers for (a
 *      reference held), or NULL.
 * @flags: Enum brute_input_flag.
 * @dgram: The last socket bound to a port (a datagram service's) the
 *         process read before any of its packets came from another
 *         machine (a reference held), or NULL: a read waits for its
 *         datagram, so whether it served another machine's peer is known
 *         at the crash.
 * @input: Who answers for @sk's input, as it was when it was read.
 * @pipes: Pipes the process wrote to: reading them back is reading its
 *         own input (a self-pipe), not another source.  Compared as
 *         pointers only, never dereferenced.
 * @npipes: Next slot of @pipes to overwrite.
 *
 * A process's state is kept by its thread group leader: every thread, and
 * io_uring's workers, read on the same image's behalf.
 */
struct brute_input_state {
	spinlock_t lock; /* See above. */
	struct sock *sk;
	struct sock *dgram;
	u32 flags;
	struct brute_input input;
	const void *pipes[BRUTE_INPUT_PIPES];
	unsigned int npipes;
};

/**
 * enum brute_input_how - Who answers for a crash's input
 * @BRUTE_INPUT_HOW_NONE: The image read no input from another party.
 * @BRUTE_INPUT_HOW_PEER: One peer's input only: that peer.
 * @BRUTE_INPUT_HOW_RELAYED: One peer's input, seen through a local relay.
 * @BRUTE_INPUT_HOW_AMBIGUOUS: Input from more than one source.
 * @BRUTE_INPUT_HOW_TRUSTED: Input from a trusted peer or relay.
 */
enum brute_input_how {
	BRUTE_INPUT_HOW_NONE,
	BRUTE_INPUT_HOW_PEER,
	BRUTE_INPUT_HOW_RELAYED,
	BRUTE_INPUT_HOW_AMBIGUOUS,
	BRUTE_INPUT_HOW_TRUSTED,
};

/**
 * struct brute_input_result - Who answers for the input of a crash
 * @how: See enum brute_input_how.
 * @served: The process served another party (BRUTE_INPUT_SERVED).
 * @input: With @how PEER or RELAYED, the peer to charge and its endpoint;
 *         with AMBIGUOUS or TRUSTED, the party last read (for the records),
 *         if any (@input.cookie not 0).
 * @lpath: The bound name of a Unix @input.endpoint.
 * @boundary: The boundary a party's input on the connection crosses
 *            (BRUTE_BOUNDARY_NETWORK, _LOCAL or _UNIX), or 0 without one.
 */
struct brute_input_result {
	enum brute_input_how how;
	bool served;
	u32 boundary;
	struct brute_input input;
	char lpath[BRUTE_LPATH_LEN];
};

#ifdef CONFIG_SECURITY_NETWORK

void brute_input_init(struct task_struct *task, u64 clone_flags);
void brute_input_release(struct task_struct *task);
void brute_input_exec(bool gains);
void brute_input_connection(struct sock *sk);
void brute_input_other(void);
void brute_input_served(struct sock *sk, bool remote);
void brute_input_relayed(const struct brute_origin *origin);
void brute_input_wrote(struct sock *sk);
void brute_input_pipe(struct file *file, int mask);
void brute_input_resolve(const struct brute_params *params,
			 struct brute_input_result *res);
bool brute_input_serving(void);
bool brute_input_same_party(const struct brute_input *a,
			    const struct brute_input *b);
void brute_input_identify(struct sock *sk, struct brute_input *id,
			  char *lpath);
const char *brute_input_how_name(enum brute_input_how how);

#else /* CONFIG_SECURITY_NETWORK */

static inline void brute_input_init(struct task_struct *task, u64 clone_flags)
{
}

static inline void brute_input_release(struct task_struct *task)
{
}

static inline void brute_input_exec(bool gains)
{
}

static inline void brute_input_pipe(struct file *file, int mask)
{
}

static inline void brute_input_resolve(const struct brute_params *params,
				       struct brute_input_result *res)
{
	memset(res, 0, sizeof(*res));
}

static inline const char *brute_input_how_name(enum brute_input_how how)
{
	return "none";
}

#endif /* CONFIG_SECURITY_NETWORK */

#endif /* _SECURITY_BRUTE_INPUT_H */
