// SPDX-License-Identifier: GPL-2.0
//! `ksym-query name <symbol>` / `ksym-query addr <address>`: one kernel symbol lookup.
//! `ksym-query symbolize`: every kernel address in the text on stdin, named, line by line.

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
  name <symbol>   print the symbol's address: '<16 hex digits> <symbol>'
                  (vmlinux first, then modules)
  addr <address>  print the symbol that covers a hex address (0x optional):
                  'symbol+0xoff/0xsize [owner]', owner vmlinux, a module or bpf
  symbolize       copy stdin to stdout with each kernel address (16 hex digits,
                  0x optional: 'perf script', a bpftrace stack, a log) written
                  as 'symbol+0xoff/0xsize [owner]'; each line is written as
                  soon as it is read and named. Addresses no symbol covers, or
                  that a failed lookup left unnamed, are copied as they are,
                  and so is every other byte (line ends, non-UTF-8 text)

without the ioctl (--text, or a kernel without KALLSYMS_QUERY), what the text
can say: a vmlinux or module symbol ends where the next symbol of its owner
starts; BPF symbols and the last symbol of vmlinux or of a module have no size
in the text ('/?'); an address past the last symbol of vmlinux or a module is
not found; one after a BPF image (or ftrace or kprobe trampoline) is named after
it up to the next symbol, or for the last up to the end of its 2 MiB, even in a
gap after the image; of names at one address, the first in the file; kinds from
the owner column and BPF name prefixes (never bpf_subprog or module_init); no
ids

options (anywhere on the line; '--' ends them):
  --text          parse /proc/kallsyms instead of using the KALLSYMS_QUERY ioctl
  -v, --verbose   addr, symbolize: add '<kind id=N subprog=N>', what the symbol
                  is and, for BPF programs, their ids and subprogram indexes
  -h, --help      print this help and exit
  --version       print the version and exit

exit status:
  0  success (symbolize: also when some addresses have no symbol)
  1  not found: no such symbol, or no symbol covers the address (ENOENT)
  2  usage error
  3  not permitted: kernel addresses are hidden from you (EPERM: the kernel
     shows them to openers with CAP_SYSLOG while kernel.kptr_restrict is 0 or
     1, and to everyone while it is 0 and kernel.perf_event_paranoid is 1 or
     less), or /proc/kallsyms cannot be read (EACCES)
  4  any other error: a name at several addresses (EADDRNOTAVAIL), a name too
     long (ENAMETOOLONG), a failed lookup, an I/O error
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

/// How `symbolize` ended, if not at the end of its input.
#[derive(Debug)]
enum StreamError {
    /// Reading stdin failed.
    Read(io::Error),
    /// Writing stdout failed.
    Write(io::Error),
}

/// Lines looked up together at most: those already read and buffered, never waiting for more.
const CHUNK_LINES: usize = 4096;

/// Copies `input` to `out` with its kernel addresses named, line by line: each line is written
/// and flushed once its addresses are named. The lines already in `input`'s buffer are looked
/// up together (one batch); it never waits for more input to write a line it has. Everything
/// but the addresses is copied byte for byte: line ends (`\n`, `\r\n`, none at the end),
/// bytes that are not UTF-8. Returns the exit status: 0, or that of the first address left
/// unnamed by an error (reported once per reason on stderr).
fn symbolize<R: Read>(
    sym: &mut Symbolizer,
    input: &mut BufReader<R>,
    out: &mut impl Write,
    verbose: bool,
) -> Result<u8, StreamError> {
    let mut status = 0;
    let mut reported: Vec<Reason> = Vec::new();
    let mut lines: Vec<Vec<u8>> = Vec::new();
    let mut eof = false;
    while !eof {
        lines.clear();
        // A line, waiting for it if need be, then those already buffered.
        loop {
            let mut line = Vec::new();
            if input
                .read_until(b'\n', &mut line)
                .map_err(StreamError::Read)?
                == 0
            {
                eof = true;
                break;
            }
            lines.push(line);
            if lines.len() >= CHUNK_LINES || !input.buffer().contains(&b'\n') {
                break;
            }
        }
        if lines.is_empty() {
            break;
        }
        let found: Vec<_> = lines.iter().map(|l| scan::kernel_addresses(l)).collect();
        let addrs: Vec<u64> = found.iter().flatten().map(|(_, a)| *a).collect();
        let mut answers = sym.symbolize(&addrs).into_iter();
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
                            eprintln!("ksym-query: symbolize: {why}");
                            reported.push(why);
                        }
                        if status == 0 {
                            status = code;
                        }
                        text.extend_from_slice(&line[range.clone()]);
                    }
                    None => text.extend_from_slice(&line[range.clone()]),
                }
                last = range.end;
            }
            text.extend_from_slice(&line[last..]);
            out.write_all(&text).map_err(StreamError::Write)?;
        }
        out.flush().map_err(StreamError::Write)?;
    }
    Ok(status)
}

/// `symbolize` without a `/proc/kallsyms` to ask: its input copied as it is, so that a pipe
/// through it still carries everything. Returns the status for `err`, the reason.
fn copy_unnamed(err: u8, input: &mut impl Read, out: &mut impl Write) -> u8 {
    match io::copy(input, out).and_then(|_| out.flush()) {
        Ok(()) => err,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => err,
        Err(e) => {
            eprintln!("ksym-query: symbolize: copying stdin to stdout: {e}");
            err
        }
    }
}

/// `name` or `addr`: the answer on `out`, the error on stderr; the exit status.
fn lookup(k: &Kallsyms, command: &Command, verbose: bool, out: &mut impl Write) -> u8 {
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
            Err(e) => write_failed(&e),
        },
        Err(Error::NotFound) if matches!(command, Command::Addr(_)) => {
            eprintln!("ksym-query: {what}: no symbol covers the address (ENOENT)");
            EXIT_NOT_FOUND
        }
        Err(e) => {
            eprintln!("ksym-query: {what}: {e}");
            exit_code(&e)
        }
    }
}

