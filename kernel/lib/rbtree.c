/*
 * Red-black tree rebalancing, navigation and checking (see lib/rbtree.h).
 * Everything is iterative: no recursion, so no stack that grows with the tree.
 */
#include "lib/rbtree.h"

/*
 * The rules kept here, with NULL children counting as black leaves:
 *   1. the root is black;
 *   2. a red node has no red child;
 *   3. every path from a node down to a leaf has the same number of black
 *      nodes (its black height).
 * Rules 2 and 3 together bound the longest path to twice the shortest, so
 * the depth is at most 2 log2(n + 1).
 *
 * Insertion and erasure are each written once for "dir", the side the
 * current node hangs on, and the mirror image falls out of !dir.
 */
enum { RB_LEFT = 0, RB_RIGHT = 1 };

static inline struct rb_node **rb_child(struct rb_node *n, int dir)
{
	return dir == RB_LEFT ? &n->left : &n->right;
}

static inline void rb_set_parent(struct rb_node *n, struct rb_node *parent)
{
	n->parent_color = (unsigned long)parent | (n->parent_color & RB_COLOR_MASK);
}

static inline void rb_set_black(struct rb_node *n)
{
	n->parent_color |= RB_BLACK;
}

static inline void rb_set_red(struct rb_node *n)
{
	n->parent_color &= ~RB_BLACK;
}

/* NULL is a leaf, and leaves are black. */
static inline bool rb_is_black_or_null(const struct rb_node *n)
{
	return !n || rb_is_black(n);
}

/* Points whatever held old (parent's child slot, or the root) at new instead. */
static inline void rb_replace_child(struct rb_node *parent, struct rb_node *old,
				    struct rb_node *new, struct rb_root *root)
{
	if (!parent)
		root->node = new;
	else if (parent->left == old)
		parent->left = new;
	else
		parent->right = new;
}

/*
 * Rotates x down towards dir: its child on the other side, y, takes its
 * place. For dir == RB_LEFT (mirror for RB_RIGHT):
 *
 *       x                y
 *      / \              / \
 *     a   y     =>     x   c
 *        / \          / \
 *       b   c        a   b
 *
 * In-order sequence and colours are unchanged. On an augmented tree only
 * x and y cover a different set of nodes afterwards: x is updated first,
 * being y's child now; y's subtree is the one x had, so nothing above moves.
 */
static void rb_rotate(struct rb_node *x, int dir, struct rb_root *root, const struct rb_augment *aug)
{
	struct rb_node *y = *rb_child(x, !dir);
	struct rb_node *b = *rb_child(y, dir);
	struct rb_node *parent = rb_parent(x);

	*rb_child(x, !dir) = b;
	if (b)
		rb_set_parent(b, x);
	*rb_child(y, dir) = x;
	rb_set_parent(x, y);
	rb_set_parent(y, parent);
	rb_replace_child(parent, x, y, root);
	if (aug) {
		aug->update(x);
		aug->update(y);
	}
}

/* Recomputes node and its ancestors, up to the first that does not change. */
static void rb_propagate(struct rb_node *node, const struct rb_augment *aug)
{
	while (node && aug->update(node))
		node = rb_parent(node);
}

/* Recomputes node and every ancestor: after a removal below node. */
static void rb_propagate_all(struct rb_node *node, const struct rb_augment *aug)
{
	for (; node; node = rb_parent(node))
		aug->update(node);
}

void rb_augment_propagate(struct rb_node *node, const struct rb_augment *aug)
{
	rb_propagate(node, aug);
}

/*
 * Rebalancing after an insertion, for plain (aug NULL) and augmented trees.
 * With aug, the values from the new node up are made right first: node is
 * a leaf whose subtree is itself, and each ancestor gains node; once one
 * ancestor comes out unchanged, none above it can change.
 */
static void rb_insert(struct rb_node *node, struct rb_root *root, const struct rb_augment *aug)
{
	struct rb_node *parent, *gparent, *uncle;
	int dir;

	/*
	 * node is red, and the only possible violation is rule 2 between node
	 * and its parent (or rule 1, if node is the root). A red parent is
	 * never the root, so gparent exists, and it is black.
	 */
	while ((parent = rb_parent(node)) && rb_is_red(parent)) {
		gparent = rb_parent(parent);
		dir = parent == gparent->right;
		uncle = *rb_child(gparent, !dir);

		if (uncle && rb_is_red(uncle)) {
			/*
			 * Red uncle: push gparent's black down onto both
			 * children. Black heights are unchanged; gparent is now
			 * red and may clash with its own parent, so go up two.
			 */
			rb_set_black(parent);
			rb_set_black(uncle);
			rb_set_red(gparent);
			node = gparent;
			continue;
		}

		if (node == *rb_child(parent, !dir)) {
			/*
			 * Black uncle, node on the inner side: rotate it up
			 * over parent, which turns it into the outer case with
			 * the two swapped.
			 */
			rb_rotate(parent, dir, root, aug);
			parent = node;
		}

		/*
		 * Black uncle, red parent on the outer side: rotate parent up
		 * over gparent and swap their colours. parent is now black at
		 * the top of the subtree, every path keeps its black count,
		 * and no red node has a red child: done.
		 */
		rb_set_black(parent);
		rb_set_red(gparent);
		rb_rotate(gparent, !dir, root, aug);
		break;
	}
	rb_set_black(root->node);
}

