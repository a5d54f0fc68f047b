//! The validated model: every node keeps the span of what the user wrote, and every rule of
//! Kafka's generator (`FieldSpec`, `StructSpec`, `MessageSpec`) is one commented check. All errors of a struct are
//! collected and reported in one build.

use darling::util::SpannedValue;
use darling::FromDeriveInput;
use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;

use crate::attr::{doc_text, FieldAttrs, StructAttrs};
use crate::range::Range;

/// The Kafka type the derive can see from the Rust type.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Bool,
    Int {
        bits: u8,
        signed: bool,
    },
    F64,
    Str,
    Bytes,
    Uuid,
    Records,
    Array(Box<Kind>),
    /// A derived struct or a user type implementing `Field`: checked by the trait system.
    Other,
}

impl Kind {
    fn kafka_name(&self) -> &'static str {
        match self {
            Kind::Bool => "bool",
            Kind::Int { bits: 8, .. } => "int8",
            Kind::Int {
                bits: 16,
                signed: true,
            } => "int16",
            Kind::Int { bits: 16, .. } => "uint16",
            Kind::Int {
                bits: 32,
                signed: true,
            } => "int32",
            Kind::Int { bits: 32, .. } => "uint32",
            Kind::Int { .. } => "int64",
            Kind::F64 => "float64",
            Kind::Str => "string",
            Kind::Bytes => "bytes",
            Kind::Uuid => "uuid",
            Kind::Records => "records",
            Kind::Array(_) => "array",
            Kind::Other => "struct",
        }
    }

    /// `FieldType.canBeNullable`: only string, bytes, records, struct and array can be nullable.
    fn can_be_nullable(&self) -> bool {
        !matches!(self, Kind::Bool | Kind::Int { .. } | Kind::F64 | Kind::Uuid)
    }
}

/// `Option<T>` → `Some(T)`.
fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    generic_arg(ty, "Option")
}

fn last_segment(ty: &syn::Type) -> Option<&syn::PathSegment> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

fn generic_arg<'a>(ty: &'a syn::Type, name: &str) -> Option<&'a syn::Type> {
    let seg = last_segment(ty)?;
    if seg.ident != name {
        return None;
    }
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match a.args.first() {
            Some(syn::GenericArgument::Type(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

fn is_named(ty: &syn::Type, name: &str) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == name && s.arguments.is_none())
}

fn classify(ty: &syn::Type) -> Kind {
    // `FixedArray<T>`: the runtime's array of fixed-width integers, an array as `Vec<T>` is.
    if let Some(inner) = generic_arg(ty, "Vec").or_else(|| generic_arg(ty, "FixedArray")) {
        return Kind::Array(Box::new(classify(inner)));
    }
    let Some(seg) = last_segment(ty) else {
        return Kind::Other;
    };
    if !seg.arguments.is_none() {
        return Kind::Other;
    }
    match seg.ident.to_string().as_str() {
        "bool" => Kind::Bool,
        "i8" => Kind::Int {
            bits: 8,
            signed: true,
        },
        "i16" => Kind::Int {
            bits: 16,
            signed: true,
        },
        "u16" => Kind::Int {
            bits: 16,
            signed: false,
        },
        "i32" => Kind::Int {
            bits: 32,
            signed: true,
        },
        "u32" => Kind::Int {
            bits: 32,
            signed: false,
        },
        "i64" => Kind::Int {
            bits: 64,
            signed: true,
        },
        "f64" => Kind::F64,
        "Str" | "String" => Kind::Str,
        "Bytes" => Kind::Bytes,
        "Uuid" => Kind::Uuid,
        "Records" => Kind::Records,
        _ => Kind::Other,
    }
}

/// A field of the wire format.
pub struct Field {
    pub ident: syn::Ident,
    pub ty: syn::Type,
    pub name: String,
    /// `name = "…"`'s literal, or the field's ident when the name is derived from it.
    pub name_span: Span,
    pub versions: Range,
    pub nullable: Range,
    pub tag: Option<u32>,
    /// Where `tag = N`'s value is, for the struct-wide tag checks (else the field's ident).
    pub tag_span: Span,
    pub tagged: Range,
    pub default_text: Option<String>,
    /// The value of the declared (or implicit) default, typed (codegen writes it as Rust).
    pub default: FieldDefault,
    /// The Kafka type seen from the Rust type (the inner type of an `Option`).
    pub kind: Kind,
    /// Whether the Rust type is an `Option<…>` (the field is nullable somewhere).
    pub option: bool,
    pub ignorable: bool,
    pub flexible: Option<Range>,
    pub about: String,
    /// Kafka's `entityType`, as written (checked against the known names and the type).
    pub entity_type: Option<String>,
    pub map_key: bool,
    pub zero_copy: bool,
}

impl Field {
    /// Versions in which the field is a regular (untagged) field.
    pub fn mandatory(&self) -> Range {
        if self.tagged.is_empty() {
            self.versions
        } else {
            self.versions
                .intersect(Range::new(0, self.tagged.min.saturating_sub(1)))
        }
    }
}

/// A validated struct.
pub struct Struct {
    pub ident: syn::Ident,
    pub name: String,
    pub about: String,
    pub versions: Range,
    pub flexible: Range,
    pub api: Option<(i16, bool)>,
    pub krate: syn::Path,
    pub fields: Vec<Field>,
    /// The field that keeps unknown tagged fields.
    pub unknown: Option<syn::Ident>,
    /// Kafka's `latestVersionUnstable`.
    pub latest_version_unstable: bool,
    /// `outline`: field templates called, not inlined.
    pub outline: bool,
}

/// Whether `ty` names `ident` or `Self` anywhere (`Vec<Node>`, `Option<Self>`).
fn mentions(ty: &syn::Type, ident: &syn::Ident) -> bool {
    fn walk(ts: proc_macro2::TokenStream, ident: &syn::Ident) -> bool {
        ts.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => i == *ident || i == "Self",
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), ident),
            _ => false,
        })
    }
    walk(ty.to_token_stream(), ident)
}