/// The exit status for a failed write to stdout: quiet and 0 if its reader went away
/// (`ksym-query symbolize | head`), an error otherwise.
fn write_failed(e: &io::Error) -> u8 {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return 0;
    }
    eprintln!("ksym-query: writing stdout: {e}");
    EXIT_ERROR
}

fn run(o: &Options) -> u8 {
    let opened = if o.text {
        Kallsyms::open_text()
    } else {
        Kallsyms::open()
    };
    let k = match opened {
        Ok(k) => k,
        Err(e) => {
            eprintln!("ksym-query: /proc/kallsyms: {e}");
            if o.command == Command::Symbolize {
                eprintln!("ksym-query: symbolize: copying stdin with no address named");
                return copy_unnamed(exit_code(&e), &mut io::stdin().lock(), &mut io::stdout());
            }
            return exit_code(&e);
        }
    };
    if !k.uses_ioctl() && !o.text {
        eprintln!("ksym-query: this kernel has no KALLSYMS_QUERY; parsed /proc/kallsyms instead");
    }
    let mut out = io::stdout().lock();
    if o.command != Command::Symbolize {
        return lookup(&k, &o.command, o.verbose, &mut out);
    }
    let mut sym = Symbolizer::new(k);
    let mut input = BufReader::with_capacity(64 * 1024, io::stdin().lock());
    match symbolize(&mut sym, &mut input, &mut out, o.verbose) {
        Ok(status) => status,
        Err(StreamError::Read(e)) => {
            eprintln!("ksym-query: symbolize: reading stdin: {e}");
            EXIT_ERROR
        }
        Err(StreamError::Write(e)) => write_failed(&e),
    }
}

fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(Invocation::Run(o)) => o,
        Ok(Invocation::Help) => {
            let written = write!(io::stdout(), "{USAGE}{HELP}").and_then(|()| io::stdout().flush());
            return ExitCode::from(written.err().map_or(0, |e| write_failed(&e)));
        }
        Ok(Invocation::Version) => {
            let version = concat!("ksym-query ", env!("CARGO_PKG_VERSION"));
            let written = writeln!(io::stdout(), "{version}").and_then(|()| io::stdout().flush());
            return ExitCode::from(written.err().map_or(0, |e| write_failed(&e)));
        }
        Err(e) => {
            eprintln!("ksym-query: {e}");
            eprint!("{USAGE}");
            eprintln!("Try 'ksym-query --help' for more.");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    ExitCode::from(run(&options))
}

#[cfg(test)]
mod tests {
    use super::*;
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

    #[test]
    fn lookups_print_and_exit_like_the_table() {
        let k = kallsyms();
        let mut out = Vec::new();
        let name = Command::Name("second_func".into());
        assert_eq!(lookup(&k, &name, false, &mut out), 0);
        let addr = Command::Addr(0xffffffffc0000010);
        assert_eq!(lookup(&k, &addr, true, &mut out), 0);
        assert_eq!(lookup(&k, &addr, false, &mut out), 0);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "ffffffff81000200 second_func\n\
             mod_func+0x10/0x100 [some_mod] <module>\n\
             mod_func+0x10/0x100 [some_mod]\n"
        );
        let mut out = Vec::new();
        assert_eq!(
            lookup(&k, &Command::Name("nope".into()), false, &mut out),
            1
        );
        assert_eq!(lookup(&k, &Command::Addr(0x1000), false, &mut out), 1);
        assert!(out.is_empty());
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
        assert_eq!(symbolize(&mut sym, &mut input, &mut w, false).unwrap(), 0);
        assert_eq!(
            String::from_utf8_lossy(&out.borrow()),
            format!("{first}{next}{last}")
        );
        assert_eq!(sym.looked_up, 3);
    }

    #[test]
    fn symbolize_copies_all_but_the_addresses_byte_for_byte() {
        let input = b"\xff ffffffff81000104 \xfe\r\n\r\nlast ffffffff81000200";
        let mut out = Vec::new();
        let mut sym = Symbolizer::new(kallsyms());
        let status = symbolize(&mut sym, &mut BufReader::new(&input[..]), &mut out, false);
        assert_eq!(status.unwrap(), 0);
        assert_eq!(
            out,
            b"\xff first_func+0x4/0x100 [vmlinux] \xfe\r\n\r\n\
              last second_func+0x0/0x100 [vmlinux]"
        );
    }

    #[test]
    fn symbolize_without_kallsyms_copies_its_input_and_fails() {
        let input = b"at ffffffff81000104\nno newline";
        let mut out = Vec::new();
        assert_eq!(
            copy_unnamed(EXIT_NOT_PERMITTED, &mut &input[..], &mut out),
            EXIT_NOT_PERMITTED
        );
        assert_eq!(out, input);
    }

    #[test]
    fn symbolize_verbose_says_what_each_symbol_is() {
        // The trampoline is the file's last symbol: past the end of its 2 MiB it cannot be placed.
        let mut input =
            BufReader::new("ffffffffc0100810 ffffffffc0200000 ffffffffc0000000\n".as_bytes());
        let mut out = Vec::new();
        let mut sym = Symbolizer::new(kallsyms());
        assert_eq!(symbolize(&mut sym, &mut input, &mut out, true).unwrap(), 0);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "bpf_trampoline_6442450944+0x10/? [bpf] <bpf_trampoline> ffffffffc0200000 \
             mod_func+0x0/0x100 [some_mod] <module>\n"
        );
    }
}
