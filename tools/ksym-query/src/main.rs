// SPDX-License-Identifier: GPL-2.0
//! `ksym-query name <symbol>` / `ksym-query addr <address>`: one kernel symbol lookup.
//! `ksym-query symbolize`: every kernel address in the text on stdin, named, line by line.
//!
//! The help below is the command line's reference: the README points to it, so that each rule
//! is stated once, next to the code that keeps it.

use ksym_query::{errno, scan, Error, Kallsyms, Reason, Symbol, Symbolized, Symbolizer};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::process::ExitCode;

/// Exit statuses, as the help lists them.
const EXIT_NOT_FOUND: u8 = 1;
const EXIT_USAGE: u8 = 2;
const EXIT_NOT_PERMITTED: u8 = 3;
const EXIT_ERROR: u8 = 4;

const USAGE: &str = "\
usage: ksym-query [options] name <symbol>
       ksym-query [options] addr <hex address>
       ksym-query [options] symbolize
";

/// The help, after [`USAGE`].
const HELP: &str = "
Kernel symbol lookups on /proc/kallsyms, with the KALLSYMS_QUERY ioctl, or by
parsing the file on kernels without it.

commands:
  name <symbol>   print the symbol's address: '<16 hex digits> <symbol>'. It
                  is looked for in vmlinux, then, if vmlinux has none, in the
                  modules; never among BPF symbols or ftrace and kprobe
                  trampolines. A name at several addresses is an error
  addr <address>  print the symbol that covers the address in the format of
                  the kernel's %pS, the owner always shown:
                  'symbol+0xoff/0xsize [owner]', owner vmlinux, a module or bpf
  symbolize       copy stdin to stdout with each kernel address written as
                  'symbol+0xoff/0xsize [owner]'. A line is written as soon as
                  its addresses are named: the lines already read are named
                  together (one batch), never waiting for more input. With a
                  KALLSYMS_QUERY that has a generation (version 2), answers
                  are cached until it changes; an older one is asked again
                  for every address. Addresses no symbol covers, or that a
                  failed lookup left unnamed, are copied as they are, and so
                  is every other byte (line ends, a last line without one,
                  bytes that are not UTF-8)

