// SPDX-License-Identifier: GPL-2.0
/*
 * The vmlinux lines of /proc/kallsyms against the System.map of the kernel
 * they come from: each one a line of it (address, type and name), so every
 * name the kernel expands from its compressed table is the one the build
 * wrote, whole. The expansion is what every /proc/kallsyms line, %pS and
 * KALLSYMS_QUERY answer share; comparing with the kernel's own output (as the
 * other tests do) could not catch it going wrong.
 *
 * Addresses are compared as offsets from _text, so a randomized base does
 * not matter. The build copies System.map next to the test; without it, or
 * with another kernel's (its _text to _etext differs), the test skips.
 */
#include "kselftest_harness.h"
#include "ksym_util.h"

#define SYSTEM_MAP "System.map"

struct sym {
	unsigned long long off;	/* from _text */
	char type;
	char *name;
};

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->type - y->type;
}

/* The address of symbol @name in the sorted @v of @n, or 0. */
static unsigned long long sym_addr(const struct sym *v, size_t n, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(v[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(v[lo].name, name) ? v[lo].off : 0;
}

/* Where the running kernel's _text and _etext are, from /proc/kallsyms (0 if hidden). */
static void kernel_text(unsigned long long *text, unsigned long long *etext)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	struct kline k;

	*text = *etext = 0;
	while (f && next_kline(f, &k))
		if (!k.mod[0] && !strcmp(k.sym, "_text"))
			*text = k.addr;
		else if (!k.mod[0] && !strcmp(k.sym, "_etext"))
			*etext = k.addr;
	if (f)
		fclose(f);
}

/*
 * System.map's symbols, addresses as they are, sorted: their number, -1
 * without the file, -2 out of memory.
 */
static long read_system_map(struct sym **out)
{
	FILE *f = fopen(test_file(SYSTEM_MAP), "r");
	size_t cap = 1 << 17, n = 0;
	char line[1024], name[512];
	struct sym *v, *more;
	int ok;

	if (!f)
		return -1;
	v = malloc(cap * sizeof(*v));
	ok = !!v;
	while (ok && fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type;

		if (sscanf(line, "%llx %c %511s", &addr, &type, name) != 3)
			continue;
		if (n == cap) {
			more = realloc(v, (cap *= 2) * sizeof(*v));
			ok = !!more;
			v = more ? more : v;
		}
		if (ok) {
			v[n] = (struct sym){ addr, type, strdup(name) };
			ok = !!v[n].name;
			n += ok;
		}
	}
	fclose(f);
	if (!ok) {
		while (v && n)
			free(v[--n].name);
		free(v);
		return -2;
	}
	qsort(v, n, sizeof(*v), cmp_sym);
	*out = v;
	return n;
}

TEST(every_vmlinux_line_is_a_system_map_line)
{
	unsigned long long text, etext, map_text, map_etext;
	long n_map, lines = 0, wrong = 0, i;
	struct sym *map, want;
	struct kline k;
	FILE *f;

	n_map = read_system_map(&map);
	ASSERT_NE(-2, n_map) TH_LOG("out of memory reading %s", SYSTEM_MAP);
	if (n_map < 0)
		SKIP(return, "no %s next to the test (the build copies the kernel's)", SYSTEM_MAP);
	kernel_text(&text, &etext);
	if (!text)
		SKIP(return, "/proc/kallsyms hides its addresses from us");
	map_text = sym_addr(map, n_map, "_text");
	map_etext = sym_addr(map, n_map, "_etext");
	if (!map_text || map_etext - map_text != etext - text)
		SKIP(return, "%s is not this kernel's", SYSTEM_MAP);
	/* Offsets from _text, as the kernel's lines will be. */
	for (i = 0; i < n_map; i++)
		map[i].off -= map_text;
	qsort(map, n_map, sizeof(*map), cmp_sym);

	f = fopen("/proc/kallsyms", "r");
	ASSERT_NE(NULL, f);
	while (next_kline(f, &k)) {
		if (k.mod[0])
			continue;
		lines++;
		want = (struct sym){ k.addr - text, k.type, k.sym };
		if (!bsearch(&want, map, n_map, sizeof(*map), cmp_sym) && wrong++ < 10)
			TH_LOG("not in %s: %llx %c %s", SYSTEM_MAP, k.addr, k.type, k.sym);
	}
	fclose(f);
	TH_LOG("%ld vmlinux lines, %ld of them in %s's %ld", lines, lines - wrong, SYSTEM_MAP,
	       n_map);
	EXPECT_EQ(0, wrong);
	/* And not a few: the text symbols alone are more than a quarter of the map. */
	EXPECT_GT(lines, n_map / 4);
}

TEST_HARNESS_MAIN
