//! Sizes: `size` (the encoded size), `sizes_trivially`, `min_size` (the fewest bytes) and
//! `alloc_ratio` (see `Field::min_size`, `alloc_ratio`). Fixed-width fields in every version
//! add to one constant, which is also their minimum.

use proc_macro2::{Delimiter, Group, Literal, TokenStream};
use quote::{quote, quote_spanned};

use super::plan::{FieldPlan, Plan, Regular};
use super::{rt, tagged};
use crate::model::Kind;

/// The bytes of the fixed-width fields present in every version, as a literal.
pub fn constant(p: &Plan) -> Literal {
    let n: usize = p
        .fields
        .iter()
        .filter(|f| matches!(f.regular, Regular::Always))
        .filter_map(|f| f.width)
        .sum();
    Literal::usize_unsuffixed(n)
}

/// The body of `size`, braced.
pub fn body(p: &Plan) -> Group {
    let (st, sz) = (&p.n.s, &p.n.n);
    let new = rt::st_new(&p.n);
    let init = constant(p);
    let sizes = p.fields.iter().filter_map(|f| {
        let size = || rt::size(&p.n, f);
        match &f.regular {
            Regular::Never => None,
            Regular::Always if f.width.is_some() => None,
            Regular::Always => {
                let size = size();
                Some(quote!(#sz += #size;))
            }
            Regular::When(g) => {
                let size = size();
                Some(quote!(if #g { #sz += #size; }))
            }
        }
    });
    let tags = tagged::size(p);
    let body = quote! {
        let #st = #new;
        let mut #sz = #init;
        #(#sizes)*
        #tags
        #sz
    };
    Group::new(Delimiter::Brace, body)
}

/// Whether sizing the struct runs no loop (`FieldHooks::sizes_trivially`): its arrays of
/// anything but fixed-width values empty or null, its struct (or other) fields so, and
/// no unknown tagged fields.
pub fn trivially(p: &Plan) -> TokenStream {
    let mut trivial: Vec<TokenStream> =
        p.s.fields
            .iter()
            .filter(|f| match &f.kind {
                Kind::Array(el) => {
                    !matches!(**el, Kind::Bool | Kind::Int { .. } | Kind::F64 | Kind::Uuid)
                }
                Kind::Other => true,
                _ => false,
            })
            .map(|f| rt::vacant(&p.n.kw, f))
            .collect();
    if let Some(unk) = &p.s.unknown {
        trivial.push(rt::no_unknown_tags(&p.n, unk));
    }
    if trivial.is_empty() {
        quote!(true)
    } else {
        quote!(#(#trivial)&&*)
    }
}

/// `KafkaMessage::encoded_size` sizes a message that sizes trivially inline and any other out
/// of line; so an API message's `size` is forced into both.
pub fn inline(p: &Plan) -> TokenStream {
    match p.s.api {
        Some(_) => quote! {
            #[cfg_attr(debug_assertions, inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
        },
        None => quote!(#[inline]),
    }
}

/// The body of `min_size`, braced: the regular fields' minimums, and the tagged section's
/// count byte.
pub fn min_body(p: &Plan) -> Group {
    let (st, sz) = (&p.n.s, &p.n.n);
    let new = rt::st_new(&p.n);
    let init = constant(p);
    let mins = p.fields.iter().filter_map(|f| {
        let min = || rt::min_in(&p.n, f);
        match &f.regular {
            Regular::Never => None,
            Regular::Always if f.width.is_some() => None,
            Regular::Always => {
                let min = min();
                Some(quote!(#sz += #min;))
            }
            Regular::When(g) => {
                let min = min();
                Some(quote!(if #g { #sz += #min; }))
            }
        }
    });
    let tags = p.s.unknown.as_ref().map(|_| {
        let flex = rt::flex(&p.n);
        quote!(#sz += usize::from(#flex);)
    });
    let body = quote! {
        let #st = #new;
        let mut #sz = #init;
        #(#mins)*
        #tags
        #sz
    };
    Group::new(Delimiter::Brace, body)
}

/// The body of `alloc_ratio`, braced: the largest ratio of any field that may allocate, tagged
/// (in its tagged versions) or regular, and of the unknown tagged fields.
pub fn ratio_body(p: &Plan) -> Group {
    let (st, k) = (&p.n.s, &p.n.k);
    let new = rt::st_new(&p.n);
    let init = match &p.s.unknown {
        Some(_) => rt::unknown_ratio(&p.n),
        None => quote!(0),
    };
    let ratios = p.fields.iter().filter(|f| f.allocates).map(|f| {
        let tagged = tagged::ratio(p, f);
        let regular = regular_ratio(p, f);
        quote!(#tagged #regular)
    });
    let body = quote! {
        let #st = #new;
        let mut #k = #init;
        #(#ratios)*
        #k
    };
    Group::new(Delimiter::Brace, body)
}

fn regular_ratio(p: &Plan, f: &FieldPlan) -> Option<TokenStream> {
    let k = &p.n.k;
    let ratio = || {
        let call = rt::ratio_in(&p.n, f);
        quote_spanned!(f.span=> #k = #k.max(#call);)
    };
    match &f.regular {
        Regular::Never => None,
        Regular::Always => Some(ratio()),
        Regular::When(g) => {
            let ratio = ratio();
            Some(quote!(if #g { #ratio }))
        }
    }
}
