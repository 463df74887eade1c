// SPDX-License-Identifier: GPL-2.0
//! The command line as a shell sees it: which stream gets what, and the exit status, for the
//! command lines that never open /proc/kallsyms (their answers are the same on any machine).
//! Which words make which command line is `src/main.rs`'s tests' to say.

use std::fs::File;
use std::process::{Command, Output, Stdio};

fn ksym_query(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ksym-query"))
        .args(args)
        .output()
        .expect("running ksym-query")
}

/// The usage, as the help begins with it.
fn usage() -> String {
    let help = String::from_utf8(ksym_query(&["--help"]).stdout).unwrap();
    let end = help.find("\n\n").expect("a blank line after the usage");
    help[..end + 1].to_string()
}

#[test]
fn help_and_version_go_to_stdout_and_exit_0() {
    for (args, starts) in [
        (["--help"], "usage: ksym-query "),
        (
            ["--version"],
            concat!("ksym-query ", env!("CARGO_PKG_VERSION"), "\n"),
        ),
    ] {
        let o = ksym_query(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(o.stderr.is_empty(), "{args:?}");
        assert!(String::from_utf8(o.stdout).unwrap().starts_with(starts));
    }
}

#[test]
fn a_usage_error_goes_to_stderr_with_the_usage_and_exits_2() {
    let o = ksym_query(&["addr", "xyz"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        format!(
            "ksym-query: 'xyz' is not a hex address\n{}Try 'ksym-query --help' for more.\n",
            usage()
        )
    );
}

#[test]
fn a_usage_error_exits_2_even_if_stderr_cannot_be_written() {
    let status = Command::new(env!("CARGO_BIN_EXE_ksym-query"))
        .arg("bogus")
        .stderr(Stdio::from(File::create("/dev/full").unwrap()))
        .status()
        .expect("running ksym-query");
    assert_eq!(status.code(), Some(2));
}
