//! Code generation: the only module that emits tokens. Each field is one short template
//! calling the runtime (`kafka_wire::__private`, imported as `__kw`): a call behind a version
//! gate that is emitted only when the field's versions differ from the struct's. The
//! struct's context (`StructCx`: version, compactness, metadata for error paths) is built once.
//!
//! The model is planned once (`plan.rs`: per field its gate, struct context, default,
//! width, template; the runs and the tagged order), then each concern is generated from the
//! plan by its own module: `write.rs`, `size.rs`, `read.rs`, `tagged.rs` (the tagged
//! section of all three), `meta.rs` (metadata, `KafkaMessage`, `ApiMessage`) and
//! `values.rs` (ranges, defaults, `Default`). `impls` below puts them into the trait impls.
//! `rt.rs` names what the output calls in the runtime, `names.rs` the identifiers it
//! introduces; `fallback.rs` is the expansion on attribute errors.

mod fallback;
mod meta;
mod names;
mod plan;
mod read;
mod rt;
mod size;
mod tagged;
mod values;
mod write;

use proc_macro2::TokenStream;
use quote::quote;

pub use fallback::fallback;

use crate::model::{Kind, Struct};
use plan::Plan;

/// The expansion of a validated struct.
pub fn generate(s: &Struct) -> TokenStream {
    impls(&Plan::new(s))
}

/// Every item of the expansion, in one `const _` block: the metadata, the nested checks, and
/// the impls of `FieldHooks`, `Field`, `NullableField`, `KafkaMessage`, `Default` and
/// `ApiMessage`.
///
/// The fields are written in `write_vec` (into the `Vec<u8>` every message encode writes
/// into, so that a writer can use the vector itself: an inline integer array is one
/// fixed-size store, then a truncation); `write`, for callers with any other buffer,
/// stages through it (`write_staged`), so each struct's fields are written by one body.
fn impls(p: &Plan) -> TokenStream {
    let n = &p.n;
    let (kw, b, cx, r, m, bt) = (&n.kw, &n.b, &n.cx, &n.r, &n.m, &n.bt);
    let (ident, krate) = (&p.s.ident, &p.s.krate);
    let meta = meta::struct_meta(p.s);
    let nested_checks = meta::nested_checks(p);
    // Arrays of an `outline` struct are read and written by the element loops compiled once
    // for every such type (`FieldHooks::OUTLINED`).
    let outlined = p.s.outline.then(|| {
        quote!(
            const OUTLINED: bool = true;
        )
    });
    let write_staged = rt::write_staged(n);
    let (write_inline, write_body) = (write::inline(p), write::body(p));
    let (size_inline, size_body) = (size::inline(p), size::body(p));
    let (trivially, min_body, ratio_body) =
        (size::trivially(p), size::min_body(p), size::ratio_body(p));
    let (read_inline, read_body) = (read::inline(p), read::body(p));
    let discard = rt::discard_struct(n);
    let message_impl = meta::message_impl(p);
    let default_impl = values::default_impl(p);
    let api_impl = meta::api_impl(p);
    quote! {
        const _: () = {
            use #krate::__private as #kw;
            const #m: &#kw::StructMeta = &#meta;
            #(#nested_checks)*

            #[automatically_derived]
            impl #kw::FieldHooks for #ident {
                const NESTED_FLEXIBLE: #kw::Option<#kw::VersionRange> = #kw::Some(#m.flexible);
                #outlined

                #write_inline
                fn write_vec<#bt: #kw::VecBuf + ?Sized>(&self, #b: &mut #bt, #cx: #kw::Cx, _: #kw::Sealed) -> #kw::EncodeResult #write_body

                #[inline]
                fn sizes_trivially(&self, _: #kw::Sealed) -> bool {
                    #trivially
                }

                fn read_discard(#r: &mut #kw::Reader<'_>, #cx: #kw::Cx, _: #kw::Sealed) -> #kw::DecodeResult<()> {
                    #discard
                }
            }

            #[automatically_derived]
            impl #kw::Field for #ident {
                const KAFKA_TYPE: #kw::KafkaType = #kw::KafkaType::Struct(#kw::meta_of::<Self>);

                fn write<#bt: #kw::BufMut + ?Sized>(&self, #b: &mut #bt, #cx: #kw::Cx) -> #kw::EncodeResult {
                    #write_staged
                }

                #size_inline
                fn size(&self, #cx: #kw::Cx) -> usize #size_body

                #[inline]
                fn min_size(#cx: #kw::Cx) -> usize #min_body

                fn alloc_ratio(#cx: #kw::Cx) -> usize #ratio_body

                #read_inline
                fn read(#r: &mut #kw::Reader<'_>, #cx: #kw::Cx) -> #kw::DecodeResult<Self> #read_body
            }

            #[automatically_derived]
            impl #kw::NullableField for #ident {}

            #message_impl

            #default_impl

            #api_impl
        };
    }
}

/// Whether a field of this kind may hold a derived struct (whose flexible versions must
/// then match).
fn may_nest(k: &Kind) -> bool {
    match k {
        Kind::Other => true,
        Kind::Array(el) => may_nest(el),
        _ => false,
    }
}