/// Rust `snake_case` → Kafka `PascalCase` (`v3_and_below_topics` → `V3AndBelowTopics`).
fn pascal_case(s: &str) -> String {
    let s = s.strip_prefix("r#").unwrap_or(s);
    let mut out = String::with_capacity(s.len());
    for part in s.split('_') {
        let mut cs = part.chars();
        if let Some(c) = cs.next() {
            out.extend(c.to_uppercase());
            out.push_str(cs.as_str());
        }
    }
    out
}

/// `FieldSpec.VALID_FIELD_NAMES`: field names match `[A-Za-z][A-Za-z0-9]*`.
fn valid_kafka_name(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next().is_some_and(|c| c.is_ascii_alphabetic()) && cs.all(|c| c.is_ascii_alphanumeric())
}

fn err(span: Span, msg: impl std::fmt::Display) -> darling::Error {
    darling::Error::custom(msg).with_span(&span)
}

impl Struct {
    pub fn from_input(input: &syn::DeriveInput) -> Result<Struct, darling::Error> {
        check_shape(input)?;
        let attrs = StructAttrs::from_derive_input(input)?;
        let mut acc = darling::Error::accumulator();

        let ident = attrs.ident.clone();
        let versions = struct_versions(&attrs, &mut acc);
        let flexible = struct_flexible(&attrs, &mut acc);
        let api = check_api(&attrs, &mut acc);
        check_latest_version_unstable(&attrs, api, &mut acc);
        check_message_max_version(&attrs, api, &mut acc);
        check_not_generic(&attrs, &mut acc);
        let name = match &attrs.name {
            Some(n) => (**n).clone(),
            None => ident.to_string(),
        };
        let (fields, unknown) = struct_fields(&attrs, flexible, &mut acc);
        check_flexible_keeps_unknown(&ident, flexible, unknown.as_ref(), &mut acc);
        check_tags(&fields, &mut acc);
        check_names(&fields, &mut acc);

        let krate = attrs
            .krate
            .clone()
            .unwrap_or_else(|| syn::parse_quote!(::kafka_wire));
        acc.finish()?;
        Ok(Struct {
            ident,
            name,
            about: doc_text(&attrs.attrs),
            versions,
            flexible,
            api,
            krate,
            fields,
            unknown,
            latest_version_unstable: attrs.latest_version_unstable.is_present(),
            outline: attrs.outline.is_present(),
        })
    }
}

/// The struct's versions. Kafka: "You must specify the version of the X structure."
fn struct_versions(attrs: &StructAttrs, acc: &mut darling::error::Accumulator) -> Range {
    let ident = &attrs.ident;
    match &attrs.versions {
        Some(v) => **v,
        None => {
            acc.push(err(
                ident.span(),
                format!(
                    "missing `#[kafka(versions = \"…\")]` on `{ident}`: every struct needs its valid versions, e.g. `versions = \"0-5\"`"
                ),
            ));
            Range::NONE
        }
    }
}

/// The struct's flexible versions. Kafka: "You must specify a value for flexibleVersions.
/// Please use 0+ for all new messages", and they must be "none" or open-ended.
fn struct_flexible(attrs: &StructAttrs, acc: &mut darling::error::Accumulator) -> Range {
    let ident = &attrs.ident;
    match &attrs.flexible {
        Some(f) => {
            if !f.is_empty() && !f.is_open_ended() {
                acc.push(err(
                    f.span(),
                    format!(
                        "flexible versions must be \"none\" or open-ended (\"N+\"), found \"{}\"",
                        **f
                    ),
                ));
            }
            **f
        }
        None => {
            acc.push(err(
                ident.span(),
                format!(
                    "missing `#[kafka(flexible = \"…\")]` on `{ident}`: say where the struct is flexible, e.g. `flexible = \"3+\"`, or `flexible = \"none\"`"
                ),
            ));
            Range::NONE
        }
    }
}

/// Kafka: a message's validVersions must have an upper bound.
fn check_message_max_version(
    attrs: &StructAttrs,
    api: Option<(i16, bool)>,
    acc: &mut darling::error::Accumulator,
) {
    let ident = &attrs.ident;
    if let (Some(_), Some(v)) = (&api, &attrs.versions) {
        if v.is_open_ended() {
            acc.push(err(
                v.span(),
                format!(
                    "message `{ident}` does not specify a maximum version: use \"A-B\", not \"{}\"",
                    **v
                ),
            ));
        }
    }
}

