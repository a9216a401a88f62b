// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Network hooks: input from peers, and the bans of peers
 *
 * A hierarchy crosses the network boundary when one of its tasks reads
 * input from a TCP/IP peer that is not on this host, and the Unix boundary
 * when it reads input from the client of a Unix stream connection it
 * accepted that another user runs.  Reads are seen in task context, where
 * the current task is the reader: recvmsg() and read(), splice() and
 * sendfile() from a socket (file_permission), TCP's zero-copy receive
 * (getsockopt).  The hooks that run in softirq context, where current is
 * whatever task was interrupted, only describe sockets, never a task.
 *
 * A connection Brute attributes (an accepted TCP connection from a remote
 * peer, an accepted Unix stream connection) carries its endpoint and peer
 * from the moment it is created; a task that reads from it remembers them
 * as its last input.  A peer banned from an endpoint (peer.c) is refused:
 * its TCP connection requests are dropped, a Unix connect() fails with
 * EPERM, and on the connections it has, packets are dropped and reads
 * fail with EPERM.  None of that costs more than a counter test while no
 * peer is banned.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inetdevice.h>
#include <linux/lsm_hooks.h>
#include <linux/netdevice.h>
#include <linux/net.h>
#include <linux/skbuff.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <linux/timekeeping.h>
#include <linux/user_namespace.h>
#include <net/addrconf.h>
#include <net/inet_connection_sock.h>
#include <net/inet_sock.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/request_sock.h>
#include <net/sock.h>

#include "common.h"
#include "hierarchy.h"
#include "net.h"
#include "peer.h"
#include "setup.h"
#include "task.h"

static struct brute_sock_security *brute_sock(const struct sock *const sk)
{
	return sk->sk_security + brute_blob_sizes.lbs_sock;
}

static bool brute_inet(const struct sock *const sk)
{
	return sk && (sk->sk_family == AF_INET || sk->sk_family == AF_INET6);
}

static bool brute_tcp(const struct sock *const sk)
{
	return brute_inet(sk) && sk->sk_type == SOCK_STREAM &&
	       sk->sk_protocol == IPPROTO_TCP;
}

/* An IPv4-mapped IPv6 address is an IPv4 one. */
static void brute_peer_set_v6(struct brute_peer *const peer,
			      const struct in6_addr *const addr)
{
	memset(peer, 0, sizeof(*peer));
	if (ipv6_addr_v4mapped(addr)) {
		peer->family = AF_INET;
		peer->addr.v4 = addr->s6_addr32[3];
	} else {
		peer->family = AF_INET6;
		peer->addr.v6 = *addr;
	}
}

static void brute_peer_set_v4(struct brute_peer *const peer, __be32 addr)
{
	memset(peer, 0, sizeof(*peer));
	peer->family = AF_INET;
	peer->addr.v4 = addr;
}

/*
 * Is the peer one of this host's own addresses (in its namespace)?  A
 * lookup in the hash of the addresses assigned to its devices, and the
 * loopback range: no route lookup on the accept path (a "local" route of a
 * whole subnet to lo is not seen).
 */
static bool brute_peer_local(struct net *const net,
			     const struct brute_peer *const peer)
{
	bool local;

	if (peer->family == AF_INET) {
		if (ipv4_is_loopback(peer->addr.v4))
			return true;
		rcu_read_lock();
		local = inet_lookup_ifaddr_rcu(net, peer->addr.v4);
		rcu_read_unlock();
		return local;
	}
#if IS_BUILTIN(CONFIG_IPV6)
	if (peer->family == AF_INET6)
		return ipv6_addr_loopback(&peer->addr.v6) ||
		       ipv6_chk_addr(net, &peer->addr.v6, NULL, 0);
#endif
	return peer->family == AF_INET6 && ipv6_addr_loopback(&peer->addr.v6);
}

/*
 * The network namespace of an endpoint, and who made it: a namespace in a
 * user namespace is the doing of the user who created the outermost one,
 * or if that was root, of that container.
 */
static void brute_endpoint_set_net(struct brute_endpoint *const ep,
				   const struct net *const net)
{
	const struct user_namespace *ns = net->user_ns;

	ep->net = net->net_cookie;
	ep->netns = net->ns.inum;
	if (ns == &init_user_ns)
		return;
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	ep->owner = ns->owner;
	if (uid_eq(ns->owner, GLOBAL_ROOT_UID))
		ep->userns = ns->ns.inum;
	ep->owned = true;
}

/* The endpoint of a TCP listener: its namespace, bound address and port. */
static void brute_endpoint_set_listener(struct brute_endpoint *const ep,
					const struct sock *const sk)
{
	memset(ep, 0, sizeof(*ep));
	brute_endpoint_set_net(ep, sock_net(sk));
	ep->family = sk->sk_family;
	ep->port = inet_sk(sk)->inet_num;
	if (sk->sk_family == AF_INET)
		ep->addr.v4 = inet_sk(sk)->inet_rcv_saddr;
#if IS_ENABLED(CONFIG_IPV6)
	else
		ep->addr.v6 = sk->sk_v6_rcv_saddr;
#endif
}

