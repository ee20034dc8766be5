/* bt_list: BT_LIST_APPEND links elements in order behind head..tail,
 * whatever their type, and ends the list at the last one. */
#include "bt_list.h"
#include "test_util.h"

struct node {
	int v;
	struct node *next;
};

static void test_append(void **state)
{
	(void)state;
	struct node n[3] = {{.v = 0, .next = &n[2]}, {.v = 1, .next = &n[0]}, {.v = 2, .next = &n[1]}};
	struct node *head = NULL, *tail = NULL;
	BT_LIST_APPEND(head, tail, &n[0]);
	assert_ptr_equal(head, &n[0]);
	assert_ptr_equal(tail, &n[0]);
	assert_null(n[0].next); /* a stale link is cleared */
	for (int i = 1; i < 3; i++)
		BT_LIST_APPEND(head, tail, &n[i]);
	int want = 0;
	for (struct node *p = head; p != NULL; p = p->next)
		assert_int_equal(p->v, want++);
	assert_int_equal(want, 3);
	assert_ptr_equal(tail, &n[2]);
}

/* The list's ends as members of a struct, as the callers keep them. */
static void test_append_members(void **state)
{
	(void)state;
	struct {
		struct node *run, *run_tail;
	} c = {0};
	struct node a = {.v = 7}, b = {.v = 8};
	BT_LIST_APPEND(c.run, c.run_tail, &a);
	BT_LIST_APPEND(c.run, c.run_tail, &b);
	assert_ptr_equal(c.run, &a);
	assert_ptr_equal(a.next, &b);
	assert_ptr_equal(c.run_tail, &b);
	assert_null(b.next);
}

TU_MAIN(cmocka_unit_test(test_append), cmocka_unit_test(test_append_members))
