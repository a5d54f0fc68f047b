//! Raw attributes, as written: syntax only (darling receivers). Values are parsed here, so
//! their errors point at the literal; the rules between them are checked in `model`.

use darling::util::{Flag, SpannedValue};
use darling::{FromDeriveInput, FromField, FromMeta};

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
    pub api_key: Option<SpannedValue<ApiKey>>,
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
    /// `latest_version_unstable` (Kafka's `latestVersionUnstable`): the highest version is
    /// still under development.
    pub latest_version_unstable: Flag,
    /// `outline`: each field is read, written and sized by a call (one function per field
    /// type) rather than inlined: smaller code that builds faster, for messages off the
    /// hot path.
    pub outline: Flag,
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
    pub tag: Option<SpannedValue<Tag>>,
    #[darling(default)]
    pub tagged: Option<SpannedValue<Range>>,
    #[darling(default, with = default_text)]
    pub default: Option<SpannedValue<String>>,
    pub ignorable: Flag,
    #[darling(default)]
    pub flexible: Option<SpannedValue<Range>>,
    #[darling(default)]
    pub name: Option<SpannedValue<String>>,
    /// `entity_type = "topicName"` (Kafka's `entityType`).
    #[darling(default)]
    pub entity_type: Option<SpannedValue<String>>,
    /// `map_key` (Kafka's `mapKey`): the field keys its struct in a map of the parent array.
    pub map_key: Flag,
    /// `zero_copy` (Kafka's `zeroCopy`): a bytes field Java keeps as a view of the input.
    pub zero_copy: Flag,
}

/// `api_key = N`: an API key, 0..=32767.
#[derive(Clone, Copy, Debug)]
pub struct ApiKey(pub i16);

/// `tag = N`: a tagged field's tag, 0..=2^32-1.
#[derive(Clone, Copy, Debug)]
pub struct Tag(pub u32);

impl FromMeta for ApiKey {
    fn from_expr(expr: &syn::Expr) -> darling::Result<Self> {
        int_from_expr(expr, "api_key", "0..=32767").map(ApiKey)
    }
}

impl FromMeta for Tag {
    fn from_expr(expr: &syn::Expr) -> darling::Result<Self> {
        int_from_expr(expr, "tag", "0..=4294967295").map(Tag)
    }
}

/// A bare integer literal. darling would also take `"0"` and call `-1` an "unexpected type
/// `unary`"; here both get a message that says what to write.
fn int_from_expr<T>(expr: &syn::Expr, key: &str, range: &str) -> darling::Result<T>
where
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    use darling::Error;
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<T>().map_err(|_| {
            Error::custom(format!(
                "`{key}` is out of range: expected an integer in {range}"
            ))
            .with_span(i)
        }),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Err(Error::custom(format!(
            "`{key}` is an integer, not a string: write `{key} = {}`",
            s.value().trim()
        ))
        .with_span(s)),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            ..
        }) => Err(Error::custom(format!(
            "`{key}` cannot be negative: expected an integer in {range}"
        ))
        .with_span(expr)),
        // Invisible groups come from attributes written by a `macro_rules!`.
        syn::Expr::Group(g) => int_from_expr(&g.expr, key, range),
        _ => Err(
            Error::custom(format!("`{key}` expects an integer literal in {range}")).with_span(expr),
        ),
    }
}

/// `default = "…"`. Kafka's JSON writes every default as a string, and so does this
/// attribute; a bare literal (`default = -1`, `default = true`) gets told what to write.
fn default_text(meta: &syn::Meta) -> darling::Result<Option<SpannedValue<String>>> {
    match meta {
        syn::Meta::NameValue(nv) => default_from_expr(&nv.value).map(Some),
        _ => SpannedValue::<String>::from_meta(meta).map(Some),
    }
}

fn default_from_expr(expr: &syn::Expr) -> darling::Result<SpannedValue<String>> {
    use darling::Error;
    let hint = |text: String| {
        Error::custom(format!(
            "`default` is a string, as in Kafka's JSON: write `default = \"{text}\"`"
        ))
        .with_span(expr)
    };
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Ok(SpannedValue::new(s.value(), s.span())),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => Err(hint(i.base10_digits().to_owned())),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Bool(b),
            ..
        }) => Err(hint(b.value.to_string())),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr: inner,
            ..
        }) => match &**inner {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => Err(hint(format!("-{}", i.base10_digits()))),
            _ => SpannedValue::<String>::from_expr(expr),
        },
        // Invisible groups come from attributes written by a `macro_rules!`.
        syn::Expr::Group(g) => default_from_expr(&g.expr),
        _ => SpannedValue::<String>::from_expr(expr),
    }
}

/// The first paragraph of the doc comments, its lines joined, as Kafka's `about`: later
/// paragraphs (the generated messages' version notes, a user's longer text) stay rustdoc's.
/// A blank first doc line is an empty first paragraph (an empty `about` with notes after it).
pub fn doc_text(attrs: &[syn::Attribute]) -> String {
    let mut lines = Vec::new();
    for (i, a) in attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .enumerate()
    {
        if let syn::Meta::NameValue(nv) = &a.meta {
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
            {
                let v = s.value();
                if i == 0 && v.trim().is_empty() {
                    return String::new();
                }
                // `""` (a bare `///`) has no lines, but is a blank line.
                let blank = [""];
                let parts: Vec<&str> = if v.trim().is_empty() {
                    blank.to_vec()
                } else {
                    v.lines().collect()
                };
                for line in parts {
                    let t = line.trim();
                    if !t.is_empty() {
                        lines.push(t.to_owned());
                    } else if !lines.is_empty() {
                        return lines.join(" ");
                    }
                }
            }
        }
    }
    lines.join(" ")
}

#[cfg(test)]
mod doc_tests {
    use super::doc_text;

    #[test]
    fn about_is_the_first_paragraph() {
        let item: syn::ItemStruct = syn::parse_quote! {
            /// The topic
            /// name.
            ///
            /// Versions 0-12; ignorable.
            struct S;
        };
        assert_eq!(doc_text(&item.attrs), "The topic name.");
        // An empty about followed by notes: the about stays empty.
        let item: syn::ItemStruct = syn::parse_quote! {
            #[doc = ""]
            #[doc = ""]
            #[doc = " Versions 0+."]
            struct S;
        };
        assert_eq!(doc_text(&item.attrs), "");
        // A block comment: its first paragraph too.
        let item: syn::ItemStruct = syn::parse_quote! {
            #[doc = "\n The topic\n name.\n\n More.\n"]
            struct S;
        };
        assert_eq!(doc_text(&item.attrs), "The topic name.");
    }
}
