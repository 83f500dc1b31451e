/*
 * Host tests of kernel/lib/rbtree: random insert/erase runs checked against a
 * sorted reference array, FIFO order among equal keys, the cached leftmost,
 * walks in both directions, erasure at every kind of position, rb_verify
 * catching deliberate corruption, and augmented trees (a per-subtree minimum)
 * checked node by node against a brute-force recomputation.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/rbtree.h"
#include "unit.h"

/*
 * ck_assert() records a checkpoint on every call, which costs a write in
 * fork mode; these loops check millions of things, so they fail loudly but
 * pay nothing when they pass.
 */
#define require(expr)                                                  \
	do {                                                           \
		if (!(expr))                                           \
			ck_abort_msg("requirement failed: %s", #expr); \
	} while (0)

/* The most nodes any test holds: the CFS timeline of a very busy CPU. */
#define POOL_MAX 10000

struct item {
	u64 key;
	u32 seq; /* insertion order, to tell equal keys apart */
	struct rb_node node;
};

static struct item *item_of(const struct rb_node *n)
{
	return rb_entry(n, struct item, node);
}

static bool item_less(const struct rb_node *a, const struct rb_node *b)
{
	return item_of(a)->key < item_of(b)->key;
}

/* xorshift64*: fixed seeds give every host the same sequence. */
static u64 rng_next(u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/*
 * A tree under test and its reference: ref[] holds the items in the tree in
 * the order the tree must keep, by key and, among equal keys, by arrival.
 * free[] holds the pool's items that are in no tree.
 */
struct harness {
	struct rb_root_cached tree;
	struct item *pool;
	struct item **ref, **free;
	size_t n, nfree;
	u32 seq;
	u64 rng;
};

static void h_init(struct harness *h, size_t pool, u64 seed)
{
	h->tree = RB_ROOT_CACHED;
	h->pool = calloc(pool, sizeof(*h->pool));
	h->ref = calloc(pool, sizeof(*h->ref));
	h->free = calloc(pool, sizeof(*h->free));
	ck_assert(h->pool && h->ref && h->free);
	h->n = 0;
	h->nfree = pool;
	for (size_t i = 0; i < pool; i++) {
		RB_CLEAR_NODE(&h->pool[i].node);
		/* Handed out from the top: item 0 first. */
		h->free[i] = &h->pool[pool - 1 - i];
	}
	h->seq = 0;
	h->rng = seed;
}

static void h_fini(struct harness *h)
{
	free(h->pool);
	free(h->ref);
	free(h->free);
}

/* Adds a free item with this key to tree and reference; returns the item. */
static struct item *h_add(struct harness *h, u64 key)
{
	struct item *it;
	size_t lo = 0, hi = h->n, mid;
	bool leftmost;

	require(h->nfree > 0);
	it = h->free[--h->nfree];
	require(RB_EMPTY_NODE(&it->node));
	it->key = key;
	it->seq = h->seq++;

	/* After every equal key: the first index with a greater one. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (h->ref[mid]->key <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&h->ref[lo + 1], &h->ref[lo], (h->n - lo) * sizeof(*h->ref));
	h->ref[lo] = it;
	h->n++;

	leftmost = rb_add_cached(&it->node, &h->tree, item_less);
	require(leftmost == (lo == 0));
	require(!RB_EMPTY_NODE(&it->node));
	require(rb_first_cached(&h->tree) == &h->ref[0]->node);
	return it;
}

static void h_erase_at(struct harness *h, size_t i)
{
	struct item *it;

	require(i < h->n);
	it = h->ref[i];
	rb_erase_cached(&it->node, &h->tree);
	require(RB_EMPTY_NODE(&it->node));
	memmove(&h->ref[i], &h->ref[i + 1], (h->n - i - 1) * sizeof(*h->ref));
	h->n--;
	h->free[h->nfree++] = it;
	require(rb_first_cached(&h->tree) == (h->n ? &h->ref[0]->node : NULL));
}

static size_t h_index_of(const struct harness *h, const struct rb_node *n)
{
	for (size_t i = 0; i < h->n; i++)
		if (&h->ref[i]->node == n)
			return i;
	ck_abort_msg("node %p is not in the reference", (const void *)n);
	return 0;
}

/* Longest root-to-leaf path, in nodes; only for trees rb_verify() accepted. */
static unsigned int depth(const struct rb_node *n)
{
	unsigned int l, r;

	if (!n)
		return 0;
	l = depth(n->left);
	r = depth(n->right);
	return 1 + (l > r ? l : r);
}

/* A red-black tree of n nodes is at most 2 log2(n + 1) deep: 2^depth <= (n + 1)^2. */
static bool depth_ok(const struct rb_root *root, size_t n)
{
	unsigned int d = depth(root->node);

	return d < 64 && (1ULL << d) <= (u64)(n + 1) * (n + 1);
}

/* The tree is valid and holds exactly the reference's items, in its order, both ways. */
static void h_check(const struct harness *h)
{
	const struct rb_node *n;
	size_t i = 0;

	require(rb_verify_cached(&h->tree, item_less) == 0);
	require(RB_EMPTY_ROOT(&h->tree.root) == (h->n == 0));
	for (n = rb_first(&h->tree.root); n; n = rb_next(n), i++) {
		require(i < h->n);
		require(item_of(n) == h->ref[i]);
	}
	require(i == h->n);
	for (n = rb_last(&h->tree.root); n; n = rb_prev(n)) {
		require(i > 0);
		require(item_of(n) == h->ref[--i]);
	}
	require(i == 0);
	require(depth_ok(&h->tree.root, h->n));
}

START_TEST(test_empty)
{
	struct rb_root root = RB_ROOT;
	struct rb_root_cached cached = RB_ROOT_CACHED;
	struct item it;

	ck_assert(RB_EMPTY_ROOT(&root));
	ck_assert(RB_EMPTY_ROOT(&cached.root));
	ck_assert_ptr_null(rb_first(&root));
	ck_assert_ptr_null(rb_last(&root));
	ck_assert_ptr_null(rb_first_cached(&cached));
	ck_assert_ptr_null(rb_entry_safe(rb_first(&root), struct item, node));
	ck_assert_int_eq(rb_verify(&root, item_less), 0);
	ck_assert_int_eq(rb_verify(&root, NULL), 0);
	ck_assert_int_eq(rb_verify_cached(&cached, item_less), 0);

	/* A node in no tree has no neighbours. */
	RB_CLEAR_NODE(&it.node);
	ck_assert(RB_EMPTY_NODE(&it.node));
	ck_assert_ptr_null(rb_next(&it.node));
	ck_assert_ptr_null(rb_prev(&it.node));

	/* A cached root with a stale leftmost is caught even when empty. */
	cached.leftmost = &it.node;
	ck_assert_int_eq(rb_verify_cached(&cached, item_less), RB_BAD_LEFTMOST);
}
END_TEST

START_TEST(test_single_node)
{
	struct rb_root_cached t = RB_ROOT_CACHED;
	struct item it = { .key = 7 };

	RB_CLEAR_NODE(&it.node);
	ck_assert(rb_add_cached(&it.node, &t, item_less));
	ck_assert(!RB_EMPTY_NODE(&it.node));
	ck_assert(!RB_EMPTY_ROOT(&t.root));
	ck_assert_ptr_eq(t.root.node, &it.node);
	ck_assert(rb_is_black(&it.node));
	ck_assert_ptr_null(rb_parent(&it.node));
	ck_assert_ptr_eq(rb_first(&t.root), &it.node);
	ck_assert_ptr_eq(rb_last(&t.root), &it.node);
	ck_assert_ptr_eq(rb_first_cached(&t), &it.node);
	ck_assert_ptr_eq(rb_entry_safe(rb_first_cached(&t), struct item, node), &it);
	ck_assert_ptr_null(rb_next(&it.node));
	ck_assert_ptr_null(rb_prev(&it.node));
	ck_assert_int_eq(rb_verify_cached(&t, item_less), 0);

	rb_erase_cached(&it.node, &t);
	ck_assert(RB_EMPTY_ROOT(&t.root));
	ck_assert_ptr_null(rb_first_cached(&t));
	ck_assert(RB_EMPTY_NODE(&it.node));
	ck_assert_int_eq(rb_verify_cached(&t, item_less), 0);
}
END_TEST

/* The primitive interface: the caller's own descent, rb_link_node() and rb_insert_color(). */
START_TEST(test_manual_link)
{
	enum { N = 1000 };
	static struct item items[N];
	struct rb_root root = RB_ROOT;
	struct rb_root_cached cached = RB_ROOT_CACHED;
	struct rb_node **link, *parent, *n;
	u64 rng = 0x51ed270b27ad3f3bULL;
	bool leftmost;
	u64 prev;
	size_t i;

	for (i = 0; i < N; i++) {
		items[i].key = rng_next(&rng) % 500;
		link = &root.node;
		parent = NULL;
		while (*link) {
			parent = *link;
			link = item_less(&items[i].node, parent) ? &parent->left : &parent->right;
		}
		rb_link_node(&items[i].node, parent, link);
		ck_assert(rb_is_red(&items[i].node));
		rb_insert_color(&items[i].node, &root);
		require(rb_verify(&root, item_less) == 0);
	}
	for (prev = 0, i = 0, n = rb_first(&root); n; n = rb_next(n), i++) {
		require(item_of(n)->key >= prev);
		prev = item_of(n)->key;
	}
	ck_assert_uint_eq(i, N);
	ck_assert(depth_ok(&root, N));

	/* The same by hand on a cached root: the caller tracks leftmost itself. */
	for (i = 0; i < N; i++) {
		rb_erase(&items[i].node, &root);
		require(rb_verify(&root, item_less) == 0);
	}
	ck_assert(RB_EMPTY_ROOT(&root));
	for (i = 0; i < N; i++) {
		link = &cached.root.node;
		parent = NULL;
		leftmost = true;
		while (*link) {
			parent = *link;
			if (item_less(&items[i].node, parent)) {
				link = &parent->left;
			} else {
				link = &parent->right;
				leftmost = false;
			}
		}
		rb_link_node(&items[i].node, parent, link);
		rb_insert_color_cached(&items[i].node, &cached, leftmost);
		require(rb_verify_cached(&cached, item_less) == 0);
	}
}
END_TEST

/* Sorted input is the worst case for an unbalanced tree: depth must stay logarithmic. */
START_TEST(test_sorted_inserts)
{
	struct harness h;
	size_t i;

	h_init(&h, POOL_MAX, 1);
	for (i = 0; i < POOL_MAX; i++)
		h_add(&h, i); /* h_add checks only the first was leftmost */
	h_check(&h);
	while (h.n)
		h_erase_at(&h, 0);
	h_check(&h);

	for (i = 0; i < POOL_MAX; i++)
		h_add(&h, POOL_MAX - i); /* each one the new leftmost */
	h_check(&h);
	while (h.n)
		h_erase_at(&h, h.n - 1);
	h_check(&h);

	/* Plain rb_add() on the same items, no cache to maintain. */
	{
		struct rb_root root = RB_ROOT;

		for (i = 0; i < POOL_MAX; i++)
			rb_add(&h.pool[i].node, &root, item_less);
		ck_assert_int_eq(rb_verify(&root, item_less), 0);
		ck_assert(depth_ok(&root, POOL_MAX));
	}
	h_fini(&h);
}
END_TEST

/*
 * Random runs: grow to POOL_MAX nodes with mostly inserts, shrink to empty
 * with mostly erases (a tenth of them the leftmost, as CFS's pick does),
 * checking the cached leftmost after every operation and everything else
 * after every small tree and every RANDOM_CHECK_EVERY operations.
 */
#define RANDOM_CHECK_EVERY 97
static const struct {
	u64 seed;
	u64 key_range; /* small ranges make long runs of equal keys */
} random_runs[] = {
	{ 0x9e3779b97f4a7c15ULL, 1ULL << 40 },
	{ 12345, 1ULL << 40 },
	{ 0xdeadbeefULL, 64 },
	{ 42, 4 },
};

START_TEST(test_random_ops)
{
	struct harness h;
	unsigned long ops = 0, inserts = 0, erases = 0;
	u64 r;

	h_init(&h, POOL_MAX, random_runs[_i].seed);
	for (int phase = 0; phase < 2; phase++) {
		/* Grow: 3 in 4 are inserts. Shrink: 1 in 4. */
		unsigned int insert_in_4 = phase == 0 ? 3 : 1;

		while (phase == 0 ? h.n < POOL_MAX : h.n > 0) {
			r = rng_next(&h.rng);
			if (h.n == 0 || (r % 4 < insert_in_4 && h.nfree)) {
				h_add(&h, (r >> 8) % random_runs[_i].key_range);
				inserts++;
			} else if ((r >> 8) % 10 == 0) {
				h_erase_at(&h, 0);
				erases++;
			} else if ((r >> 8) % 10 == 1) {
				h_erase_at(&h, h.n - 1);
				erases++;
			} else {
				h_erase_at(&h, (r >> 16) % h.n);
				erases++;
			}
			if (++ops % RANDOM_CHECK_EVERY == 0 || h.n < 64)
				h_check(&h);
		}
		h_check(&h);
	}
	ck_assert_uint_eq(inserts, erases);
	/* Each phase nets half a node per operation: about 4 * POOL_MAX in all. */
	ck_assert_uint_ge(inserts + erases, 3 * POOL_MAX);
	h_fini(&h);
}
END_TEST

/* Equal keys leave in arrival order: CFS's round-robin among equal vruntimes. */
START_TEST(test_fifo_equal_keys)
{
	struct harness h;
	const struct rb_node *n;
	const struct item *prev, *cur;
	struct item *first;
	size_t i;

	h_init(&h, 4000, 777);
	/* Equal to the leftmost is not less: h_add checks the new one is not leftmost. */
	first = h_add(&h, 2);
	h_add(&h, 2);
	ck_assert_ptr_eq(item_of(rb_first_cached(&h.tree)), first);

	for (i = 0; i < 2998; i++)
		h_add(&h, rng_next(&h.rng) % 5);
	h_check(&h);
	for (i = 0; i < 1000; i++)
		h_erase_at(&h, rng_next(&h.rng) % h.n);
	for (i = 0; i < 2000; i++)
		h_add(&h, rng_next(&h.rng) % 5);
	h_check(&h);

	/* h_check compared against the stable reference; say it directly too. */
	for (prev = NULL, n = rb_first(&h.tree.root); n; n = rb_next(n), prev = cur) {
		cur = item_of(n);
		require(!prev || prev->key < cur->key ||
			(prev->key == cur->key && prev->seq < cur->seq));
	}
	/* The leftmost is the oldest of the smallest key. */
	cur = item_of(rb_first_cached(&h.tree));
	for (i = 0; i < h.n; i++)
		require(h.ref[i]->key > cur->key ||
			(h.ref[i]->key == cur->key && h.ref[i]->seq >= cur->seq));
	h_fini(&h);
}
END_TEST

/* The same for plain rb_add(), which has its own descent. */
START_TEST(test_fifo_rb_add)
{
	enum { N = 3000 };
	static struct item items[N];
	struct rb_root root = RB_ROOT;
	const struct rb_node *n;
	const struct item *prev = NULL, *cur;
	u64 rng = 5150;
	size_t i;

	for (i = 0; i < N; i++) {
		items[i].key = rng_next(&rng) % 7;
		items[i].seq = i;
		rb_add(&items[i].node, &root, item_less);
	}
	ck_assert_int_eq(rb_verify(&root, item_less), 0);
	for (i = 0, n = rb_first(&root); n; n = rb_next(n), prev = cur, i++) {
		cur = item_of(n);
		require(!prev || prev->key < cur->key ||
			(prev->key == cur->key && prev->seq < cur->seq));
	}
	ck_assert_uint_eq(i, N);
}
END_TEST

/*
 * CFS's use: pick the leftmost, run it (its key grows by a slice), queue it
 * again; now and then one sleeps (erased from anywhere) and another wakes.
 */
START_TEST(test_cfs_pattern)
{
	struct harness h;
	struct item *se;
	u64 key, min_key;
	size_t i;

	h_init(&h, 600, 31337);
	for (i = 0; i < 500; i++)
		h_add(&h, rng_next(&h.rng) % 1000);
	for (i = 0; i < 20000; i++) {
		se = item_of(rb_first_cached(&h.tree));
		require(se == h.ref[0]);
		min_key = se->key;
		for (size_t j = 0; j < h.n; j += 37)
			require(h.ref[j]->key >= min_key);
		key = se->key + 1 + rng_next(&h.rng) % 50;
		h_erase_at(&h, 0);
		h_add(&h, key);
		if (i % 10 == 0 && h.n > 1)
			h_erase_at(&h, rng_next(&h.rng) % h.n); /* sleeps */
		if (i % 10 == 5 && h.nfree)
			h_add(&h, h.ref[0]->key + rng_next(&h.rng) % 20); /* wakes */
		if (i % 500 == 0)
			h_check(&h);
	}
	h_check(&h);
	h_fini(&h);
}
END_TEST

/* rb_next() and rb_prev() are inverses, from every node, and stop at the ends. */
START_TEST(test_walk_both_ways)
{
	struct harness h;
	const struct rb_node *n, *next;
	size_t i;

	h_init(&h, 2047, 99);
	for (i = 0; i < 2047; i++)
		h_add(&h, rng_next(&h.rng) % 100000);
	h_check(&h);
	ck_assert_ptr_null(rb_prev(rb_first(&h.tree.root)));
	ck_assert_ptr_null(rb_next(rb_last(&h.tree.root)));
	for (i = 0, n = rb_first(&h.tree.root); n; n = next, i++) {
		next = rb_next(n);
		if (next)
			require(rb_prev(next) == n);
		require(rb_prev(n) == (i ? &h.ref[i - 1]->node : NULL));
	}
	ck_assert_uint_eq(i, 2047);
	h_fini(&h);
}
END_TEST

/* A node with two children, not the root: the successor-swap path of rb_erase(). */
static const struct rb_node *find_inner(const struct rb_root *root)
{
	const struct rb_node *n;

	for (n = rb_first(root); n; n = rb_next(n))
		if (n->left && n->right && rb_parent(n))
			return n;
	return NULL;
}

static const struct rb_node *find_leaf(const struct rb_root *root)
{
	const struct rb_node *n;

	for (n = rb_last(root); n; n = rb_prev(n))
		if (!n->left && !n->right && rb_parent(n))
			return n;
	return NULL;
}

static const struct rb_node *find_one_child(const struct rb_root *root)
{
	const struct rb_node *n;

	for (n = rb_first(root); n; n = rb_next(n))
		if (!n->left != !n->right)
			return n;
	return NULL;
}

START_TEST(test_erase_positions)
{
	enum { LEFTMOST, RIGHTMOST, ROOT, INNER, LEAF, ONE_CHILD, KINDS };
	unsigned long done[KINDS] = { 0 };
	struct harness h;
	const struct rb_node *victim;
	size_t i, step;

	h_init(&h, 1023, 2024);
	for (i = 0; i < 1023; i++)
		h_add(&h, rng_next(&h.rng) % 4096);
	h_check(&h);
	for (step = 0; h.n; step++) {
		int kind = step % KINDS;

		switch (kind) {
		case LEFTMOST:
			victim = rb_first(&h.tree.root);
			break;
		case RIGHTMOST:
			victim = rb_last(&h.tree.root);
			break;
		case ROOT:
			victim = h.tree.root.node;
			break;
		case INNER:
			victim = find_inner(&h.tree.root);
			break;
		case LEAF:
			victim = find_leaf(&h.tree.root);
			break;
		default:
			victim = find_one_child(&h.tree.root);
			break;
		}
		if (!victim)
			victim = h.tree.root.node;
		else
			done[kind]++;
		h_erase_at(&h, h_index_of(&h, victim));
		h_check(&h);
	}
	for (i = 0; i < KINDS; i++)
		ck_assert_uint_gt(done[i], 10);
	h_fini(&h);
}
END_TEST

START_TEST(test_verify_catches_corruption)
{
	struct harness h;
	struct rb_node *root, *n, *victim;
	unsigned long red_red = 0, black_height = 0;
	unsigned long saved;
	u64 saved_key;
	int err;
	size_t i;

	h_init(&h, 255, 4242);
	for (i = 0; i < 255; i++)
		h_add(&h, 2 * (rng_next(&h.rng) % 1000));
	h_check(&h);
	root = h.tree.root.node;

	/* A red root. */
	root->parent_color ^= RB_BLACK;
	ck_assert_int_eq(rb_verify(&h.tree.root, item_less), RB_BAD_ROOT_COLOR);
	root->parent_color ^= RB_BLACK;
	ck_assert_int_eq(rb_verify(&h.tree.root, item_less), 0);

	/*
	 * Any other node's colour flipped: black to red takes a black off its
	 * paths (or makes a red pair), red to black adds one to its paths only.
	 */
	for (i = 0; i < h.n; i++) {
		n = &h.ref[i]->node;
		if (n == root)
			continue;
		n->parent_color ^= RB_BLACK;
		err = rb_verify(&h.tree.root, item_less);
		require(err == RB_BAD_RED_RED || err == RB_BAD_BLACK_HEIGHT);
		red_red += err == RB_BAD_RED_RED;
		black_height += err == RB_BAD_BLACK_HEIGHT;
		n->parent_color ^= RB_BLACK;
		require(rb_verify(&h.tree.root, item_less) == 0);
	}
	ck_assert_uint_gt(red_red, 0);
	ck_assert_uint_gt(black_height, 0);

	/* A key moved past its successor's. */
	victim = (struct rb_node *)find_inner(&h.tree.root);
	ck_assert_ptr_nonnull(victim);
	saved_key = item_of(victim)->key;
	item_of(victim)->key = item_of(rb_next(victim))->key + 1;
	ck_assert_int_eq(rb_verify(&h.tree.root, item_less), RB_BAD_ORDER);
	ck_assert_int_eq(rb_verify(&h.tree.root, NULL), 0); /* no less, no order check */
	item_of(victim)->key = saved_key;

	/* Two neighbours' keys swapped: the tree shape is fine, the order is not. */
	i = h.n / 2;
	while (h.ref[i]->key == h.ref[i + 1]->key)
		i++;
	saved_key = h.ref[i]->key;
	h.ref[i]->key = h.ref[i + 1]->key;
	h.ref[i + 1]->key = saved_key;
	ck_assert_int_eq(rb_verify(&h.tree.root, item_less), RB_BAD_ORDER);
	h.ref[i + 1]->key = h.ref[i]->key;
	h.ref[i]->key = saved_key;
	ck_assert_int_eq(rb_verify(&h.tree.root, item_less), 0);

	/* A parent pointer to the wrong node, colour kept. */
	victim = (struct rb_node *)find_leaf(&h.tree.root);
	ck_assert_ptr_nonnull(victim);
	saved = victim->parent_color;
	n = rb_parent(victim) == root ? rb_first(&h.tree.root) : root;
	ck_assert_ptr_ne(n, rb_parent(victim));
	victim->parent_color = (unsigned long)n | (saved & RB_COLOR_MASK);
	ck_assert_int_eq(rb_verify(&h.tree.root, item_less), RB_BAD_PARENT);
	victim->parent_color = saved;

	/* The root with a parent. */
	root->parent_color = (unsigned long)victim | RB_BLACK;
	ck_assert_int_eq(rb_verify(&h.tree.root, item_less), RB_BAD_PARENT);
	root->parent_color = RB_BLACK;

	/* A cycle: a leaf pointing back at the root. rb_verify must still return. */
	victim->left = root;
	ck_assert_int_eq(rb_verify(&h.tree.root, item_less), RB_BAD_PARENT);
	victim->left = NULL;

	/* One subtree hung on both sides of a node. */
	victim = (struct rb_node *)find_one_child(&h.tree.root);
	ck_assert_ptr_nonnull(victim);
	if (victim->left) {
		victim->right = victim->left;
		ck_assert_int_eq(rb_verify(&h.tree.root, item_less), RB_BAD_PARENT);
		victim->right = NULL;
	} else {
		victim->left = victim->right;
		ck_assert_int_eq(rb_verify(&h.tree.root, item_less), RB_BAD_PARENT);
		victim->left = NULL;
	}

	/* A stale leftmost: the tree itself is fine. */
	h.tree.leftmost = rb_next(rb_first(&h.tree.root));
	ck_assert_int_eq(rb_verify(&h.tree.root, item_less), 0);
	ck_assert_int_eq(rb_verify_cached(&h.tree, item_less), RB_BAD_LEFTMOST);
	h.tree.leftmost = rb_first(&h.tree.root);

	h_check(&h);
	h_fini(&h);
}
END_TEST

/* ---------------------------------------------------------------- augmented trees */

/*
 * The augmentation EEVDF uses: each node caches the smallest val in its
 * subtree, while the tree is ordered by key (val and key unrelated).
 */
struct aug_item {
	u64 key, val, min_val;
	struct rb_node node;
};

static struct aug_item *aug_of(const struct rb_node *n)
{
	return rb_entry(n, struct aug_item, node);
}

static bool aug_less(const struct rb_node *a, const struct rb_node *b)
{
	return aug_of(a)->key < aug_of(b)->key;
}

static bool aug_update(struct rb_node *n)
{
	struct aug_item *it = aug_of(n);
	u64 min = it->val;

	if (n->left && aug_of(n->left)->min_val < min)
		min = aug_of(n->left)->min_val;
	if (n->right && aug_of(n->right)->min_val < min)
		min = aug_of(n->right)->min_val;
	if (min == it->min_val)
		return false;
	it->min_val = min;
	return true;
}

static const struct rb_augment aug_cb = { .update = aug_update };

static u32 aug_updates;

/* Counts calls: the test below checks that propagation stops early. */
static bool aug_update_counted(struct rb_node *n)
{
	aug_updates++;
	return aug_update(n);
}

static const struct rb_augment aug_cb_counted = { .update = aug_update_counted };

/*
 * The brute-force check: every node's cached minimum against a fresh
 * recomputation from its whole subtree (post-order, recursive: test trees
 * are shallow). Returns the subtree's true minimum; counts the nodes.
 */
static u64 aug_check_subtree(const struct rb_node *n, size_t *count)
{
	u64 min, left, right;

	if (!n)
		return UINT64_MAX;
	left = aug_check_subtree(n->left, count);
	right = aug_check_subtree(n->right, count);
	min = MIN(aug_of(n)->val, MIN(left, right));
	require(aug_of(n)->min_val == min);
	(*count)++;
	return min;
}

static void aug_check(const struct rb_root_cached *tree, size_t expect)
{
	size_t count = 0;

	require(rb_verify_cached(tree, aug_less) == 0);
	aug_check_subtree(tree->root.node, &count);
	require(count == expect);
}

#define AUG_POOL 512

static const struct {
	u64 seed;
	u32 ops;
	u64 key_range; /* small ranges make many equal keys */
} aug_runs[] = {
	{ 1, 20000, 1000000 },
	{ 7, 20000, 16 },
	{ 42, 20000, 2 },
	{ 1234567, 40000, 1ULL << 40 },
};

/*
 * Random inserts, erases and in-place value changes (propagated), with
 * every node's cached minimum recomputed by brute force after each step.
 */
START_TEST(test_augmented_random_ops)
{
	struct aug_item *pool = calloc(AUG_POOL, sizeof(*pool));
	bool *in = calloc(AUG_POOL, sizeof(*in));
	struct rb_root_cached tree = RB_ROOT_CACHED;
	u64 rng = aug_runs[_i].seed;
	size_t n = 0;

	ck_assert(pool && in);
	for (u32 op = 0; op < aug_runs[_i].ops; op++) {
		u32 k = (u32)(rng_next(&rng) % AUG_POOL);
		struct aug_item *it = &pool[k];
		u32 what = (u32)(rng_next(&rng) % 8);

		if (!in[k]) {
			it->key = rng_next(&rng) % aug_runs[_i].key_range;
			it->val = rng_next(&rng) % 100000;
			it->min_val = it->val;
			rb_add_augmented_cached(&it->node, &tree, aug_less, &aug_cb);
			in[k] = true;
			n++;
		} else if (what < 5) {
			rb_erase_augmented_cached(&it->node, &tree, &aug_cb);
			require(RB_EMPTY_NODE(&it->node));
			in[k] = false;
			n--;
		} else {
			it->val = rng_next(&rng) % 100000;
			rb_augment_propagate(&it->node, &aug_cb);
		}
		aug_check(&tree, n);
	}
	/* Drain it: the minimum stays right down to the last node. */
	for (u32 k = 0; k < AUG_POOL; k++) {
		if (!in[k])
			continue;
		rb_erase_augmented_cached(&pool[k].node, &tree, &aug_cb);
		aug_check(&tree, --n);
	}
	ck_assert(RB_EMPTY_ROOT(&tree.root));
	free(pool);
	free(in);
}
END_TEST

/* Ascending and descending keys: the rotation-heavy patterns. */
START_TEST(test_augmented_sorted_inserts)
{
	struct aug_item *pool = calloc(AUG_POOL, sizeof(*pool));
	struct rb_root_cached tree = RB_ROOT_CACHED;

	ck_assert(pool);
	for (int pass = 0; pass < 2; pass++) {
		for (u32 i = 0; i < AUG_POOL; i++) {
			struct aug_item *it = &pool[i];

			it->key = pass ? AUG_POOL - i : i;
			it->val = (i * 7919) % 1000;
			it->min_val = it->val;
			rb_add_augmented_cached(&it->node, &tree, aug_less, &aug_cb);
			aug_check(&tree, i + 1);
		}
		/* Erase from the root down: every erase of a two-child node moves a successor. */
		for (u32 left = AUG_POOL; left; left--) {
			rb_erase_augmented_cached(tree.root.node, &tree, &aug_cb);
			aug_check(&tree, left - 1);
		}
	}
	free(pool);
}
END_TEST

/*
 * A change that does not move a node's subtree minimum stops at that node;
 * a new overall minimum reaches the root. And a plain tree is untouched.
 */
START_TEST(test_augmented_propagate_stops)
{
	struct aug_item pool[64];
	struct rb_root_cached tree = RB_ROOT_CACHED;
	struct aug_item *leaf = NULL;

	for (u32 i = 0; i < 64; i++) {
		pool[i].key = i;
		pool[i].val = 1000 + i;
		pool[i].min_val = pool[i].val;
		rb_add_augmented_cached(&pool[i].node, &tree, aug_less, &aug_cb);
	}
	aug_check(&tree, 64);
	ck_assert_uint_eq(aug_of(tree.root.node)->min_val, 1000);

	/*
	 * A leaf that is a right child, below the root's children: vals grow
	 * with keys, so its parent's minimum is not the leaf's own.
	 */
	for (u32 i = 0; i < 64; i++) {
		struct rb_node *nd = &pool[i].node, *parent = rb_parent(nd);

		if (!nd->left && !nd->right && parent && parent->right == nd && rb_parent(parent))
			leaf = &pool[i];
	}
	ck_assert_ptr_nonnull(leaf);
	/* Raised: the leaf changes, its parent does not, and the walk stops there. */
	aug_updates = 0;
	leaf->val += 5000;
	rb_augment_propagate(&leaf->node, &aug_cb_counted);
	aug_check(&tree, 64);
	ck_assert_uint_eq(aug_updates, 2);

	/* A new overall minimum anywhere shows at the root. */
	leaf->val = 3;
	rb_augment_propagate(&leaf->node, &aug_cb);
	aug_check(&tree, 64);
	ck_assert_uint_eq(aug_of(tree.root.node)->min_val, 3);
}
END_TEST

Suite *rbtree_suite(void)
{
	Suite *s = suite_create("rbtree");
	TCase *tc = tcase_create("rbtree");

	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_single_node);
	tcase_add_test(tc, test_manual_link);
	tcase_add_test(tc, test_sorted_inserts);
	tcase_add_loop_test(tc, test_random_ops, 0, (int)ARRAY_SIZE(random_runs));
	tcase_add_test(tc, test_fifo_equal_keys);
	tcase_add_test(tc, test_fifo_rb_add);
	tcase_add_test(tc, test_cfs_pattern);
	tcase_add_test(tc, test_walk_both_ways);
	tcase_add_test(tc, test_erase_positions);
	tcase_add_test(tc, test_verify_catches_corruption);
	tcase_add_loop_test(tc, test_augmented_random_ops, 0, (int)ARRAY_SIZE(aug_runs));
	tcase_add_test(tc, test_augmented_sorted_inserts);
	tcase_add_test(tc, test_augmented_propagate_stops);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}
