//! Values the expansion holds: version ranges, each field's default, and the `Default` impl
//! built from them.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::names::kw;
use super::plan::Plan;
use super::rt;
use crate::model::{Field, FieldDefault, Kind};
use crate::range::Range;

/// A version range as a runtime value.
pub fn range(r: Range) -> TokenStream {
    let kw = kw();
    if r.is_empty() {
        return quote!(#kw::VersionRange::NONE);
    }
    let (a, b) = (
        Literal::i16_unsuffixed(r.min),
        Literal::i16_unsuffixed(r.max),
    );
    quote!(#kw::VersionRange::new(#a, #b))
}

/// The field's default as a Rust value of its type.
pub fn default_value(f: &Field) -> TokenStream {
    let kw = kw();
    let empty = quote!(#kw::Default::default());
    let value = match &f.default {
        FieldDefault::Null => return quote!(#kw::None),
        // As Java's FieldSpec.fieldDefault: a nullable records field defaults to null, other
        // nullable types to empty.
        FieldDefault::Implicit if f.option && f.kind == Kind::Records => return quote!(#kw::None),
        FieldDefault::Implicit | FieldDefault::Empty => empty,
        FieldDefault::Bool(b) => quote!(#b),
        FieldDefault::Int(v) => int_tokens(*v),
        FieldDefault::F64(v) => f64_tokens(*v),
        FieldDefault::Str(t) => quote!(#kw::From::from(#t)),
        FieldDefault::Uuid(b) => quote!(#kw::Uuid::from_bytes([#(#b),*])),
    };
    if f.option {
        quote!(#kw::Some(#value))
    } else {
        value
    }
}

/// An integer literal, negative ones as `-` and the magnitude.
pub fn int_tokens(v: i128) -> TokenStream {
    let abs = Literal::u128_unsuffixed(v.unsigned_abs());
    if v < 0 {
        quote!(-#abs)
    } else {
        quote!(#abs)
    }
}

/// A float literal, or the constant for NaN and the infinities.
pub fn f64_tokens(v: f64) -> TokenStream {
    if v.is_nan() {
        quote!(::core::f64::NAN)
    } else if v == f64::INFINITY {
        quote!(::core::f64::INFINITY)
    } else if v == f64::NEG_INFINITY {
        quote!(::core::f64::NEG_INFINITY)
    } else {
        let lit = Literal::f64_unsuffixed(v.abs());
        if v.is_sign_negative() {
            quote!(-#lit)
        } else {
            quote!(#lit)
        }
    }
}

/// `Default`: every field at its default, no unknown tagged fields.
pub fn default_impl(p: &Plan) -> TokenStream {
    let (kw, ident) = (&p.n.kw, &p.s.ident);
    let defaults = p.fields.iter().map(|f| {
        let (fid, def) = (&f.field.ident, &f.default);
        quote!(#fid: #def)
    });
    let unknown = p.s.unknown.iter().map(|u| {
        let empty = rt::unknown_tags_new(kw);
        quote!(#u: #empty)
    });
    quote! {
        #[automatically_derived]
        impl #kw::Default for #ident {
            fn default() -> Self {
                #ident { #(#defaults,)* #(#unknown,)* }
            }
        }
    }
}