options (anywhere on the line, one per word: -vh is not -v -h; '--' ends them):
  --text          parse /proc/kallsyms instead of using the KALLSYMS_QUERY
                  ioctl: the running kernel's file only (a saved copy is for
                  the library's Kallsyms::from_text)
  -v, --verbose   addr, symbolize (name ignores it): add '<kind id=N subprog=N>'
                  after the owner: what the symbol is, and for BPF programs and
                  subprograms the program's id and the subprogram's index,
                  where the kernel gives them. The kinds: vmlinux, module,
                  module_init (a module's init code, once freed), bpf_prog,
                  bpf_subprog, bpf_trampoline, bpf_dispatcher, bpf_image
                  (other BPF code), other (a kind this version does not know)
  -h, --help      print this help on stdout and exit 0
  --version       print the version on stdout and exit 0

addresses:
  addr takes hex digits of either case, '0x' or '0X' optional, up to 64 bits;
  anything else is a usage error. symbolize names exactly 16 hex digits of
  either case, with or without a lower-case '0x', whose value is at least
  ffff800000000000, and not inside a longer word (an ASCII letter, digit or
  '_' right before or after it); other numbers, user addresses and hex inside
  names are left alone. With the ioctl the kernel says which symbol covers an
  address, with its exact size, as its own backtraces name code: an address in
  an ftrace or kprobe trampoline has no symbol (though /proc/kallsyms lists
  them), nor has BPF code while /proc/kallsyms hides it.

without the ioctl (--text, or a kernel without KALLSYMS_QUERY), only what the
text can say. It is read once, at start, and never again: symbols loaded
later (modules, BPF programs) are never named, and those gone since still are.
  - a vmlinux or module symbol ends where the next symbol starts, if that one
    has the same owner: that is its size (the kernel's, where both lie in one
    piece of memory). Otherwise (the last symbol of vmlinux or of a module,
    or one followed by another owner's, whose memory cannot be its own) it
    has no size ('/?') and names only its own address: past it, not found
  - a BPF symbol, or an ftrace or kprobe trampoline, has no size ('/?'). An
    address after one is named after it up to the next symbol, or if it is
    the symbol at the highest address, up to the end of its 2 MiB (the chunk
    the BPF JIT packs images in), even if it lies in a gap after the image:
    the one guess the text makes
  - of names at one address, the first in the file
  - kinds from the owner column: vmlinux; bpf_prog, bpf_trampoline,
    bpf_dispatcher or bpf_image by the prefix of a BPF name; module for any
    other owner, trampolines included. Never bpf_subprog or module_init, and
    no ids
  - a file whose addresses are all zero hides them from you (3); one without
    any symbol line is an I/O error (4, with no errno name)

output:
  Answers go to stdout, nothing else does. Errors go to stderr, one line each:
  'ksym-query: <what>: <message>', <what> being /proc/kallsyms (it cannot be
  opened, read or used), 'name <symbol>', 'addr <address>' (lower-case hex,
  no 0x), symbolize, or stdout (writing it failed); the message ends in the
  errno's name, as '(ENOENT)', where it has one. A usage error is
  'ksym-query: <message>', the usage and a pointer to this help. Notes that
  change no exit status also go to stderr, in words that may change: that the
  text was parsed for want of the ioctl, or that symbolize copies its input
  with no address named.

exit status:
  0  success (symbolize: also when some addresses have no symbol)
  1  not found: no such symbol, or no symbol covers the address (a lookup's
     ENOENT; a missing /proc/kallsyms, ENOENT too, is 4)
  2  usage error: a missing, extra or unknown word, an address that is not
     hex or is over 64 bits
  3  not permitted: kernel addresses are hidden from you (EPERM; the message
     says who may see them), or /proc/kallsyms cannot be read (EACCES)
  4  any other error: a name at several addresses (EADDRNOTAVAIL), a name of
     512 bytes or more (ENAMETOOLONG), a failed lookup, an I/O error
which wins when several apply:
  -h (before any '--') wins over everything else on the line, then --version,
  then a usage error. name and addr exit with the status of their one answer.
  symbolize copies its input to the end whatever happens to the lookups,
  reports each kind of failure once, and exits with the status of the first
  address, in input order, that a failure left unnamed (3 or 4). Nothing says
  which addresses those are: an address a failed lookup left unnamed is
  copied as one no symbol covers is. A later failure to read stdin (4) or to
  write stdout (4) does not replace that status, and a reader that goes away
  ('symbolize | head') ends it quietly, with the status so far. If
  /proc/kallsyms cannot be used at all (it cannot be opened or read, or it
  hides every address), symbolize copies its input unchanged and exits with
  that error's status, whether or not the input holds an address.
";

/// What to do.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    Name(String),
    Addr(u64),
    Symbolize,
}

/// A command line that runs a command.
#[derive(Debug, PartialEq, Eq)]
struct Options {
    text: bool,
    verbose: bool,
    command: Command,
}

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
enum Invocation {
    Help,
    Version,
    Run(Options),
}

/// The command line (without the program's name): options anywhere, `--` ending them. `-h`
/// and `--version` win over anything else on it. `Err` says what is wrong with it.
fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Invocation, String> {
    let (mut text, mut verbose, mut help, mut version) = (false, false, false, false);
    let mut unknown = None;
    let mut words = Vec::new();
    let mut options_ended = false;
    for a in args {
        if options_ended || a == "-" || !a.starts_with('-') {
            words.push(a);
            continue;
        }
        match a.as_str() {
            "--" => options_ended = true,
            "--text" => text = true,
            "-v" | "--verbose" => verbose = true,
            "-h" | "--help" => help = true,
            "--version" => version = true,
            _ => {
                unknown.get_or_insert(a);
            }
        }
    }
    if help {
        return Ok(Invocation::Help);
    }
    if version {
        return Ok(Invocation::Version);
    }
    if let Some(a) = unknown {
        return Err(format!("unknown option '{a}'"));
    }
    let command = match words.as_slice() {
        [] => return Err("no command".into()),
        [c, name] if c == "name" => Command::Name(name.clone()),
        [c, addr] if c == "addr" => Command::Addr(parse_addr(addr)?),
        [c] if c == "symbolize" => Command::Symbolize,
        [c] if c == "name" || c == "addr" => return Err(format!("{c}: one argument expected")),
        [c, ..] if c == "name" || c == "addr" || c == "symbolize" => {
            return Err(format!("{c}: too many arguments"))
        }
        [c, ..] => return Err(format!("unknown command '{c}'")),
    };
    Ok(Invocation::Run(Options {
        text,
        verbose,
        command,
    }))
}

/// A hex address, `0x` optional.
fn parse_addr(arg: &str) -> Result<u64, String> {
    let digits = arg
        .strip_prefix("0x")
        .or_else(|| arg.strip_prefix("0X"))
        .unwrap_or(arg);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("'{arg}' is not a hex address"));
    }
    u64::from_str_radix(digits, 16).map_err(|_| format!("'{arg}' is more than 64 bits"))
}

/// The exit status for a failed lookup.
fn exit_code(e: &Error) -> u8 {
    match e {
        Error::NotFound => EXIT_NOT_FOUND,
        Error::NotPermitted => EXIT_NOT_PERMITTED,
        e if matches!(e.errno(), Some(errno::EPERM | errno::EACCES)) => EXIT_NOT_PERMITTED,
        _ => EXIT_ERROR,
    }
}

/// The exit status `symbolize` ends with for an address that has no symbol: 0 if that is the
/// answer, else as for the error that left it unanswered.
fn reason_code(r: &Reason) -> u8 {
    match r {
        Reason::NoSymbol => 0,
        Reason::NotPermitted => EXIT_NOT_PERMITTED,
        Reason::LookupError {
            errno: Some(errno::EPERM | errno::EACCES),
            ..
        } => EXIT_NOT_PERMITTED,
        _ => EXIT_ERROR,
    }
}

/// The status of a run that had `status` when `next` happened: the first failure wins, so that
/// a failure already reported on stderr is never followed by success.
fn first_failure(status: u8, next: u8) -> u8 {
    if status != 0 {
        status
    } else {
        next
    }
}

/// An I/O error as the other errors read: its errno's name, not "(os error 5)".
fn io_message(e: io::Error) -> String {
    Error::Io(e).to_string()
}

/// `symbol+0xoff/0xsize [owner]`, with `-v` what it is and, for BPF code, its ids.
fn describe(s: &Symbol, addr: u64, verbose: bool) -> String {
    let mut out = s.frame(addr);
    if verbose {
        out += &format!(" <{}", s.kind.name());
        if let Some(id) = s.prog_id {
            out += &format!(" id={id}");
        }
        if let Some(sub) = s.subprog {
            out += &format!(" subprog={sub}");
        }
        out += ">";
    }
    out
}

