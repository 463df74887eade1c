// SPDX-License-Identifier: GPL-2.0
/*
 * The churn of churn.h for SOAK_SECONDS (default 3600), with a checkpoint
 * every minute: the churn pauses and, once the programs it unloaded are
 * freed,
 *
 * - the BPF lines of /proc/kallsyms are exactly those of the start (nothing
 *   the churn loaded is left behind);
 * - the generation stays put while nothing is loaded or unloaded, and changes
 *   when one program is loaded and again when it is unloaded;
 * - the unreclaimable slab, vmalloc and percpu figures of /proc/meminfo are
 *   sampled; the last checkpoint's may exceed the first's by at most
 *   SOAK_GROWTH_KB (default 4096) each;
 *
 * and all along, two reads of the BPF lines under one generation (the
 * checkpoints make such reads) must list the same lines;
 * then prints a progress line "# SOAK minute=<m> ops=<n> ops_per_s=<n> ..."
 * and resumes. Run by make soak (scripts/guest/init, mode soak).
 */
#include "kselftest_harness.h"
#include "churn.h"

#define MINUTE 60

static atomic_int checkpoints;	/* finished with every check made */

/* The figures of /proc/meminfo a leak would raise, in kB. */
enum { SLAB, VMALLOC, PERCPU, FIGURES };
static const char *const figure_names[FIGURES] = { "SUnreclaim", "VmallocUsed", "Percpu" };

static bool sample_memory(long kb[FIGURES])
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	int i, found = 0;
	long v;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		for (i = 0; i < FIGURES; i++) {
			size_t n = strlen(figure_names[i]);

			if (!strncmp(line, figure_names[i], n) && line[n] == ':' &&
			    sscanf(line + n + 1, "%ld", &v) == 1) {
				kb[i] = v;
				found++;
			}
		}
	fclose(f);
	return found == FIGURES;
}

/*
 * Waits (at most 60 s: a trampoline's image goes after an RCU tasks grace
 * period) until a consistent snapshot lists the lines of @want.
 */
static bool settle(int kfd, const struct snapshot *want, struct snapshot *s)
{
	int i;

	for (i = 0; i < 300; i++) {
		if (take_snapshot(kfd, s) && s->hash == want->hash && s->lines == want->lines)
			return true;
		usleep(200000);
	}
	return false;
}

/* The BPF lines once they stop changing: one generation for a second. */
static bool steady(int kfd, struct snapshot *s)
{
	struct snapshot again;
	int i;

	for (i = 0; i < 60; i++) {
		if (take_snapshot(kfd, s)) {
			sleep(1);
			if (take_snapshot(kfd, &again) && again.generation == s->generation &&
			    again.hash == s->hash)
				return true;
		}
		usleep(200000);
	}
	return false;
}

/*
 * With the churn paused: the start's symbols back, a generation that moves
 * exactly with the symbols, and the memory figures into @kb.
 */
static void checkpoint(int kfd, const struct snapshot *start, long kb[FIGURES])
{
	struct snapshot s = {}, later = {}, loaded = {}, unloaded = {};
	int i, fd;

	atomic_store(&paused, true);
	for (i = 0; i < 6000 && atomic_load(&idle) < CHURNERS; i++)
		usleep(10000);
	if (atomic_load(&idle) < CHURNERS) {
		BAD("the churn did not pause within 60 s");
		goto out;
	}
	if (!settle(kfd, start, &s)) {
		BAD("60 s after the churn paused, %d BPF lines where the start had %d: a symbol left behind",
		    s.lines, start->lines);
		goto out;
	}
	sleep(1);
	if (!take_snapshot(kfd, &later) || later.generation != s.generation ||
	    later.hash != s.hash)
		BAD("generation %llu became %llu with nothing loaded or unloaded",
		    s.generation, later.generation);
	fd = load_tiny_prog("ksym_probe");
	if (fd < 0) {
		BAD("loading ksym_probe: %s", strerror(errno));
		goto out;
	}
	if (!take_snapshot(kfd, &loaded) || loaded.lines != s.lines + 1 ||
	    loaded.generation == s.generation)
		BAD("after loading ksym_probe: %d BPF lines at generation %llu, before %d at %llu",
		    loaded.lines, loaded.generation, s.lines, s.generation);
	close(fd);
	if (!settle(kfd, start, &unloaded) || unloaded.generation == loaded.generation)
		BAD("after unloading ksym_probe: %d BPF lines at generation %llu, loaded %d at %llu",
		    unloaded.lines, unloaded.generation, loaded.lines, loaded.generation);
	atomic_fetch_add(&checkpoints, 1);
out:
	if (!sample_memory(kb))
		BAD("/proc/meminfo lacks one of SUnreclaim, VmallocUsed, Percpu");
	atomic_store(&paused, false);
}

static long env_or(const char *name, long otherwise)
{
	const char *v = getenv(name);

	return v && *v ? atol(v) : otherwise;
}

FIXTURE(soak) {};
FIXTURE_SETUP(soak) {}
FIXTURE_TEARDOWN(soak) {}

