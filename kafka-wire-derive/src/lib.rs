//! `#[derive(KafkaMessage)]` for [kafkawire](https://docs.rs/kafkawire).
//!
//! Use it through the runtime crate, which re-exports it and documents every attribute:
//! `use kafka_wire::KafkaMessage;`. The generated code calls helpers that only the matching
//! runtime version provides, which is why the runtime pins this crate with `=`.

mod attr;
mod codegen;
#[cfg(test)]
mod expand_tests;
mod model;
mod range;

use proc_macro::TokenStream;

/// Derives `Field`, `KafkaMessage` (and `ApiMessage` for top-level messages) and `Default`.
/// See `kafka_wire::KafkaMessage` for the attribute reference.
///
/// Mistakes are compile errors on the offending token (the full set is this crate's
/// `tests/ui` suite). The most common ones:
///
/// Every struct says its versions and where it is flexible:
///
/// ```compile_fail
/// use kafka_wire::KafkaMessage;
///
/// #[derive(KafkaMessage)]
/// #[kafka(flexible = "none")] // error: missing `#[kafka(versions = "…")]` on `Heartbeat`
/// struct Heartbeat {
///     #[kafka(versions = "0+")]
///     generation_id: i32,
/// }
/// ```
///
/// An `Option` field must say in which versions it may be null, with `nullable`:
///
/// ```compile_fail
/// use kafka_wire::{KafkaMessage, Str};
///
/// #[derive(KafkaMessage)]
/// #[kafka(versions = "0-3", flexible = "none")]
/// struct Heartbeat {
///     #[kafka(versions = "3+")] // error: an `Option<…>` field needs `nullable = "…"`
///     group_instance_id: Option<Str>,
/// }
/// ```
///
/// A field's type must be a Kafka type (`usize` is not; `i32` is):
///
/// ```compile_fail,E0277
/// use kafka_wire::KafkaMessage;
///
/// #[derive(KafkaMessage)]
/// #[kafka(versions = "0-3", flexible = "none")]
/// struct Heartbeat {
///     #[kafka(versions = "0+")]
///     generation_id: usize, // error: `usize` cannot be a field of a Kafka message
/// }
/// ```
///
/// The same declarations, fixed:
///
/// ```
/// use kafka_wire::{KafkaMessage, Str};
///
/// #[derive(KafkaMessage)]
/// #[kafka(versions = "0-3", flexible = "none")]
/// struct Heartbeat {
///     #[kafka(versions = "0+")]
///     generation_id: i32,
///     #[kafka(versions = "3+", nullable = "3+", default = "null")]
///     group_instance_id: Option<Str>,
/// }
///
/// let h = Heartbeat { generation_id: 7, ..Default::default() };
/// assert_eq!(h.encode_to_vec(3).unwrap(), b"\x00\x00\x00\x07\xff\xff");
/// ```
#[proc_macro_derive(KafkaMessage, attributes(kafka))]
pub fn derive_kafka_message(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand(&input).into()
}

/// The whole expansion on `proc_macro2` types, so it can be tested without a compiler.
pub(crate) fn expand(input: &syn::DeriveInput) -> proc_macro2::TokenStream {
    match model::Struct::from_input(input) {
        Ok(s) => codegen::generate(&s),
        Err(errors) => {
            let mut out = errors.write_errors();
            out.extend(codegen::fallback(input));
            out
        }
    }
}