/// A Kafka message has a fixed layout: no type parameters.
fn check_not_generic(attrs: &StructAttrs, acc: &mut darling::error::Accumulator) {
    if !attrs.generics.params.is_empty() {
        acc.push(err(
            attrs.generics.span(),
            "generic structs are not supported: a Kafka message has a fixed layout",
        ));
    }
}

/// The wire fields, checked, and the field that keeps the unknown tagged fields.
fn struct_fields(
    attrs: &StructAttrs,
    flexible: Range,
    acc: &mut darling::error::Accumulator,
) -> (Vec<Field>, Option<syn::Ident>) {
    let raw_fields = match &attrs.data {
        darling::ast::Data::Struct(f) => f.fields.iter().collect::<Vec<_>>(),
        darling::ast::Data::Enum(_) => Vec::new(),
    };
    let mut fields = Vec::new();
    let mut unknown: Option<syn::Ident> = None;
    for f in raw_fields {
        let Some(fident) = f.ident.clone() else {
            continue;
        };
        if is_named(&f.ty, "UnknownTaggedFields") {
            check_one_unknown_field(f, unknown.is_some(), acc);
            unknown = Some(fident);
            continue;
        }
        check_not_recursive(f, &attrs.ident, acc);
        fields.push(check_field(f, fident, flexible, acc));
    }
    (fields, unknown)
}

/// One field keeps the unknown tagged fields: a second could never be filled.
fn check_one_unknown_field(f: &FieldAttrs, seen: bool, acc: &mut darling::error::Accumulator) {
    if seen {
        acc.push(err(
            f.ty.span(),
            "only one field may hold the unknown tagged fields",
        ));
    }
}

/// Kafka's schemas never nest a struct in itself; decoding one would recurse as deep as the
/// input says, and decoding must not overflow the stack.
fn check_not_recursive(f: &FieldAttrs, ident: &syn::Ident, acc: &mut darling::error::Accumulator) {
    if mentions(&f.ty, ident) {
        acc.push(err(
            f.ty.span(),
            format!("`{ident}` cannot contain itself: Kafka structs are not recursive"),
        ));
    }
}

/// A flexible struct keeps the tagged fields it does not declare, so that they survive a
/// decode and re-encode (as Java's `_unknownTaggedFields`).
fn check_flexible_keeps_unknown(
    ident: &syn::Ident,
    flexible: Range,
    unknown: Option<&syn::Ident>,
    acc: &mut darling::error::Accumulator,
) {
    if !flexible.is_empty() && unknown.is_none() {
        acc.push(err(
            ident.span(),
            format!(
                "`{ident}` is flexible in versions {flexible} but has no field of type `UnknownTaggedFields`: add `unknown_tagged_fields: kafka_wire::UnknownTaggedFields` so that tagged fields it does not declare survive decode and re-encode"
            ),
        ));
    }
}

/// Only structs with named fields, like Kafka's schemas. darling's own shape error would
/// point at the derive's call site; these point at what to change.
fn check_shape(input: &syn::DeriveInput) -> Result<(), darling::Error> {
    let ident = &input.ident;
    match &input.data {
        syn::Data::Struct(s) => match &s.fields {
            syn::Fields::Named(_) => Ok(()),
            syn::Fields::Unnamed(f) => Err(err(
                f.span(),
                format!("`KafkaMessage` needs named fields, as in Kafka's schemas: write `struct {ident} {{ name: Type, … }}`, not a tuple struct"),
            )),
            syn::Fields::Unit => Err(err(
                ident.span(),
                format!("`KafkaMessage` needs a struct with braces: write `struct {ident} {{}}` for a struct with no fields"),
            )),
        },
        syn::Data::Enum(e) => Err(err(
            e.enum_token.span,
            format!("`KafkaMessage` cannot be derived for an enum: Kafka structs are structs with named fields; to store `{ident}` as a Kafka integer, implement `kafka_wire::Field` for it by hand"),
        )),
        syn::Data::Union(u) => Err(err(
            u.union_token.span,
            "`KafkaMessage` cannot be derived for a union: Kafka structs are structs with named fields",
        )),
    }
}

/// `api_key` goes with exactly one of `request` / `response`, and they with it.
fn check_api(attrs: &StructAttrs, acc: &mut darling::error::Accumulator) -> Option<(i16, bool)> {
    let (req, resp) = (attrs.request.is_present(), attrs.response.is_present());
    if req && resp {
        acc.push(err(
            attrs.response.span(),
            "a message is either a `request` or a `response`, not both",
        ));
    }
    match &attrs.api_key {
        Some(key) => {
            if !req && !resp {
                acc.push(err(
                    key.span(),
                    "`api_key` needs `request` or `response`: write `#[kafka(api_key = N, request, …)]`",
                ));
                return None;
            }
            Some((key.0, req))
        }
        None => {
            for flag in [&attrs.request, &attrs.response] {
                if flag.is_present() {
                    acc.push(err(
                        flag.span(),
                        "`request` / `response` needs `api_key = N`",
                    ));
                }
            }
            None
        }
    }
}