/// Lines looked up together at most: those already read and buffered, never waiting for more.
const CHUNK_LINES: usize = 4096;

/// `symbolize`'s read buffer on stdin: what one read may bring, for one batch.
const INPUT_BUFFER: usize = 64 * 1024;

/// Copies `input` to `out` with its kernel addresses named by `resolve` (one answer per
/// address, as [`Symbolizer::symbolize`] gives them), line by line: each line is written and
/// flushed once its addresses are named. The lines already in `input`'s buffer are looked up
/// together (one batch); it never waits for more input to write a line it has. Everything but
/// the addresses is copied byte for byte: line ends (`\n`, `\r\n`, none at the end), bytes that
/// are not UTF-8, the part of a line read before a failed read. Each kind of failure is
/// reported once on `err`. Returns the exit status: that of the first address a failure left
/// unnamed, else that of a failed read or write, else 0.
fn symbolize<R: Read>(
    resolve: &mut impl FnMut(&[u64]) -> Vec<Symbolized>,
    input: &mut BufReader<R>,
    out: &mut impl Write,
    err: &mut impl Write,
    verbose: bool,
) -> u8 {
    let mut status = 0;
    let mut reported: Vec<Reason> = Vec::new();
    let mut lines: Vec<Vec<u8>> = Vec::new();
    let mut eof = false;
    let mut read_error = None;
    while !eof && read_error.is_none() {
        lines.clear();
        // A line, waiting for it if need be, then those already buffered.
        loop {
            let mut line = Vec::new();
            let read = input.read_until(b'\n', &mut line);
            // What a failed read leaves in `line` was read: it is written like any last line.
            if !line.is_empty() {
                lines.push(line);
            }
            match read {
                Ok(0) => eof = true,
                Ok(_) => {}
                Err(e) => read_error = Some(e),
            }
            if eof
                || read_error.is_some()
                || lines.len() >= CHUNK_LINES
                || !input.buffer().contains(&b'\n')
            {
                break;
            }
        }
        let found: Vec<_> = lines.iter().map(|l| scan::kernel_addresses(l)).collect();
        let addrs: Vec<u64> = found.iter().flatten().map(|(_, a)| *a).collect();
        let mut answers = if addrs.is_empty() {
            Vec::new()
        } else {
            resolve(&addrs)
        }
        .into_iter();
        for (line, found) in lines.iter().zip(found) {
            let mut text = Vec::with_capacity(line.len() + 64);
            let mut last = 0;
            for (range, addr) in found {
                text.extend_from_slice(&line[last..range.start]);
                match answers.next() {
                    Some(Symbolized::Sym(s)) => {
                        text.extend_from_slice(describe(&s, addr, verbose).as_bytes())
                    }
                    Some(Symbolized::Unknown(why)) => {
                        let code = reason_code(&why);
                        if code != 0 && !reported.contains(&why) {
                            let _ = writeln!(err, "ksym-query: symbolize: {why}");
                            reported.push(why);
                        }
                        status = first_failure(status, code);
                        text.extend_from_slice(&line[range.clone()]);
                    }
                    None => text.extend_from_slice(&line[range.clone()]),
                }
                last = range.end;
            }
            text.extend_from_slice(&line[last..]);
            if let Err(e) = out.write_all(&text) {
                return first_failure(status, write_failed(e, err));
            }
        }
        if let Err(e) = out.flush() {
            return first_failure(status, write_failed(e, err));
        }
    }
    if let Some(e) = read_error {
        let _ = writeln!(
            err,
            "ksym-query: symbolize: reading stdin: {}",
            io_message(e)
        );
        return first_failure(status, EXIT_ERROR);
    }
    status
}

/// `symbolize` without a `/proc/kallsyms` to ask: its input copied as it is, as [`symbolize`]
/// copies what it cannot name (a failed read or write reported as it reports them), so that a
/// pipe through it still carries everything. Returns `status`, the status of why.
fn copy_unnamed<R: Read>(
    status: u8,
    input: &mut BufReader<R>,
    out: &mut impl Write,
    err: &mut impl Write,
) -> u8 {
    let mut unnamed = |addrs: &[u64]| vec![Symbolized::Unknown(Reason::NoSymbol); addrs.len()];
    first_failure(status, symbolize(&mut unnamed, input, out, err, false))
}

/// `name` or `addr`: the answer on `out`, the error on `err`; the exit status.
fn lookup(
    k: &Kallsyms,
    command: &Command,
    verbose: bool,
    out: &mut impl Write,
    err: &mut impl Write,
) -> u8 {
    let (answer, what) = match command {
        Command::Name(name) => (
            k.by_name(name).map(|a| format!("{a:016x} {name}")),
            format!("name {name}"),
        ),
        Command::Addr(addr) => (
            k.by_addr(*addr).map(|s| describe(&s, *addr, verbose)),
            format!("addr {addr:x}"),
        ),
        Command::Symbolize => unreachable!("symbolize is not a lookup"),
    };
    match answer {
        Ok(line) => match writeln!(out, "{line}").and_then(|()| out.flush()) {
            Ok(()) => 0,
            Err(e) => write_failed(e, err),
        },
        Err(Error::NotFound) if matches!(command, Command::Addr(_)) => {
            let _ = writeln!(
                err,
                "ksym-query: {what}: no symbol covers the address (ENOENT)"
            );
            EXIT_NOT_FOUND
        }
        Err(e) => {
            let _ = writeln!(err, "ksym-query: {what}: {e}");
            exit_code(&e)
        }
    }
}

