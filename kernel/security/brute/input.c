// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Input: what a process read, and who may answer for a crash
 *
 * A crash is charged to a peer only when that peer's input is the only
 * candidate.  Each process keeps what it read since its image started (a
 * fork inherits its parent's): the last connection whose input a party
 * answers for, who that party is, and whether the process read from any
 * other source after it.  Every thread of the process, and io_uring's
 * workers, read on the image's behalf: the state is the thread group
 * leader's.
 *
 * A connection's party (brute_input_identify()):
 *
 * - an accepted TCP or MPTCP connection from a remote address: that
 *   address, at the listener's endpoint;
 * - an accepted Unix stream connection, or TCP connection from this host:
 *   the user at the other end -- or, when that user's process wrote what it
 *   relayed of one peer's input only (a proxy in front of the service),
 *   that peer at the proxy's endpoint: the proxy's connection carries its
 *   origin (&brute_sock_security.origin), which every write to it updates.
 *   What a user relays from an endpoint they made themselves without
 *   privilege is theirs.  Input of the reader's own user or of root that
 *   relays nothing is nobody's: the service's own.
 *
 * Another source (brute_input_other()) is a read from anything else after
 * a party's input: a connection of another party while the first is still
 * open, a datagram, a connection the process made, a named pipe it did not
 * write itself.  It makes the input ambiguous: nobody is charged.  A process that
 * closed its connection and reads a new one serves a new request: its state
 * starts again from that one (a worker serving clients one after the
 * other).  Input left behind by an earlier request that crashes a later
 * one is charged to the later client: Brute.rst says so.
 *
 * At the crash (brute_input_resolve()), the connection's party is looked
 * at again (a proxy may have relayed another peer since), and a trusted
 * party (trust.c) is never charged.
 */

#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/llist.h>
#include <linux/magic.h>
#include <linux/pipe_fs_i.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <net/af_unix.h>
#include <net/sock.h>

#include "common.h"
#include "hierarchy.h"
#include "input.h"
#include "net.h"
#include "trust.h"
#include "task.h"

/*
 * The state of the current process.  Under RCU: a thread of a process
 * whose leader is being replaced by an execve() may still read the old
 * leader, whose blob goes after a grace period.
 */
static struct brute_input_state *brute_state(void)
{
	return &brute_task(READ_ONCE(current->group_leader))->state;
}

/**
 * brute_input_same_party() - Tell whether two inputs are one party's
 * @a: An input.
 * @b: Another.
 *
 * The same peer at the same endpoint, whether it sent the input itself or a
 * proxy relayed it; what a proxy relayed of several sources is that proxy's
 * mixed input, never one peer's.
 *
 * Return: True if they are.
 */
bool brute_input_same_party(const struct brute_input *a,
			    const struct brute_input *b)
{
	const bool mixed_a = a->kind == BRUTE_INPUT_MIXED;
	const bool mixed_b = b->kind == BRUTE_INPUT_MIXED;

	if (mixed_a != mixed_b)
		return false;
	return !memcmp(&a->endpoint, &b->endpoint, sizeof(a->endpoint)) &&
	       !memcmp(&a->peer, &b->peer, sizeof(a->peer));
}

/* The name a Unix socket is bound to: "@name" if abstract, "?" if none. */
static void brute_unix_lpath(const struct sock *sk, char *buf)
{
	const struct unix_address *addr;
	size_t len;

	/* Paired with the release in unix_bind() and unix_stream_connect(). */
	addr = smp_load_acquire(&unix_sk(sk)->addr);
	if (!addr || addr->len <= offsetof(struct sockaddr_un, sun_path)) {
		strscpy(buf, "?", BRUTE_LPATH_LEN);
		return;
	}
	len = addr->len - offsetof(struct sockaddr_un, sun_path);
	if (addr->name->sun_path[0]) {
		strscpy(buf, addr->name->sun_path,
			min_t(size_t, len + 1, BRUTE_LPATH_LEN));
		return;
	}
	buf[0] = '@';
	memcpy(buf + 1, addr->name->sun_path + 1,
	       min_t(size_t, len - 1, BRUTE_LPATH_LEN - 2));
	buf[min_t(size_t, len, BRUTE_LPATH_LEN - 1)] = '\0';
}

/* The other end of a local connection: the client, whose writes it reads. */
static struct sock *brute_local_writer(struct sock *sk)
{
	if (sk->sk_family == AF_UNIX)
		return unix_peer(sk);
	return brute_sock(sk)->client;
}

/**
 * brute_input_identify() - Tell whose input a connection carries now
 * @sk: An accepted connection (&brute_sock_security.input.cookie not 0),
 *      kept alive by the caller.
 * @id: Its party: @sk's input, or the origin its local client relayed.
 * @lpath: If not NULL, where to write the bound name of a Unix endpoint of
 *         @id (BRUTE_LPATH_LEN bytes).
 *
 * A local client's own input is BRUTE_INPUT_LOCAL; BRUTE_INPUT_NONE when
 * that client is root or the reader's own effective user (the service's
 * own input, nobody's to answer for).  Its origin (what it relayed) and its
 * own input together are BRUTE_INPUT_MIXED.  A local client that wrote
 * nothing yet is BRUTE_INPUT_PENDING: a read begins before its input
 * arrives.
 *
 * Context: Task context, under rcu_read_lock() (the client's origin).
 */
void brute_input_identify(struct sock *sk, struct brute_input *id,
			  char *lpath)
{
	struct brute_sock_security *const bs = brute_sock(sk);
	const struct brute_sock_security *ws;
	const struct brute_origin *origin;
	struct sock *writer;
	kuid_t party;
	u8 own;

	*id = bs->input;
	if (lpath) {
		if (sk->sk_family == AF_UNIX)
			brute_unix_lpath(sk, lpath);
		else
			strscpy(lpath, "?", BRUTE_LPATH_LEN);
	}
	if (!(bs->flags & BRUTE_SOCK_LOCAL))
		return;
	party = id->peer.addr.uid;
	writer = brute_local_writer(sk);
	if (!writer || !uid_valid(party)) {
		/* The client went before it could be looked up. */
		id->kind = BRUTE_INPUT_MIXED;
		id->relay = INVALID_UID;
		return;
	}
	ws = brute_sock(writer);
	origin = rcu_dereference(ws->origin);
	own = READ_ONCE(ws->flags) & BRUTE_SOCK_OWN;
	if (origin == &brute_origin_mixed || (origin && own)) {
		id->kind = BRUTE_INPUT_MIXED;
		id->relay = party;
		return;
	}
	/* What a user relays from an endpoint of their own is theirs. */
	if (origin && !(origin->input.endpoint.plain &&
			uid_eq(origin->input.endpoint.owner, ws->owner))) {
		id->endpoint = origin->input.endpoint;
		id->peer = origin->input.peer;
		id->lino = origin->input.lino;
		id->relay = party;
		id->kind = BRUTE_INPUT_RELAYED;
		if (lpath)
			strscpy(lpath, origin->lpath, BRUTE_LPATH_LEN);
		return;
	}
	/*
	 * A client whose writes are not followed (a TCP Fast Open connect,
	 * an MPTCP subflow, whose MPTCP socket takes the writes) wrote its
	 * own input, whatever it was.
	 */
	if (!(READ_ONCE(ws->flags) & BRUTE_SOCK_RELAY))
		own = true;
	if (!origin && !own)
		id->kind = BRUTE_INPUT_PENDING;
	else if (!origin && (uid_eq(party, GLOBAL_ROOT_UID) ||
			     uid_eq(party, current_euid())))
		id->kind = BRUTE_INPUT_NONE;
}

/*
 * Is the input the user's own, for an image the user runs with a privilege
 * gained: from an endpoint they made themselves without privilege, or sent
 * by the user?  Such input does not make the image a service.
 */
static bool brute_input_gainer_own(const struct brute_input *id)
{
	struct brute_hierarchy *const hierarchy = brute_task(current)->hierarchy;
	kuid_t owner, principal;

	if (!hierarchy || !READ_ONCE(hierarchy->gain))
		return false;
	spin_lock(&hierarchy->lock);
	owner = hierarchy->owner;
	principal = hierarchy->principal;
	spin_unlock(&hierarchy->lock);
	if (id->endpoint.plain && uid_eq(id->endpoint.owner, principal))
		return true;
	return (id->kind == BRUTE_INPUT_LOCAL ||
		id->kind == BRUTE_INPUT_PENDING) &&
	       uid_eq(id->peer.addr.uid, owner);
}

/* Release a socket reference from any context. */
static LLIST_HEAD(brute_input_puts);

struct brute_input_put {
	struct llist_node node;
	struct sock *sk;
};

static void brute_input_put_work(struct work_struct *work)
{
	struct llist_node *list = llist_del_all(&brute_input_puts);
	struct brute_input_put *put, *next;

	llist_for_each_entry_safe(put, next, list, node) {
		sock_put(put->sk);
		kfree(put);
	}
}

static DECLARE_WORK(brute_input_put_wq, brute_input_put_work);

static void brute_input_sock_put(struct sock *sk)
{
	struct brute_input_put *put;

	if (!sk)
		return;
	if (in_task()) {
		sock_put(sk);
		return;
	}
	/* Freeing a Unix socket from softirq context is better avoided. */
	put = kmalloc(sizeof(*put), GFP_ATOMIC | __GFP_NOWARN);
	if (!put) {
		sock_put(sk);
		return;
	}
	put->sk = sk;
	if (llist_add(&put->node, &brute_input_puts))
		schedule_work(&brute_input_put_wq);
}

/* A party's input: someone answers for it (or is trusted, or mixed it). */
static bool brute_input_party(const struct brute_input *id)
{
	return id->kind != BRUTE_INPUT_NONE && id->kind != BRUTE_INPUT_PENDING;
}

/**
 * brute_input_connection() - The current task reads an accepted connection
 * @sk: The connection (&brute_sock_security.input.cookie not 0), kept
 *      alive by the caller.
 *
 * Its party becomes the process's input if the process had none, or
 * finished with its previous connection (closed it); the same party's
 * input keeps it; another party's, while the previous connection is open,
 * makes it ambiguous.  A local connection whose client wrote nothing yet
 * (the read waits for it) is judged at the crash.
 *
 * Context: Task context.
 */
void brute_input_connection(struct sock *sk)
{
	struct brute_input id, prev;
	struct brute_input_state *state;
	struct sock *old = NULL;

	rcu_read_lock();
	state = brute_state();
	/* Most reads: the connection the process is serving. */
	if (READ_ONCE(state->sk) == sk) {
		rcu_read_unlock();
		return;
	}
	brute_input_identify(sk, &id, NULL);
	if (id.kind == BRUTE_INPUT_NONE || brute_input_gainer_own(&id)) {
		rcu_read_unlock();
		return;
	}
	spin_lock(&state->lock);
	if (state->sk != sk) {
		old = state->sk;
		sock_hold(sk);
		state->sk = sk;
		prev = state->input;
		if (old && prev.kind == BRUTE_INPUT_PENDING)
			brute_input_identify(old, &prev, NULL);
		if (!old || sock_flag(old, SOCK_DEAD)) {
			/* A new request. */
			state->input = id;
			state->flags &= ~BRUTE_INPUT_AMBIGUOUS;
		} else if (!brute_input_party(&id)) {
			/* Nothing of its own yet: the crash will tell. */
			state->input = prev;
		} else if (!brute_input_party(&prev)) {
			state->input = id;
		} else if (!brute_input_same_party(&prev, &id)) {
			state->input = id;
			state->flags |= BRUTE_INPUT_AMBIGUOUS;
		}
	}
	state->flags |= BRUTE_INPUT_SERVED;
	spin_unlock(&state->lock);
	rcu_read_unlock();
	brute_input_sock_put(old);
}

/**
 * brute_input_serving() - Tell whether another source would matter now
 *
 * Context: Task context.
 * Return: True if the current process serves a party and its input is not
 * ambiguous yet: a read from another source makes it so.
 */
bool brute_input_serving(void)
{
	struct brute_input_state *state;
	bool serving;

	rcu_read_lock();
	state = brute_state();
	serving = READ_ONCE(state->sk) &&
		  !(READ_ONCE(state->flags) & BRUTE_INPUT_AMBIGUOUS);
	rcu_read_unlock();
	return serving;
}

/**
 * brute_input_other() - The current task reads from another source
 *
 * After a party's input, the input is ambiguous from now on (until the
 * process serves a new connection).
 *
 * Context: Task context.
 */
void brute_input_other(void)
{
	struct brute_input_state *state;

	rcu_read_lock();
	state = brute_state();
	if (READ_ONCE(state->sk) &&
	    !(READ_ONCE(state->flags) & BRUTE_INPUT_AMBIGUOUS)) {
		spin_lock(&state->lock);
		if (state->sk)
			state->flags |= BRUTE_INPUT_AMBIGUOUS;
		spin_unlock(&state->lock);
	}
	rcu_read_unlock();
}

/**
 * brute_input_served() - The current task reads a socket bound to a port
 * @sk: The socket (&brute_sock_security.bound), kept alive by the caller.
 * @remote: A packet from another machine reached it already.
 *
 * A datagram from another machine makes the process a datagram service,
 * whose crashes are never its user's (nobody but the backstop answers for
 * a datagram's: its source cannot be told).  What the host's own processes
 * send it -- its own user, over loopback -- does not: the socket is kept,
 * and looked at again at the crash (the read waits for its datagram).
 *
 * Context: Task context.
 */
void brute_input_served(struct sock *sk, const bool remote)
{
	struct brute_input_state *state;
	struct sock *old = NULL;

	rcu_read_lock();
	state = brute_state();
	if (!(READ_ONCE(state->flags) & BRUTE_INPUT_SERVED) &&
	    (remote || READ_ONCE(state->dgram) != sk)) {
		spin_lock(&state->lock);
		if (remote) {
			state->flags |= BRUTE_INPUT_SERVED;
			old = state->dgram;
			WRITE_ONCE(state->dgram, NULL);
		} else if (state->dgram != sk) {
			old = state->dgram;
			sock_hold(sk);
			WRITE_ONCE(state->dgram, sk);
		}
		spin_unlock(&state->lock);
	}
	rcu_read_unlock();
	brute_input_sock_put(old);
}

/* Whether the datagram service's socket @sk got another machine's packet. */
static bool brute_input_dgram_served(const struct sock *sk)
{
	return sk && READ_ONCE(brute_sock(sk)->remote);
}

/**
 * brute_input_relayed() - The current task reads what a process relayed
 * @origin: What the writers of the connection relayed (not NULL).
 *
 * A reply to the process carrying the input of the party it serves (the
 * service behind a proxy answering the proxy) is that party's; anything
 * else is another source.
 *
 * Context: Task context, under rcu_read_lock().
 */
void brute_input_relayed(const struct brute_origin *origin)
{
	struct brute_input_state *state;
	bool same;

	state = brute_state();
	if (!READ_ONCE(state->sk))
		return;
	spin_lock(&state->lock);
	same = origin != &brute_origin_mixed &&
	       !(state->flags & BRUTE_INPUT_AMBIGUOUS) &&
	       brute_input_same_party(&state->input, &origin->input);
	if (state->sk && !same)
		state->flags |= BRUTE_INPUT_AMBIGUOUS;
	spin_unlock(&state->lock);
}

/**
 * brute_input_wrote() - The current task writes to a tracked connection
 * @sk: An end of a local connection (BRUTE_SOCK_RELAY).
 *
 * What the process writes is what it relays of the party it serves: the
 * connection's origin becomes that party, and mixed once its writers
 * relayed more than one party, or ambiguous input.  Writes of a process
 * that serves nobody are its own (BRUTE_SOCK_OWN).
 *
 * Context: Task context.
 */
void brute_input_wrote(struct sock *sk)
{
	struct brute_sock_security *const bs = brute_sock(sk);
	struct brute_origin *cur, *new, *prev;
	struct brute_input_state *state;
	struct brute_input input;
	struct sock *served;
	u32 flags;

	rcu_read_lock();
	state = brute_state();
	if (!READ_ONCE(state->sk)) {
		rcu_read_unlock();
		/* The writer's own input. */
		if (!(READ_ONCE(bs->flags) & BRUTE_SOCK_OWN))
			WRITE_ONCE(bs->flags, bs->flags | BRUTE_SOCK_OWN);
		return;
	}
	cur = rcu_dereference(bs->origin);
	if (cur == &brute_origin_mixed) {
		rcu_read_unlock();
		return;
	}
	spin_lock(&state->lock);
	served = state->sk;
	if (served)
		sock_hold(served);
	flags = state->flags;
	input = state->input;
	spin_unlock(&state->lock);
	rcu_read_unlock();
	if (!served)
		return;

	if (flags & BRUTE_INPUT_AMBIGUOUS) {
		new = &brute_origin_mixed;
	} else if (cur) {
		/* Under RCU again: @cur is freed after a grace period. */
		rcu_read_lock();
		cur = rcu_dereference(bs->origin);
		new = cur && cur != &brute_origin_mixed &&
		      brute_input_same_party(&cur->input, &input) ?
		      cur : &brute_origin_mixed;
		rcu_read_unlock();
	} else {
		new = kmalloc(sizeof(*new), GFP_NOWAIT | __GFP_NOWARN);
		if (new) {
			struct brute_input now;

			/* The name of the endpoint where the input arrived. */
			rcu_read_lock();
			brute_input_identify(served, &now, new->lpath);
			rcu_read_unlock();
			new->input = input;
		} else {
			new = &brute_origin_mixed;
		}
	}
	brute_input_sock_put(served);
	if (new == cur)
		return;
	prev = cmpxchg((struct brute_origin __force **)&bs->origin, cur, new);
	if (prev != cur) {
		/* Another writer changed it meanwhile: more than one party. */
		if (new != &brute_origin_mixed)
			kfree(new);
		prev = xchg((struct brute_origin __force **)&bs->origin,
			    &brute_origin_mixed);
	}
	if (prev && prev != &brute_origin_mixed)
		kfree_rcu(prev, rcu);
}

/**
 * brute_input_pipe() - The current task reads or writes a named pipe
 * @file: The file (a FIFO; nothing else is looked at).
 * @mask: MAY_READ or MAY_WRITE.
 *
 * A named pipe may be written by anyone its permissions let open it:
 * reading one is another source, unless the process wrote to it itself
 * (a self-pipe).  An anonymous pipe joins a process to its own family --
 * they were made together and inherited (a service splicing a connection
 * through one, a handler's output) -- and is none.
 *
 * Context: Task context.
 */
void brute_input_pipe(struct file *file, int mask)
{
	struct pipe_inode_info *const pipe = get_pipe_info(file, false);
	struct brute_input_state *state;
	unsigned int i;
	bool own = false;

	if (!pipe || file_inode(file)->i_sb->s_magic == PIPEFS_MAGIC)
		return;
	rcu_read_lock();
	state = brute_state();
	for (i = 0; i < BRUTE_INPUT_PIPES; i++)
		if (READ_ONCE(state->pipes[i]) == pipe)
			own = true;
	if (mask & MAY_WRITE) {
		if (!own) {
			spin_lock(&state->lock);
			state->pipes[state->npipes] = pipe;
			state->npipes = (state->npipes + 1) % BRUTE_INPUT_PIPES;
			spin_unlock(&state->lock);
		}
	} else if (!own && READ_ONCE(state->sk) &&
		   !(READ_ONCE(state->flags) & BRUTE_INPUT_AMBIGUOUS)) {
		spin_lock(&state->lock);
		if (state->sk)
			state->flags |= BRUTE_INPUT_AMBIGUOUS;
		spin_unlock(&state->lock);
	}
	rcu_read_unlock();
}

/**
 * brute_input_init() - Give a new task its input state
 * @task: The new task.
 * @clone_flags: How it was created.
 *
 * A new process starts with what its parent process read (a fork shares
 * its parent's memory image, and what is in it); a new thread uses its
 * process's.
 *
 * Context: Task context (the parent's).
 */
void brute_input_init(struct task_struct *task, u64 clone_flags)
{
	struct brute_input_state *const state = &brute_task(task)->state;
	struct brute_input_state *parent;

	memset(state, 0, sizeof(*state));
	spin_lock_init(&state->lock);
	if (clone_flags & CLONE_THREAD)
		return;
	rcu_read_lock();
	parent = brute_state();
	spin_lock(&parent->lock);
	state->sk = parent->sk;
	if (state->sk)
		sock_hold(state->sk);
	state->dgram = parent->dgram;
	if (state->dgram)
		sock_hold(state->dgram);
	state->flags = parent->flags;
	state->input = parent->input;
	spin_unlock(&parent->lock);
	rcu_read_unlock();
}

/**
 * brute_input_release() - Drop what a task's input state holds
 * @task: A task that goes (its last reference).
 *
 * Context: Any, softirq included.
 */
void brute_input_release(struct task_struct *task)
{
	struct brute_input_state *const state = &brute_task(task)->state;

	/*
	 * Nobody else uses it any more: its threads are gone, and readers
	 * that found it as their leader's did so a grace period ago.  No
	 * lock: this may run in softirq context, where the task context
	 * users of such locks would deadlock.
	 */
	brute_input_sock_put(xchg(&state->sk, NULL));
	brute_input_sock_put(xchg(&state->dgram, NULL));
}

/**
 * brute_input_exec() - The current process starts a new image
 * @gains: The new image gains a privilege of its own (brute_exec_gain()).
 *
 * What the old image read is not the new one's: the state starts afresh.
 * But a serving image's helper that gains nothing itself (a CGI program
 * fed the request on a pipe) serves the same parties: it stays a service.
 *
 * Context: Task context, the execve() committing (current is the leader).
 */
void brute_input_exec(const bool gains)
{
	struct brute_input_state *const state = &brute_task(current)->state;
	struct sock *sk, *dgram;

	spin_lock(&state->lock);
	sk = state->sk;
	state->sk = NULL;
	dgram = state->dgram;
	WRITE_ONCE(state->dgram, NULL);
	if (brute_input_dgram_served(dgram))
		state->flags |= BRUTE_INPUT_SERVED;
	state->flags &= gains ? 0 : BRUTE_INPUT_SERVED;
	memset(&state->input, 0, sizeof(state->input));
	memset(state->pipes, 0, sizeof(state->pipes));
	state->npipes = 0;
	spin_unlock(&state->lock);
	brute_input_sock_put(sk);
	brute_input_sock_put(dgram);
}

/**
 * brute_input_resolve() - Tell who answers for the input of a crash
 * @params: Detection parameters (trusted_uid_max).
 * @res: The answer.
 *
 * The party of the connection the process read last, if nothing else was
 * read since and that connection still carries that party's input (a
 * proxy may have relayed another peer on it since): a peer, directly or
 * through a proxy.  What a proxy relayed of several sources is that
 * proxy's to answer for, unless it is trusted.  A trusted party is never
 * charged.
 *
 * Context: Task context: the crashing task.
 */
void brute_input_resolve(const struct brute_params *params,
			 struct brute_input_result *res)
{
	struct brute_input_state *state;
	struct brute_input now;
	struct sock *sk;
	u32 flags;

	memset(res, 0, sizeof(*res));
	strscpy(res->lpath, "?", sizeof(res->lpath));
	rcu_read_lock();
	state = brute_state();
	spin_lock(&state->lock);
	sk = state->sk;
	if (sk)
		sock_hold(sk);
	flags = state->flags;
	res->input = state->input;
	res->served = (flags & BRUTE_INPUT_SERVED) ||
		      brute_input_dgram_served(state->dgram);
	spin_unlock(&state->lock);
	rcu_read_unlock();

	if (!sk) {
		res->how = BRUTE_INPUT_HOW_NONE;
		memset(&res->input, 0, sizeof(res->input));
		return;
	}
	rcu_read_lock();
	brute_input_identify(sk, &now, res->lpath);
	rcu_read_unlock();
	/* The boundary a party's input on that connection crosses. */
	if (sk->sk_family == AF_UNIX)
		res->boundary = BRUTE_BOUNDARY_UNIX;
	else if (now.kind != BRUTE_INPUT_REMOTE)
		res->boundary = BRUTE_BOUNDARY_LOCAL;
	else
		res->boundary = BRUTE_BOUNDARY_NETWORK;
	brute_input_sock_put(sk);

	if (flags & BRUTE_INPUT_AMBIGUOUS) {
		res->how = BRUTE_INPUT_HOW_AMBIGUOUS;
		return;
	}
	if (!brute_input_party(&now)) {
		/* The connection sent nothing of a party's since. */
		if (!brute_input_party(&res->input)) {
			res->how = BRUTE_INPUT_HOW_NONE;
			res->boundary = 0;
			memset(&res->input, 0, sizeof(res->input));
			return;
		}
		now = res->input;
	} else if (brute_input_party(&res->input) &&
		   !brute_input_same_party(&res->input, &now) &&
		   now.kind != BRUTE_INPUT_MIXED) {
		/*
		 * The connection's party changed since it was read: its own
		 * input, then a peer's it relayed (ambiguous); a peer's, then
		 * another's (it mixes them: its own doing below).
		 */
		res->how = BRUTE_INPUT_HOW_AMBIGUOUS;
		res->input = now;
		return;
	}
	res->input = now;
	if (now.kind == BRUTE_INPUT_MIXED) {
		/* The proxy relayed several sources: it answers, or nobody. */
		if (!uid_valid(now.relay) ||
		    brute_trust_peer(&now, params->trusted_uid_max, true)) {
			res->how = BRUTE_INPUT_HOW_TRUSTED;
			return;
		}
		res->input.kind = BRUTE_INPUT_LOCAL;
		res->how = BRUTE_INPUT_HOW_PEER;
		return;
	}
	if (brute_trust_peer(&now, params->trusted_uid_max, true)) {
		res->how = BRUTE_INPUT_HOW_TRUSTED;
		return;
	}
	res->how = now.kind == BRUTE_INPUT_RELAYED ? BRUTE_INPUT_HOW_RELAYED :
						     BRUTE_INPUT_HOW_PEER;
}

static const char *const brute_input_how_names[] = {
	[BRUTE_INPUT_HOW_NONE] = "none",
	[BRUTE_INPUT_HOW_PEER] = "peer",
	[BRUTE_INPUT_HOW_RELAYED] = "relayed",
	[BRUTE_INPUT_HOW_AMBIGUOUS] = "ambiguous",
	[BRUTE_INPUT_HOW_TRUSTED] = "trusted",
};

/**
 * brute_input_how_name() - Name how a crash's input is answered for
 * @how: Enum brute_input_how.
 *
 * Return: The value of the records' input= field.
 */
const char *brute_input_how_name(enum brute_input_how how)
{
	return how < ARRAY_SIZE(brute_input_how_names) ?
	       brute_input_how_names[how] : "none";
}

#ifdef CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST

#include <kunit/test.h>

static struct brute_input test_party(u8 kind, u32 addr, u16 port)
{
	struct brute_input input;

	memset(&input, 0, sizeof(input));
	input.cookie = 1;
	input.kind = kind;
	input.endpoint.netns = 4026531840U;
	input.endpoint.family = AF_INET;
	input.endpoint.port = port;
	input.peer.family = AF_INET;
	input.peer.addr.v4 = htonl(addr);
	return input;
}

/*
 * One party is one peer at one endpoint, whether a proxy relayed its input
 * or not; what a proxy mixed is never one peer's.
 */
static void test_input_same_party(struct kunit *test)
{
	struct brute_input a = test_party(BRUTE_INPUT_REMOTE, 0x0a000205, 80);
	struct brute_input b = test_party(BRUTE_INPUT_RELAYED, 0x0a000205, 80);
	struct brute_input c = test_party(BRUTE_INPUT_REMOTE, 0x0a000206, 80);
	struct brute_input d = test_party(BRUTE_INPUT_REMOTE, 0x0a000205, 443);
	struct brute_input m = test_party(BRUTE_INPUT_MIXED, 0x0a000205, 80);

	b.relay = KUIDT_INIT(33);
	b.cookie = 2;
	KUNIT_EXPECT_TRUE(test, brute_input_same_party(&a, &b));
	KUNIT_EXPECT_FALSE(test, brute_input_same_party(&a, &c));
	KUNIT_EXPECT_FALSE(test, brute_input_same_party(&a, &d));
	KUNIT_EXPECT_FALSE(test, brute_input_same_party(&a, &m));
	KUNIT_EXPECT_TRUE(test, brute_input_same_party(&m, &m));
}

static void test_input_how_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, "none", brute_input_how_name(BRUTE_INPUT_HOW_NONE));
	KUNIT_EXPECT_STREQ(test, "relayed",
			   brute_input_how_name(BRUTE_INPUT_HOW_RELAYED));
	KUNIT_EXPECT_STREQ(test, "trusted",
			   brute_input_how_name(BRUTE_INPUT_HOW_TRUSTED));
	KUNIT_EXPECT_STREQ(test, "none", brute_input_how_name(42));
}

static struct kunit_case test_input_cases[] = {
	KUNIT_CASE(test_input_same_party),
	KUNIT_CASE(test_input_how_names),
	{}
};

static struct kunit_suite test_input_suite = {
	.name = "brute_input",
	.test_cases = test_input_cases,
};

kunit_test_suite(test_input_suite);

#endif /* CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST */
