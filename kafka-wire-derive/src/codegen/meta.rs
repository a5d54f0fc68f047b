//! What the expansion says about the struct rather than how it is encoded: its metadata
//! (`StructMeta`, one `FieldMeta` per field), the compile-time checks of nested structs, and
//! the `KafkaMessage` and `ApiMessage` impls.

use proc_macro2::TokenStream;
use quote::quote;

use super::plan::Plan;
use super::values::{f64_tokens, int_tokens, range};
use super::{may_nest, names::kw, rt};
use crate::model::{Field, FieldDefault, Kind, Struct};

/// The struct's metadata: a const constructor, then a builder call per non-default key.
pub fn struct_meta(s: &Struct) -> TokenStream {
    let kw = kw();
    let name = &s.name;
    let about = &s.about;
    let (versions, flexible) = (range(s.versions), range(s.flexible));
    let fields = s.fields.iter().map(field_meta);
    let mut out =
        quote!(#kw::StructMeta::new(#name, #versions, #flexible, #about, &[#(#fields),*]));
    if let Some((key, req)) = s.api {
        let kind = api_kind(req);
        out = quote!(#out.with_api(#key, #kind));
    }
    if let Some(u) = &s.unknown {
        let u = u.to_string();
        out = quote!(#out.with_unknown_tagged_field(#u));
    }
    if s.latest_version_unstable {
        out = quote!(#out.with_latest_version_unstable());
    }
    out
}

/// `ApiKind::Request` or `ApiKind::Response`.
fn api_kind(request: bool) -> TokenStream {
    let kw = kw();
    if request {
        quote!(#kw::ApiKind::Request)
    } else {
        quote!(#kw::ApiKind::Response)
    }
}

fn field_meta(f: &Field) -> TokenStream {
    let kw = kw();
    let rust_name = f.ident.to_string();
    let kname = &f.name;
    let ty = &f.ty;
    let versions = range(f.versions);
    let about = &f.about;
    let kafka_type = rt::kafka_type(&kw, ty);
    let mut out = quote!(#kw::FieldMeta::new(#rust_name, #kname, #kafka_type, #versions, #about));
    // Only a type that may hold a string can require UTF-8; for the rest (most fields) the
    // flag is the constructor's `false`, and no expression is emitted.
    if may_hold_str(&f.kind) {
        let utf8 = rt::utf8(&kw, ty);
        out = quote!(#out.with_utf8_required(#utf8));
    }
    if !f.nullable.is_empty() {
        let r = range(f.nullable);
        out = quote!(#out.with_nullable(#r));
    }
    if let Some(tag) = f.tag {
        let r = range(f.tagged);
        out = quote!(#out.with_tag(#tag, #r));
    }
    if let Some(text) = &f.default_text {
        let v = default_meta(f);
        out = quote!(#out.with_default(#text, #v));
    }
    if f.ignorable {
        out = quote!(#out.with_ignorable());
    }
    if let Some(fl) = f.flexible {
        let r = range(fl);
        out = quote!(#out.with_flexible(#r));
    }
    if let Some(e) = &f.entity_type {
        out = quote!(#out.with_entity_type(#e));
    }
    if f.map_key {
        out = quote!(#out.with_map_key());
    }
    if f.zero_copy {
        out = quote!(#out.with_zero_copy());
    }
    out
}

/// The default's value in the metadata.
fn default_meta(f: &Field) -> TokenStream {
    let kw = kw();
    match &f.default {
        FieldDefault::Implicit | FieldDefault::Empty => quote!(#kw::DefaultValue::Implicit),
        FieldDefault::Null => quote!(#kw::DefaultValue::Null),
        FieldDefault::Bool(b) => quote!(#kw::DefaultValue::Bool(#b)),
        FieldDefault::Int(v) => {
            let t = int_tokens(*v);
            quote!(#kw::DefaultValue::Int(#t))
        }
        FieldDefault::F64(v) => {
            let t = f64_tokens(*v);
            quote!(#kw::DefaultValue::Float(#t))
        }
        FieldDefault::Str(t) => quote!(#kw::DefaultValue::Str(#t)),
        FieldDefault::Uuid(b) => quote!(#kw::DefaultValue::Uuid([#(#b),*])),
    }
}

/// Whether a field of this kind may hold a string, so that its type's `UTF8` matters:
/// strings, types the derive does not know (a user's newtype may wrap a `String`) and arrays
/// of either.
fn may_hold_str(k: &Kind) -> bool {
    match k {
        Kind::Str | Kind::Other => true,
        Kind::Array(el) => may_hold_str(el),
        _ => false,
    }
}

/// Nested structs share the parent's flexible versions (Java's MessageDataGenerator gives
/// every struct the message's flexibleVersions): checked at compile time, only for types
/// that may be structs; primitives, strings and bytes have none.
pub fn nested_checks(p: &Plan) -> Vec<TokenStream> {
    p.s.fields
        .iter()
        .filter(|f| may_nest(&f.kind))
        .map(|f| rt::nested_check(&p.n, &f.ty))
        .collect()
}

/// `KafkaMessage`: the metadata, and for an `outline` message its size through one copy.
pub fn message_impl(p: &Plan) -> TokenStream {
    let (kw, m, ident) = (&p.n.kw, &p.n.m, &p.s.ident);
    // An `outline` message is sized by one copy of its `size` (`size_whole`), not by the
    // provided `encoded_size`'s inline and out-of-line pair; an inline hint, so that it is
    // only compiled where it is called (the messages' dispatch), not for every nested struct.
    let whole_size = p.s.outline.then(|| {
        let size = rt::size_whole(kw);
        quote! {
            #[inline]
            fn encoded_size(&self, version: #kw::Version) -> usize {
                #size
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl #kw::KafkaMessage for #ident {
            const META: &'static #kw::StructMeta = #m;
            #whole_size
        }
    }
}

/// `ApiMessage`, for a top-level message: its key and kind, and for a response the setter of
/// its error codes.
pub fn api_impl(p: &Plan) -> Option<TokenStream> {
    let (key, req) = p.s.api?;
    let (kw, ident) = (&p.n.kw, &p.s.ident);
    let kind = api_kind(req);
    let set_error = (!req).then(|| set_error_code(p)).flatten();
    Some(quote! {
        #[automatically_derived]
        impl #kw::ApiMessage for #ident {
            const API_KEY: i16 = #key;
            const KIND: #kw::ApiKind = #kind;
            #set_error
        }
    })
}

/// A response's error codes: its top-level `int16` fields Kafka names `…ErrorCode`, each set
/// where the version has it (`ApiMessage::set_error_code`); `None` when it has none.
fn set_error_code(p: &Plan) -> Option<TokenStream> {
    let kw = &p.n.kw;
    let errors: Vec<TokenStream> =
        p.s.fields
            .iter()
            .filter(|f| {
                f.name.ends_with("ErrorCode")
                    && !f.option
                    && matches!(
                        f.kind,
                        Kind::Int {
                            bits: 16,
                            signed: true
                        }
                    )
            })
            .map(|f| {
                let id = &f.ident;
                let r = range(f.versions);
                quote! {
                    if #r.contains(version) {
                        self.#id = error.code();
                        set += 1;
                    }
                }
            })
            .collect();
    (!errors.is_empty()).then(|| {
        quote! {
            fn set_error_code(&mut self, version: #kw::Version, error: #kw::ErrorCode) -> usize {
                let mut set = 0;
                #(#errors)*
                set
            }
        }
    })
}
