// SPDX-License-Identifier: GPL-2.0
//! What a symbolizer says about one address, and the two blazesym
//! copies behind one interface.

use std::fmt;

/// The answer for one address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// No symbol.
    NotFound,
    /// A symbol: its name, the address's offset in it and its module.
    Found {
        name: String,
        offset: u64,
        module: Option<String>,
    },
    /// `symbolize()` failed for this address.
    Error(String),
}

impl Answer {
    /// The symbol's start, for an address `addr` it was given for.
    pub fn start(&self, addr: u64) -> Option<u64> {
        match self {
            Self::Found { offset, .. } => Some(addr.wrapping_sub(*offset)),
            _ => None,
        }
    }

    pub fn name(&self) -> Option<&str> {
        match self {
            Self::Found { name, .. } => Some(name),
            _ => None,
        }
    }

    /// The line capi_check prints for `addr`.
    pub fn capi_line(&self, addr: u64) -> String {
        match self {
            Self::NotFound => format!("0x{addr:x} -"),
            Self::Found {
                name,
                offset,
                module,
            } => format!(
                "0x{addr:x} {name}+0x{offset:x} {}",
                module.as_deref().unwrap_or("-")
            ),
            Self::Error(_) => format!("0x{addr:x} error"),
        }
    }
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotFound => write!(f, "(not found)"),
            Self::Found {
                name,
                offset,
                module,
            } => {
                write!(f, "{name}+0x{offset:x}")?;
                if let Some(module) = module {
                    write!(f, " {module}")?;
                }
                Ok(())
            }
            Self::Error(err) => write!(f, "(error: {err})"),
        }
    }
}

/// A blazesym `Symbolizer` of either copy, for `Source::Kernel` (its
/// defaults) and `Input::AbsAddr`.
pub trait Client {
    /// A new `Symbolizer`, with code information and demangling on or
    /// off (blazesym's defaults: both on).
    fn new(code_info: bool, demangle: bool) -> Self
    where
        Self: Sized;

    /// One `symbolize()` call for all of `addrs`.
    fn symbolize(&self, addrs: &[u64]) -> Result<Vec<Answer>, String>;

    /// `symbolize()` in chunks; a chunk that fails is asked again one
    /// address at a time, and addresses that still fail get
    /// `Answer::Error`.
    fn symbolize_all(&self, addrs: &[u64], chunk: usize) -> Vec<Answer> {
        let mut out = Vec::with_capacity(addrs.len());
        for part in addrs.chunks(chunk) {
            match self.symbolize(part) {
                Ok(answers) => out.extend(answers),
                Err(_) => {
                    for addr in part {
                        let answer = match self.symbolize(std::slice::from_ref(addr)) {
                            Ok(mut answers) if answers.len() == 1 => answers.remove(0),
                            Ok(answers) => {
                                Answer::Error(format!("{} answers for 1 address", answers.len()))
                            }
                            Err(err) => Answer::Error(err),
                        };
                        out.push(answer);
                    }
                }
            }
        }
        out
    }
}

macro_rules! client {
    ($ty:ident, $krate:ident, $what:literal) => {
        #[doc = $what]
        pub struct $ty($krate::symbolize::Symbolizer);

        impl Client for $ty {
            fn new(code_info: bool, demangle: bool) -> Self {
                Self(
                    $krate::symbolize::Symbolizer::builder()
                        .enable_code_info(code_info)
                        .enable_demangling(demangle)
                        .build(),
                )
            }

            fn symbolize(&self, addrs: &[u64]) -> Result<Vec<Answer>, String> {
                use $krate::symbolize::source::Kernel;
                use $krate::symbolize::source::Source;
                use $krate::symbolize::Input;
                use $krate::symbolize::Reason;
                use $krate::symbolize::Symbolized;

                let src = Source::Kernel(Kernel::default());
                let syms = self
                    .0
                    .symbolize(&src, Input::AbsAddr(addrs))
                    .map_err(|err| format!("{err:#}"))?;
                Ok(syms
                    .into_iter()
                    .map(|sym| match sym {
                        Symbolized::Sym(sym) => Answer::Found {
                            name: sym.name.into_owned(),
                            offset: sym.offset as u64,
                            module: sym.module.map(|m| m.to_string_lossy().into_owned()),
                        },
                        // Only "not in the source" is "no symbol": any
                        // other reason (IgnoredError above all, an
                        // error folded into a batch) is an error.
                        Symbolized::Unknown(Reason::UnknownAddr) => Answer::NotFound,
                        Symbolized::Unknown(reason) => {
                            Answer::Error(format!("Unknown({reason:?}): {reason}"))
                        }
                    })
                    .collect())
            }
        }
    };
}

client!(
    TextClient,
    blazesym_text,
    "blazesym 0.2.7 as published: /proc/kallsyms text."
);
client!(
    KqClient,
    blazesym_kq,
    "The patched blazesym 0.2.7: KALLSYMS_QUERY, falling back to text."
);