/// Kafka's `MessageSpec`: "The `latestVersionUnstable` property is only valid for messages
/// with type `request`".
fn check_latest_version_unstable(
    attrs: &StructAttrs,
    api: Option<(i16, bool)>,
    acc: &mut darling::error::Accumulator,
) {
    let flag = &attrs.latest_version_unstable;
    if flag.is_present() && !matches!(api, Some((_, true))) {
        acc.push(err(
            flag.span(),
            "`latest_version_unstable` is only valid on a request message (`api_key = N, request`)",
        ));
    }
}

/// Kafka's `EntityType`: the names it knows, and the type each applies to (`None`: any).
/// An array field takes its element's type, as in `EntityType.verifyTypeMatches`.
fn check_entity_type(f: &FieldAttrs, kind: &Kind, acc: &mut darling::error::Accumulator) {
    let Some(e) = &f.entity_type else { return };
    let base = match e.as_str() {
        "unknown" => None,
        "transactionalId" | "groupId" | "topicName" => Some(Kind::Str),
        "producerId" => Some(Kind::Int {
            bits: 64,
            signed: true,
        }),
        "brokerId" => Some(Kind::Int {
            bits: 32,
            signed: true,
        }),
        other => {
            acc.push(err(
                e.span(),
                format!("unknown entity type {other:?}: expected one of \"unknown\", \"transactionalId\", \"producerId\", \"groupId\", \"topicName\", \"brokerId\""),
            ));
            return;
        }
    };
    let mut k = kind;
    while let Kind::Array(el) = k {
        k = el;
    }
    if let Some(base) = base {
        if *k != base {
            acc.push(err(
                e.span(),
                format!(
                    "entity type {:?} is for {} fields, not {}",
                    e.as_str(),
                    base.kafka_name(),
                    k.kafka_name()
                ),
            ));
        }
    }
}

/// Kafka's `FieldSpec`: "Tagged fields cannot be used as keys".
fn check_map_key_not_tagged(f: &FieldAttrs, acc: &mut darling::error::Accumulator) {
    if f.map_key.is_present() && f.tag.is_some() {
        acc.push(err(
            f.map_key.span(),
            "a tagged field cannot be a `map_key`",
        ));
    }
}

/// Kafka's `FieldSpec`: "Only fields of type bytes can use zeroCopy flag".
fn check_zero_copy_only_bytes(f: &FieldAttrs, kind: &Kind, acc: &mut darling::error::Accumulator) {
    if f.zero_copy.is_present() && *kind != Kind::Bytes {
        acc.push(err(
            f.zero_copy.span(),
            format!(
                "`zero_copy` is only for bytes fields, not {}",
                kind.kafka_name()
            ),
        ));
    }
}

fn span_of<T>(v: &Option<SpannedValue<T>>, fallback: Span) -> Span {
    v.as_ref().map_or(fallback, |v| v.span())
}

/// One field: its model, and every rule of Kafka's `FieldSpec` that concerns it alone.
fn check_field(
    f: &FieldAttrs,
    ident: syn::Ident,
    struct_flexible: Range,
    acc: &mut darling::error::Accumulator,
) -> Field {
    let inner_ty = option_inner(&f.ty);
    let option = inner_ty.is_some();
    let kind = classify(inner_ty.unwrap_or(&f.ty));
    let name = field_name(f, &ident, acc);
    let tagged = f.tagged.as_ref().map(|t| **t);
    let versions = field_versions(f, &ident, tagged, acc);
    let nullable = f.nullable.as_ref().map_or(Range::NONE, |n| **n);

    check_tag_with_tagged(f, acc);
    if let Some(t) = &f.tagged {
        check_tagged_open_ended_in_versions(t, versions, acc);
        check_tagged_in_flexible(f, t, struct_flexible, acc);
        check_records_not_tagged(t, &kind, acc);
        check_nullable_all_or_none_tagged(f, t, nullable, acc);
    }
    check_nullable_is_option(f, &kind, option, acc);
    check_field_flexible(f, &kind, struct_flexible, acc);
    check_array_elements(f, &kind, inner_ty, acc);
    check_entity_type(f, &kind, acc);
    check_map_key_not_tagged(f, acc);
    check_zero_copy_only_bytes(f, &kind, acc);
    let default = build_default(f, &kind, option, nullable, versions, acc);

    Field {
        tag_span: span_of(&f.tag, ident.span()),
        name_span: span_of(&f.name, ident.span()),
        ident,
        ty: f.ty.clone(),
        name,
        versions,
        nullable,
        tag: f.tag.as_ref().map(|t| t.0),
        tagged: tagged.unwrap_or(Range::NONE),
        default_text: f.default.as_ref().map(|d| (**d).clone()),
        default,
        kind,
        option,
        ignorable: f.ignorable.is_present(),
        flexible: f.flexible.as_ref().map(|r| **r),
        about: doc_text(&f.attrs),
        entity_type: f.entity_type.as_ref().map(|e| (**e).clone()),
        map_key: f.map_key.is_present(),
        zero_copy: f.zero_copy.is_present(),
    }
}