void rb_insert_color(struct rb_node *node, struct rb_root *root)
{
	rb_insert(node, root, NULL);
}

void rb_insert_color_cached(struct rb_node *node, struct rb_root_cached *root, bool leftmost)
{
	if (leftmost)
		root->leftmost = node;
	rb_insert(node, &root->root, NULL);
}

void rb_insert_augmented(struct rb_node *node, struct rb_root *root, const struct rb_augment *aug)
{
	/* node's own value may come out "unchanged" and its ancestors still lack it. */
	aug->update(node);
	rb_propagate(rb_parent(node), aug);
	rb_insert(node, root, aug);
}

void rb_insert_augmented_cached(struct rb_node *node, struct rb_root_cached *root, bool leftmost,
				const struct rb_augment *aug)
{
	if (leftmost)
		root->leftmost = node;
	rb_insert_augmented(node, &root->root, aug);
}

/*
 * Removing a black node left every path through x (which may be NULL, hence
 * xp, its parent) one black short. Either x can absorb the missing black
 * (it is red, or the root), or the deficit is fixed with x's sibling w, or
 * it is moved up one level.
 */
static void rb_erase_fixup(struct rb_node *x, struct rb_node *xp, struct rb_root *root,
			   const struct rb_augment *aug)
{
	struct rb_node *w, *near, *far;
	int dir;

	while (x != root->node && rb_is_black_or_null(x)) {
		/*
		 * xp->right == x works even for a NULL x: a short path of
		 * black height >= 1 means the sibling subtree is not empty, so
		 * only x's own slot can be NULL.
		 */
		dir = xp->right == x;
		w = *rb_child(xp, !dir);

		if (rb_is_red(w)) {
			/*
			 * Red sibling: rotate it up over xp and swap their
			 * colours. x's new sibling is one of w's black children
			 * and xp is red: one of the cases below ends the loop.
			 */
			rb_set_black(w);
			rb_set_red(xp);
			rb_rotate(xp, dir, root, aug);
			w = *rb_child(xp, !dir);
		}

		near = *rb_child(w, dir);
		far = *rb_child(w, !dir);
		if (rb_is_black_or_null(near) && rb_is_black_or_null(far)) {
			/*
			 * Black sibling with black children: paint it red, so
			 * that xp's two sides are equally short, and move the
			 * deficit up to xp. Ends at once if xp was red.
			 */
			rb_set_red(w);
			x = xp;
			xp = rb_parent(x);
			continue;
		}

		if (rb_is_black_or_null(far)) {
			/*
			 * Only the near nephew is red: rotate it up over w so
			 * that the red one is on the far side.
			 */
			rb_set_black(near);
			rb_set_red(w);
			rb_rotate(w, !dir, root, aug);
			far = w;
			w = near;
		}

		/*
		 * Far nephew red: rotate w up over xp, w takes xp's colour,
		 * and xp (now above x) and far (now in w's old place) turn
		 * black. x's paths gain the black they lacked, the others
		 * keep theirs: done.
		 */
		if (rb_is_black(xp))
			rb_set_black(w);
		else
			rb_set_red(w);
		rb_set_black(xp);
		rb_set_black(far);
		rb_rotate(xp, dir, root, aug);
		x = root->node;
		break;
	}
	if (x)
		rb_set_black(x);
}

/*
 * Unlinking for plain (aug NULL) and augmented trees. xp is where a node
 * physically left the tree (node's parent, or the successor's old parent),
 * so with aug every value from xp up to the root is recomputed, the
 * successor's in its new place included, before the fixup's rotations,
 * which keep them right.
 */
static void rb_erase_node(struct rb_node *node, struct rb_root *root, const struct rb_augment *aug)
{
	struct rb_node *x, *xp, *succ;
	bool removed_black;

	if (!node->left || !node->right) {
		/* At most one child: it takes node's place. */
		x = node->left ? node->left : node->right;
		xp = rb_parent(node);
		removed_black = rb_is_black(node);
		rb_replace_child(xp, node, x, root);
		if (x)
			rb_set_parent(x, xp);
	} else {
		/*
		 * Two children: the successor (leftmost of the right subtree,
		 * which has no left child) takes node's place and colour, so
		 * what is really removed is a node at the successor's old
		 * position, with the successor's colour.
		 */
		succ = node->right;
		while (succ->left)
			succ = succ->left;
		removed_black = rb_is_black(succ);
		x = succ->right;
		if (succ == node->right) {
			xp = succ;
		} else {
			xp = rb_parent(succ);
			xp->left = x;
			if (x)
				rb_set_parent(x, xp);
			succ->right = node->right;
			rb_set_parent(node->right, succ);
		}
		succ->left = node->left;
		rb_set_parent(node->left, succ);
		succ->parent_color = node->parent_color;
		rb_replace_child(rb_parent(node), node, succ, root);
	}
	RB_CLEAR_NODE(node);

	if (aug)
		rb_propagate_all(xp, aug);
	if (removed_black)
		rb_erase_fixup(x, xp, root, aug);
}

