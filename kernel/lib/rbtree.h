/*
 * Intrusive red-black tree: the ordered container under CFS's timeline
 * (cfs_rq.tasks_timeline, keyed by vruntime, leftmost cached), optionally
 * augmented with a per-subtree value (EEVDF's). No allocation and no
 * locking here; the caller embeds the nodes and holds its lock.
 */
#ifndef FULCRUM_LIB_RBTREE_H
#define FULCRUM_LIB_RBTREE_H

#include "lib/compiler.h"
#include "lib/types.h"

/*
 * A node keeps its parent pointer and its colour in one word, parent_color:
 * nodes are at least 4-byte aligned, so bit 0 of the parent's address is
 * always zero and holds the colour instead (RB_RED 0, RB_BLACK 1). The root's
 * parent is NULL. A node that is its own parent is in no tree (RB_CLEAR_NODE).
 * That saves a word in every sched_entity, at the price of masking on reads.
 */
struct rb_node {
	unsigned long parent_color;
	struct rb_node *left, *right;
};

_Static_assert(_Alignof(struct rb_node) >= 4, "parent_color needs the low bits of a node address");

#define RB_RED	      0UL
#define RB_BLACK      1UL
#define RB_COLOR_MASK 3UL

struct rb_root {
	struct rb_node *node;
};

/* A tree that also remembers its first node, so rb_first_cached() is O(1). */
struct rb_root_cached {
	struct rb_root root;
	struct rb_node *leftmost;
};

#define RB_ROOT	       ((struct rb_root){ NULL })
#define RB_ROOT_CACHED ((struct rb_root_cached){ { NULL }, NULL })

#define rb_entry(ptr, type, member) container_of(ptr, type, member)
/* rb_entry() that passes NULL through: for the result of rb_first() and friends. */
#define rb_entry_safe(ptr, type, member)                                    \
	({                                                                  \
		struct rb_node *__rb_ptr = (ptr);                           \
		__rb_ptr ? rb_entry(__rb_ptr, type, member) : (type *)NULL; \
	})

#define RB_EMPTY_ROOT(root) ((root)->node == NULL)
/* True for a node that is not in any tree: cleared, or erased since. */
#define RB_EMPTY_NODE(n)    ((n)->parent_color == (unsigned long)(n))
#define RB_CLEAR_NODE(n)    ((n)->parent_color = (unsigned long)(n))

static inline struct rb_node *rb_parent(const struct rb_node *n)
{
	return (struct rb_node *)(n->parent_color & ~RB_COLOR_MASK);
}

static inline bool rb_is_black(const struct rb_node *n)
{
	return n->parent_color & RB_BLACK;
}

static inline bool rb_is_red(const struct rb_node *n)
{
	return !rb_is_black(n);
}

/*
 * Links a new node where the caller's descent ended: *link is the NULL child
 * slot of parent (or the root slot, parent NULL). The node starts red; the
 * caller must then call rb_insert_color() or rb_insert_color_cached().
 */
static inline void rb_link_node(struct rb_node *node, struct rb_node *parent, struct rb_node **link)
{
	node->parent_color = (unsigned long)parent;
	node->left = NULL;
	node->right = NULL;
	*link = node;
}

/* Restores the red-black rules after rb_link_node(); O(log n), at most two rotations. */
void rb_insert_color(struct rb_node *node, struct rb_root *root);
/* As rb_insert_color(); leftmost says the caller's descent never went right. */
void rb_insert_color_cached(struct rb_node *node, struct rb_root_cached *root, bool leftmost);

/* Unlinks node and rebalances, O(log n); node is RB_EMPTY_NODE() afterwards. */
void rb_erase(struct rb_node *node, struct rb_root *root);
void rb_erase_cached(struct rb_node *node, struct rb_root_cached *root);

/* In-order navigation; NULL past either end, or for a node in no tree. */
struct rb_node *rb_first(const struct rb_root *root);
struct rb_node *rb_last(const struct rb_root *root);
struct rb_node *rb_next(const struct rb_node *node);
struct rb_node *rb_prev(const struct rb_node *node);

static inline struct rb_node *rb_first_cached(const struct rb_root_cached *root)
{
	return root->leftmost;
}

/*
 * Inserts node in less order with a descent of its own. A node equal to
 * existing ones goes after them (to their right), so equal keys leave in the
 * order they came: CFS relies on that for tasks of equal vruntime. Inline so
 * that the comparison inlines into each caller.
 */