/// The field's Kafka name: `name = "…"`, which `FieldSpec.VALID_FIELD_NAMES` requires to
/// match `[A-Za-z][A-Za-z0-9]*`, or the Rust name in `PascalCase`.
fn field_name(f: &FieldAttrs, ident: &syn::Ident, acc: &mut darling::error::Accumulator) -> String {
    match &f.name {
        Some(n) => {
            if !valid_kafka_name(n) {
                acc.push(err(
                    n.span(),
                    format!(
                        "invalid Kafka field name {:?}: expected [A-Za-z][A-Za-z0-9]*",
                        **n
                    ),
                ));
            }
            (**n).clone()
        }
        None => pascal_case(&ident.to_string()),
    }
}

/// `FieldSpec`: versions defaults to taggedVersions; without either it is an error.
fn field_versions(
    f: &FieldAttrs,
    ident: &syn::Ident,
    tagged: Option<Range>,
    acc: &mut darling::error::Accumulator,
) -> Range {
    match (&f.versions, tagged) {
        (Some(v), _) => **v,
        (None, Some(t)) => t,
        (None, None) => {
            acc.push(err(
                ident.span(),
                format!("missing `#[kafka(versions = \"…\")]` on field `{ident}`: say in which versions it is on the wire, e.g. `versions = \"0+\"`"),
            ));
            Range::NONE
        }
    }
}

/// Java's `FieldSpec`: `tag` and `tagged` go together.
fn check_tag_with_tagged(f: &FieldAttrs, acc: &mut darling::error::Accumulator) {
    match (&f.tag, &f.tagged) {
        (Some(t), None) => acc.push(err(
            t.span(),
            "`tag` needs `tagged = \"N+\"`: the versions in which the field is tagged",
        )),
        (None, Some(t)) => acc.push(err(t.span(), "`tagged` needs `tag = N`")),
        _ => {}
    }
}

/// `FieldSpec`: taggedVersions must be open-ended and a subset of versions.
fn check_tagged_open_ended_in_versions(
    t: &SpannedValue<Range>,
    versions: Range,
    acc: &mut darling::error::Accumulator,
) {
    if !t.is_open_ended() {
        acc.push(err(
            t.span(),
            format!(
                "tagged versions must be open-ended (\"N+\"), found \"{}\"",
                **t
            ),
        ));
    } else if !t.is_subset_of(versions) {
        acc.push(err(
            t.span(),
            format!(
                "tagged versions \"{}\" are not a subset of the field's versions \"{versions}\"",
                **t
            ),
        ));
    }
}

/// `MessageDataGenerator`: taggedVersions must be a subset of the flexible versions (the
/// field's own, within the struct's).
fn check_tagged_in_flexible(
    f: &FieldAttrs,
    t: &SpannedValue<Range>,
    struct_flexible: Range,
    acc: &mut darling::error::Accumulator,
) {
    let field_flex = f
        .flexible
        .as_ref()
        .map_or(struct_flexible, |fl| fl.intersect(struct_flexible));
    if !t.is_subset_of(field_flex) {
        acc.push(err(
            t.span(),
            format!("tagged versions \"{}\" are not a subset of the flexible versions \"{field_flex}\": tagged fields exist only in flexible versions", **t),
        ));
    }
}

/// `MessageDataGenerator`: records cannot be tagged.
fn check_records_not_tagged(
    t: &SpannedValue<Range>,
    kind: &Kind,
    acc: &mut darling::error::Accumulator,
) {
    if *kind == Kind::Records {
        acc.push(err(t.span(), "a `records` field cannot be tagged"));
    }
}

/// `FieldSpec`: nullable ∩ tagged must be empty or all of tagged.
fn check_nullable_all_or_none_tagged(
    f: &FieldAttrs,
    t: &SpannedValue<Range>,
    nullable: Range,
    acc: &mut darling::error::Accumulator,
) {
    let both = nullable.intersect(**t);
    if !both.is_empty() && both != **t {
        acc.push(err(
            span_of(&f.nullable, t.span()),
            format!("nullable versions \"{nullable}\" cover only part of the tagged versions \"{}\": they must cover all of them or none", **t),
        ));
    }
}

/// `FieldSpec`: only nullable Kafka types take `nullable`, and here `Option<T>` ⇔ nullable.
fn check_nullable_is_option(
    f: &FieldAttrs,
    kind: &Kind,
    option: bool,
    acc: &mut darling::error::Accumulator,
) {
    let ty_span = f.ty.span();
    if let Some(n) = &f.nullable {
        if !kind.can_be_nullable() {
            acc.push(err(
                n.span(),
                format!("type {} cannot be nullable (only string, bytes, records, arrays and structs can)", kind.kafka_name()),
            ));
        } else if !option {
            acc.push(err(
                ty_span,
                format!("a field with `nullable = \"{}\"` must be an `Option<…>` so that it can hold null", **n),
            ));
        }
        // Not checked against `versions`: Kafka's generator does not, and its own schemas
        // declare nullable versions wider than the field's (CreateTopicsResponse,
        // DescribeConfigsResponse); outside the field's versions they have no effect.
    } else if option {
        acc.push(err(
            ty_span,
            "an `Option<…>` field needs `nullable = \"…\"`: the versions in which it may be null",
        ));
    }
}