/// The exit status for a failed write to stdout: quiet and 0 if its reader went away
/// (`ksym-query symbolize | head`), an error otherwise.
fn write_failed(e: io::Error, err: &mut impl Write) -> u8 {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return 0;
    }
    let _ = writeln!(err, "ksym-query: stdout: {}", io_message(e));
    EXIT_ERROR
}

fn run(o: &Options) -> u8 {
    let mut err = io::stderr();
    let opened = if o.text {
        Kallsyms::open_text()
    } else {
        Kallsyms::open()
    };
    let k = match opened {
        Ok(k) => k,
        Err(e) => {
            let _ = writeln!(err, "ksym-query: /proc/kallsyms: {e}");
            if o.command == Command::Symbolize {
                let _ = writeln!(
                    err,
                    "ksym-query: symbolize: copying stdin with no address named"
                );
                return copy_unnamed(
                    exit_code(&e),
                    &mut BufReader::with_capacity(INPUT_BUFFER, io::stdin().lock()),
                    &mut io::stdout().lock(),
                    &mut err,
                );
            }
            return exit_code(&e);
        }
    };
    if !k.uses_ioctl() && !o.text {
        let _ = writeln!(
            err,
            "ksym-query: this kernel has no KALLSYMS_QUERY; parsed /proc/kallsyms instead"
        );
    }
    let mut out = io::stdout().lock();
    if o.command != Command::Symbolize {
        return lookup(&k, &o.command, o.verbose, &mut out, &mut err);
    }
    let mut sym = Symbolizer::new(k);
    let mut input = BufReader::with_capacity(INPUT_BUFFER, io::stdin().lock());
    symbolize(
        &mut |addrs| sym.symbolize(addrs),
        &mut input,
        &mut out,
        &mut err,
        o.verbose,
    )
}

/// Writes `text` to stdout, for `--help` and `--version`: 0, or as [`write_failed`] says.
fn write_stdout(text: &str) -> ExitCode {
    let mut out = io::stdout();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => ExitCode::from(write_failed(e, &mut io::stderr())),
    }
}

fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(Invocation::Run(o)) => o,
        Ok(Invocation::Help) => return write_stdout(&format!("{USAGE}{HELP}")),
        Ok(Invocation::Version) => {
            return write_stdout(concat!("ksym-query ", env!("CARGO_PKG_VERSION"), "\n"))
        }
        Err(e) => {
            // Not eprintln!, which panics if stderr cannot be written: the status says it.
            let _ = write!(
                io::stderr(),
                "ksym-query: {e}\n{USAGE}Try 'ksym-query --help' for more.\n"
            );
            return ExitCode::from(EXIT_USAGE);
        }
    };
    ExitCode::from(run(&options))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ksym_query::Kind;
    use std::cell::RefCell;
    use std::collections::VecDeque;
    use std::rc::Rc;

    fn parse(line: &str) -> Result<Invocation, String> {
        parse_args(line.split_whitespace().map(String::from))
    }

    fn run_opts(text: bool, verbose: bool, command: Command) -> Result<Invocation, String> {
        Ok(Invocation::Run(Options {
            text,
            verbose,
            command,
        }))
    }

    #[test]
    fn the_selftests_command_lines_still_parse() {
        let name = || Command::Name("bpf_user_rnd_u32".into());
        assert_eq!(
            parse("name bpf_user_rnd_u32"),
            run_opts(false, false, name())
        );
        assert_eq!(
            parse("--text name bpf_user_rnd_u32"),
            run_opts(true, false, name())
        );
        assert_eq!(
            parse("addr ffffffff8114f874"),
            run_opts(false, false, Command::Addr(0xffffffff8114f874))
        );
        assert_eq!(
            parse("symbolize -v"),
            run_opts(false, true, Command::Symbolize)
        );
        assert_eq!(
            parse("symbolize"),
            run_opts(false, false, Command::Symbolize)
        );
    }

    #[test]
    fn options_go_anywhere() {
        let want = run_opts(true, true, Command::Addr(0xffffffff81000000));
        for line in [
            "--text -v addr 0xffffffff81000000",
            "addr --text 0xffffffff81000000 -v",
            "addr 0xffffffff81000000 --verbose --text",
            "-v addr ffffffff81000000 --text",
        ] {
            assert_eq!(parse(line), want, "{line}");
        }
        assert_eq!(
            parse("name sym --text -v"),
            run_opts(true, true, Command::Name("sym".into()))
        );
        // After --, a word that looks like an option is an argument.
        assert_eq!(
            parse("name -- -odd"),
            run_opts(false, false, Command::Name("-odd".into()))
        );
        assert_eq!(
            parse("-- symbolize"),
            run_opts(false, false, Command::Symbolize)
        );
        // One option per word.
        assert_eq!(
            parse("-vh addr ff"),
            Err("unknown option '-vh'".to_string())
        );
    }

    #[test]
    fn help_and_version_win_anywhere() {
        for line in [
            "-h",
            "--help",
            "name x --help",
            "addr zzz -h",
            "bogus -h",
            "--bad -h",
        ] {
            assert_eq!(parse(line), Ok(Invocation::Help), "{line}");
        }
        for line in ["--version", "symbolize --version", "--nope --version"] {
            assert_eq!(parse(line), Ok(Invocation::Version), "{line}");
        }
        assert_eq!(parse("--version --help"), Ok(Invocation::Help));
        // Not after --.
        assert!(parse("name -- --help").is_ok_and(|i| i != Invocation::Help));
    }

    #[test]
    fn bad_usage_says_what_is_wrong() {
        for (line, want) in [
            ("", "no command"),
            ("--text", "no command"),
            ("name", "name: one argument expected"),
            ("addr", "addr: one argument expected"),
            ("name a b", "name: too many arguments"),
            ("symbolize x", "symbolize: too many arguments"),
            ("lookup x", "unknown command 'lookup'"),
            ("-x name a", "unknown option '-x'"),
            ("name a --txt", "unknown option '--txt'"),
            ("addr xyz", "'xyz' is not a hex address"),
            ("addr 0x", "'0x' is not a hex address"),
            ("addr +ff", "'+ff' is not a hex address"),
            (
                "addr 1ffffffffffffffff",
                "'1ffffffffffffffff' is more than 64 bits",
            ),
        ] {
            assert_eq!(parse(line), Err(want.to_string()), "{line:?}");
        }
    }

    #[test]
    fn addresses_take_0x_or_not() {
        assert_eq!(parse_addr("0xFFFFffff81000000"), Ok(0xffffffff81000000));
        assert_eq!(parse_addr("0Xff"), Ok(0xff));
        assert_eq!(parse_addr("ff"), Ok(0xff));
        // Any length up to 64 bits: addr takes what it is given, kernel address or not.
        assert_eq!(parse_addr("0000000000000000ff"), Ok(0xff));
    }

    #[test]
    fn exit_codes_tell_failures_apart() {
        let os = |n| Error::from(io::Error::from_raw_os_error(n));
        assert_eq!(exit_code(&Error::NotFound), 1);
        assert_eq!(exit_code(&os(errno::ENOENT)), 1);
        assert_eq!(exit_code(&Error::NotPermitted), 3);
        assert_eq!(exit_code(&os(errno::EPERM)), 3);
        assert_eq!(exit_code(&os(errno::EACCES)), 3);
        assert_eq!(exit_code(&Error::Ambiguous), 4);
        assert_eq!(exit_code(&Error::NameTooLong), 4);
        assert_eq!(exit_code(&os(errno::EFAULT)), 4);
        assert_eq!(exit_code(&Error::Io(io::Error::other("x"))), 4);
        // A missing /proc/kallsyms is an I/O error, not a missing symbol.
        let missing = Error::Io(io::Error::from_raw_os_error(errno::ENOENT));
        assert_eq!(exit_code(&missing), 4);
        assert_eq!(reason_code(&Reason::NoSymbol), 0);
        assert_eq!(reason_code(&Reason::NotPermitted), 3);
        assert_eq!(reason_code(&Reason::from_error(&os(errno::EACCES))), 3);
        assert_eq!(reason_code(&Reason::from_error(&os(errno::EINTR))), 4);
    }

    #[test]
    fn help_documents_every_exit_code() {
        for code in [
            0,
            EXIT_NOT_FOUND,
            EXIT_USAGE,
            EXIT_NOT_PERMITTED,
            EXIT_ERROR,
        ] {
            assert!(HELP.contains(&format!("\n  {code}  ")), "{code}");
        }
        assert!(HELP.lines().chain(USAGE.lines()).all(|l| l.len() <= 80));
    }

    fn symbol(name: &str, owner: &str, kind: Kind) -> Symbol {
        Symbol {
            name: name.into(),
            start: 0x1000,
            size: Some(0x20),
            owner: owner.into(),
            kind,
            prog_id: None,
            subprog: None,
            exact: true,
        }
    }

    #[test]
    fn verbose_adds_the_kinds_the_help_lists_and_the_ids_the_kernel_gives() {
        let kinds: Vec<_> = Kind::ALL.into_iter().chain([Kind::Other(99)]).collect();
        // The help's list, without its glosses: exactly the names -v prints, in any order.
        let help = HELP.split_whitespace().collect::<Vec<_>>().join(" ");
        let listed = help.split("The kinds: ").nth(1).unwrap();
        let mut listed = &listed[..listed.find(" -h, --help").unwrap()];
        let mut names = String::new();
        while let Some((before, after)) = listed.split_once(" (") {
            names.push_str(before);
            listed = &after[after.find(')').unwrap() + 1..];
        }
        names.push_str(listed);
        let mut names: Vec<_> = names.split(", ").collect();
        let mut printed: Vec<_> = kinds.iter().map(|k| k.name()).collect();
        names.sort_unstable();
        printed.sort_unstable();
        assert_eq!(names, printed);
        for kind in kinds {
            let s = symbol("f", "", kind);
            let want = format!("f+0x4/0x20 [vmlinux] <{}>", kind.name());
            assert_eq!(describe(&s, 0x1004, true), want);
            assert_eq!(describe(&s, 0x1004, false), "f+0x4/0x20 [vmlinux]");
        }
        let mut s = symbol("bpf_prog_x_f", "bpf", Kind::BpfSubprog);
        (s.prog_id, s.subprog) = (Some(6), Some(2));
        assert_eq!(
            describe(&s, 0x1000, true),
            "bpf_prog_x_f+0x0/0x20 [bpf] <bpf_subprog id=6 subprog=2>"
        );
    }

    const TEXT: &str = "\
ffffffff81000000 T _text
ffffffff81000100 T first_func
ffffffff81000200 t second_func
ffffffff81000300 T _etext
ffffffffc0000000 t mod_func\t[some_mod]
ffffffffc0000100 t mod_exit\t[some_mod]
ffffffffc0100000 t bpf_prog_0123456789abcdef_prog\t[bpf]
ffffffffc0100800 t bpf_trampoline_6442450944\t[bpf]
";

    fn kallsyms() -> Kallsyms {
        Kallsyms::from_text(TEXT.as_bytes()).unwrap()
    }

    /// `command` on `k`: its exit status, stdout and stderr.
    fn lookup_on(k: &Kallsyms, command: Command, verbose: bool) -> (u8, String, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let status = lookup(k, &command, verbose, &mut out, &mut err);
        let text = |b| String::from_utf8(b).unwrap();
        (status, text(out), text(err))
    }

    #[test]
    fn lookups_print_and_exit_like_the_table() {
        let k = kallsyms();
        let ok = |out: &str| (0, out.to_string(), String::new());
        assert_eq!(
            lookup_on(&k, Command::Name("second_func".into()), true),
            ok("ffffffff81000200 second_func\n")
        );
        let addr = || Command::Addr(0xffffffffc0000010);
        assert_eq!(
            lookup_on(&k, addr(), true),
            ok("mod_func+0x10/0x100 [some_mod] <module>\n")
        );
        assert_eq!(
            lookup_on(&k, addr(), false),
            ok("mod_func+0x10/0x100 [some_mod]\n")
        );
        // Errors go to stderr only, one line each, naming what failed.
        assert_eq!(
            lookup_on(&k, Command::Name("nope".into()), false),
            (
                1,
                String::new(),
                "ksym-query: name nope: no such symbol (ENOENT)\n".into()
            )
        );
        assert_eq!(
            lookup_on(&k, Command::Addr(0x1000), false),
            (
                1,
                String::new(),
                "ksym-query: addr 1000: no symbol covers the address (ENOENT)\n".into()
            )
        );
        let (status, out, err) = lookup_on(&k, Command::Name("x".repeat(512)), false);
        assert_eq!((status, out.as_str()), (4, ""));
        assert!(err.ends_with("(ENAMETOOLONG)\n"), "{err}");
    }

    /// Output that reaches the shared buffer only when flushed.
    struct Flushed {
        pending: Vec<u8>,
        out: Rc<RefCell<Vec<u8>>>,
    }

    impl Write for Flushed {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.pending.extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            self.out.borrow_mut().append(&mut self.pending);
            Ok(())
        }
    }

    /// Input that arrives in chunks, as from a pipe; before each chunk after the first, the
    /// output flushed so far must be what the chunks before it make.
    struct Pipe {
        chunks: VecDeque<(String, &'static str)>,
        out: Rc<RefCell<Vec<u8>>>,
    }

    impl Read for Pipe {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let Some((want, chunk)) = self.chunks.pop_front() else {
                return Ok(0);
            };
            assert_eq!(String::from_utf8_lossy(&self.out.borrow()), want);
            buf[..chunk.len()].copy_from_slice(chunk.as_bytes());
            Ok(chunk.len())
        }
    }

    /// `input` through `symbolize` on [`TEXT`]: its exit status, stdout and stderr.
    fn symbolize_text(input: &[u8], verbose: bool) -> (u8, Vec<u8>, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut sym = Symbolizer::new(kallsyms());
        let status = symbolize(
            &mut |a| sym.symbolize(a),
            &mut BufReader::new(input),
            &mut out,
            &mut err,
            verbose,
        );
        (status, out, String::from_utf8(err).unwrap())
    }

    #[test]
    fn symbolize_writes_each_line_before_reading_on() {
        let out = Rc::new(RefCell::new(Vec::new()));
        let first = "at first_func+0x4/0x100 [vmlinux]\n";
        let next = "second_func+0x0/0x100 [vmlinux], 0x1000\r\nno address\n";
        let last = "partial line bpf_prog_0123456789abcdef_prog+0x10/? [bpf]";
        let mut input = BufReader::new(Pipe {
            chunks: VecDeque::from([
                ("".to_string(), "at ffffffff81000104\n"),
                // Two lines at once are looked up together, the partial one waits.
                (
                    first.to_string(),
                    "ffffffff81000200, 0x1000\r\nno address\npartial ",
                ),
                (format!("{first}{next}"), "line ffffffffc0100010"),
            ]),
            out: out.clone(),
        });
        let mut w = Flushed {
            pending: Vec::new(),
            out: out.clone(),
        };
        let mut sym = Symbolizer::new(kallsyms());
        let status = symbolize(
            &mut |a| sym.symbolize(a),
            &mut input,
            &mut w,
            &mut io::sink(),
            false,
        );
        assert_eq!(status, 0);
        assert_eq!(
            String::from_utf8_lossy(&out.borrow()),
            format!("{first}{next}{last}")
        );
        assert_eq!(sym.looked_up, 3);
    }

    #[test]
    fn symbolize_copies_all_but_the_addresses_byte_for_byte() {
        let input = b"\xff ffffffff81000104 \xfe\r\n\r\nlast ffffffff81000200";
        assert_eq!(
            symbolize_text(input, false),
            (
                0,
                b"\xff first_func+0x4/0x100 [vmlinux] \xfe\r\n\r\n\
                  last second_func+0x0/0x100 [vmlinux]"
                    .to_vec(),
                String::new()
            )
        );
    }

    #[test]
    fn symbolize_names_exactly_what_the_help_calls_an_address() {
        let input = "\
0xffffffff81000104 FFFFFFFF81000104 0xFFFFFFFF81000104
0Xffffffff81000104 ffff7fffffffffff ffff800000000000 ffffffff8100010
fffffffff81000104 f_ffffffff81000104 ffffffff81000104_ xffffffff81000104
(ffffffff81000104) ffffffff81000104:ffffffff81000200 \u{e9}ffffffff81000104
";
        let want = "\
first_func+0x4/0x100 [vmlinux] first_func+0x4/0x100 [vmlinux] first_func+0x4/0x100 [vmlinux]
0Xffffffff81000104 ffff7fffffffffff ffff800000000000 ffffffff8100010
fffffffff81000104 f_ffffffff81000104 ffffffff81000104_ xffffffff81000104
(first_func+0x4/0x100 [vmlinux]) first_func+0x4/0x100 [vmlinux]:second_func+0x0/0x100 \
[vmlinux] \u{e9}first_func+0x4/0x100 [vmlinux]
";
        let (mut out, mut err, mut asked) = (Vec::new(), Vec::new(), Vec::new());
        let mut sym = Symbolizer::new(kallsyms());
        let mut recorded = |addrs: &[u64]| {
            asked.extend_from_slice(addrs);
            sym.symbolize(addrs)
        };
        let status = symbolize(
            &mut recorded,
            &mut BufReader::new(input.as_bytes()),
            &mut out,
            &mut err,
            false,
        );
        assert_eq!(
            (status, String::from_utf8(out).unwrap(), err.as_slice()),
            (0, want.into(), &b""[..])
        );
        // The lowest kernel address is asked (and no symbol covers it), the one below is not.
        let (named, next, lowest) = (0xffffffff81000104, 0xffffffff81000200, 0xffff800000000000);
        let by_line: [&[u64]; 4] = [&[named; 3], &[lowest], &[], &[named, named, next, named]];
        assert_eq!(asked, by_line.concat());
    }

    /// Answers as [`TEXT`] gives them, but for addresses that fail as `failing` says.
    fn failing<'a>(
        k: &'a Kallsyms,
        failing: &[(u64, Reason)],
    ) -> impl FnMut(&[u64]) -> Vec<Symbolized> + 'a {
        let failing = failing.to_vec();
        move |addrs| {
            addrs
                .iter()
                .map(|&a| match failing.iter().find(|f| f.0 == a) {
                    Some((_, why)) => Symbolized::Unknown(why.clone()),
                    None => k
                        .by_addr(a)
                        .map_or(Symbolized::Unknown(Reason::NoSymbol), Symbolized::Sym),
                })
                .collect()
        }
    }

    const HIDDEN: u64 = 0xffffffffa0000000;
    const BROKEN: u64 = 0xffffffffa0000010;

    fn hidden_and_broken() -> [(u64, Reason); 2] {
        let eintr = Error::from(io::Error::from_raw_os_error(errno::EINTR));
        [
            (HIDDEN, Reason::NotPermitted),
            (BROKEN, Reason::from_error(&eintr)),
        ]
    }

    #[test]
    fn symbolize_exits_with_the_first_failure_in_input_order_and_reports_each_once() {
        let k = kallsyms();
        let input =
            format!("0x1000 ffff900000000000 {BROKEN:x}\n{HIDDEN:x} ffffffff81000104 {BROKEN:x}\n");
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let status = symbolize(
            &mut failing(&k, &hidden_and_broken()),
            &mut BufReader::new(input.as_bytes()),
            &mut out,
            &mut err,
            false,
        );
        // An address no symbol covers is an answer; the failed call came first.
        assert_eq!(status, EXIT_ERROR);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                "0x1000 ffff900000000000 {BROKEN:x}\n{HIDDEN:x} first_func+0x4/0x100 [vmlinux] \
                 {BROKEN:x}\n"
            )
        );
        assert_eq!(
            String::from_utf8(err).unwrap(),
            format!(
                "ksym-query: symbolize: lookup failed: Interrupted system call (EINTR)\n\
                 ksym-query: symbolize: {}\n",
                Error::NotPermitted
            )
        );
        // The other way round.
        let input = format!("{HIDDEN:x}\n{BROKEN:x}\n");
        let status = symbolize(
            &mut failing(&k, &hidden_and_broken()),
            &mut BufReader::new(input.as_bytes()),
            &mut io::sink(),
            &mut io::sink(),
            false,
        );
        assert_eq!(status, EXIT_NOT_PERMITTED);
    }

    /// Output that fails with `errno`: every write and flush, or with `flush_only` only flushes
    /// (the end of each batch).
    struct Failing {
        errno: i32,
        flush_only: bool,
    }

    impl Failing {
        fn writes(errno: i32) -> Self {
            Failing {
                errno,
                flush_only: false,
            }
        }
        fn flushes(errno: i32) -> Self {
            Failing {
                errno,
                flush_only: true,
            }
        }
    }

    impl Write for Failing {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            if self.flush_only {
                Ok(b.len())
            } else {
                Err(io::Error::from_raw_os_error(self.errno))
            }
        }
        fn flush(&mut self) -> io::Result<()> {
            Err(io::Error::from_raw_os_error(self.errno))
        }
    }

    /// Input of `text`, then a failed read (`EIO`).
    struct Torn(Option<&'static str>);

    impl Read for Torn {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.take() {
                Some(text) => {
                    buf[..text.len()].copy_from_slice(text.as_bytes());
                    Ok(text.len())
                }
                None => Err(io::Error::from_raw_os_error(errno::EIO)),
            }
        }
    }

    const ENOSPC_ON_STDOUT: &str = "ksym-query: stdout: No space left on device (ENOSPC)\n";

    #[test]
    fn a_failed_read_or_write_never_replaces_an_earlier_failure() {
        let k = kallsyms();
        let run = |input: Box<dyn Read>, mut out: &mut dyn Write| {
            let mut err = Vec::new();
            let status = symbolize(
                &mut failing(&k, &hidden_and_broken()),
                &mut BufReader::new(input),
                &mut out,
                &mut err,
                false,
            );
            (status, String::from_utf8(err).unwrap())
        };
        let hidden = || Box::new("ffffffffa0000000\n".as_bytes());
        let named = || Box::new("ffffffff81000104\n".as_bytes());
        let hidden_message = format!("ksym-query: symbolize: {}\n", Error::NotPermitted);
        // A reader that goes away: quietly, with the status so far.
        let gone = || Failing::writes(errno::EPIPE);
        assert_eq!(run(named(), &mut gone()), (0, String::new()));
        assert_eq!(
            run(hidden(), &mut gone()),
            (EXIT_NOT_PERMITTED, hidden_message.clone())
        );
        // Another write failure, in a write or in the flush that ends a batch: reported with
        // its errno, and 4 only if nothing failed before.
        for full in [Failing::writes, Failing::flushes] {
            assert_eq!(
                run(named(), &mut full(errno::ENOSPC)),
                (EXIT_ERROR, ENOSPC_ON_STDOUT.into())
            );
            assert_eq!(
                run(hidden(), &mut full(errno::ENOSPC)),
                (
                    EXIT_NOT_PERMITTED,
                    format!("{hidden_message}{ENOSPC_ON_STDOUT}")
                )
            );
        }
        // A failed read likewise, after the lines read before it are written.
        let mut out = Vec::new();
        assert_eq!(
            run(Box::new(Torn(Some("ffffffff81000104\n"))), &mut out),
            (
                EXIT_ERROR,
                "ksym-query: symbolize: reading stdin: Input/output error (EIO)\n".into()
            )
        );
        assert_eq!(out, b"first_func+0x4/0x100 [vmlinux]\n");
        let torn_hidden = Box::new(Torn(Some("ffffffffa0000000\n")));
        assert_eq!(run(torn_hidden, &mut Vec::new()).0, EXIT_NOT_PERMITTED);
    }

    #[test]
    fn a_line_cut_short_by_a_failed_read_is_written() {
        let mut out = Vec::new();
        let input = Torn(Some("ffffffff81000104\ncut ffffffff81000200"));
        let status = symbolize(
            &mut failing(&kallsyms(), &[]),
            &mut BufReader::new(input),
            &mut out,
            &mut io::sink(),
            false,
        );
        assert_eq!(status, EXIT_ERROR);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "first_func+0x4/0x100 [vmlinux]\ncut second_func+0x0/0x100 [vmlinux]"
        );
    }

    #[test]
    fn symbolize_without_kallsyms_copies_its_input_and_fails() {
        let input = b"at ffffffff81000104\nno newline";
        let copy = |mut out: &mut dyn Write| {
            let mut err = Vec::new();
            let mut input = BufReader::new(&input[..]);
            let status = copy_unnamed(EXIT_NOT_PERMITTED, &mut input, &mut out, &mut err);
            (status, String::from_utf8(err).unwrap())
        };
        let mut out = Vec::new();
        assert_eq!(copy(&mut out), (EXIT_NOT_PERMITTED, String::new()));
        assert_eq!(out, input);
        // Whatever happens to the copy, the status is why nothing was named; a failed write
        // is reported as symbolize reports it.
        assert_eq!(
            copy(&mut Failing::writes(errno::EPIPE)),
            (EXIT_NOT_PERMITTED, String::new())
        );
        for full in [Failing::writes, Failing::flushes] {
            assert_eq!(
                copy(&mut full(errno::ENOSPC)),
                (EXIT_NOT_PERMITTED, ENOSPC_ON_STDOUT.into())
            );
        }
    }

    #[test]
    fn a_lookup_whose_answer_cannot_be_written_fails() {
        let k = kallsyms();
        let name = Command::Name("first_func".into());
        for full in [Failing::writes, Failing::flushes] {
            let mut err = Vec::new();
            let status = lookup(&k, &name, false, &mut full(errno::ENOSPC), &mut err);
            assert_eq!(
                (status, err.as_slice()),
                (EXIT_ERROR, ENOSPC_ON_STDOUT.as_bytes())
            );
        }
        let status = lookup(
            &k,
            &name,
            false,
            &mut Failing::writes(errno::EPIPE),
            &mut io::sink(),
        );
        assert_eq!(status, 0);
    }

    #[test]
    fn symbolize_verbose_says_what_each_symbol_is() {
        let input = b"ffffffffc0100810 ffffffffc0000000\n";
        let (status, out, _) = symbolize_text(input, true);
        assert_eq!(status, 0);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "bpf_trampoline_6442450944+0x10/? [bpf] <bpf_trampoline> \
             mod_func+0x0/0x100 [some_mod] <module>\n"
        );
    }
}