static inline void rb_add(struct rb_node *node, struct rb_root *root,
			  bool (*less)(const struct rb_node *, const struct rb_node *))
{
	struct rb_node **link = &root->node, *parent = NULL;

	while (*link) {
		parent = *link;
		link = less(node, parent) ? &parent->left : &parent->right;
	}
	rb_link_node(node, parent, link);
	rb_insert_color(node, root);
}

/* rb_add() on a cached tree; returns true if node is now the leftmost. */
static inline bool rb_add_cached(struct rb_node *node, struct rb_root_cached *root,
				 bool (*less)(const struct rb_node *, const struct rb_node *))
{
	struct rb_node **link = &root->root.node, *parent = NULL;
	bool leftmost = true;

	while (*link) {
		parent = *link;
		if (less(node, parent)) {
			link = &parent->left;
		} else {
			link = &parent->right;
			leftmost = false;
		}
	}
	rb_link_node(node, parent, link);
	rb_insert_color_cached(node, root, leftmost);
	return leftmost;
}

/*
 * Augmented trees: every node also caches a value computed over its whole
 * subtree (EEVDF keeps the smallest vruntime below each node, so that the
 * search for an eligible entity can skip subtrees that hold none). The
 * tree code calls update() on a node whenever its subtree may have changed:
 * after linking or unlinking below it, and on both nodes of a rotation.
 * update() recomputes the node's value from its own data and its children's
 * cached values (either child may be NULL) and returns true if the value
 * changed. Colour changes never change a subtree, so they call nothing.
 *
 * Every operation on an augmented tree must go through the _augmented
 * functions with the same callbacks: a plain rb_insert_color() or
 * rb_erase() would leave stale values above the nodes it moved.
 */
struct rb_augment {
	bool (*update)(struct rb_node *node);
};

/* rb_insert_color() that keeps the augmented values from node to the root. */
void rb_insert_augmented(struct rb_node *node, struct rb_root *root, const struct rb_augment *aug);
void rb_insert_augmented_cached(struct rb_node *node, struct rb_root_cached *root, bool leftmost,
				const struct rb_augment *aug);
/* rb_erase() that keeps the augmented values of every node left in the tree. */
void rb_erase_augmented(struct rb_node *node, struct rb_root *root, const struct rb_augment *aug);
void rb_erase_augmented_cached(struct rb_node *node, struct rb_root_cached *root,
			       const struct rb_augment *aug);

/*
 * node's own data changed in place (its position in the order did not):
 * recomputes node and then its ancestors, stopping at the first whose
 * value comes out unchanged.
 */
void rb_augment_propagate(struct rb_node *node, const struct rb_augment *aug);

/* rb_add_cached() on an augmented tree; returns true if node is now the leftmost. */
static inline bool rb_add_augmented_cached(struct rb_node *node, struct rb_root_cached *root,
					   bool (*less)(const struct rb_node *,
							const struct rb_node *),
					   const struct rb_augment *aug)
{
	struct rb_node **link = &root->root.node, *parent = NULL;
	bool leftmost = true;

	while (*link) {
		parent = *link;
		if (less(node, parent)) {
			link = &parent->left;
		} else {
			link = &parent->right;
			leftmost = false;
		}
	}
	rb_link_node(node, parent, link);
	rb_insert_augmented_cached(node, root, leftmost, aug);
	return leftmost;
}

/* What rb_verify() found wrong; 0 means nothing. */
enum rb_verify_error {
	RB_BAD_ROOT_COLOR = -1,	  /* the root is red */
	RB_BAD_RED_RED = -2,	  /* a red node has a red child */
	RB_BAD_BLACK_HEIGHT = -3, /* two root-to-leaf paths differ in black nodes */
	RB_BAD_PARENT = -4,	  /* a parent pointer disagrees with the links */
	RB_BAD_ORDER = -5,	  /* a node is less than its in-order predecessor */
	RB_BAD_LEFTMOST = -6,	  /* the cached leftmost is not rb_first() */
};

/*
 * Checks every red-black invariant, the parent pointers and, if less is not
 * NULL, the in-order sort. O(n) time, O(1) space; terminates on any
 * corruption of the links, cycles included. For debug and test builds.
 */
int rb_verify(const struct rb_root *root,
	      bool (*less)(const struct rb_node *, const struct rb_node *));
/* rb_verify(), and the cached leftmost is the first node. */
int rb_verify_cached(const struct rb_root_cached *root,
		     bool (*less)(const struct rb_node *, const struct rb_node *));

#endif