/// `FieldSpec`: field-level flexibleVersions, for string and bytes only, within the
/// struct's.
fn check_field_flexible(
    f: &FieldAttrs,
    kind: &Kind,
    struct_flexible: Range,
    acc: &mut darling::error::Accumulator,
) {
    let Some(fl) = &f.flexible else { return };
    if !matches!(kind, Kind::Str | Kind::Bytes) {
        acc.push(err(
            fl.span(),
            format!(
                "`flexible` on a field is only for string and bytes, not {}",
                kind.kafka_name()
            ),
        ));
    } else if !fl.is_subset_of(struct_flexible) {
        acc.push(err(
            fl.span(),
            format!("the field's flexible versions \"{}\" are not a subset of the struct's \"{struct_flexible}\"", **fl),
        ));
    }
}

/// `FieldSpec`: no arrays of arrays, of records, or of nullable elements.
fn check_array_elements(
    f: &FieldAttrs,
    kind: &Kind,
    inner_ty: Option<&syn::Type>,
    acc: &mut darling::error::Accumulator,
) {
    let Kind::Array(el) = kind else { return };
    let ty_span = f.ty.span();
    let el_ty = generic_arg(inner_ty.unwrap_or(&f.ty), "Vec");
    let el_span = el_ty.map_or(ty_span, |t| t.span());
    if matches!(**el, Kind::Array(_)) {
        acc.push(err(el_span, "Kafka has no arrays of arrays"));
    } else if **el == Kind::Records {
        acc.push(err(el_span, "Kafka has no arrays of records"));
    } else if el_ty.is_some_and(|t| option_inner(t).is_some()) {
        acc.push(err(
            el_span,
            "array elements can never be null: use `Vec<T>`, not `Vec<Option<T>>`",
        ));
    }
}

/// A field's default value, typed. `Implicit` is Kafka's implicit default for the type
/// (FieldSpec.fieldDefault: null for a nullable records field, the empty value otherwise);
/// `Empty` is `""`
/// for bytes, arrays and structs. A value other than `Null` is wrapped in `Some` for an
/// `Option` field.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldDefault {
    Implicit,
    Null,
    Bool(bool),
    Int(i128),
    F64(f64),
    Str(String),
    Uuid([u8; 16]),
    Empty,
}

/// The default's value (`FieldSpec.fieldDefault`), or an error on the literal.
fn build_default(
    f: &FieldAttrs,
    kind: &Kind,
    option: bool,
    nullable: Range,
    versions: Range,
    acc: &mut darling::error::Accumulator,
) -> FieldDefault {
    let Some(d) = &f.default else {
        return FieldDefault::Implicit;
    };
    let text = d.as_str();
    let span = d.span();
    if text == "null" {
        check_null_default_nullable(span, option, nullable, versions, acc);
        return FieldDefault::Null;
    }
    // FieldSpec.fieldDefault: Java ignores a records field's JSON default; it is null.
    if *kind == Kind::Records {
        return FieldDefault::Implicit;
    }
    // FieldSpec.fieldDefault: an empty default means the type's implicit default for
    // numbers, bools and uuids too.
    if text.is_empty() && !matches!(kind, Kind::Str) {
        return FieldDefault::Implicit;
    }
    let value = match kind {
        Kind::Bool => match text.to_ascii_lowercase().as_str() {
            "true" => Ok(FieldDefault::Bool(true)),
            "false" => Ok(FieldDefault::Bool(false)),
            _ => Err(format!(
                "invalid default {text:?} for a bool: expected \"true\" or \"false\""
            )),
        },
        Kind::Int { bits, signed } => parse_int(text, *bits, *signed).map(FieldDefault::Int),
        Kind::F64 => parse_f64(text).map(FieldDefault::F64),
        Kind::Str => Ok(FieldDefault::Str(text.to_owned())),
        Kind::Uuid => parse_uuid(text).map(FieldDefault::Uuid),
        Kind::Bytes | Kind::Array(_) | Kind::Records | Kind::Other => {
            if text.is_empty() {
                Ok(FieldDefault::Empty)
            } else {
                Err(format!(
                    "invalid default {text:?}: a {} field's default can only be \"\" or \"null\"",
                    kind.kafka_name()
                ))
            }
        }
    };
    match value {
        Ok(v) => v,
        Err(msg) => {
            acc.push(err(span, msg));
            FieldDefault::Implicit
        }
    }
}

/// fieldDefault: "null cannot be the default for field X, because not all versions of this
/// field are nullable."
fn check_null_default_nullable(
    span: Span,
    option: bool,
    nullable: Range,
    versions: Range,
    acc: &mut darling::error::Accumulator,
) {
    if !option || !versions.is_subset_of(nullable) || nullable.is_empty() {
        acc.push(err(
            span,
            format!("null cannot be the default: not all versions of this field (\"{versions}\") are nullable (\"{nullable}\")"),
        ));
    }
}

