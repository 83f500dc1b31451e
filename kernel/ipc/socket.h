/*
 * AF_UNIX stream sockets made by socketpair(2): two connected endpoints,
 * each with its own receive queue of messages ("skbs") and its own wait
 * queue, following Linux 3.8's af_unix stream paths: a sender is charged
 * each message's true size against its send buffer and sleeps while the
 * charge reaches UNIX_SNDBUF; a reader frees messages as it consumes them,
 * and the sender becomes writable again (and is woken, with the sync hint)
 * once its charge is down to a quarter. The socket calls keep Linux's
 * argument order, checks and errors.
 */
#ifndef FULCRUM_IPC_SOCKET_H
#define FULCRUM_IPC_SOCKET_H

#include "lib/types.h"

struct file;
struct iov_iter;

#define AF_UNSPEC 0
#define AF_UNIX	  1
#define AF_INET	  2
#define AF_INET6  10
#define AF_MAX	  46 /* families are 0 .. AF_MAX - 1 (Linux's NPROTO) */

#define SOCK_STREAM    1
#define SOCK_DGRAM     2
#define SOCK_RAW       3
#define SOCK_RDM       4
#define SOCK_SEQPACKET 5
#define SOCK_PACKET    10
#define SOCK_MAX       11
#define SOCK_TYPE_MASK 0xf
#define SOCK_NONBLOCK  04000	/* O_NONBLOCK */
#define SOCK_CLOEXEC   02000000 /* O_CLOEXEC */

#define MSG_OOB	     0x1
#define MSG_PEEK     0x2
#define MSG_DONTWAIT 0x40
#define MSG_WAITALL  0x100
#define MSG_NOSIGNAL 0x4000

#define SHUT_RD	  0
#define SHUT_WR	  1
#define SHUT_RDWR 2

/*
 * Send buffer of each endpoint: Linux's net.core.wmem_default, 256
 * messages of 256 bytes at their true size (SKB_TRUESIZE(256) = 832).
 */
#define UNIX_SNDBUF	   212992
/* Largest message one send makes (Linux 3.8's SKB_MAX_ALLOC); longer sends are split. */
#define UNIX_SKB_MAX_ALLOC (16384 - 320)

#ifndef SIGPIPE
#define SIGPIPE 13
#endif

/*
 * The bytes a message of len bytes is charged, as Linux 3.8 counts an
 * skb's truesize on x86-64: the data area (len rounded to a cache line,
 * plus 320 bytes of skb_shared_info) as kmalloc rounds it (to a power of
 * two, at least 512 here), plus 256 bytes of struct sk_buff.
 */
u32 unix_skb_truesize(size_t len);

/* A connected pair: sv[0] and sv[1] (one reference each). flags: O_NONBLOCK. 0 or -ENOMEM. */
int unix_stream_pair(struct file **sv0, struct file **sv1, unsigned int flags);

bool file_is_socket(const struct file *f);

/* send/recv on a socket file: flags MSG_*; nonblocking if MSG_DONTWAIT or O_NONBLOCK. */
long unix_stream_send(struct file *f, struct iov_iter *from, int flags);
long unix_stream_recv(struct file *f, struct iov_iter *to, int flags);
/* shutdown on a socket file: how SHUT_*, else -EINVAL. */
long unix_stream_shutdown(struct file *f, int how);

/* Bytes waiting to be read at socket file f. */
long unix_stream_bytes_queued(struct file *f);
/* The send-buffer charge of socket file f (for tests and statistics). */
long unix_stream_wmem(struct file *f);

long sys_socketpair(int family, int type, int protocol, int *usv);
long sys_sendto(int fd, const void *buf, size_t len, int flags, const void *dest_addr, int addrlen);
long sys_recvfrom(int fd, void *buf, size_t len, int flags, void *src_addr, int *addrlen);
long sys_shutdown(int fd, int how);

#endif
