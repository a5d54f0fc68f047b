//! `read`: each regular field into a local in wire order (a run with one bounds check), the
//! tagged section (`tagged.rs`), then the struct from the locals.

use proc_macro2::{Delimiter, Group, Literal, TokenStream};
use quote::{quote, quote_spanned};

use super::plan::{FieldPlan, Piece, Plan, Regular};
use super::{may_nest, rt, tagged};

/// The body of `read`, braced.
pub fn body(p: &Plan) -> Group {
    let (st, kw) = (&p.n.s, &p.n.kw);
    let new = rt::st_new(&p.n);
    let dec = rt::dec(&p.n);
    let reads = p.order.iter().map(|piece| match *piece {
        Piece::Field(i) => field(p, &p.fields[i]),
        Piece::Run(first, len) => run(p, first, len),
    });
    let tags = tagged::read(p);
    let inits = p.s.fields.iter().map(|f| &f.ident).chain(&p.s.unknown);
    let body = quote! {
        let #st = #new;
        #dec
        #(#reads)*
        #tags
        #kw::Ok(Self { #(#inits),* })
    };
    Group::new(Delimiter::Brace, body)
}

/// In optimised builds a leaf struct's `read` (one holding no struct or array of structs)
/// is inlined into its caller's array loop, so each element is built in place rather
/// than returned and copied (TxnOffsetCommit v5 100x100 decode: 2.15M -> 1.60M
/// instructions); `always`, as a plain hint was not taken through dispatch. A struct
/// holding others only gets the hint: forcing every level inline made each message's
/// decode one function holding its whole tree, which LLVM optimises in superlinear
/// time, for no measurable gain (a call per outer element is noise next to its inner
/// elements). Not forced in unoptimised builds, where inlining only multiplies the code
/// LLVM handles (messages crate, debug, every API: 37.6 s -> 29.4 s).
///
/// An API message's `read` and `write_vec` have one caller each, the message's `decode`
/// and `encode`, which LLVM inlined them into anyway; forced, they are inlined before
/// being optimised on their own, so each message body goes through the optimiser once
/// instead of twice (release build of the messages crate: LLVM's passes on the
/// standalone `read` and `write` of the 182 messages took 11% of the crate's pass time).
pub fn inline(p: &Plan) -> TokenStream {
    let leaf = !p.s.fields.iter().any(|f| may_nest(&f.kind));
    if leaf || p.s.api.is_some() {
        quote! {
            #[cfg_attr(debug_assertions, inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
        }
    } else {
        quote!(#[inline])
    }
}

/// The local a field is read into: `mut` for a tagged field, which the tag handler sets.
fn decl(f: &FieldPlan) -> TokenStream {
    let (fid, ty, def) = (&f.field.ident, &f.field.ty, &f.default);
    let mutable = f.field.tag.is_some().then(|| quote!(mut));
    match f.regular {
        Regular::Never => quote_spanned!(f.span=> let #mutable #fid: #ty = #def;),
        _ => quote!(let #mutable #fid),
    }
}

/// A regular field's value (`None` when it is never regular).
fn value(p: &Plan, f: &FieldPlan) -> Option<TokenStream> {
    match &f.regular {
        Regular::Never => None,
        Regular::Always => {
            let call = rt::get(&p.n, f);
            Some(quote_spanned!(f.span=> #call?))
        }
        Regular::When(g) => {
            let call = rt::get_or(&p.n, f, g);
            Some(quote_spanned!(f.span=> #call?))
        }
    }
}

/// One field: its local, from the wire where it is regular, else its default.
fn field(p: &Plan, f: &FieldPlan) -> TokenStream {
    let d = decl(f);
    match value(p, f) {
        Some(e) => quote!(#d = #e;),
        None => d,
    }
}

/// A run: its fields with one bounds check when all are present, else field by field.
fn run(p: &Plan, first: usize, len: usize) -> TokenStream {
    let fields = p.run(first, len);
    let ids: Vec<_> = fields.iter().map(|f| &f.field.ident).collect();
    let tys: Vec<_> = fields.iter().map(|f| &f.field.ty).collect();
    let get = rt::get_run(&p.n, &tys, &Literal::usize_unsuffixed(first));
    let gates = p.run_gates(first, len);
    if gates.is_empty() {
        quote!(let (#(#ids,)*) = #get;)
    } else {
        let one_by_one = fields.iter().filter_map(|f| value(p, f));
        quote! {
            let (#(#ids,)*) = if #(#gates)&&* { #get } else { (#(#one_by_one,)*) };
        }
    }
}
