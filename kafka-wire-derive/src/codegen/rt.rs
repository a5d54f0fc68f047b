//! The runtime as the generated code calls it: every function, method and hidden trait of
//! `kafka_wire::__private` that a field template or the tagged section names is written here
//! and nowhere else, so renaming one is an edit to this file. (The trait impls' skeleton,
//! with the items of `Field`, `KafkaMessage`, `ApiMessage`, is `mod.rs`'s `impls`; the
//! metadata builders are `meta.rs`.)
//!
//! Calls on a field's type are spanned at the type, so that a type that is not a Kafka type
//! is reported there. Each function returns the call only; the caller adds `?` and `;` under
//! the same span.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::names::{self, Idents};
use super::plan::FieldPlan;

/// The per-field templates of the hidden trait `StructField`, inline or out of line.
pub struct Template {
    pub put: syn::Ident,
    pub size: syn::Ident,
    pub get: syn::Ident,
    pub get_or: syn::Ident,
}

impl Template {
    /// `outline`: the out-of-line copies (`put_out`, …), one compiled per field type.
    pub fn new(outline: bool, sp: Span) -> Self {
        let [put, size, get, get_or] = if outline {
            [
                "put_outlined",
                "size_outlined",
                "get_outlined",
                "get_or_outlined",
            ]
        } else {
            ["put", "size_in", "get", "get_or"]
        }
        .map(|f| format_ident!("{}", f, span = sp));
        Template {
            put,
            size,
            get,
            get_or,
        }
    }
}

// Calls on `<T as __kw::StructField>`, the hidden trait every field type implements through `Field`.
// Each is one `quote_spanned!`: nesting a prebuilt `<T as StructField>` would copy its tokens once
// more per call.