/// fieldDefault: decimal or `0x` hex, within the type's range, no negative hex, no leading zero
/// (Kafka's generator would emit it as an octal Java literal).
fn parse_int(text: &str, bits: u8, signed: bool) -> Result<i128, String> {
    let ty = match (bits, signed) {
        (8, _) => "int8",
        (16, true) => "int16",
        (16, false) => "uint16",
        (32, true) => "int32",
        (32, false) => "uint32",
        _ => "int64",
    };
    // Java's valueOf takes an optional sign; the generator reads "0x" only without one.
    let (neg, plus, body) = match (text.strip_prefix('-'), text.strip_prefix('+')) {
        (Some(b), _) => (true, false, b),
        (_, Some(b)) => (false, true, b),
        _ => (false, false, text),
    };
    let v: i128 = if let Some(hex) = body.strip_prefix("0x") {
        if neg || plus {
            return Err(format!(
                "invalid default {text:?} for {ty}: negative hex is not allowed"
            ));
        }
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!(
                "invalid default {text:?} for {ty}: not a hex number"
            ));
        }
        i128::from_str_radix(hex, 16)
            .map_err(|_| format!("invalid default {text:?} for {ty}: out of range"))?
    } else {
        if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!(
                "invalid default {text:?} for {ty}: expected a decimal or 0x-prefixed hex integer"
            ));
        }
        if body.len() > 1 && body.starts_with('0') {
            return Err(format!(
                "invalid default {text:?} for {ty}: leading zeros (octal) are not allowed"
            ));
        }
        let m = body
            .parse::<i128>()
            .map_err(|_| format!("invalid default {text:?} for {ty}: out of range"))?;
        if neg {
            -m
        } else {
            m
        }
    };
    let (min, max): (i128, i128) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    if v < min || v > max {
        return Err(format!(
            "invalid default {text:?} for {ty}: out of range {min}..={max}"
        ));
    }
    Ok(v)
}

/// FieldSpec.fieldDefault: `Double.parseDouble`: decimal and exponent forms, `NaN`, `Infinity`.
fn parse_f64(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let bare = t.trim_start_matches(['+', '-']);
    // Rust's parser also takes "inf" and "nan" in any case; Java takes only these spellings.
    let named = bare == "NaN" || bare == "Infinity";
    if !named
        && bare
            .bytes()
            .any(|b| b.is_ascii_alphabetic() && b != b'e' && b != b'E')
    {
        return Err(format!(
            "invalid default {text:?} for float64: expected a decimal number, NaN or Infinity"
        ));
    }
    t.parse()
        .map_err(|_| format!("invalid default {text:?} for float64"))
}

/// FieldSpec.fieldDefault: a uuid default is the base64url text of its 16 bytes.
fn parse_uuid(text: &str) -> Result<[u8; 16], String> {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let bad =
        || format!("invalid default {text:?} for uuid: expected 22 characters of URL-safe base64");
    let t = text.trim_end_matches('=');
    if t.len() != 22 {
        return Err(bad());
    }
    let mut v: u128 = 0;
    for (i, c) in t.bytes().enumerate() {
        let s = A.iter().position(|&x| x == c).ok_or_else(bad)? as u128;
        if i < 21 {
            v = (v << 6) | s;
        } else {
            if s & 0x0f != 0 {
                return Err(bad());
            }
            v = (v << 2) | (s >> 4);
        }
    }
    Ok(v.to_be_bytes())
}

/// StructSpec: tags are unique and contiguous from 0 within a struct.
fn check_tags(fields: &[Field], acc: &mut darling::error::Accumulator) {
    let mut seen: Vec<(u32, &Field)> = Vec::new();
    for f in fields {
        let Some(tag) = f.tag else { continue };
        if let Some((_, other)) = seen.iter().find(|(t, _)| *t == tag) {
            acc.push(err(
                tag_span(f),
                format!(
                    "duplicate tag {tag}: already used by field `{}`",
                    other.ident
                ),
            ));
            continue;
        }
        seen.push((tag, f));
    }
    let mut tags: Vec<u32> = seen.iter().map(|(t, _)| *t).collect();
    tags.sort_unstable();
    for (i, t) in tags.iter().enumerate() {
        if *t != i as u32 {
            if let Some((_, f)) = seen.iter().find(|(x, _)| x == t) {
                acc.push(err(
                    tag_span(f),
                    format!(
                        "tags must be contiguous from 0: make use of tag {i} before using tag {t}"
                    ),
                ));
            }
            break;
        }
    }
}

fn tag_span(f: &Field) -> Span {
    f.tag_span
}

