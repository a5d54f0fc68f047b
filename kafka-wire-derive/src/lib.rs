//! `#[derive(KafkaMessage)]` for [kafka-wire](https://docs.rs/kafka-wire).
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
