//! Raw attributes, as written: syntax only (darling receivers). Values are parsed here, so
//! their errors point at the literal; the rules between them are checked in `model`.

use darling::util::{Flag, SpannedValue};
use darling::{FromDeriveInput, FromField};

use crate::range::Range;

/// `#[kafka(...)]` on the struct.
#[derive(FromDeriveInput)]
#[darling(attributes(kafka), forward_attrs(doc), supports(struct_named))]
pub struct StructAttrs {
    pub ident: syn::Ident,
    pub generics: syn::Generics,
    pub data: darling::ast::Data<(), FieldAttrs>,
    pub attrs: Vec<syn::Attribute>,
    /// `versions = "0-5"`: the struct's valid versions.
    #[darling(default)]
    pub versions: Option<SpannedValue<Range>>,
    /// `flexible = "3+"`: where the struct is in the flexible (compact, tagged) form.
    #[darling(default)]
    pub flexible: Option<SpannedValue<Range>>,
    /// `api_key = 24`, on a top-level message.
    #[darling(default)]
    pub api_key: Option<SpannedValue<i16>>,
    /// `request`, on a top-level message.
    pub request: Flag,
    /// `response`, on a top-level message.
    pub response: Flag,
    /// `name = "…"`: the Kafka name when it differs from the Rust name.
    #[darling(default)]
    pub name: Option<SpannedValue<String>>,
    /// `crate = "path"`: where the runtime is, when not at `::kafka_wire`.
    #[darling(default, rename = "crate")]
    pub krate: Option<syn::Path>,
}

/// `#[kafka(...)]` on a field.
#[derive(FromField)]
#[darling(attributes(kafka), forward_attrs(doc))]
pub struct FieldAttrs {
    pub ident: Option<syn::Ident>,
    pub ty: syn::Type,
    pub attrs: Vec<syn::Attribute>,
    #[darling(default)]
    pub versions: Option<SpannedValue<Range>>,
    #[darling(default)]
    pub nullable: Option<SpannedValue<Range>>,
    #[darling(default)]
    pub tag: Option<SpannedValue<u32>>,
    #[darling(default)]
    pub tagged: Option<SpannedValue<Range>>,
    #[darling(default)]
    pub default: Option<SpannedValue<String>>,
    pub ignorable: Flag,
    #[darling(default)]
    pub flexible: Option<SpannedValue<Range>>,
    #[darling(default)]
    pub name: Option<SpannedValue<String>>,
}

/// The text of the doc comments, joined as Kafka's `about`.
pub fn doc_text(attrs: &[syn::Attribute]) -> String {
    let mut lines = Vec::new();
    for a in attrs {
        if !a.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &a.meta {
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
            {
                let v = s.value();
                let t = v.trim();
                if !t.is_empty() {
                    lines.push(t.to_owned());
                }
            }
        }
    }
    lines.join(" ")
}