/* The guest's timeout (make soak: SOAK_S plus a margin) bounds the run, not the harness. */
TEST_F_TIMEOUT(soak, churn_for_long, 7 * 24 * 3600)
{
	long seconds = env_or("SOAK_SECONDS", 3600), bound = env_or("SOAK_GROWTH_KB", 4096);
	long first[FIGURES], kb[FIGURES], last_ops = 0, total;
	int kfd = open("/proc/kallsyms", O_RDONLY), i, minutes = 0, over;
	struct timespec t0, now, last;
	long wait;
	struct bpf_object *iter_obj, *progs_obj;
	struct bpf_link *iter_link;
	struct snapshot start;
	const char *missing;
	struct kallsyms_query q;
	pthread_t t[7];

	ASSERT_TRUE(seconds >= MINUTE && seconds % MINUTE == 0)
		TH_LOG("SOAK_SECONDS=%ld: whole minutes, a checkpoint each", seconds);
	ASSERT_LE(0, kfd);
	ASSERT_EQ(0, kq_query(kfd, &q, KALLSYMS_QUERY_BY_SYMBOL, 0, CORE_SYM, NULL, 0));
	core_addr = q.sym_addr;
	/* What stays loaded throughout: the iterator, and programs for the readers to find. */
	iter_obj = open_obj("ksym_kinds.bpf.o");
	ASSERT_NE(NULL, iter_obj);
	iter_link = bpf_program__attach_iter(bpf_object__find_program_by_name(iter_obj,
									      "ksym_dump"), NULL);
	ASSERT_NE(NULL, iter_link);
	progs_obj = open_progs();
	ASSERT_NE(NULL, progs_obj);
	/* Earlier programs may still be being freed: start from a set that holds. */
	ASSERT_TRUE(steady(kfd, &start)) TH_LOG("the BPF symbols kept changing before the start");

	pthread_create(&t[0], NULL, load_progs, NULL);
	pthread_create(&t[1], NULL, attach_fentry, NULL);
	pthread_create(&t[2], NULL, read_text, NULL);
	pthread_create(&t[3], NULL, read_query, NULL);
	pthread_create(&t[4], NULL, read_iter, iter_link);
	pthread_create(&t[5], NULL, read_batch, NULL);
	pthread_create(&t[6], NULL, check_generation, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	last = t0;
	while (minutes < seconds / MINUTE) {
		long ops_now, per_s;

		wait = MINUTE * (minutes + 1) - (last.tv_sec - t0.tv_sec);
		if (wait > 0)
			sleep(wait);
		ops_now = atomic_load(&ops);
		clock_gettime(CLOCK_MONOTONIC, &now);
		per_s = (ops_now - last_ops) / (now.tv_sec - last.tv_sec > 0 ?
						now.tv_sec - last.tv_sec : 1);
		checkpoint(kfd, &start, kb);
		if (!minutes++)
			memcpy(first, kb, sizeof(first));
		for (total = 0, i = 0; i < READERS; i++)
			total += atomic_load(&checked[i]);
		printf("# SOAK minute=%d ops=%ld ops_per_s=%ld churned=%ld checked=%ld wrong=%ld slab_kb=%ld vmalloc_kb=%ld percpu_kb=%ld\n",
		       minutes, ops_now, per_s,
		       atomic_load(&churned), total, atomic_load(&wrong), kb[SLAB], kb[VMALLOC],
		       kb[PERCPU]);
		fflush(stdout);
		last_ops = atomic_load(&ops);
		clock_gettime(CLOCK_MONOTONIC, &last);
	}
	atomic_store(&stop, true);
	for (i = 0; i < 7; i++)
		pthread_join(t[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &now);

	for (total = 0, i = 0; i < READERS; i++)
		total += atomic_load(&checked[i]);
	/* The time it ran, not the time asked for: make soak compares them. */
	printf("# SOAK END seconds=%ld ops=%ld checked=%ld wrong=%ld churned=%ld checkpoints=%d",
	       (long)(now.tv_sec - t0.tv_sec), atomic_load(&ops), total, atomic_load(&wrong),
	       atomic_load(&churned), atomic_load(&checkpoints));
	for (over = -1, i = 0; i < FIGURES; i++) {
		printf(" %s_kb=%ld->%ld", figure_names[i], first[i], kb[i]);
		if (kb[i] - first[i] > bound)
			over = i;
	}
	printf(" bound_kb=%ld generation_snapshots=%ld generations_compared=%ld\n", bound,
	       atomic_load(&checked[BY_GENERATION]), atomic_load(&generations_compared));
	EXPECT_EQ(-1, over) TH_LOG("%s grew by more than %ld kB from the first minute to the last",
				   figure_names[over < 0 ? 0 : over], bound);
	EXPECT_EQ(0, atomic_load(&wrong));
	EXPECT_LT(0, atomic_load(&generations_compared))
		TH_LOG("no two reads under one generation were compared");
	EXPECT_LT(0, atomic_load(&bpf_lines_checked)) TH_LOG("no reader got to a BPF line");
	for (missing = NULL, i = 0; i < READERS; i++)
		if (!atomic_load(&checked[i]))
			missing = reader_names[i];
	EXPECT_EQ(NULL, missing) TH_LOG("no %s checked", missing);
	EXPECT_EQ(minutes, atomic_load(&checkpoints)) TH_LOG("a checkpoint did not finish");

	bpf_link__destroy(iter_link);
	bpf_object__close(iter_obj);
	bpf_object__close(progs_obj);
	close(kfd);
}

TEST_HARNESS_MAIN