/*
 * A child of a TCP listener is cloned from it (softirq context): it keeps
 * the listener's endpoint.  Any other clone starts with nothing (its blob
 * is allocated zeroed).
 */
static void hook_sk_clone_security(const struct sock *const sk,
				   struct sock *const newsk)
{
	if (brute_tcp(sk) && sk->sk_state == TCP_LISTEN)
		brute_endpoint_set_listener(&brute_sock(newsk)->input.endpoint,
					    sk);
}

/*
 * The connection a listener's child stands for (softirq context): its
 * peer, and whether that peer is remote.  Only a remote peer's input is
 * attributed.
 */
static void hook_inet_csk_clone(struct sock *const newsk,
				const struct request_sock *const req)
{
	struct brute_sock_security *const bs = brute_sock(newsk);
	const struct inet_request_sock *const ireq = inet_rsk(req);
	struct brute_peer peer;

	if (!brute_tcp(newsk) || !bs->input.endpoint.net)
		return;
	if (req->rsk_ops->family == AF_INET)
		brute_peer_set_v4(&peer, ireq->ir_rmt_addr);
#if IS_ENABLED(CONFIG_IPV6)
	else
		brute_peer_set_v6(&peer, &ireq->ir_v6_rmt_addr);
#endif
	if (brute_peer_local(sock_net(newsk), &peer))
		return;
	WRITE_ONCE(bs->remote, true);
	bs->input.peer = peer;
	bs->input.cookie = sock_gen_cookie(newsk);
}

/* A connection this host made was answered from another device. */
static void hook_inet_conn_established(struct sock *const sk,
				       struct sk_buff *const skb)
{
	if (skb->dev && !(skb->dev->flags & IFF_LOOPBACK))
		WRITE_ONCE(brute_sock(sk)->remote, true);
}

/*
 * A connection request (softirq context): a peer banned from the
 * listener's endpoint is dropped before the service sees it.
 */
static int hook_inet_conn_request(const struct sock *const sk,
				  struct sk_buff *const skb,
				  struct request_sock *const req)
{
	struct brute_endpoint endpoint;
	struct brute_peer peer;

	if (!static_branch_unlikely(&brute_peer_bans) || !brute_tcp(sk))
		return 0;
	if (skb->protocol == htons(ETH_P_IP))
		brute_peer_set_v4(&peer, ip_hdr(skb)->saddr);
	else
		brute_peer_set_v6(&peer, &ipv6_hdr(skb)->saddr);
	brute_endpoint_set_listener(&endpoint, sk);
	return brute_peers_refused(&brute_peers, &endpoint, &peer,
				   ktime_get_ns()) ? -EPERM : 0;
}

/*
 * A packet (softirq context): marks the socket of a peer that is not on
 * this host (TCP connections are classified when they are set up); drops
 * the packets of a banned peer's connections.
 */
static int hook_socket_sock_rcv_skb(struct sock *const sk,
				    struct sk_buff *const skb)
{
	struct brute_sock_security *const bs = brute_sock(sk);

	if (sk->sk_protocol != IPPROTO_TCP) {
		if (brute_inet(sk) && !READ_ONCE(bs->remote) && skb->dev &&
		    !(skb->dev->flags & IFF_LOOPBACK))
			WRITE_ONCE(bs->remote, true);
		return 0;
	}
	if (!static_branch_unlikely(&brute_peer_bans) || !bs->input.cookie)
		return 0;
	return brute_peers_refused(&brute_peers, &bs->input.endpoint,
				   &bs->input.peer, ktime_get_ns()) ? -EPERM : 0;
}

/* Who answers for the current task: for a Unix client, its "peer". */
static kuid_t brute_current_principal(void)
{
	const struct brute_hierarchy *const hierarchy =
		brute_task(current)->hierarchy;
	const struct cred *const cred = current_cred();

	if (hierarchy && READ_ONCE(hierarchy->gain))
		return KUIDT_INIT(READ_ONCE(hierarchy->principal.val));
	return brute_principal(cred->user_ns, cred->uid);
}

/*
 * A Unix stream or seqpacket connection (the client's task context, both
 * sockets locked): the accepted socket @newsk gets the listener's endpoint
 * and the client's user as its peer -- the user who answers for the
 * client, as for a set-ID program: a set-user-ID client is the user who
 * ran it.  A banned client is refused.
 */
static int hook_unix_stream_connect(struct sock *const sock,
				    struct sock *const other,
				    struct sock *const newsk)
{
	struct brute_sock_security *const bs = brute_sock(newsk);
	struct brute_input *const input = &bs->input;

