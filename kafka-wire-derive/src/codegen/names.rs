//! Every identifier the generated code introduces, in one place. All start with `__` so they
//! cannot clash with the user's field names (which become locals in `read`).

use quote::format_ident;

/// The runtime's private module, imported under this alias in every expansion.
pub const KW: &str = "__kw";
/// The buffer written to.
const BUF: &str = "__b";
/// The caller's context (`Cx`).
const CX: &str = "__cx";
/// The struct's context (`StructCx`), built once per call.
const ST: &str = "__s";
/// The reader.
const READER: &str = "__r";
/// The running size.
const SIZE: &str = "__n";
/// The tag being read.
const TAG: &str = "__tag";
/// The struct's metadata, as a const item of the expansion.
pub const META: &str = "__M";
/// The running allocation ratio.
const RATIO: &str = "__k";
/// The buffer's type parameter.
const BUF_TY: &str = "__B";
/// Whether declared tagged field `i` is written: `__t{i}`.
const TAGGED_PREFIX: &str = "__t";

/// The names, as identifiers (at the call site).
pub struct Idents {
    pub kw: syn::Ident,
    pub b: syn::Ident,
    pub cx: syn::Ident,
    pub s: syn::Ident,
    pub r: syn::Ident,
    pub n: syn::Ident,
    pub tag: syn::Ident,
    pub m: syn::Ident,
    pub bt: syn::Ident,
    pub k: syn::Ident,
}

impl Idents {
    pub fn new() -> Self {
        let id = |s: &str| format_ident!("{}", s);
        Idents {
            kw: id(KW),
            b: id(BUF),
            cx: id(CX),
            s: id(ST),
            r: id(READER),
            n: id(SIZE),
            tag: id(TAG),
            m: id(META),
            bt: id(BUF_TY),
            k: id(RATIO),
        }
    }

    /// `name` with the span `sp`, where an error should point at the user's tokens.
    pub fn at(&self, name: &str, sp: proc_macro2::Span) -> syn::Ident {
        syn::Ident::new(name, sp)
    }

    /// The flag of declared tagged field `i` (its index among the struct's fields).
    pub fn tagged(&self, i: usize) -> syn::Ident {
        format_ident!("{}{}", TAGGED_PREFIX, i)
    }
}

/// The runtime's alias, on its own (for helpers that build values without a plan).
pub fn kw() -> syn::Ident {
    format_ident!("{}", KW)
}
