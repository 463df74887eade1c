# SPDX-License-Identifier: GPL-2.0
"""The lines scripts/guest/init prints when a guest's run ends, for the host's readers.

init writes them with the exit status of what it ran ("<marker> rc=N ==="); results.py
(tests, demo, fuzzing, fault injection, soak, repeated stress), bench.py (benchmarks) and upstream.py (test_progs)
read them. A guest log without its marker did not finish.
"""
KSELFTESTS_DONE = '=== KSELFTESTS DONE'
DEMO_END = '=== DEMO END'
FUZZ_END = '=== FUZZ END'
FAULTS_END = '=== FAULTS END'
SOAK_END = '=== SOAK END'
STRESS_END = '=== STRESS END'
TEXT_PATCH_END = '=== TEXT PATCH END'
BENCH_END = '=== BENCH END'
UPSTREAM_END = '=== UPSTREAM END'
