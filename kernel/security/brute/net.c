// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Network hooks: input from peers, and the bans of peers
 *
 * Every way input reaches a process is seen here, in task context, where
 * the current task is the reader: recvmsg() (socket_recvmsg), read(),
 * splice() and sendfile() from a socket (file_permission), TCP's zero-copy
 * receive (getsockopt), reads of named pipes; each once.  io_uring's
 * requests run in the process's own threads or workers and go through the
 * same hooks.  The hooks that run in softirq context, where current is
 * whatever task was interrupted, only describe sockets, never a task.
 *
 * A connection accepted by a listener -- TCP or MPTCP, from a remote
 * address or from a process of this host, or a Unix stream connection --
 * carries its endpoint (the listener) and its peer from the moment it is
 * created: a remote address, or the local user who connected.  Reading it
 * is input from that party (input.c decides who answers for a crash).
 * What a local process writes to a connection to a local service carries
 * the origin of what it relays (a proxy's).  Anything else read -- a
 * datagram, a connection the process made, a named pipe -- is another
 * source.
 *
 * A hierarchy crosses the network boundary when one of its tasks reads
 * input from a peer that is not on this host, the local boundary when it
 * reads a TCP connection from a process of this host of another user (or
 * relaying a peer's input), and the Unix boundary the same way over a Unix
 * stream connection.
 *
 * A peer banned from an endpoint (peer.c) is refused: its TCP connection
 * requests are dropped, a Unix connect() fails with EPERM, and on the
 * connections it has, packets are dropped and reads fail with EPERM.  While
 * no peer is banned, none of that costs more than a static key; while bans
 * exist elsewhere, a listener or a connection that found no ban of its own
 * does not look again before the next ban.
 */

#include <linux/cred.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inetdevice.h>
#include <linux/lsm_hooks.h>
#include <linux/magic.h>
#include <linux/netdevice.h>
#include <linux/net.h>
#include <linux/random.h>
#include <linux/siphash.h>
#include <linux/skbuff.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <linux/timekeeping.h>
#include <linux/un.h>
#include <linux/user_namespace.h>
#include <net/addrconf.h>
#include <net/af_unix.h>
#include <net/inet_connection_sock.h>
#include <net/inet_hashtables.h>
#include <net/inet_sock.h>
#include <net/inet6_hashtables.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/request_sock.h>
#include <net/sock.h>

#include "common.h"
#include "detect.h"
#include "hierarchy.h"
#include "input.h"
#include "net.h"
#include "peer.h"
#include "setup.h"
#include "sysctl.h"
#include "task.h"
#include "trust.h"

/* Bound names of Unix listeners are hashed into endpoint keys. */
static siphash_key_t brute_unix_key __ro_after_init;

/* The origin of what was relayed from several sources. */
struct brute_origin brute_origin_mixed;

static bool brute_inet(const struct sock *const sk)
{
	return sk && (sk->sk_family == AF_INET || sk->sk_family == AF_INET6);
}

/* TCP, and MPTCP: a client that chooses MPTCP is served the same. */
static bool brute_inet_stream(const struct sock *const sk)
{
	return brute_inet(sk) && sk->sk_type == SOCK_STREAM &&
	       (sk->sk_protocol == IPPROTO_TCP ||
		sk->sk_protocol == IPPROTO_MPTCP);
}

/*
 * Whether what @sk receives may come from another machine.  An inet
 * socket's packets tell (the device they came in on); Unix, netlink, the
 * kernel's crypto and key sockets carry only this host's; every other
 * family -- packet sockets, VSOCK, TIPC, CAN, Bluetooth and the rest --
 * carries what another machine (or a virtual machine's host) sent.
 */
static bool brute_family_remote(const int family)
{
	switch (family) {
	case AF_UNIX:
	case AF_NETLINK:
	case AF_ALG:
	case AF_KEY:
		return false;
	default:
		return true;
	}
}

static bool brute_sock_remote(const struct sock *const sk,
			      const struct brute_sock_security *const bs)
{
	if (brute_inet(sk))
		return READ_ONCE(bs->remote);
	return brute_family_remote(sk->sk_family);
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

static void brute_peer_set_uid(struct brute_peer *const peer, kuid_t uid)
{
	memset(peer, 0, sizeof(*peer));
	peer->family = AF_UNIX;
	peer->addr.uid = uid;
}

/*
 * Is the peer one of this host's own addresses (in its namespace)?  A
 * lookup in the hash of the addresses assigned to its devices, and the
 * loopback range: no route lookup (a "local" route of a whole subnet to lo
 * is not seen).
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
 * Who the current task is to Brute: its user (the user who ran a
 * privileged image, for a privileged image), and who answers for that user
 * as the maker of an endpoint (the creator of the outermost user namespace
 * but the initial one; for root, that container).
 */
static void brute_current_party(kuid_t *party, kuid_t *owner, u32 *userns,
				bool *plain)
{
	struct brute_hierarchy *const hierarchy = brute_task(current)->hierarchy;
	const struct cred *const cred = current_cred();
	const struct user_namespace *ns = cred->user_ns;
	bool gain = false;

	*party = cred->uid;
	*owner = cred->uid;
	*userns = 0;
	if (hierarchy && READ_ONCE(hierarchy->gain)) {
		spin_lock(&hierarchy->lock);
		gain = hierarchy->gain;
		if (gain) {
			*party = hierarchy->owner;
			*owner = hierarchy->principal;
		}
		spin_unlock(&hierarchy->lock);
	}
	/* Capabilities in a user namespace are no privilege on the host. */
	*plain = !gain && (ns != &init_user_ns ||
			   brute_cred_is_user(cred, cred->uid));
	if (gain || ns == &init_user_ns)
		return;
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	*owner = ns->owner;
	if (uid_eq(ns->owner, GLOBAL_ROOT_UID))
		*userns = ns->ns.inum;
}

/* A socket made in task context answers to its maker. */
static void brute_sock_set_maker(struct brute_sock_security *const bs)
{
	bool plain;

	brute_current_party(&bs->party, &bs->owner, &bs->userns, &plain);
	if (plain)
		bs->flags |= BRUTE_SOCK_PLAIN;
	else
		bs->flags &= ~BRUTE_SOCK_PLAIN;
}

/*
 * The network namespace of an endpoint, and who made the endpoint: in a
 * network namespace of a user namespace, the user who created the
 * outermost one (for root, that container), as its own; else the maker of
 * the listener @ls, as its own if it held no privilege.
 */
static void brute_endpoint_set_owner(struct brute_endpoint *const ep,
				     const struct net *const net,
				     const struct brute_sock_security *ls)
{
	const struct user_namespace *ns = net->user_ns;

	ep->net = net->net_cookie;
	ep->netns = net->ns.inum;
	if (ns == &init_user_ns) {
		ep->owner = ls->owner;
		ep->userns = ls->userns;
		ep->plain = !!(ls->flags & BRUTE_SOCK_PLAIN);
		return;
	}
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	ep->owner = ns->owner;
	if (uid_eq(ns->owner, GLOBAL_ROOT_UID))
		ep->userns = ns->ns.inum;
	ep->plain = true;
	ep->owned = true;
}

/* The endpoint of a TCP or MPTCP listener: its namespace, address, port. */
static void brute_endpoint_set_listener(struct brute_endpoint *const ep,
					const struct sock *const sk)
{
	memset(ep, 0, sizeof(*ep));
	brute_endpoint_set_owner(ep, sock_net(sk), brute_sock(sk));
	ep->family = sk->sk_family;
	ep->port = inet_sk(sk)->inet_num;
	if (sk->sk_family == AF_INET)
		ep->addr.v4 = inet_sk(sk)->inet_rcv_saddr;
#if IS_ENABLED(CONFIG_IPV6)
	else
		ep->addr.v6 = sk->sk_v6_rcv_saddr;
#endif
}

/* The endpoint of a Unix listener: the name it is bound to. */
static void brute_endpoint_set_unix(struct brute_endpoint *const ep,
				    const struct sock *const sk)
{
	const struct unix_address *addr;

	memset(ep, 0, sizeof(*ep));
	brute_endpoint_set_owner(ep, sock_net(sk), brute_sock(sk));
	ep->family = AF_UNIX;
	/* Paired with the release in unix_bind(). */
	addr = smp_load_acquire(&unix_sk(sk)->addr);
	if (addr)
		ep->addr.path = siphash(addr->name, addr->len, &brute_unix_key);
}

/* A socket made by a task answers to it; a kernel socket to nobody. */
static int hook_socket_post_create(struct socket *const sock, const int family,
				   const int type, const int protocol,
				   const int kern)
{
	if (!kern && sock->sk)
		brute_sock_set_maker(brute_sock(sock->sk));
	return 0;
}

/* The sockets of a pair are the ends of a local connection. */
static int hook_socket_socketpair(struct socket *const socka,
				  struct socket *const sockb)
{
	brute_sock(socka->sk)->flags |= BRUTE_SOCK_RELAY;
	brute_sock(sockb->sk)->flags |= BRUTE_SOCK_RELAY;
	return 0;
}

/* An MPTCP subflow answers as the MPTCP socket it belongs to. */
static int hook_mptcp_add_subflow(struct sock *const sk, struct sock *const ssk)
{
	const struct brute_sock_security *const ms = brute_sock(sk);
	struct brute_sock_security *const ss = brute_sock(ssk);

	ss->party = ms->party;
	ss->owner = ms->owner;
	ss->userns = ms->userns;
	ss->flags = ms->flags & BRUTE_SOCK_PLAIN;
	return 0;
}

/*
 * A socket bound to a port waits for anyone's datagrams: a privileged
 * image reading other machines' on it serves them (a DNS, QUIC or syslog
 * server), and never answers to its user for a crash.  bind() with port
 * 0, or none (the kernel picks a free port: a client's socket), does not
 * make one; in a family without ports (packet sockets, VSOCK, TIPC) any
 * bind() does.  Unix and netlink sockets carry this host's input only.
 */
static bool brute_bind_listens(const struct sockaddr *const address,
			       const int addrlen)
{
	const struct sockaddr_in6 *sin6;
	const struct sockaddr_in *sin;

	if (addrlen < (int)sizeof(address->sa_family))
		return false;
	switch (address->sa_family) {
	case AF_INET:
		sin = (const struct sockaddr_in *)address;
		return addrlen >= (int)sizeof(*sin) && sin->sin_port;
	case AF_INET6:
		sin6 = (const struct sockaddr_in6 *)address;
		return addrlen >= SIN6_LEN_RFC2133 && sin6->sin6_port;
	default:
		return brute_family_remote(address->sa_family);
	}
}

static int hook_socket_bind(struct socket *const sock,
			    struct sockaddr *const address, const int addrlen)
{
	if (sock->sk && brute_bind_listens(address, addrlen))
		WRITE_ONCE(brute_sock(sock->sk)->bound, 1);
	return 0;
}

/*
 * The current task connects @sock: it answers for what it writes there.
 * A TCP connection to this host is a local connection, whose writes are
 * tracked (a proxy relays its clients' input over it).
 */
static int hook_socket_connect(struct socket *const sock,
			       struct sockaddr *const address,
			       const int addrlen)
{
	struct sock *const sk = sock->sk;
	struct brute_sock_security *bs;
	struct brute_peer dest;

	if (!sk || !brute_inet_stream(sk))
		return 0;
	bs = brute_sock(sk);
	brute_sock_set_maker(bs);
	if (address->sa_family == AF_INET &&
	    addrlen >= (int)sizeof(struct sockaddr_in))
		brute_peer_set_v4(&dest,
				  ((struct sockaddr_in *)address)->sin_addr.s_addr);
	else if (address->sa_family == AF_INET6 &&
		 addrlen >= SIN6_LEN_RFC2133)
		brute_peer_set_v6(&dest,
				  &((struct sockaddr_in6 *)address)->sin6_addr);
	else
		return 0;
	if (brute_peer_local(sock_net(sk), &dest))
		bs->flags |= BRUTE_SOCK_RELAY;
	return 0;
}

/*
 * A child of a TCP or MPTCP listener is cloned from it (softirq context):
 * it keeps the listener's endpoint and answers as the listener.  Any other
 * clone starts with nothing (its blob is allocated zeroed).
 */
static void hook_sk_clone_security(const struct sock *const sk,
				   struct sock *const newsk)
{
	const struct brute_sock_security *const ls = brute_sock(sk);
	struct brute_sock_security *const bs = brute_sock(newsk);

	if (!brute_inet_stream(sk) || sk->sk_state != TCP_LISTEN)
		return;
	brute_endpoint_set_listener(&bs->input.endpoint, sk);
	bs->layout = READ_ONCE(ls->layout);
	bs->party = ls->party;
	bs->owner = ls->owner;
	bs->userns = ls->userns;
	bs->flags = ls->flags & BRUTE_SOCK_PLAIN;
}

/*
 * The client's socket of a connection from this host (softirq context),
 * in its connecting or established state, with a reference; or NULL.
 */
static struct sock *brute_local_client(struct net *const net,
				       const struct request_sock *const req)
{
	const struct inet_request_sock *const ireq = inet_rsk(req);
	struct inet_hashinfo *const hashinfo = net->ipv4.tcp_death_row.hashinfo;
	struct sock *client = NULL;

	if (req->rsk_ops->family == AF_INET)
		client = __inet_lookup_established(net, hashinfo,
						   ireq->ir_loc_addr,
						   htons(ireq->ir_num),
						   ireq->ir_rmt_addr,
						   ntohs(ireq->ir_rmt_port),
						   ireq->ir_iif, 0);
#if IS_BUILTIN(CONFIG_IPV6)
	else
		client = __inet6_lookup_established(net, hashinfo,
						    &ireq->ir_v6_loc_addr,
						    htons(ireq->ir_num),
						    &ireq->ir_v6_rmt_addr,
						    ntohs(ireq->ir_rmt_port),
						    ireq->ir_iif, 0);
#endif
	if (client && !sk_fullsock(client)) {
		sock_gen_put(client);
		client = NULL;
	}
	return client;
}

/*
 * The connection a listener's child stands for (softirq context): its
 * peer -- a remote address, or for a connection from this host the user
 * whose task connected it, whose socket the child keeps to follow what it
 * relays.  The MPTCP socket of an MPTCP connection gets its first
 * subflow's.
 */
static void hook_inet_csk_clone(struct sock *const newsk,
				const struct request_sock *const req)
{
	struct brute_sock_security *const bs = brute_sock(newsk);
	const struct inet_request_sock *const ireq = inet_rsk(req);
	struct brute_peer peer;
	struct sock *client;

	if (!brute_inet_stream(newsk) || !bs->input.endpoint.net)
		return;
	if (req->rsk_ops->family == AF_INET)
		brute_peer_set_v4(&peer, ireq->ir_rmt_addr);
#if IS_ENABLED(CONFIG_IPV6)
	else
		brute_peer_set_v6(&peer, &ireq->ir_v6_rmt_addr);
#endif
	if (!brute_peer_local(sock_net(newsk), &peer)) {
		WRITE_ONCE(bs->remote, true);
		bs->input.peer = peer;
		bs->input.kind = BRUTE_INPUT_REMOTE;
	} else {
		client = brute_local_client(sock_net(newsk), req);
		brute_peer_set_uid(&bs->input.peer, client ?
				   brute_sock(client)->party : INVALID_UID);
		bs->client = client;
		bs->input.kind = BRUTE_INPUT_LOCAL;
		bs->flags |= BRUTE_SOCK_LOCAL;
	}
	bs->input.cookie = sock_gen_cookie(newsk);
}

/* What a socket holds goes with it (any context). */
static void hook_sk_free_security(struct sock *const sk)
{
	struct brute_sock_security *const bs = brute_sock(sk);
	struct brute_origin *origin;

	if (bs->client) {
		sock_put(bs->client);
		bs->client = NULL;
	}
	origin = rcu_dereference_protected(bs->origin, true);
	if (origin && origin != &brute_origin_mixed)
		kfree_rcu(origin, rcu);
	RCU_INIT_POINTER(bs->origin, NULL);
}

/* A connection this host made was answered from another device. */
static void hook_inet_conn_established(struct sock *const sk,
				       struct sk_buff *const skb)
{
	if (skb->dev && !(skb->dev->flags & IFF_LOOPBACK))
		WRITE_ONCE(brute_sock(sk)->remote, true);
}

/*
 * Does a ban refuse the peer of @input at its endpoint?  Never a peer the
 * operator trusts there (root, a proxy): a ban made before it was trusted,
 * or of a prefix that holds it, refuses the others only, and counts only
 * their refusals.
 */
static bool brute_refused(const struct brute_endpoint *const endpoint,
			  const u64 layout, const struct brute_peer *const peer)
{
	struct brute_params params;
	struct brute_input input;

	if (!brute_peers_would_refuse(&brute_peers, endpoint, layout, peer,
				      ktime_get_ns()))
		return false;
	brute_params_get(&params);
	memset(&input, 0, sizeof(input));
	input.endpoint = *endpoint;
	input.peer = *peer;
	if (brute_trust_peer(&input, params.trusted_uid_max, false))
		return false;
	/* Counted in the ban, if it still holds. */
	return brute_peers_refused(&brute_peers, endpoint, layout, peer,
				   ktime_get_ns());
}

/*
 * Does a ban refuse the peer of an accepted connection?  A connection that
 * found no ban (in kill mode: in the others none refuses) does not look
 * again before the next ban is made.
 */
static bool brute_sock_refused(struct brute_sock_security *const bs)
{
	const u32 gen = brute_peers_ban_gen();

	if (READ_ONCE(bs->ban_ok) && READ_ONCE(bs->ban_gen) == gen)
		return false;
	if (brute_mode() != BRUTE_MODE_KILL)
		return false;
	if (brute_refused(&bs->input.endpoint, bs->layout, &bs->input.peer))
		return true;
	WRITE_ONCE(bs->ban_gen, gen);
	WRITE_ONCE(bs->ban_ok, 1);
	return false;
}

/*
 * The client's socket of a connection request @skb from this host to the
 * listener @sk (softirq context), with a reference; or NULL.
 */
static struct sock *brute_local_requester(const struct sock *const sk,
					  const struct sk_buff *const skb)
{
	struct net *const net = sock_net(sk);
	struct inet_hashinfo *const hashinfo = net->ipv4.tcp_death_row.hashinfo;
	const struct tcphdr *const th = tcp_hdr(skb);
	struct sock *client = NULL;

	if (skb->protocol == htons(ETH_P_IP))
		client = __inet_lookup_established(net, hashinfo,
						   ip_hdr(skb)->daddr, th->dest,
						   ip_hdr(skb)->saddr,
						   ntohs(th->source),
						   skb->skb_iif, 0);
#if IS_BUILTIN(CONFIG_IPV6)
	else
		client = __inet6_lookup_established(net, hashinfo,
						    &ipv6_hdr(skb)->daddr,
						    th->dest,
						    &ipv6_hdr(skb)->saddr,
						    ntohs(th->source),
						    skb->skb_iif, 0);
#endif
	if (client && !sk_fullsock(client)) {
		sock_gen_put(client);
		client = NULL;
	}
	return client;
}

/*
 * A connection request (softirq context): a peer banned from the
 * listener's endpoint is dropped before the service sees it.  A listener
 * whose share of the peer table holds no ban does not look again before
 * the next ban is made.  A request from this host is its user's.
 */
static int hook_inet_conn_request(const struct sock *const sk,
				  struct sk_buff *const skb,
				  struct request_sock *const req)
{
	struct brute_sock_security *const ls = brute_sock(sk);
	struct brute_endpoint endpoint;
	struct brute_peer peer;
	struct sock *client;
	u64 layout;
	u32 gen;

	if (!static_branch_unlikely(&brute_peer_bans) || !brute_inet_stream(sk))
		return 0;
	gen = brute_peers_ban_gen();
	if (READ_ONCE(ls->ban_ok) && READ_ONCE(ls->ban_gen) == gen)
		return 0;
	brute_endpoint_set_listener(&endpoint, sk);
	layout = READ_ONCE(ls->layout);
	if (!brute_peers_endpoint_banned(&brute_peers, &endpoint, layout)) {
		WRITE_ONCE(ls->ban_gen, gen);
		WRITE_ONCE(ls->ban_ok, 1);
		return 0;
	}
	if (skb->protocol == htons(ETH_P_IP))
		brute_peer_set_v4(&peer, ip_hdr(skb)->saddr);
	else
		brute_peer_set_v6(&peer, &ipv6_hdr(skb)->saddr);
	if (brute_peer_local(sock_net(sk), &peer)) {
		client = brute_local_requester(sk, skb);
		if (!client)
			return 0;
		brute_peer_set_uid(&peer, brute_sock(client)->party);
		sock_put(client);
	}
	return brute_refused(&endpoint, layout, &peer) ? -EPERM : 0;
}

/*
 * A packet (softirq context): marks the socket of a peer that is not on
 * this host (TCP connections are classified when they are set up); drops
 * the packets of a banned peer's connections.
 */
static int hook_socket_sock_rcv_skb(struct sock *const sk,
				    struct sk_buff *const skb)
{
	struct brute_sock_security *bs;

	if (sk->sk_protocol == IPPROTO_TCP) {
		if (!static_branch_unlikely(&brute_peer_bans))
			return 0;
		bs = brute_sock(sk);
		if (!bs->input.cookie)
			return 0;
		return brute_sock_refused(bs) ? -EPERM : 0;
	}
	bs = brute_sock(sk);
	if (brute_inet(sk) && !READ_ONCE(bs->remote) && skb->dev &&
	    !(skb->dev->flags & IFF_LOOPBACK))
		WRITE_ONCE(bs->remote, true);
	return 0;
}

/*
 * A Unix stream or seqpacket connection (the client's task context, both
 * sockets locked): the server's end @newsk gets the listener's endpoint and
 * the client's user as its peer -- the user who answers for the client, as
 * for a set-ID program: a set-user-ID client is the user who ran it.  Both
 * ends track what is written to them.  A banned client is refused.
 */
static int hook_unix_stream_connect(struct sock *const sock,
				    struct sock *const other,
				    struct sock *const newsk)
{
	const struct brute_sock_security *const ls = brute_sock(other);
	struct brute_sock_security *const bs = brute_sock(newsk);
	struct brute_sock_security *const cs = brute_sock(sock);
	struct brute_input *const input = &bs->input;

	brute_sock_set_maker(cs);
	cs->flags |= BRUTE_SOCK_RELAY;
	memset(input, 0, sizeof(*input));
	brute_endpoint_set_unix(&input->endpoint, other);
	/* The listener is locked and alive: its socket is there. */
	input->lino = SOCK_INODE(other->sk_socket)->i_ino;
	brute_peer_set_uid(&input->peer, cs->party);
	input->kind = BRUTE_INPUT_LOCAL;
	input->cookie = sock_gen_cookie(newsk);
	bs->party = ls->party;
	bs->owner = ls->owner;
	bs->userns = ls->userns;
	bs->layout = READ_ONCE(ls->layout);
	bs->flags = BRUTE_SOCK_LOCAL | BRUTE_SOCK_RELAY |
		    (ls->flags & BRUTE_SOCK_PLAIN);
	if (!static_branch_unlikely(&brute_peer_bans))
		return 0;
	return brute_refused(&input->endpoint, bs->layout, &input->peer) ?
	       -EPERM : 0;
}

/*
 * The common reads, inline: the current task leads its thread group (its
 * own blob holds the process's input state, alive while it runs: no RCU
 * needed, see brute_state()) and serves @sk already, or with @sk NULL,
 * serves nothing.  Anything else takes input.c's full path.
 */
static bool brute_sock_leader_serves(const struct sock *const sk)
{
	struct task_struct *const task = current;

	return task == READ_ONCE(task->group_leader) &&
	       READ_ONCE(brute_task(task)->state.sk) == sk;
}

/*
 * A read from a Unix socket that is not a connection a party answers for:
 * the client's end of a connection, a pair, datagrams.  What the other end
 * relayed is that origin's; what root or the reader's own user wrote
 * themselves is the process's own; anything else is another source.
 */
static void brute_unix_read(struct sock *const sk)
{
	const struct brute_sock_security *ws;
	const struct brute_origin *origin;
	struct sock *writer;

	if (brute_sock_leader_serves(NULL) || !brute_input_serving())
		return;
	unix_state_lock(sk);
	writer = unix_peer(sk);
	if (writer)
		sock_hold(writer);
	unix_state_unlock(sk);
	if (!writer) {
		brute_input_other();
		return;
	}
	ws = brute_sock(writer);
	rcu_read_lock();
	origin = rcu_dereference(ws->origin);
	if (origin)
		brute_input_relayed(origin);
	else if (!uid_eq(ws->party, GLOBAL_ROOT_UID) &&
		 !uid_eq(ws->party, current_euid()))
		brute_input_other();
	rcu_read_unlock();
	sock_put(writer);
}

/*
 * The current task reads input from @sk.  A connection a party answers for
 * is that party's input (its ban refuses it); anything else is another
 * source.  Input from a remote peer crosses the network boundary; a local
 * connection's party is known once its client wrote: the local and Unix
 * boundaries are crossed when a crash follows (task.c).
 */
static noinline int brute_sock_read_slow(struct sock *const sk)
{
	struct brute_sock_security *const bs = brute_sock(sk);
	struct brute_hierarchy *hierarchy;
	u32 boundary = 0;
	bool remote;

	hierarchy = brute_task(current)->hierarchy;
	if (!hierarchy || (current->flags & PF_KTHREAD))
		return 0;
	if (bs->input.cookie) {
		if (static_branch_unlikely(&brute_peer_bans) &&
		    brute_sock_refused(bs))
			return -EPERM;
		if (!brute_sock_leader_serves(sk))
			brute_input_connection(sk);
		if (bs->input.kind == BRUTE_INPUT_REMOTE)
			boundary = BRUTE_BOUNDARY_NETWORK;
		if (boundary && !READ_ONCE(bs->served)) {
			WRITE_ONCE(bs->served, 1);
			brute_peers_serve(&brute_peers, &bs->input.endpoint,
					  &bs->input.peer, ktime_get_ns());
		}
	} else if (sk->sk_family == AF_UNIX) {
		brute_unix_read(sk);
	} else if (sk->sk_family != AF_NETLINK) {
		if (!brute_sock_leader_serves(NULL) && brute_input_serving())
			brute_input_other();
		remote = brute_sock_remote(sk, bs);
		/* A datagram service's socket: it serves other machines. */
		if (READ_ONCE(bs->bound))
			brute_input_served(sk, remote);
		if (remote)
			boundary = BRUTE_BOUNDARY_NETWORK;
	}
	if (boundary && !(READ_ONCE(hierarchy->boundaries) & boundary))
		brute_hierarchy_cross(hierarchy, boundary, current_cred(),
				      current_cred());
	return 0;
}

/*
 * A read of @sk, as brute_sock_read_slow() sees it; the common reads, that
 * change nothing, are told apart inline: no peer is banned anywhere, the
 * current task leads its thread group (its own blob holds the process's
 * input state, alive while it runs: see brute_state()), and it reads the
 * connection it serves already (a server), or serves nothing and reads
 * anything but a connection a party answers for or a Unix socket (a
 * client); and the network boundary, if the read crosses it, is crossed
 * already.
 */
static int brute_sock_read(struct sock *const sk)
{
	struct task_struct *const task = current;
	struct brute_task_security *const ts = brute_task(task);
	const struct brute_hierarchy *const hierarchy = ts->hierarchy;
	const struct brute_sock_security *const bs = brute_sock(sk);
	const struct sock *serves;
	bool remote;

	if (!hierarchy)
		return 0;
	brute_task_resumed(ts);
	if (static_branch_unlikely(&brute_peer_bans) ||
	    task != READ_ONCE(task->group_leader))
		return brute_sock_read_slow(sk);
	serves = READ_ONCE(ts->state.sk);
	if (bs->input.cookie) {
		if (serves != sk)
			return brute_sock_read_slow(sk);
		remote = bs->input.kind == BRUTE_INPUT_REMOTE;
	} else {
		if (serves || sk->sk_family == AF_UNIX)
			return brute_sock_read_slow(sk);
		/* A datagram service not yet known to serve another machine. */
		if (READ_ONCE(bs->bound) &&
		    !(READ_ONCE(ts->state.flags) & BRUTE_INPUT_SERVED) &&
		    (READ_ONCE(ts->state.dgram) != sk ||
		     brute_sock_remote(sk, bs)))
			return brute_sock_read_slow(sk);
		remote = brute_sock_remote(sk, bs);
	}
	if (remote && !(READ_ONCE(hierarchy->boundaries) &
			BRUTE_BOUNDARY_NETWORK))
		return brute_sock_read_slow(sk);
	return 0;
}

/*
 * recv(), recvfrom(), recvmsg() and recvmmsg(), and io_uring's receives.  A
 * read() or readv() of a socket (and io_uring's and AIO's reads) comes here
 * through sock_read_iter(), the only caller that passes an I/O control
 * block, after rw_verify_area() ran file_permission on it: that read is
 * attributed there, once.
 */
static int hook_socket_recvmsg(struct socket *const sock,
			       struct msghdr *const msg, const int size,
			       const int flags)
{
	if (msg->msg_iocb || !sock->sk)
		return 0;
	return brute_sock_read(sock->sk);
}

/*
 * A task listens or accepts on @sock: the layout of its hierarchy serves
 * the endpoint, whose connections a ban of a peer by that layout refuses
 * (peer.c).
 */
static void brute_sock_set_layout(struct socket *const sock)
{
	const struct brute_hierarchy *const hierarchy =
		brute_task(current)->hierarchy;

	if (sock->sk && hierarchy && !(current->flags & PF_KTHREAD))
		WRITE_ONCE(brute_sock(sock->sk)->layout, hierarchy->id);
}

static int hook_socket_listen(struct socket *const sock, const int backlog)
{
	brute_sock_set_layout(sock);
	return 0;
}

static int hook_socket_accept(struct socket *const sock,
			      struct socket *const newsock)
{
	brute_sock_set_layout(sock);
	return 0;
}

/* What a proxy writes to a local connection carries its origin. */
static int hook_socket_sendmsg(struct socket *const sock,
			       struct msghdr *const msg, const int size)
{
	struct sock *const sk = sock->sk;

	if (sk && (brute_sock(sk)->flags & BRUTE_SOCK_RELAY) &&
	    brute_task(current)->hierarchy && !(current->flags & PF_KTHREAD))
		brute_input_wrote(sk);
	return 0;
}

/*
 * read(), readv(), splice() and sendfile() from a socket check the file
 * (rw_verify_area()), and so do reads and writes of pipes.
 */
static int hook_file_permission(struct file *const file, const int mask)
{
	const umode_t mode = file_inode(file)->i_mode;
	struct socket *sock;

	if (S_ISFIFO(mode)) {
		if (mask & MAY_READ)
			brute_task_resumed(brute_task(current));
		/* Anonymous pipes are a process family's own (input.c). */
		if ((mask & (MAY_READ | MAY_WRITE)) &&
		    file_inode(file)->i_sb->s_magic != PIPEFS_MAGIC &&
		    !(current->flags & PF_KTHREAD))
			brute_input_pipe(file, mask);
		return 0;
	}
	if (!(mask & MAY_READ) || !S_ISSOCK(mode))
		return 0;
	sock = sock_from_file(file);
	return sock && sock->sk ? brute_sock_read(sock->sk) : 0;
}

/* TCP's zero-copy receive maps the data without recvmsg(). */
static int hook_socket_getsockopt(struct socket *const sock, const int level,
				  const int optname)
{
	if (level != SOL_TCP || optname != TCP_ZEROCOPY_RECEIVE || !sock->sk)
		return 0;
	return brute_sock_read(sock->sk);
}

static struct security_hook_list brute_net_hooks[] __ro_after_init = {
	LSM_HOOK_INIT(socket_post_create, hook_socket_post_create),
	LSM_HOOK_INIT(socket_socketpair, hook_socket_socketpair),
	LSM_HOOK_INIT(socket_bind, hook_socket_bind),
	LSM_HOOK_INIT(socket_connect, hook_socket_connect),
	LSM_HOOK_INIT(mptcp_add_subflow, hook_mptcp_add_subflow),
	LSM_HOOK_INIT(sk_clone_security, hook_sk_clone_security),
	LSM_HOOK_INIT(sk_free_security, hook_sk_free_security),
	LSM_HOOK_INIT(inet_csk_clone, hook_inet_csk_clone),
	LSM_HOOK_INIT(inet_conn_established, hook_inet_conn_established),
	LSM_HOOK_INIT(inet_conn_request, hook_inet_conn_request),
	LSM_HOOK_INIT(socket_sock_rcv_skb, hook_socket_sock_rcv_skb),
	LSM_HOOK_INIT(unix_stream_connect, hook_unix_stream_connect),
	LSM_HOOK_INIT(socket_listen, hook_socket_listen),
	LSM_HOOK_INIT(socket_accept, hook_socket_accept),
	LSM_HOOK_INIT(socket_recvmsg, hook_socket_recvmsg),
	LSM_HOOK_INIT(socket_sendmsg, hook_socket_sendmsg),
	LSM_HOOK_INIT(socket_getsockopt, hook_socket_getsockopt),
	LSM_HOOK_INIT(file_permission, hook_file_permission),
};

#ifdef CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST

#include <kunit/test.h>

/*
 * A service's datagram socket is bound to a port; a client's is bound to
 * none (port 0), and a short address binds nothing Brute reads.
 */
static void test_net_bind_listens(struct kunit *test)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr sa = { .sa_family = AF_UNIX };

	KUNIT_EXPECT_FALSE(test, brute_bind_listens((struct sockaddr *)&sin,
						    sizeof(sin)));
	sin.sin_port = htons(53);
	KUNIT_EXPECT_TRUE(test, brute_bind_listens((struct sockaddr *)&sin,
						   sizeof(sin)));
	KUNIT_EXPECT_FALSE(test, brute_bind_listens((struct sockaddr *)&sin,
						    sizeof(sin) - 12));
	KUNIT_EXPECT_FALSE(test, brute_bind_listens((struct sockaddr *)&sin6,
						    sizeof(sin6)));
	sin6.sin6_port = htons(443);
	KUNIT_EXPECT_TRUE(test, brute_bind_listens((struct sockaddr *)&sin6,
						   SIN6_LEN_RFC2133));
	KUNIT_EXPECT_FALSE(test, brute_bind_listens(&sa, sizeof(sa)));
	sa.sa_family = AF_NETLINK;
	KUNIT_EXPECT_FALSE(test, brute_bind_listens(&sa, sizeof(sa)));
	sa.sa_family = AF_PACKET;
	KUNIT_EXPECT_TRUE(test, brute_bind_listens(&sa, sizeof(sa)));
	KUNIT_EXPECT_FALSE(test, brute_bind_listens(&sa, 1));
}

/* Only the host's own families carry no other machine's input. */
static void test_net_family_remote(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, brute_family_remote(AF_UNIX));
	KUNIT_EXPECT_FALSE(test, brute_family_remote(AF_NETLINK));
	KUNIT_EXPECT_FALSE(test, brute_family_remote(AF_ALG));
	KUNIT_EXPECT_TRUE(test, brute_family_remote(AF_PACKET));
	KUNIT_EXPECT_TRUE(test, brute_family_remote(AF_VSOCK));
	KUNIT_EXPECT_TRUE(test, brute_family_remote(AF_TIPC));
}

static struct kunit_case test_net_cases[] = {
	KUNIT_CASE(test_net_bind_listens),
	KUNIT_CASE(test_net_family_remote),
	{}
};

static struct kunit_suite test_net_suite = {
	.name = "brute_net",
	.test_cases = test_net_cases,
};

kunit_test_suite(test_net_suite);

#endif /* CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST */

/**
 * brute_net_add_hooks() - Register the network hooks
 */
__init void brute_net_add_hooks(void)
{
	get_random_bytes(&brute_unix_key, sizeof(brute_unix_key));
	security_add_hooks(brute_net_hooks, ARRAY_SIZE(brute_net_hooks),
			   &brute_lsmid);
}
