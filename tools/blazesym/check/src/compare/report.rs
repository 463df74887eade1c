// SPDX-License-Identifier: GPL-2.0
//! Reporting: the static comparison's verdicts tallied, and the summary
//! of all the checks with the exit status.

use super::addrs::Test;
use super::verdict::Verdict;
use super::Opts;
use super::SHOWN;
use crate::answer::Answer;

/// The test addresses and both answers for each.
pub(super) struct Results<'a> {
    pub(super) tests: &'a [Test],
    pub(super) text: &'a [Answer],
    pub(super) kq: &'a [Answer],
}

/// The verdicts counted; text errors and failures by test index.
pub(super) struct Tally {
    same: usize,
    module_added: usize,
    alias: usize,
    wrong: usize,
    text_errors: Vec<usize>,
    fails: Vec<(usize, String)>,
}

/// The outcomes of the other checks.
pub(super) struct Others {
    pub(super) dynamic: bool,
    pub(super) capi: bool,
    pub(super) extents: bool,
    /// No KALLSYMS_QUERY (`--allow-fallback`).
    pub(super) no_kq: bool,
}

/// Count the verdicts, one per test of `r`, and print (some of) those
/// where text is wrong or failed.
pub(super) fn tally(r: &Results, verdicts: Vec<Verdict>) -> Tally {
    let mut n = Tally {
        same: 0,
        module_added: 0,
        alias: 0,
        wrong: 0,
        text_errors: Vec::new(),
        fails: Vec::new(),
    };
    let mut wrong_shown = 0;
    for (i, (test, verdict)) in r.tests.iter().zip(verdicts).enumerate() {
        match verdict {
            Verdict::Same => n.same += 1,
            Verdict::ModuleAdded => n.module_added += 1,
            Verdict::Alias => n.alias += 1,
            Verdict::TextWrong => {
                if wrong_shown < SHOWN {
                    if wrong_shown == 0 {
                        println!("where text is wrong and kq right (at most {SHOWN}):");
                    }
                    println!(
                        "  0x{:x} {}/{}: text: {} | kq: {}",
                        test.addr,
                        test.kind.label(),
                        test.what,
                        r.text[i],
                        r.kq[i]
                    );
                    wrong_shown += 1;
                }
                n.wrong += 1;
            }
            Verdict::TextError => n.text_errors.push(i),
            Verdict::Fail(why) => n.fails.push((i, why)),
        }
    }
    for &i in n.text_errors.iter().take(SHOWN) {
        let t = &r.tests[i];
        println!(
            "text failed at 0x{:x} {}/{} (kq has the kernel's answer): text: {} | kq: {}",
            t.addr,
            t.kind.label(),
            t.what,
            r.text[i],
            r.kq[i]
        );
    }
    n
}

/// Print the failures and the summary; returns the exit status, 0 on a
/// pass.
pub(super) fn summary(r: &Results, n: &Tally, others: &Others, opts: &Opts) -> u8 {
    let tests = r.tests;
    let (same, module_added, alias, wrong) = (n.same, n.module_added, n.alias, n.wrong);
    let identical = same + module_added + alias;
    for (i, why) in n.fails.iter().take(SHOWN) {
        let t = &tests[*i];
        println!(
            "FAIL 0x{:x} {}/{}: {why}: text: {} | kq: {}",
            t.addr,
            t.kind.label(),
            t.what,
            r.text[*i],
            r.kq[*i]
        );
    }
    println!(
        "identical: {same} exactly, {module_added} but for the module kq adds ([owner], text has none), \
         {alias} under another name of the same symbol"
    );
    println!(
        "blazesym-check: compare: {} addresses, {identical} identical, {wrong} where text is wrong and kq right, \
         {} where text failed and kq is right (not identical), {} failures",
        tests.len(),
        n.text_errors.len(),
        n.fails.len()
    );
    let pass = n.fails.is_empty()
        && identical > 0
        && tests.len() >= opts.addrs
        && others.dynamic
        && others.capi
        && others.extents;
    if tests.len() < opts.addrs {
        println!(
            "blazesym-check: compare: only {} addresses, {} asked for",
            tests.len(),
            opts.addrs
        );
    }
    if !others.dynamic {
        println!("blazesym-check: compare: dynamic cases FAILED");
    }
    if !others.capi {
        println!("blazesym-check: compare: capi FAILED");
    }
    if !others.extents {
        println!("blazesym-check: compare: bpf extents FAILED");
    }
    if others.no_kq {
        println!("blazesym-check: compare: NOTE: no KALLSYMS_QUERY: kq-only checks skipped (--allow-fallback)");
    }
    println!(
        "blazesym-check: compare: {}",
        if pass { "PASS" } else { "FAIL" }
    );
    u8::from(!pass)
}
