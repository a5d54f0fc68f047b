//! What the derive emits, as reviewed text: `expand` → `prettyplease` → insta snapshots in
//! `src/snapshots/`. A change to the generated code shows up as a diff to review (accept it
//! with `cargo insta review` or `INSTA_UPDATE=always`).

use syn::parse_quote;

fn pretty(input: syn::DeriveInput) -> String {
    pretty_tokens(crate::expand(&input))
}

/// A flexible top-level request with nullable, ignorable and tagged fields.
#[test]
fn flexible_message() {
    insta::assert_snapshot!(pretty(parse_quote! {
        /// Adds partitions to a transaction.
        #[kafka(api_key = 24, request, versions = "0-5", flexible = "3+")]
        struct AddPartitionsToTxnRequest {
            #[kafka(versions = "0+", nullable = "0+", default = "null")]
            transactional_id: Option<Str>,
            #[kafka(versions = "0+", default = "-1")]
            producer_id: i64,
            #[kafka(versions = "4+", ignorable)]
            verify_only: bool,
            #[kafka(versions = "3+", tag = 0, tagged = "3+", nullable = "3+", default = "null")]
            cookie: Option<Bytes>,
            unknown_tagged_fields: UnknownTaggedFields,
        }
    }));
}

/// A nested struct: no API key, an array of another struct.
#[test]
fn nested_struct() {
    insta::assert_snapshot!(pretty(parse_quote! {
        #[kafka(versions = "0-5", flexible = "3+")]
        struct AddPartitionsToTxnTopic {
            #[kafka(versions = "0+")]
            name: Str,
            #[kafka(versions = "0+")]
            partitions: Vec<i32>,
            unknown_tagged_fields: UnknownTaggedFields,
        }
    }));
}

/// A struct ending in a run of fixed-width fields, with no declared tagged field: the empty
/// tagged section's count is written with the run (`put_run_tags`).
#[test]
fn run_then_tags() {
    insta::assert_snapshot!(pretty(parse_quote! {
        #[kafka(versions = "0-5", flexible = "3+")]
        struct AddPartitionsToTxnPartitionResult {
            #[kafka(versions = "0+")]
            partition_index: i32,
            #[kafka(versions = "0+")]
            partition_error_code: i16,
            unknown_tagged_fields: UnknownTaggedFields,
        }
    }));
}

/// A struct that is never flexible: no tagged section at all.
#[test]
fn non_flexible_struct() {
    insta::assert_snapshot!(pretty(parse_quote! {
        #[kafka(versions = "0-2", flexible = "none")]
        struct ProducePartition {
            #[kafka(versions = "0+")]
            index: i32,
            #[kafka(versions = "1+", default = "0x7f")]
            acks: i16,
        }
    }));
}

/// A field-level `flexible = "none"`: classic encoding even in flexible versions.
#[test]
fn field_level_flexible() {
    insta::assert_snapshot!(pretty(parse_quote! {
        #[kafka(versions = "0-1", flexible = "0+", crate = "crate")]
        struct RequestHeaderLike {
            #[kafka(versions = "0+", nullable = "0+", flexible = "none")]
            client_id: Option<Str>,
            unknown_tagged_fields: UnknownTaggedFields,
        }
    }));
}

/// `outline`: each field that is not fixed-width a call to its type's out-of-line template
/// (`put_out`, `size_out`, `get_out`, `get_or_out`), a version-gated one included; integers
/// and the rest as without it.
#[test]
fn outline_struct() {
    insta::assert_snapshot!(pretty(parse_quote! {
        #[kafka(api_key = 33, request, versions = "0-2", flexible = "2+", outline)]
        struct AlterThingsRequest {
            #[kafka(versions = "0+")]
            name: Str,
            #[kafka(versions = "1+", default = "-1")]
            epoch: i32,
            #[kafka(versions = "0+")]
            items: Vec<i64>,
            unknown_tagged_fields: UnknownTaggedFields,
        }
    }));
}

/// On attribute errors: the errors, then the fallback impls.
#[test]
fn fallback_on_error() {
    insta::assert_snapshot!(pretty_tokens(crate::expand(&parse_quote! {
        #[kafka(versions = "4+x", flexible = "none", api_key = 3, request)]
        struct Broken {
            #[kafka(versions = "0+")]
            a: i32,
        }
    })));
}

fn pretty_tokens(tokens: proc_macro2::TokenStream) -> String {
    match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        // Not expected; the raw tokens still make a reviewable (if ugly) snapshot.
        Err(e) => format!("// does not parse as a file: {e}\n{tokens}"),
    }
}