/// Writes a regular field.
pub fn put(n: &Idents, p: &FieldPlan) -> TokenStream {
    let (kw, b) = (&n.kw, &n.b);
    let (ty, f, st, i, put) = (
        &p.field.ty,
        &p.field.ident,
        &p.st,
        &p.index,
        &p.template.put,
    );
    quote_spanned!(p.span=> <#ty as #kw::StructField>::#put(&self.#f, #st, #b, #i))
}

/// Sizes a regular field.
pub fn size(n: &Idents, p: &FieldPlan) -> TokenStream {
    let kw = &n.kw;
    let (ty, f, st, size) = (&p.field.ty, &p.field.ident, &p.st, &p.template.size);
    quote_spanned!(p.span=> <#ty as #kw::StructField>::#size(&self.#f, #st))
}

/// Reads a regular field present in every version.
pub fn get(n: &Idents, p: &FieldPlan) -> TokenStream {
    let (kw, r) = (&n.kw, &n.r);
    let (ty, st, i, get) = (&p.field.ty, &p.st, &p.index, &p.template.get);
    quote_spanned!(p.span=> <#ty as #kw::StructField>::#get(#r, #st, #i))
}

/// Reads a regular field behind `gate`, else its default.
pub fn get_or(n: &Idents, p: &FieldPlan, gate: &TokenStream) -> TokenStream {
    let (kw, r) = (&n.kw, &n.r);
    let (ty, st, i, def, get_or) = (&p.field.ty, &p.st, &p.index, &p.default, &p.template.get_or);
    quote_spanned!(p.span=> <#ty as #kw::StructField>::#get_or(#r, #st, #i, #gate, #def))
}

/// Refuses a non-default value in a version without the field.
pub fn absent(n: &Idents, p: &FieldPlan) -> TokenStream {
    let (kw, s) = (&n.kw, &n.s);
    let (ty, f, def, i) = (&p.field.ty, &p.field.ident, &p.default, &p.index);
    quote_spanned!(p.span=> <#ty as #kw::StructField>::absent(&self.#f, #def, #s, #i))
}

/// The fewest bytes of a regular field.
pub fn min_in(n: &Idents, p: &FieldPlan) -> TokenStream {
    let (kw, ty, st) = (&n.kw, &p.field.ty, &p.st);
    quote_spanned!(p.span=> <#ty as #kw::StructField>::min_size_in(#st))
}

/// The allocation ratio of a regular field.
pub fn ratio_in(n: &Idents, p: &FieldPlan) -> TokenStream {
    let (kw, ty, st) = (&n.kw, &p.field.ty, &p.st);
    quote_spanned!(p.span=> <#ty as #kw::StructField>::alloc_ratio_in(#st))
}

/// The allocation ratio of a tagged field.
pub fn tagged_ratio(n: &Idents, p: &FieldPlan) -> TokenStream {
    let (kw, s, ty, nullable) = (&n.kw, &n.s, &p.field.ty, p.tagged_nullable);
    quote_spanned!(p.span=> <#ty as #kw::StructField>::tagged_alloc_ratio(#s, #nullable))
}

/// Whether a field differs from its default (a tagged field is written only then).
pub fn differs(n: &Idents, p: &FieldPlan) -> TokenStream {
    let kw = &n.kw;
    let (ty, f, def) = (&p.field.ty, &p.field.ident, &p.default);
    quote_spanned!(p.span=> <#ty as #kw::StructField>::differs(&self.#f, #def))
}

/// Writes a tagged field's entry.
pub fn put_tagged(n: &Idents, p: &FieldPlan, tag: u32) -> TokenStream {
    let (kw, s, b) = (&n.kw, &n.s, &n.b);
    let (ty, f, i, nullable) = (&p.field.ty, &p.field.ident, &p.index, p.tagged_nullable);
    quote_spanned!(p.span=> <#ty as #kw::StructField>::put_tagged(&self.#f, #s, #b, #i, #tag, #nullable))
}

/// Sizes a tagged field's entry.
pub fn tagged_size(n: &Idents, p: &FieldPlan, tag: u32) -> TokenStream {
    let (kw, s) = (&n.kw, &n.s);
    let (ty, f, nullable) = (&p.field.ty, &p.field.ident, p.tagged_nullable);
    quote_spanned!(p.span=> <#ty as #kw::StructField>::tagged_size(&self.#f, #s, #tag, #nullable))
}

/// Reads a tagged field's entry into its local.
pub fn get_tagged(n: &Idents, p: &FieldPlan, tag: u32) -> TokenStream {
    let (kw, r, s) = (&n.kw, &n.r, &n.s);
    let (ty, f, i, nullable) = (&p.field.ty, &p.field.ident, &p.index, p.tagged_nullable);
    let from = Literal::i16_unsuffixed(p.field.tagged.min);
    quote_spanned!(p.span=> <#ty as #kw::StructField>::get_tagged(#r, #s, &mut #f, #i, #tag, #from, #nullable))
}

/// Whether a field's value makes sizing loop (arrays, structs).
pub fn vacant(kw: &syn::Ident, f: &crate::model::Field) -> TokenStream {
    let (ty, fid) = (&f.ty, &f.ident);
    quote_spanned!(ty.span()=> <#ty as #kw::StructField>::size_is_trivial(&self.#fid))
}

/// The field type's Kafka type, for the metadata.
pub fn kafka_type(kw: &syn::Ident, ty: &syn::Type) -> TokenStream {
    quote_spanned!(ty.span()=> <#ty as #kw::StructField>::KAFKA_TYPE)
}

/// Whether the field type requires UTF-8, for the metadata.
pub fn utf8(kw: &syn::Ident, ty: &syn::Type) -> TokenStream {
    quote!(<#ty as #kw::StructField>::UTF8_REQUIRED)
}

/// Nested structs share the parent's flexible versions: a compile-time check whose panic is
/// reported at the call's first token, the field's type.
pub fn nested_check(n: &Idents, ty: &syn::Type) -> TokenStream {
    let kw = n.at(names::KW, ty.span());
    let m = n.at(names::META, ty.span());
    quote_spanned! {ty.span()=>
        const _: () = #kw::check_nested_flexible(<#ty as #kw::StructField>::NESTED_FLEXIBLE, #m.flexible);
    }
}

// The struct context, `StructCx`.

/// `StructCx::new`: the struct's context, built once per call from its metadata and the caller's.
pub fn st_new(n: &Idents) -> TokenStream {
    let (kw, m, cx) = (&n.kw, &n.m, &n.cx);
    quote!(#kw::StructCx::new(#m, #cx))
}

/// The struct's context, as the expansion names it.
pub fn st(n: &Idents) -> TokenStream {
    let s = &n.s;
    quote!(#s)
}

/// The version being written or read.
pub fn version(n: &Idents) -> TokenStream {
    let s = &n.s;
    quote!(#s.version())
}

/// A context with null allowed where `nullable` holds.
pub fn st_null(st: TokenStream, nullable: TokenStream) -> TokenStream {
    quote!(#st.with_nullable(#nullable))
}

/// A context compact where `compact` holds.
pub fn st_compact(st: TokenStream, compact: TokenStream) -> TokenStream {
    quote!(#st.with_compact(#compact))
}

/// Checks the version before encoding.
pub fn enc(n: &Idents) -> TokenStream {
    let s = &n.s;
    quote!(#s.check_write_version()?;)
}

/// Checks the version before decoding.
pub fn dec(n: &Idents) -> TokenStream {
    let (s, r) = (&n.s, &n.r);
    quote!(#s.check_read_version(#r)?;)
}

/// Writes a run of fixed-width fields with one `put_slice`.
pub fn put_run(n: &Idents, width: &Literal, ids: &[&syn::Ident]) -> TokenStream {
    let (s, b) = (&n.s, &n.b);
    quote!(#s.put_run::<#width, _, _>((#(&self.#ids,)*), #b);)
}

/// Writes a run that ends the struct, then the count of its tagged section (unknown fields
/// only).
pub fn put_run_tags(
    n: &Idents,
    width: usize,
    ids: &[&syn::Ident],
    unk: &syn::Ident,
) -> TokenStream {
    let (s, b) = (&n.s, &n.b);
    let (w, w1) = (
        Literal::usize_unsuffixed(width),
        Literal::usize_unsuffixed(width + 1),
    );
    let unk_name = unk.to_string();
    quote!(
        #s.put_run_tags::<#w, #w1, _, _>((#(&self.#ids,)*), #b, &self.#unk, #unk_name)?;
    )
}

/// Reads a run of fixed-width fields with one bounds check.
pub fn get_run(n: &Idents, tys: &[&syn::Type], at: &Literal) -> TokenStream {
    let (s, r) = (&n.s, &n.r);
    quote!(#s.get_run::<(#(#tys,)*)>(#r, #at)?)
}

/// Writes a tagged section of unknown fields only.
pub fn put_unknown_tags(n: &Idents, unk: &syn::Ident) -> TokenStream {
    let (s, b) = (&n.s, &n.b);
    let unk_name = unk.to_string();
    quote!(#s.put_unknown_tags(#b, &self.#unk, #unk_name)?;)
}

/// Writes a tagged section's count and its unknown fields below the declared ones; true when
/// the declared ones are to be written.
pub fn put_tags(
    n: &Idents,
    unk: &syn::Ident,
    count: &TokenStream,
    declared: &[u32],
) -> TokenStream {
    let (s, b) = (&n.s, &n.b);
    let unk_name = unk.to_string();
    quote!(#s.put_tags(#b, &self.#unk, #count, &[#(#declared),*], #unk_name)?)
}

/// Writes the unknown fields after the declared ones.
pub fn put_rest(n: &Idents, unk: &syn::Ident) -> TokenStream {
    let (kw, b) = (&n.kw, &n.b);
    quote!(#kw::RawTags::new(&self.#unk).put_rest(#b);)
}

/// The size of a tagged section's count and unknown fields.
pub fn tags_size(n: &Idents, unk: &syn::Ident, count: &TokenStream) -> TokenStream {
    let s = &n.s;
    quote!(#s.tags_size(&self.#unk, #count))
}

/// Reads a tagged section: unknown fields into `unk`, known ones through `known`.
pub fn get_tags(n: &Idents, unk: &syn::Ident, known: &TokenStream) -> TokenStream {
    let (s, r) = (&n.s, &n.r);
    quote!(#s.get_tags(#r, &mut #unk, &mut #known)?;)
}

/// The known-tag handler of a struct that declares no tagged field.
pub fn no_known_tags(n: &Idents) -> TokenStream {
    let kw = &n.kw;
    quote!(#kw::no_known_tags)
}

/// An empty set of unknown tagged fields.
pub fn unknown_tags_new(kw: &syn::Ident) -> TokenStream {
    quote!(#kw::UnknownTaggedFields::new())
}

/// Whether no unknown tagged field is kept (so sizing them runs no loop).
pub fn no_unknown_tags(n: &Idents, unk: &syn::Ident) -> TokenStream {
    let kw = &n.kw;
    quote!(#kw::no_unknown_tags(&self.#unk))
}

/// The tagged section's count byte in flexible versions.
pub fn flex(n: &Idents) -> TokenStream {
    let s = &n.s;
    quote!(#s.flexible())
}

/// The allocation ratio of unknown tagged fields.
pub fn unknown_ratio(n: &Idents) -> TokenStream {
    let s = &n.s;
    quote!(#s.unknown_ratio())
}

/// `Field::write` for any buffer: staged through a `Vec<u8>` and `FieldHooks::write_vec`.
pub fn write_staged(n: &Idents) -> TokenStream {
    let (kw, b, cx) = (&n.kw, &n.b, &n.cx);
    quote!(#kw::write_staged(self, #b, #cx))
}

/// `FieldHooks::read_discard`: the runtime's one reader that skips a struct by its metadata.
pub fn discard_struct(n: &Idents) -> TokenStream {
    let (kw, m, r, cx) = (&n.kw, &n.m, &n.r, &n.cx);
    quote!(#kw::discard_struct(#m, #r, #cx))
}

/// `KafkaMessage::encoded_size` of an `outline` message: one compiled copy.
pub fn size_whole(kw: &syn::Ident) -> TokenStream {
    quote!(#kw::encoded_size_outlined(self, version))
}