/// StructSpec: field names are unique within a struct.
fn check_names(fields: &[Field], acc: &mut darling::error::Accumulator) {
    for (i, f) in fields.iter().enumerate() {
        if fields[..i].iter().any(|g| g.name == f.name) {
            acc.push(err(
                f.name_span,
                format!(
                    "duplicate Kafka field name {:?}: another field of this struct already has it",
                    f.name
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(input: syn::DeriveInput) -> usize {
        match Struct::from_input(&input) {
            Ok(_) => 0,
            Err(e) => e.len(),
        }
    }

    #[test]
    fn recursive_structs_are_rejected() {
        let input: syn::DeriveInput = syn::parse_quote! {
            #[kafka(versions = "0", flexible = "none")]
            struct Node {
                #[kafka(versions = "0+")]
                children: Vec<Node>,
                #[kafka(versions = "0+", nullable = "0+")]
                parent: Option<Box<Self>>,
            }
        };
        assert_eq!(errors(input), 2);
    }

    #[test]
    fn names() {
        assert_eq!(pascal_case("v3_and_below_topics"), "V3AndBelowTopics");
        assert_eq!(
            pascal_case("results_by_topic_v3_and_below"),
            "ResultsByTopicV3AndBelow"
        );
        assert!(valid_kafka_name("Abc1") && !valid_kafka_name("1a") && !valid_kafka_name("a_b"));
    }

    #[test]
    fn ints() {
        assert_eq!(parse_int("-1", 32, true), Ok(-1));
        assert_eq!(parse_int("0x7fffffff", 32, true), Ok(0x7fff_ffff));
        assert!(parse_int("0xffff", 16, true).is_err());
        assert!(parse_int("010", 32, true).is_err());
        assert!(parse_int("-0x1", 32, true).is_err());
        assert_eq!(parse_int("65535", 16, false), Ok(65535));
        assert!(parse_int("-1", 16, false).is_err());
        assert_eq!(parse_int("+5", 32, true), Ok(5));
        assert!(parse_int("+0x5", 32, true).is_err());
        assert!(parse_f64("1.5e3").is_ok() && parse_f64("-Infinity").is_ok());
        assert!(parse_f64("NaN").is_ok() && parse_f64("nan").is_err() && parse_f64("inf").is_err());
    }

    fn messages(input: syn::DeriveInput) -> Vec<String> {
        match Struct::from_input(&input) {
            Ok(_) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn shapes_other_than_named_structs_are_one_error() {
        for input in [
            syn::parse_quote!(
                #[kafka(versions = "0", flexible = "none")]
                enum E {
                    A,
                }
            ),
            syn::parse_quote!(
                #[kafka(versions = "0", flexible = "none")]
                struct T(i16);
            ),
            syn::parse_quote!(
                #[kafka(versions = "0", flexible = "none")]
                struct U;
            ),
            syn::parse_quote!(#[kafka(versions = "0", flexible = "none")] union N { a: i16 }),
        ] {
            let m = messages(input);
            assert_eq!(m.len(), 1, "{m:?}");
            assert!(m[0].contains("`KafkaMessage`"), "{m:?}");
        }
    }

    #[test]
    fn integers_are_bare_literals() {
        let m = messages(syn::parse_quote! {
            #[kafka(api_key = "3", request, versions = "0-1", flexible = "none")]
            struct S {
                #[kafka(versions = "0+", tag = -1, tagged = "0+")]
                a: i32,
            }
        });
        assert!(m.iter().any(|e| e.contains("write `api_key = 3`")), "{m:?}");
        assert!(
            m.iter().any(|e| e.contains("`tag` cannot be negative")),
            "{m:?}"
        );
        let m = messages(syn::parse_quote! {
            #[kafka(versions = 5, flexible = "none")]
            struct S {}
        });
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(m[0].contains("write \"5\""), "{m:?}");
    }

    #[test]
    fn accumulates_every_error() {
        let input: syn::DeriveInput = syn::parse_quote! {
            #[kafka(versions = "0-2", flexible = "1+")]
            struct S {
                #[kafka(versions = "0+", nullable = "0+")]
                a: i32,
                #[kafka(versions = "0+", tag = 1, tagged = "1+")]
                b: i32,
                #[kafka(versions = "0+", default = "0xffff")]
                c: i16,
                u: UnknownTaggedFields,
            }
        };
        // nullable int32, non-contiguous tag, bad default.
        assert_eq!(errors(input), 3);
    }

    #[test]
    fn descriptive_attributes_are_checked_as_kafka_does() {
        let m = messages(syn::parse_quote! {
            #[kafka(versions = "0-1", flexible = "none", latest_version_unstable)]
            struct S {
                #[kafka(versions = "0+", entity_type = "topicName")]
                a: i32,
                #[kafka(versions = "0+", entity_type = "topic")]
                b: kafka_wire::Str,
                #[kafka(versions = "0+", zero_copy)]
                c: kafka_wire::Str,
                #[kafka(versions = "0+", entity_type = "brokerId")]
                d: Vec<i32>,
                #[kafka(versions = "0+", entity_type = "brokerId")]
                e: kafka_wire::FixedArray<i32>,
                #[kafka(versions = "0+", entity_type = "producerId")]
                f: FixedArray<i32>,
            }
        });
        assert_eq!(m.len(), 5, "{m:?}");
        // `FixedArray<i32>` is an array of int32, as `Vec<i32>` is.
        assert!(m[4].contains("for int64 fields, not int32"), "{m:?}");
        assert!(m[0].contains("only valid on a request"), "{m:?}");
        assert!(m[1].contains("for string fields, not int32"), "{m:?}");
        assert!(m[2].contains("unknown entity type"), "{m:?}");
        assert!(m[3].contains("only for bytes"), "{m:?}");
        let m = messages(syn::parse_quote! {
            #[kafka(versions = "0-1", flexible = "0+")]
            struct S {
                #[kafka(versions = "0+", tag = 0, tagged = "0+", map_key)]
                a: i32,
                u: UnknownTaggedFields,
            }
        });
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(m[0].contains("cannot be a `map_key`"), "{m:?}");
    }
}
