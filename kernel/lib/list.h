/* Intrusive circular doubly linked list, the kernel's basic container. */
#ifndef FULCRUM_LIB_LIST_H
#define FULCRUM_LIB_LIST_H

#include "lib/compiler.h"
#include "lib/types.h"

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name)     \
	{                        \
		&(name), &(name) \
	}

static inline void list_init(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

static inline void __list_insert(struct list_head *n, struct list_head *prev, struct list_head *next)
{
	n->next = next;
	n->prev = prev;
	prev->next = n;
	next->prev = n;
}

/* Inserts n right after h (stack order). */
static inline void list_add(struct list_head *n, struct list_head *h)
{
	__list_insert(n, h, h->next);
}

/* Inserts n right before h (queue order). */
static inline void list_add_tail(struct list_head *n, struct list_head *h)
{
	__list_insert(n, h->prev, h);
}

static inline void list_del(struct list_head *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n;
	n->prev = n;
}

#define list_entry(ptr, type, member)	  container_of(ptr, type, member)
#define list_first_entry(h, type, member) list_entry((h)->next, type, member)

#define list_for_each(pos, h) for (pos = (h)->next; pos != (h); pos = pos->next)
#define list_for_each_safe(pos, tmp, h) \
	for (pos = (h)->next, tmp = pos->next; pos != (h); pos = tmp, tmp = pos->next)

#endif