void rb_erase(struct rb_node *node, struct rb_root *root)
{
	rb_erase_node(node, root, NULL);
}

void rb_erase_cached(struct rb_node *node, struct rb_root_cached *root)
{
	/* LAB 2 BEGIN erase_cached */
	if (root->leftmost == node)
		root->leftmost = rb_next(node);
	rb_erase(node, &root->root);
	/* LAB 2 SKELETON
	TODO: keep root->leftmost the smallest node, in O(1) more than rb_erase.
	rb_erase(node, &root->root);
	   LAB 2 END */
}

void rb_erase_augmented(struct rb_node *node, struct rb_root *root, const struct rb_augment *aug)
{
	rb_erase_node(node, root, aug);
}

void rb_erase_augmented_cached(struct rb_node *node, struct rb_root_cached *root,
			       const struct rb_augment *aug)
{
	if (root->leftmost == node)
		root->leftmost = rb_next(node);
	rb_erase_node(node, &root->root, aug);
}

struct rb_node *rb_first(const struct rb_root *root)
{
	struct rb_node *n = root->node;

	if (!n)
		return NULL;
	while (n->left)
		n = n->left;
	return n;
}

struct rb_node *rb_last(const struct rb_root *root)
{
	struct rb_node *n = root->node;

	if (!n)
		return NULL;
	while (n->right)
		n = n->right;
	return n;
}

/*
 * The next node is the leftmost of the right subtree if there is one, else
 * the first ancestor reached from its left side. rb_prev() is the mirror.
 */
static struct rb_node *rb_step(const struct rb_node *node, int dir)
{
	struct rb_node *n, *parent;

	if (RB_EMPTY_NODE(node))
		return NULL;

	n = *rb_child((struct rb_node *)node, dir);
	if (n) {
		while (*rb_child(n, !dir))
			n = *rb_child(n, !dir);
		return n;
	}

	n = (struct rb_node *)node;
	while ((parent = rb_parent(n)) && n == *rb_child(parent, dir))
		n = parent;
	return parent;
}

struct rb_node *rb_next(const struct rb_node *node)
{
	return rb_step(node, RB_RIGHT);
}

struct rb_node *rb_prev(const struct rb_node *node)
{
	return rb_step(node, RB_LEFT);
}

/*
 * A child link is sound if the child points back at its parent and is not
 * also the parent's other child. Checking every link before following it
 * proves the links form a tree: a node reached a second time, by a cycle or
 * a shared subtree, would have to name two different parents.
 */
static int rb_verify_link(const struct rb_node *parent, const struct rb_node *child)
{
	if (rb_parent(child) != parent || parent->left == parent->right)
		return RB_BAD_PARENT;
	if (rb_is_red(parent) && rb_is_red(child))
		return RB_BAD_RED_RED;
	return 0;
}

/*
 * An in-order walk that goes up by parent pointers, each checked on the way
 * down, and counts the black nodes between the root and the current node.
 * A node with a NULL child ends a root-to-leaf path, whose black count must
 * match every other path's.
 */
int rb_verify(const struct rb_root *root,
	      bool (*less)(const struct rb_node *, const struct rb_node *))
{
	const struct rb_node *node = root->node, *prev = NULL, *parent;
	long black, leaf_black = -1;
	bool from_right;
	int err;

	if (!node)
		return 0;
	if (rb_parent(node))
		return RB_BAD_PARENT;
	if (rb_is_red(node))
		return RB_BAD_ROOT_COLOR;
	black = 1;

	for (;;) {
		/* Down to the leftmost node of the subtree at node. */
		while (node->left) {
			err = rb_verify_link(node, node->left);
			if (err)
				return err;
			node = node->left;
			black += rb_is_black(node);
		}

		/* Visit node, then its right subtree or, if none, go up. */
		for (;;) {
			if (!node->left || !node->right) {
				if (leaf_black < 0)
					leaf_black = black;
				else if (black != leaf_black)
					return RB_BAD_BLACK_HEIGHT;
			}
			if (less && prev && less(node, prev))
				return RB_BAD_ORDER;
			prev = node;

			if (node->right) {
				err = rb_verify_link(node, node->right);
				if (err)
					return err;
				node = node->right;
				black += rb_is_black(node);
				break;
			}

			/* Climb past every ancestor whose right subtree is done. */
			do {
				black -= rb_is_black(node);
				parent = rb_parent(node);
				if (!parent)
					return 0;
				from_right = node == parent->right;
				node = parent;
			} while (from_right);
		}
	}
}

int rb_verify_cached(const struct rb_root_cached *root,
		     bool (*less)(const struct rb_node *, const struct rb_node *))
{
	int err = rb_verify(&root->root, less);

	if (err)
		return err;
	return root->leftmost == rb_first(&root->root) ? 0 : RB_BAD_LEFTMOST;
}