	memset(input, 0, sizeof(*input));
	brute_endpoint_set_net(&input->endpoint, sock_net(other));
	input->endpoint.family = AF_UNIX;
	/* The listener is locked and alive: its socket is there. */
	input->endpoint.addr.ino = SOCK_INODE(other->sk_socket)->i_ino;
	input->peer.family = AF_UNIX;
	input->peer.addr.uid = brute_current_principal();
	input->cookie = sock_gen_cookie(newsk);
	if (!static_branch_unlikely(&brute_peer_bans))
		return 0;
	return brute_peers_refused(&brute_peers, &input->endpoint,
				   &input->peer, ktime_get_ns()) ? -EPERM : 0;
}

/* A Unix peer of another user than the reader, and not root. */
static bool brute_unix_other_user(const struct brute_peer *const peer)
{
	return !uid_eq(peer->addr.uid, current_euid()) &&
	       !uid_eq(peer->addr.uid, GLOBAL_ROOT_UID);
}

/*
 * The current task reads input from @sock.  Input from a peer crosses a
 * boundary and, on a connection Brute attributes, becomes the task's last
 * input; a banned peer's input is refused.
 */
static int brute_input_read(struct socket *const sock)
{
	const struct sock *const sk = sock->sk;
	struct brute_task_security *ts;
	struct brute_hierarchy *hierarchy;
	struct brute_sock_security *bs;
	u32 boundary;

	if (!sk)
		return 0;
	bs = brute_sock(sk);
	/* Most sockets: no peer to attribute, none remote. */
	if (!bs->input.cookie && !READ_ONCE(bs->remote))
		return 0;
	ts = brute_task(current);
	hierarchy = ts->hierarchy;
	if (!hierarchy || (current->flags & PF_KTHREAD))
		return 0;
	if (!bs->input.cookie) {
		if (!brute_inet(sk))
			return 0;
		boundary = BRUTE_BOUNDARY_NETWORK;
	} else {
		if (static_branch_unlikely(&brute_peer_bans) &&
		    brute_peers_refused(&brute_peers, &bs->input.endpoint,
					&bs->input.peer, ktime_get_ns()))
			return -EPERM;
		if (bs->input.endpoint.family != AF_UNIX)
			boundary = BRUTE_BOUNDARY_NETWORK;
		else if (brute_unix_other_user(&bs->input.peer))
			boundary = BRUTE_BOUNDARY_UNIX;
		else
			return 0;
		if (ts->input.cookie != bs->input.cookie)
			ts->input = bs->input;
	}
	if (!(READ_ONCE(hierarchy->boundaries) & boundary))
		brute_hierarchy_cross(hierarchy, boundary, current_cred(),
				      current_cred());
	return 0;
}

static int hook_socket_recvmsg(struct socket *const sock,
			       struct msghdr *const msg, const int size,
			       const int flags)
{
	return brute_input_read(sock);
}

/* read(), splice() and sendfile() from a socket check the file. */
static int hook_file_permission(struct file *const file, const int mask)
{
	struct socket *sock;

	if (!(mask & MAY_READ) || !S_ISSOCK(file_inode(file)->i_mode))
		return 0;
	sock = sock_from_file(file);
	return sock ? brute_input_read(sock) : 0;
}

/* TCP's zero-copy receive maps the data without recvmsg(). */
static int hook_socket_getsockopt(struct socket *const sock, const int level,
				  const int optname)
{
	if (level != SOL_TCP || optname != TCP_ZEROCOPY_RECEIVE)
		return 0;
	return brute_input_read(sock);
}

static struct security_hook_list brute_net_hooks[] __ro_after_init = {
	LSM_HOOK_INIT(sk_clone_security, hook_sk_clone_security),
	LSM_HOOK_INIT(inet_csk_clone, hook_inet_csk_clone),
	LSM_HOOK_INIT(inet_conn_established, hook_inet_conn_established),
	LSM_HOOK_INIT(inet_conn_request, hook_inet_conn_request),
	LSM_HOOK_INIT(socket_sock_rcv_skb, hook_socket_sock_rcv_skb),
	LSM_HOOK_INIT(unix_stream_connect, hook_unix_stream_connect),
	LSM_HOOK_INIT(socket_recvmsg, hook_socket_recvmsg),
	LSM_HOOK_INIT(socket_getsockopt, hook_socket_getsockopt),
	LSM_HOOK_INIT(file_permission, hook_file_permission),
};

/**
 * brute_net_add_hooks() - Register the network hooks
 */
__init void brute_net_add_hooks(void)
{
	security_add_hooks(brute_net_hooks, ARRAY_SIZE(brute_net_hooks),
			   &brute_lsmid);
}
